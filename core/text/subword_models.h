// The readers of the parts of a tokenizer.json subword_models.cpp implements: the models other
// than byte-level BPE and WordPiece, the post-processor and the decoder's few settings.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "base/status.h"
#include "text/subword_tokenizer.h"

namespace pe {

struct ModelReaders {
  // `where` names the object in messages ("t.json: model").
  static Status ReadCharBpe(SubwordTokenizer& t, const nlohmann::json& model,
                            const std::string& where);
  static Status CheckDropout(const nlohmann::json& model, const std::string& where);
  // `pieces`, when given, are model.vocab's [piece, score] pairs read beforehand (the
  // document then holds an empty placeholder).
  static Status ReadUnigram(SubwordTokenizer& t, const nlohmann::json& model,
                            const std::string& where,
                            const std::vector<std::pair<std::string, double>>* pieces = nullptr);
  static Status ReadWordLevel(SubwordTokenizer& t, const nlohmann::json& model,
                              const std::string& where);
  static void FindByteFallbackTokens(SubwordTokenizer& t);
  static Status ReadPostProcessor(SubwordTokenizer& t, const nlohmann::json& post,
                                  const std::string& where, int depth = 0);
  // How many leading spaces the decoder drops (Strip, Metaspace); anything else is ignored.
  static void ReadDecoder(SubwordTokenizer& t, const nlohmann::json& decoder);
  // special_ from the added tokens marked special and the post-processor's tokens.
  static void MarkSpecial(SubwordTokenizer& t);
};

}  // namespace pe
