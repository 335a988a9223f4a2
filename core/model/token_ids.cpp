#include "model/token_ids.h"

#include <algorithm>
#include <charconv>

#include "model/embedding.h"

namespace pe {
namespace {

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

}  // namespace

std::string IdPlace(const IdBatch& ids, size_t row, size_t col) {
  if (ids.size() <= 1) return "position " + std::to_string(col);
  return "row " + std::to_string(row) + ", column " + std::to_string(col);
}

Result<IdBatch> ParseIds(const std::string& text) {
  if (Trim(text).empty()) {
    return InvalidArgument(
        "--ids is empty: give token ids such as 2,5,0,9 (a sequence) or 1,2;3,4 (a batch, rows "
        "separated by ';')");
  }
  IdBatch ids;
  const std::vector<std::string> rows = Split(text, ';');
  for (size_t r = 0; r < rows.size(); ++r) {
    if (Trim(rows[r]).empty()) {
      return InvalidArgument("--ids: row " + std::to_string(r) + " is empty (in \"" + text +
                             "\"); rows are separated by ';' and hold ids separated by ','");
    }
    std::vector<int64_t> row;
    const std::vector<std::string> items = Split(rows[r], ',');
    for (size_t c = 0; c < items.size(); ++c) {
      const std::string item = Trim(items[c]);
      // The place as the finished batch will name it (a batch when there is more than one row).
      const std::string place = rows.size() > 1
                                    ? "row " + std::to_string(r) + ", column " + std::to_string(c)
                                    : "position " + std::to_string(c);
      if (item.empty()) {
        return InvalidArgument("--ids: the id at " + place + " is empty (in \"" + text + "\")");
      }
      int64_t v = 0;
      const char* end = item.data() + item.size();
      auto [ptr, ec] = std::from_chars(item.data(), end, v);
      if (ec == std::errc::result_out_of_range) {
        return InvalidArgument("--ids: \"" + item + "\" at " + place +
                               " does not fit a 64-bit integer (ids must be below " +
                               std::to_string(kMaxVocab) + ")");
      }
      if (ec != std::errc() || ptr != end) {
        return InvalidArgument("--ids: \"" + item + "\" at " + place +
                               " is not an integer token id (decimal digits only)");
      }
      row.push_back(v);
    }
    if (!ids.empty() && row.size() != ids.front().size()) {
      return InvalidArgument("--ids: row " + std::to_string(r) + " has " +
                             std::to_string(row.size()) + " ids but row 0 has " +
                             std::to_string(ids.front().size()) +
                             "; every row of a batch must have the same length");
    }
    ids.push_back(std::move(row));
  }
  return ids;
}

std::string FormatIds(const IdBatch& ids) {
  std::string out;
  for (size_t r = 0; r < ids.size(); ++r) {
    if (r > 0) out += ';';
    for (size_t c = 0; c < ids[r].size(); ++c) {
      if (c > 0) out += ',';
      out += std::to_string(ids[r][c]);
    }
  }
  return out;
}

Result<int64_t> IdsVocabSize(const IdBatch& ids, int64_t vocab_size) {
  if (vocab_size > 0) return vocab_size;
  int64_t max_id = -1;
  for (const auto& row : ids) {
    for (int64_t id : row) max_id = std::max(max_id, id);
  }
  if (max_id >= kMaxVocab) {
    return InvalidArgument("--ids: id " + std::to_string(max_id) +
                           " needs a vocabulary larger than the largest allowed, " +
                           std::to_string(kMaxVocab) + " (ids must be in [0, " +
                           std::to_string(kMaxVocab) + "))");
  }
  return std::max<int64_t>(max_id + 1, 1);
}

Status CheckIdBatch(const IdBatch& ids, int64_t vocab_size) {
  for (size_t r = 0; r < ids.size(); ++r) {
    for (size_t c = 0; c < ids[r].size(); ++c) {
      const int64_t id = ids[r][c];
      if (id < 0 || id >= vocab_size) {
        return InvalidArgument("--ids: id " + std::to_string(id) + " at " + IdPlace(ids, r, c) +
                               " is outside [0, " + std::to_string(vocab_size) +
                               "): the vocabulary size is " + std::to_string(vocab_size));
      }
    }
  }
  return {};
}

}  // namespace pe
