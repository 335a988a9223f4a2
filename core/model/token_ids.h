// Token ids typed directly instead of text, as a model receives them: "2,5,0,9" is one sequence,
// "23,37,3,45,82;97,61,19,73,53" a batch of two (rows separated by ';'). Parsing, the
// vocabulary size they imply and the check that every id has a row of the embedding table.
// Messages name the flag (--ids, --vocab-size), the id, where it is and the allowed range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace pe {

using IdBatch = std::vector<std::vector<int64_t>>;  // (batch, tokens); one row: a sequence

// Decimal integers separated by ',' (spaces around them allowed), rows by ';'. Errors: empty
// text, an empty row or item, an item that is not an integer ("2.5", "x", "0x10") or does not
// fit 64 bits, rows of different lengths (naming the row). Negative ids parse; CheckIdBatch
// refuses them.
Result<IdBatch> ParseIds(const std::string& text);
// The text ParseIds reads back: "2,5,0,9" or "1,2;3,4"; "" for no ids.
std::string FormatIds(const IdBatch& ids);

// Where an id is, for messages: "position 3" for a sequence, "row 1, column 3" for a batch.
std::string IdPlace(const IdBatch& ids, size_t row, size_t col);

// The vocabulary size V for `ids`: `vocab_size` when given (> 0), else max id + 1, the smallest
// table that holds every id (the table's rows do not depend on V, only the check does).
// An error when that exceeds kMaxVocab (embedding.h).
Result<int64_t> IdsVocabSize(const IdBatch& ids, int64_t vocab_size);

// Ok when every id is in [0, V); else an error naming the id, its place and V.
Status CheckIdBatch(const IdBatch& ids, int64_t vocab_size);

}  // namespace pe
