#include "cli/tokenize_command.h"

#include <nlohmann/json.hpp>

#include "base/matrix.h"
#include "text/subword_tokenizer.h"
#include "text/tokenizer.h"

namespace pe {

int RunTokenize(const TokenizeRequest& request, std::ostream& out, std::ostream& errors) {
  auto fail = [&](const Error& e) {
    errors << "pe-explorer tokenize: " << e.message << "\n";
    return e.kind == Error::Kind::kInvalidArgument ? 2 : 1;
  };
  SpecialTokens special = SpecialTokens::kAdd;
  if (request.special_tokens == "none") {
    special = SpecialTokens::kNone;
  } else if (request.special_tokens != "add") {
    return fail(InvalidArgument("--special-tokens must be add or none, not \"" +
                                request.special_tokens + "\""));
  }
  if (request.tokenizer_file.empty()) {
    return fail(InvalidArgument(
        "tokenize needs --tokenizer-file FILE (a tokenizer.json or a GPT-2 folder)"));
  }
  if (!request.text_file.empty() && request.text_given) {
    return fail(InvalidArgument("give --text or --text-file, not both"));
  }
  if (request.text_file.empty() && !request.text_given) {
    return fail(InvalidArgument("tokenize needs --text TEXT or --text-file FILE"));
  }
  const MemoryCap cap;
  std::string text = request.text;
  if (!request.text_file.empty()) {
    Result<std::string> t = ReadTextFile(request.text_file, cap);
    if (!t.ok()) return fail(t.error());
    text = std::move(t).value();
  }
  Result<std::shared_ptr<const SubwordTokenizer>> tok =
      LoadSubwordTokenizer(request.tokenizer_file, cap);
  if (!tok.ok()) return fail(tok.error());
  const SubwordTokenizer& t = *tok.value();
  Result<std::vector<SubwordPiece>> pieces = t.Encode(text, special);
  if (!pieces.ok()) {
    return fail(InvalidArgument(
        (request.text_file.empty() ? "--text: " : request.text_file + ": ") + pieces.message()));
  }
  if (request.json) {
    nlohmann::json ids = nlohmann::json::array(), tokens = nlohmann::json::array();
    for (const SubwordPiece& p : pieces.value()) {
      ids.push_back(p.id);
      tokens.push_back(t.token(p.id));
    }
    out << nlohmann::json{{"ids", ids}, {"tokens", tokens}}.dump() << "\n";
    return 0;
  }
  int64_t position = 0;
  for (const SubwordPiece& p : pieces.value()) {
    out << position++ << "\t" << p.id << "\t" << t.DisplayToken(p.id) << "\t" << (p.end - p.begin)
        << "\n";
  }
  return 0;
}

}  // namespace pe
