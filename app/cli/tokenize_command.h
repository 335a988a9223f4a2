// `pe-explorer tokenize`: a text's tokens under a tokenizer file, one line each, or as JSON.
#pragma once

#include <iostream>
#include <string>

namespace pe {

struct TokenizeRequest {
  std::string tokenizer_file;
  std::string text;
  std::string text_file;  // read instead of `text` when given
  bool text_given = false;
  std::string special_tokens = "add";  // add | none
  bool json = false;
};

// Prints one line per token: position, id, the token as readable text (DisplayToken: ␣ a
// space, ↵ a newline, <0xE2> a byte piece, ▁ kept where the token has it), the bytes of the
// text it covers; tab-separated. --json: {"ids": [...], "tokens": [...]} with the vocabulary's
// strings. Exit 0; 2 for bad input; 1 when a file cannot be read.
int RunTokenize(const TokenizeRequest& request, std::ostream& out = std::cout,
                std::ostream& errors = std::cerr);

}  // namespace pe
