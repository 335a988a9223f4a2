#include "views/walkthrough.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "base/random.h"
#include "figure/colormap.h"
#include "io/loaded_table.h"
#include "io/read_support.h"
#include "model/embedding.h"
#include "model/walkthrough_presets.h"
#include "text/tokenizer.h"

namespace pe {

std::string_view WalkStepName(WalkStep step) {
  switch (step) {
    case WalkStep::kText:
      return "Text";
    case WalkStep::kTokens:
      return "Tokens";
    case WalkStep::kIds:
      return "Ids";
    case WalkStep::kLookup:
      return "Rows of E";
    case WalkStep::kScale:
      return "\xc3\x97 \xe2\x88\x9a"
             "d";
    case WalkStep::kPosition:
      return "+ PE";
    case WalkStep::kDropout:
      return "Dropout";
    case WalkStep::kInput:
      return "Model input";
    case WalkStep::kQueryKey:
      return "q and k";
    case WalkStep::kFourTerms:
      return "Four terms";
    case WalkStep::kRotation:
      return "Rotation";
    case WalkStep::kDecay:
      return "Decay";
    case WalkStep::kBiases:
      return "Biases";
    case WalkStep::kSoftmaxRow:
      return "Softmax row";
    case WalkStep::kLongContext:
      return "Long context";
    case WalkStep::kLayers:
      return "Layers";
  }
  return "?";
}

std::span<const WalkStep> WalkStepsOf(WalkthroughKind kind) {
  if (kind == WalkthroughKind::kAttention) return kAttentionSteps;
  return kWalkSteps;
}

namespace {

// Every batch row of the example as one sentence of batch * T tokens, rows one after another
// (out[i, j] is token i * T + j), the way the walkthrough lists a batch.
Result<SentenceResult> WholeBatch(const TextExample& ex, const Encoding& encoding,
                                  const InputLayerParams& input, const MemoryCap& cap) {
  Result<std::vector<SentenceResult>> rows = ComputeBatch(ex, encoding, input, cap);
  if (!rows.ok()) return rows.error();
  std::vector<SentenceResult>& all = rows.value();
  SentenceResult s = std::move(all.front());
  for (size_t b = 1; b < all.size(); ++b) {
    const SentenceResult& r = all[b];
    s.tokens.insert(s.tokens.end(), r.tokens.begin(), r.tokens.end());
    s.ids.insert(s.ids.end(), r.ids.begin(), r.ids.end());
    for (Matrix InputParts::*part :
         {&InputParts::embedding, &InputParts::scaled, &InputParts::positional, &InputParts::sum}) {
      Matrix& to = s.parts.*part;
      const Matrix& from = r.parts.*part;
      to.data.insert(to.data.end(), from.data.begin(), from.data.end());
      to.rows += from.rows;
    }
  }
  s.batch = static_cast<int64_t>(all.size());
  return s;
}

constexpr int64_t kShownValues = 8;  // values of a vector written out on a page
constexpr size_t kShownTokens = 12;  // tokens, ids and vocabulary entries listed
constexpr size_t kShownChips = 24;   // tokens drawn as boxes on a page

std::string Fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Join(const std::vector<std::string>& items, const char* sep, size_t max_items) {
  std::string s;
  for (size_t k = 0; k < items.size() && k < max_items; ++k) {
    if (k > 0) s += sep;
    s += items[k];
  }
  if (items.size() > max_items) {
    s += sep;
    s += "... (" + std::to_string(items.size()) + " in all)";
  }
  return s;
}

std::string IdList(const std::vector<int64_t>& ids, size_t max_items) {
  std::vector<std::string> items;
  for (int64_t id : ids) items.push_back(std::to_string(id));
  std::string s = "[";
  s += Join(items, ", ", max_items);
  s += "]";
  return s;
}

// "[0.909297, -0.416147, ...] (first 8 of 128)"
std::string VecText(const float* v, int64_t d) {
  std::string s = "[";
  for (int64_t j = 0; j < std::min(d, kShownValues); ++j) {
    if (j > 0) s += ", ";
    s += Fmt(v[j]);
  }
  s += d > kShownValues
           ? ", ...] (first " + std::to_string(kShownValues) + " of " + std::to_string(d) + ")"
           : "]";
  return s;
}

double Norm(const float* v, int64_t d) {
  double acc = 0;
  for (int64_t j = 0; j < d; ++j) acc += static_cast<double>(v[j]) * v[j];
  return std::sqrt(acc);
}

std::vector<double> Row(const Matrix& m, int64_t r) {
  if (r < 0 || r >= m.rows) return {};
  return std::vector<double>(m.row(r), m.row(r) + m.cols);
}

// Every row of a small table ("I: [0.11, 0.32, 0.43]"), or the followed token's row.
void AddRows(std::vector<std::string>& out, const Walkthrough& w, const Matrix& m,
             const std::string& what) {
  const int64_t t_count = m.rows;
  if (t_count == 0) {
    out.push_back(what + ": no tokens");
    return;
  }
  if (t_count <= 6 && m.cols <= kShownValues) {
    out.push_back(what + ":");
    for (int64_t t = 0; t < t_count; ++t) {
      out.push_back("  " + w.token_labels[static_cast<size_t>(t)] + ": " +
                    VecText(m.row(t), m.cols));
    }
    return;
  }
  const auto f = static_cast<size_t>(w.focus);
  out.push_back(what + " of \"" + w.token_labels[f] + "\": " + VecText(m.row(w.focus), m.cols));
}

// A tokens-by-dimension table as a step's image: its first kWalkMatrixRows rows and
// kWalkMatrixCols columns, the followed token's row outlined.
WalkMatrix MatrixOfRows(const Matrix& m, const std::string& caption, int focus) {
  WalkMatrix out;
  out.caption = caption;
  out.full_cols = m.cols;
  const int64_t rows = std::min(m.rows, kWalkMatrixRows), cols = std::min(m.cols, kWalkMatrixCols);
  out.values.rows = rows;
  out.values.cols = cols;
  out.values.data.resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(m.row(r), m.row(r) + cols, out.values.row(r));
    out.row_ids.push_back(r);
  }
  out.row_axis = "token";
  if (m.rows > rows) {
    out.caption +=
        " (the first " + std::to_string(rows) + " of " + std::to_string(m.rows) + " tokens)";
  }
  if (focus >= 0 && focus < rows) {
    out.focus_row = focus;
    out.outlined.push_back(focus);
  }
  return out;
}

const char* kWhyScale =
    "Why: rows drawn N(0, 1) as nn.Embedding draws them have |E[id]| \xe2\x89\x88 \xe2\x88\x9a"
    "d, so times \xe2\x88\x9a"
    "d they dwarf PE; fairseq and tensor2tensor draw E with std d^-1/2 (|E[id]| \xe2\x89\x88 1), "
    "and the scaling brings those rows to PE's size.";

// What every step builder reads: the request, the walkthrough filled so far, and what the
// steps share about the followed token and where E comes from.
struct WalkContext {
  WalkContext(const ModelParams& request, const Encoding& scheme, Walkthrough& out)
      : params(request), encoding(scheme), ex(request.example), w(out) {}
  const ModelParams& params;
  const Encoding& encoding;
  const TextExample& ex;
  const WalkthroughPreset* preset = nullptr;
  Walkthrough& w;
  int64_t d = 0;
  std::string vocab_text, unk_text;  // the ids page's vocabulary and <unk> lines
  // The followed token: its index f, its label (or "(no token)") and its position.
  int64_t tokens = 0;
  size_t f = 0;
  bool any = false;
  std::string who;
  int64_t pos = 0;
  double sqrt_d = 0;
  // Where E comes from, for the lookup and scale pages: typed rows, a loaded table, or an
  // untrained draw from its initialiser and seed.
  const LoadedTable* loaded_e = nullptr;
  std::string e_line, e_source;
};

// One label per token: the token's text, or "id 5" / "x[b, t]" for typed ids the input layer
// took, with each token's position (the offset plus its place in its batch row).
void LabelTokens(WalkContext& c, const SentenceResult& s, bool ids_typed) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const auto seq = ids_typed && !w.ids_pending ? static_cast<int64_t>(ex.ids.front().size())
                                               : static_cast<int64_t>(s.ids.size());
  for (size_t t = 0; t < s.ids.size(); ++t) {
    const auto k = static_cast<int64_t>(t);
    w.positions.push_back(c.params.pe.offset + (seq > 0 ? k % seq : k));
    if (ids_typed && !w.ids_pending) {
      w.token_labels.push_back(ex.ids.size() > 1 ? "x[" + std::to_string(k / seq) + ", " +
                                                       std::to_string(k % seq) + "]"
                                                 : "id " + std::to_string(s.ids[t]));
    } else {
      w.token_labels.push_back(s.tokens[t].text == " " ? "\xe2\x90\xa3"
                                                       : VisibleWhitespace(s.tokens[t].text));
    }
  }
}

// The vocabulary size and the ids page's vocabulary and <unk> lines, by where the ids come
// from: a word-vector file, typed ids, a tokenizer file or the word/character vocabulary.
void DescribeVocabulary(WalkContext& c, const SentenceResult& s, bool ids_typed) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  std::string& vocab_text = c.vocab_text;
  std::string& unk_text = c.unk_text;
  const LoadedTable* loaded = ex.embeddings.table.get();
  if (loaded != nullptr && loaded->has_words() && !ids_typed) {
    // A word-vector file: its words are the vocabulary and a word's id is its row.
    w.vocab_size = s.vocab_size;
    vocab_text = "the word-vector file's words (" + Quoted(ex.embeddings.spec) + ", " +
                 std::to_string(loaded->rows()) + " words): a word's id is its row";
    const int64_t unk = loaded->FindWord(kUnknownToken);
    unk_text = unk >= 0
                   ? "a word the file lacks takes the row of its " + std::string(kUnknownToken) +
                         " (id " + std::to_string(unk) + ")"
                   : "a word the file lacks gets id " + std::to_string(loaded->rows()) +
                         ", a row of zeros (the file has no " + std::string(kUnknownToken) + ")";
    if (!s.unknown_tokens.empty()) {
      unk_text +=
          "; " + std::to_string(s.unknown_tokens.size()) +
          (s.unknown_tokens.size() == 1 ? " word of the text is" : " words of the text are") +
          " not in the file";
    }
  } else if (ids_typed && !w.ids_pending) {
    w.vocab_size = ex.vocab_size;
    vocab_text = "typed ids: the vocabulary has " + std::to_string(ex.vocab_size) +
                 " entries, ids 0 to " + std::to_string(ex.vocab_size - 1) +
                 " (no words: the ids are given)";
    unk_text = "no text, so no <unk>: every id must lie in [0, V)";
  } else if (ex.subword) {
    w.vocab_size = s.vocab_size;
    vocab_text = "the tokenizer file's vocabulary (" + ex.subword->Describe() + "): ids 0 to " +
                 std::to_string(s.vocab_size - 1);
    switch (ex.subword->model()) {
      case SubwordTokenizer::Model::kByteLevelBpe:
        unk_text = "no <unk>: byte-level BPE can spell any text from its 256 byte tokens";
        break;
      case SubwordTokenizer::Model::kWordPiece:
        unk_text = "a word WordPiece cannot build from its pieces becomes [UNK]";
        break;
      case SubwordTokenizer::Model::kWordLevel:
        unk_text = "a word the vocabulary lacks becomes the unknown token";
        break;
      default:
        unk_text = ex.subword->ByteFallbackByte(ex.subword->Id("<0x41>")) == 0x41
                       ? "a character the vocabulary lacks becomes its UTF-8 bytes, one <0xNN> "
                         "token each (byte fallback)"
                       : "a character the vocabulary lacks becomes the unknown token";
        break;
    }
  } else {
    w.vocab_size = s.vocabulary.size();
    std::vector<std::string> entries;
    for (int64_t id = 0; id < s.vocabulary.size(); ++id) {
      entries.push_back(s.vocabulary.word(id) + "=" + std::to_string(id));
    }
    vocab_text = (ex.vocabulary.empty() ? "vocabulary in order of first appearance: "
                                        : "fixed vocabulary (in list order): ") +
                 Join(entries, " ", kShownTokens);
    unk_text =
        s.vocabulary.unknown_id() >= 0
            ? "<unk> (id " + std::to_string(s.vocabulary.unknown_id()) +
                  ") stands for every word the fixed vocabulary lacks"
            : "<unk> is the id a fixed vocabulary gives a word it lacks; a vocabulary built from "
              "the text has every word, so it has none";
  }
  if (loaded != nullptr && !loaded->has_words()) {
    // A loaded tensor: the ids, typed or from the text, index its rows.
    w.vocab_size = s.vocab_size;
    vocab_text += "; the ids index the rows of " + Quoted(ex.embeddings.spec) + " (ids 0 to " +
                  std::to_string(loaded->rows() - 1) + ")";
  }
  if (c.preset != nullptr && c.preset->typed != nullptr && w.typed) {
    vocab_text +=
        "; the blog numbers its words from 1 (I = 1, love = 2, NLP = 3), so its "
        "E[1], E[2], E[3] are typed here as E[0], E[1], E[2]";
  }
}

// Runs the example through the input layer (as every other view does, so the steps, the sums
// view and the exports agree) and keeps its ids, labels, positions and parts.
Status ReadExample(WalkContext& c) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const ModelParams& params = c.params;
  Result<SentenceResult> r = WholeBatch(ex, c.encoding, params.input, params.cap);
  if (!r.ok()) return r.error();
  SentenceResult& s = r.value();
  std::vector<int64_t> typed_ids;
  for (const auto& row : ex.ids) typed_ids.insert(typed_ids.end(), row.begin(), row.end());
  const bool ids_typed = !typed_ids.empty();
  w.ids_pending = ids_typed && typed_ids != s.ids;
  w.ids = s.ids;
  LabelTokens(c, s, ids_typed);
  DescribeVocabulary(c, s, ids_typed);
  if (params.input.pe_discarded) {
    // The code adds a table that stayed zero (the input layer computes that, as every view
    // shows it); the intended rows are the scheme's, kept beside them.
    w.pe_discarded = true;
    InputLayerParams intended = params.input;
    intended.pe_discarded = false;
    Result<SentenceResult> full = WholeBatch(ex, c.encoding, intended, params.cap);
    if (!full.ok()) return full.error();
    w.intended_positional = std::move(full.value().parts.positional);
  }
  w.parts = std::move(s.parts);
  return Status();
}

// The token the pages follow (`focus` clamped to the tokens; -1 means 0).
void FollowToken(WalkContext& c, int focus) {
  Walkthrough& w = c.w;
  c.tokens = w.parts.tokens();
  w.focus =
      c.tokens == 0 ? 0 : std::clamp(focus < 0 ? 0 : focus, 0, static_cast<int>(c.tokens - 1));
  c.f = static_cast<size_t>(w.focus);
  c.any = c.tokens > 0;
  c.who = c.any ? "\"" + w.token_labels[c.f] + "\"" : std::string("(no token)");
  c.pos = c.any ? w.positions[c.f] : 0;
  c.sqrt_d = std::sqrt(static_cast<double>(c.d));
}

void DescribeEmbeddingSource(WalkContext& c) {
  const Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const int64_t d = c.d;
  c.loaded_e = w.typed ? nullptr : ex.embeddings.table.get();
  const LoadedTable* loaded_e = c.loaded_e;
  if (w.typed) {
    c.e_line = "E: typed rows E[0] to E[" + std::to_string(ex.embedding_rows.size() - 1) +
               "] (--embedding-rows)" +
               (c.preset != nullptr && c.preset->typed != nullptr
                    ? std::string(": the blog's E[1], E[2], E[3]")
                    : std::string());
    c.e_source = "typed";
  } else if (loaded_e != nullptr) {
    c.e_line = "E: the loaded table " + Quoted(ex.embeddings.spec) + ", " +
               std::to_string(loaded_e->rows()) + " \xc3\x97 " + std::to_string(loaded_e->cols()) +
               (loaded_e->has_words() ? " (word vectors: each row is a word's vector)" : "");
    c.e_source = "loaded";
  } else if (ex.init == EmbeddingInit::kTorch) {
    c.e_line = "E: torch.manual_seed(" + std::to_string(ex.torch_seed) + "); nn.Embedding(" +
               std::to_string(w.vocab_size) + ", " + std::to_string(d) +
               ").weight, PyTorch's own numbers";
    c.e_source = "N(0, 1)";
  } else {
    c.e_source = InitFormula(ex.init, d);
    c.e_line = "E: " + c.e_source + " from seed " + std::to_string(ex.seed) + ", untrained" +
               (ex.init == EmbeddingInit::kNormal1 ? ", as nn.Embedding draws it" : "");
  }
}

// 1. Text.
void TextStep(WalkContext& c, WalkPage& p) {
  const Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  p.title += ": what the model is given";
  p.explanation =
      "A transformer never sees letters: the text is cut into tokens and each token becomes a "
      "number before anything is learned about it.";
  p.formula =
      "text \xe2\x86\x92 tokens \xe2\x86\x92 ids \xe2\x86\x92 E[id] \xc3\x97 \xe2\x88\x9a"
      "d + PE[p] \xe2\x86\x92 dropout \xe2\x86\x92 model input";
  p.code =
      "The blog starts from the sentence \"I love NLP.\"; the PyTorch notes from \"The cat "
      "sits\".";
  if (!ex.ids.empty() && !w.ids_pending) {
    p.numbers.push_back("no text: the token ids are typed directly");
  } else {
    p.numbers.push_back(
        "text: " + (ex.text.empty() ? std::string("\"\" (empty)") : AbbreviatedText(ex.text, 400)));
  }
  if (w.typed || w.typed_positional) {
    p.numbers.push_back(std::string("typed rows: ") + (w.typed ? "E (--embedding-rows)" : "") +
                        (w.typed && w.typed_positional ? " and " : "") +
                        (w.typed_positional ? "PE (--positional-rows)" : "") +
                        " are given, not computed");
  }
  if (c.preset != nullptr) p.numbers.push_back("example: " + std::string(c.preset->source));
  if (ex.ids.empty() || w.ids_pending) {
    p.chips.push_back({ex.text.empty() ? std::string("\"\" (empty)") : AbbreviatedText(ex.text, 80),
                       "what the model is given", false});
  }
  p.highlight_text = "The sums view shows the same example.";
}

// 2. Tokens.
void TokensStep(WalkContext& c, WalkPage& p) {
  const Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  p.title += ": the text cut into pieces";
  p.explanation = ex.subword ? "The tokenizer file cuts the text into the subword pieces its model "
                               "was trained with (" +
                                   ex.subword->Describe() + ")."
                  : ex.tokenizer == TokenizerKind::kChar
                      ? "The character tokenizer makes every character, spaces included, a token."
                      : "The word tokenizer makes every run of letters or digits a token and "
                        "every other non-space character a token of its own.";
  p.formula = ex.subword ? std::string("tokens = tokenizer.encode(text)   (subword)")
                         : "tokens = tokenize(text)   (" +
                               std::string(TokenizerName(ex.tokenizer)) + " level)";
  p.code =
      "No tokenizer in the tutorials' code: the Annotated-Transformer-style tutorial says its "
      "ids would come from a BPE or "
      "WordPiece tokenizer; the blog splits \"I love NLP.\" into words.";
  p.numbers.push_back("tokens (T = " + std::to_string(c.tokens) +
                      "): " + Join(w.token_labels, " | ", kShownTokens));
  if (w.ids_pending) {
    p.numbers.push_back("the typed ids " +
                        IdList(
                            [&] {
                              std::vector<int64_t> all;
                              for (const auto& r : ex.ids)
                                all.insert(all.end(), r.begin(), r.end());
                              return all;
                            }(),
                            kShownTokens) +
                        " are not taken by this build's input layer yet: the steps show the "
                        "text's tokens");
  }
  for (size_t t = 0; t < w.token_labels.size() && t < kShownChips; ++t) {
    p.chips.push_back({w.token_labels[t], "", t == c.f});
  }
  p.highlight_text = "Sums view: the chip of " + c.who + " is selected.";
}

// 3. Ids.
void IdsStep(WalkContext& c, WalkPage& p) {
  const Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  p.title += ": each token's row number";
  p.explanation =
      "Each token is replaced by its index in the vocabulary; that index is all the model keeps "
      "of the token.";
  p.formula = "id_t = vocabulary[token_t]   (a word the vocabulary lacks \xe2\x86\x92 <unk>)";
  p.code =
      "The PyTorch notes: torch.tensor([2, 5, 0, 9], dtype=torch.long); its notes map "
      "\"The cat sits\" to [0, 1, 2], and the Annotated-Transformer-style tutorial types its "
      "batch of ids the same way.";
  p.numbers.push_back(c.vocab_text);
  p.numbers.push_back(c.unk_text);
  if (!ex.ids.empty() && !w.ids_pending && ex.ids.size() > 1) {
    std::string rows;
    for (const auto& r : ex.ids) rows += (rows.empty() ? "" : ", ") + IdList(r, kShownTokens);
    p.numbers.push_back("ids (" + std::to_string(ex.ids.size()) + ", " +
                        std::to_string(ex.ids.front().size()) + "): [" + rows + "]");
  } else {
    p.numbers.push_back("ids (T = " + std::to_string(c.tokens) + "): " + IdList(w.ids, 32));
  }
  for (int64_t id : w.ids) p.values.push_back(static_cast<double>(id));
  if (ex.subword) {
    // The special tokens: added by the tokenizer's post-processor (--special-tokens add) or typed.
    std::string special;
    int named = 0;
    for (int64_t id : w.ids) {
      if (!ex.subword->IsSpecial(id) || named >= 8) continue;
      special += (special.empty() ? "" : ", ") + ex.subword->token(id) + " (id " +
                 std::to_string(id) + ")";
      ++named;
    }
    if (!special.empty()) {
      p.numbers.push_back("special tokens (--special-tokens " +
                          std::string(SpecialTokensName(ex.special_tokens)) + "): " + special);
    }
  }
  for (size_t t = 0; t < w.token_labels.size() && t < w.ids.size() && t < kShownChips; ++t) {
    p.chips.push_back({w.token_labels[t], "id " + std::to_string(w.ids[t]), t == c.f});
  }
  p.highlight_text = "Sums view: the chip of " + c.who + " shows its id.";
}

// 4. Rows of E.
void LookupStep(WalkContext& c, WalkPage& p) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const int64_t d = c.d;
  p.title += ": each id picks one row of the embedding table";
  p.explanation =
      "The embedding table E has one row of d numbers per vocabulary entry; looking "
      "a token up is reading the row its id names.";
  p.formula = "e_t = E[id_t, :],   E is V \xc3\x97 d = " + std::to_string(w.vocab_size) +
              " \xc3\x97 " + std::to_string(d);
  p.code =
      "The PyTorch notes: word_lookup(input_tokens), an nn.Embedding lookup; the "
      "Annotated-Transformer-style tutorial writes the same "
      "as out[i, j] = W[x[i, j]], and the JAX/Haiku notebook uses Haiku's Embed module.";
  p.numbers.push_back(c.e_line);
  if (c.any) {
    p.numbers.push_back("rows looked up: " + IdList(w.ids, 32) + " (outlined below)");
    AddRows(p.numbers, w, w.parts.embedding, "E[id]");
    p.numbers.push_back("|E[" + std::to_string(w.ids[c.f]) +
                        "]| = " + Fmt(w.parts.Norm(Part::kEmbedding, w.focus)));
  }
  if (!ex.ids.empty() && !w.ids_pending && ex.ids.size() > 1) {
    p.numbers.push_back("out has shape (" + std::to_string(ex.ids.size()) + ", " +
                        std::to_string(ex.ids.front().size()) + ", " + std::to_string(d) +
                        "): out[i, j] = E[x[i, j]]");
  }
  p.values = Row(w.parts.embedding, w.focus);
  p.highlight_text = "Sums view: the embedding part of " + c.who + ".";
  // E's rows as an image: the whole table when small, else the rows looked up.
  WalkMatrix m;
  m.caption = "E: rows (ids) by dimension, looked-up rows outlined";
  m.row_axis = "id";
  m.full_cols = d;
  std::vector<int64_t> rows;
  if (w.vocab_size <= kWalkMatrixRows) {
    for (int64_t id = 0; id < w.vocab_size; ++id) rows.push_back(id);
  } else {
    std::set<int64_t> distinct(w.ids.begin(), w.ids.end());
    rows.assign(distinct.begin(), distinct.end());
    if (static_cast<int64_t>(rows.size()) > kWalkMatrixRows) rows.resize(kWalkMatrixRows);
    m.caption = "E: the looked-up rows (of " + std::to_string(w.vocab_size) + ") by dimension";
  }
  const int64_t cols = std::min(d, kWalkMatrixCols);
  m.values.rows = static_cast<int64_t>(rows.size());
  m.values.cols = cols;
  m.values.data.resize(rows.size() * static_cast<size_t>(cols));
  // The table's rows as the sentence's embedding part makes them (its initialiser and seed).
  Result<Matrix> table_rows = ExampleEmbeddingRows(ex, w.vocab_size, d, rows);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      m.values.at(static_cast<int64_t>(r), j) =
          table_rows.ok() ? table_rows.value().at(static_cast<int64_t>(r), j) : 0.0f;
    }
    const bool looked_up = std::find(w.ids.begin(), w.ids.end(), rows[r]) != w.ids.end();
    if (looked_up) m.outlined.push_back(static_cast<int64_t>(r));
    if (c.any && rows[r] == w.ids[c.f]) m.focus_row = static_cast<int64_t>(r);
  }
  m.row_ids = rows;
  w.matrices[static_cast<size_t>(WalkStep::kLookup)].push_back(std::move(m));
}

// 5. x sqrt(d).
void ScaleStep(WalkContext& c, WalkPage& p) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const ModelParams& params = c.params;
  const int64_t d = c.d;
  const double sqrt_d = c.sqrt_d;
  p.title += ": the embedding scaled";
  p.explanation = params.input.scale
                      ? "The looked-up row is multiplied by \xe2\x88\x9a"
                        "d, as the paper does in its embedding layers (section 3.4)."
                      : "Scaling is off here (as in the blog's sum), so the row goes on as it is.";
  p.formula =
      "s_t = e_t \xc3\x97 " + std::string(params.input.scale ? "\xe2\x88\x9a"
                                                               "d = e_t \xc3\x97 " +
                                                                   Fmt(sqrt_d)
                                                             : std::string("1 (scaling off)"));
  p.code =
      "The PyTorch notes: self.token_mapping(indices) * self.scaling; the JAX/Haiku notebook and "
      "the Annotated-Transformer-style tutorial multiply by "
      "the square root of d_model the same way.";
  if (c.any) {
    AddRows(p.numbers, w, w.parts.scaled, "scaled");
    const double e_norm = w.parts.Norm(Part::kEmbedding, w.focus);
    const double pe_norm = Norm(
        w.pe_discarded ? w.intended_positional.row(w.focus) : w.parts.positional.row(w.focus), d);
    const std::string scaled_name = params.input.scale ? "|E[id] \xc3\x97 \xe2\x88\x9a"
                                                         "d|"
                                                       : "|E[id]| (scaling off)";
    const double scale = params.input.scale ? sqrt_d : 1.0;
    const std::string pe_name = "|PE[" + std::to_string(c.pos) + "]|";
    p.numbers.push_back(
        (w.typed                 ? std::string("the typed rows: |E[id]| = ")
         : c.loaded_e != nullptr ? "the loaded rows: |E[id]| = "
                                 : c.e_source + " rows (this example): |E[id]| = ") +
        Fmt(e_norm) + ", " + scaled_name + " = " + Fmt(e_norm * scale) + ", " + pe_name + " = " +
        Fmt(pe_norm) +
        (pe_norm > 0 ? ": " + Fmt(e_norm * scale / pe_norm) + " times PE's" : std::string()));
    std::vector<WalkBar>& bars = w.bars[static_cast<size_t>(WalkStep::kScale)];
    bars.push_back({"|E[id]|, " + c.e_source, e_norm});
    bars.push_back({scaled_name + ", " + c.e_source, e_norm * scale});
    if (!w.typed && c.loaded_e == nullptr) {
      // The other convention's rows from the same draw: the row divided by the initialiser's
      // standard deviation is the N(0, 1) draw; std d^-1/2 (fairseq, tensor2tensor) unless
      // the rows already have it, then std 1 (nn.Embedding).
      const double init_scale = InitScale(ex.init, d);
      const bool scaled_init = ex.init == EmbeddingInit::kNormalScaled;
      const double other = (scaled_init ? 1.0 : 1.0 / sqrt_d) / init_scale;
      const std::string name =
          scaled_init ? "std 1 (nn.Embedding)" : "std d^-1/2 (fairseq, tensor2tensor)";
      p.numbers.push_back("the same draw with " + name + ": |E[id]| = " + Fmt(e_norm * other) +
                          ", " + scaled_name + " = " + Fmt(e_norm * other * scale) +
                          (pe_norm > 0
                               ? ": " + Fmt(e_norm * other * scale / pe_norm) + " times PE's"
                               : std::string()));
      const std::string short_name = scaled_init ? "std 1" : "std d^-1/2";
      bars.push_back({"|E[id]|, " + short_name, e_norm * other});
      bars.push_back({scaled_name + ", " + short_name, e_norm * other * scale});
    }
    bars.push_back({pe_name, pe_norm});
  }
  p.numbers.push_back(kWhyScale);
  p.values = Row(w.parts.scaled, w.focus);
  p.highlight_text = "Sums view: the scaled part of " + c.who + " and the ratio |scaled| / |PE|.";
}

// 6. + PE.
void PositionStep(WalkContext& c, WalkPage& p) {
  Walkthrough& w = c.w;
  const ModelParams& params = c.params;
  const int64_t d = c.d;
  const std::string pos = std::to_string(c.pos);
  p.title += ": the position added";
  p.explanation =
      "The vector of the token's position is added element by element, so the same "
      "word at two positions gives two different inputs.";
  if (w.typed_positional) {
    p.formula = "z_t = s_t + P[p_t],   P the typed positional rows (--positional-rows)";
  } else if (c.encoding.scheme() == Scheme::kSinusoidal) {
    p.formula =
        "z_t = s_t + PE[p_t],   PE[p, 2i] = sin(p \xc2\xb7 \xcf\x89_i),  PE[p, 2i+1] = "
        "cos(p \xc2\xb7 \xcf\x89_i),  \xcf\x89_i = base^(-2i/d)";
    if (params.pe.sinusoidal().variant != PeVariant::kPaper) {
      p.formula += "   (layout " + std::string(VariantName(params.pe.sinusoidal().variant)) + ")";
    }
  } else {
    p.formula = "z_t = s_t + P[p_t],   P a learned table (" + c.encoding.Title() + ")";
  }
  p.code = w.pe_discarded
               ? "The JAX/Haiku notebook: pe.at[:, 0::2].set(jnp.sin(position * div_term)) "
                 "returns a new array the code never keeps, so the table it adds to x stays "
                 "zero."
               : "The PyTorch notes: return x + self.pe[:, :x.size(1)], the forward of its fixed "
                 "positional encoding; the blog adds its rows by hand.";
  if (c.any) {
    p.numbers.push_back(c.who + " is at position p = " + pos);
    if (w.pe_discarded) {
      p.numbers.push_back("as the code computes it: PE[" + pos + "] = " +
                          VecText(w.parts.positional.row(w.focus), d) + " (the table stayed zero)");
      p.numbers.push_back("intended: PE[" + pos +
                          "] = " + VecText(w.intended_positional.row(w.focus), d));
      p.numbers.push_back("so the model input is the scaled embedding alone: z = s = " +
                          VecText(w.parts.scaled.row(w.focus), d));
    } else {
      AddRows(p.numbers, w, w.parts.positional, "PE[p]");
    }
  }
  p.values = Row(w.parts.positional, w.focus);
  if (w.pe_discarded) p.alt_values = Row(w.intended_positional, w.focus);
  p.highlight_text = w.typed_positional
                         ? "Sums view: the typed positional row of " + c.who + "."
                         : "PE heatmap: the row of position " + pos +
                               " is outlined; curves: the line at position " + pos + ".";
  w.matrices[static_cast<size_t>(WalkStep::kPosition)].push_back(MatrixOfRows(
      w.parts.positional,
      w.pe_discarded ? "PE rows as the code computes them (all zero)" : "PE rows of the tokens",
      w.focus));
}

// 7. Dropout.
void DropoutStep(WalkContext& c, WalkPage& p) {
  const Walkthrough& w = c.w;
  const InputLayerParams& input = c.params.input;
  const int64_t d = c.d;
  Matrix before = w.parts.scaled;
  for (size_t k = 0; k < before.data.size(); ++k) before.data[k] += w.parts.positional.data[k];
  const double p_drop = input.dropout > 0 ? input.dropout : 0.1;
  const bool own_p = input.dropout > 0;
  p.title += ": regularisation in training only";
  p.explanation =
      "In training each value is zeroed with probability p and the kept ones are "
      "divided by 1 - p, so the expected sum is unchanged; in evaluation nothing "
      "happens.";
  p.formula = "train: x = m \xe2\x8a\x99 z / (1 - p), m_k ~ Bernoulli(1 - p);   eval: x = z";
  p.code =
      "The PyTorch notes: self.dropout(x), an nn.Dropout(p=dropout_rate); the JAX/Haiku notebook "
      "applies Haiku's "
      "dropout only when is_train is set.";
  // The train-mode result: the core's result in train mode, else the same dropout applied to
  // a copy with the example's p (or the tutorials' 0.1 when p is 0).
  Matrix after = before;
  if (input.train) {
    after = w.parts.sum;
  } else {
    ApplyDropout(after.data.data(), static_cast<int64_t>(after.data.size()), p_drop,
                 input.dropout_seed, 0);
  }
  p.numbers.push_back(std::string("mode: ") + (input.train ? "train" : "eval") +
                      ", p = " + Fmt(input.dropout) +
                      (input.train ? "" : ": the model input is the sum as it is"));
  p.numbers.push_back(std::string(own_p ? "train" : "train with the tutorials' p = 0.1") +
                      ": kept values \xc3\x97 1/(1 - p) = " + Fmt(1.0 / (1.0 - p_drop)) +
                      ", dropped values \xe2\x86\x92 0 (seed " +
                      std::to_string(input.dropout_seed) + ")");
  if (c.any) {
    std::string mask;
    const uint64_t first = static_cast<uint64_t>(w.focus) * static_cast<uint64_t>(d);
    WalkMask& drawn = p.mask;
    drawn.scale = 1.0 / (1.0 - p_drop);
    drawn.p = p_drop;
    drawn.full = d;
    for (int64_t j = 0; j < std::min(d, 2 * kShownValues); ++j) {
      const bool kept =
          RandomUniform(input.dropout_seed, first + static_cast<uint64_t>(j)) > p_drop;
      mask += kept ? "1 " : "0 ";
      drawn.kept.push_back(kept ? 1 : 0);
      drawn.before.push_back(before.at(w.focus, j));
      drawn.after.push_back(after.at(w.focus, j));
    }
    drawn.caption = "the mask of " + c.who + " (train mode, p = " + Fmt(p_drop) + ", seed " +
                    std::to_string(input.dropout_seed) + ")";
    p.numbers.push_back(
        "mask m of " + c.who + " (1 kept, 0 dropped)" +
        (d > 2 * kShownValues ? ", first " + std::to_string(2 * kShownValues) : std::string()) +
        ": " + mask);
    p.numbers.push_back("before: " + VecText(before.row(w.focus), d));
    p.numbers.push_back("after (train): " + VecText(after.row(w.focus), d));
    p.numbers.push_back("after (eval): the same as before");
  }
  p.values = Row(after, w.focus);
  p.alt_values = Row(before, w.focus);
  p.highlight_text = "Sums view: the sum of " + c.who + " (after dropout in train mode).";
}

// 8. Model input.
void InputStep(WalkContext& c, WalkPage& p) {
  Walkthrough& w = c.w;
  const TextExample& ex = c.ex;
  const int64_t d = c.d;
  p.title += ": what the first layer receives";
  p.explanation =
      "One vector of d numbers per token, meaning and position mixed in the same "
      "numbers; every layer after this one works on these.";
  p.formula = "x = dropout(E[ids] \xc3\x97 " +
              std::string(c.params.input.scale ? "\xe2\x88\x9a"
                                                 "d"
                                               : "1") +
              " + PE[positions])";
  p.code =
      "The PyTorch notes: return self.dropout(x) ends its input layer's forward; the "
      "Annotated-Transformer-style tutorial's batch "
      "comes out with shape (2, 5, 4).";
  if (!ex.ids.empty() && !w.ids_pending && ex.ids.size() > 1) {
    p.numbers.push_back("shape (" + std::to_string(ex.ids.size()) + ", " +
                        std::to_string(ex.ids.front().size()) + ", " + std::to_string(d) +
                        ") = (batch, seq, d)");
  } else {
    p.numbers.push_back("shape (T, d) = (" + std::to_string(c.tokens) + ", " + std::to_string(d) +
                        ")");
  }
  if (c.any) {
    AddRows(p.numbers, w, w.parts.sum, "x");
    std::string norms;
    for (int64_t t = 0; t < std::min<int64_t>(c.tokens, 8); ++t) {
      norms += (t > 0 ? ", " : "") + w.token_labels[static_cast<size_t>(t)] + " " +
               Fmt(w.parts.Norm(Part::kSum, t));
    }
    p.numbers.push_back("|x_t|: " + norms + (c.tokens > 8 ? ", ..." : ""));
  }
  p.values = Row(w.parts.sum, w.focus);
  p.highlight_text = "Sums view: the sum (model input) of " + c.who + ".";
  w.matrices[static_cast<size_t>(WalkStep::kInput)].push_back(
      MatrixOfRows(w.parts.sum, "the model input: tokens by dimension", w.focus));
}

// The pages in order: each step's builder fills the page titled "N. <step name>" and may add
// the step's matrices and bars to the walkthrough.
struct StepBuilder {
  WalkStep step;
  void (*build)(WalkContext&, WalkPage&);
};
constexpr std::array<StepBuilder, kWalkStepCount> kStepBuilders = {{
    {WalkStep::kText, TextStep},
    {WalkStep::kTokens, TokensStep},
    {WalkStep::kIds, IdsStep},
    {WalkStep::kLookup, LookupStep},
    {WalkStep::kScale, ScaleStep},
    {WalkStep::kPosition, PositionStep},
    {WalkStep::kDropout, DropoutStep},
    {WalkStep::kInput, InputStep},
}};

}  // namespace

Result<Walkthrough> BuildWalkthrough(const ModelParams& params, const EncodingPtr& encoding,
                                     int focus) {
  if (params.walkthrough == WalkthroughKind::kAttention) {
    return BuildAttentionWalkthrough(params, encoding, focus);
  }
  return BuildWalkthrough(params, *encoding, focus);
}

Result<Walkthrough> BuildWalkthrough(const ModelParams& params, const Encoding& encoding,
                                     int focus) {
  if (encoding.family() != Family::kAdded) {
    return InvalidArgument(
        "the walkthrough follows a scheme that adds a vector to the token "
        "embeddings (sinusoidal or learned); " +
        std::string(SchemeName(encoding.scheme())) + " adds nothing there");
  }
  Walkthrough w;
  w.matrices.resize(kWalkStepCount);
  w.bars.resize(kWalkStepCount);
  WalkContext c(params, encoding, w);
  c.d = params.pe.d_model;
  w.d = c.d;
  c.preset = FindWalkthroughPreset(params.walkthrough_preset);
  // Typed rows (a preset's, or --embedding-rows / --positional-rows) go through the same
  // input layer as every other view, so the steps, the sums view and the exports agree.
  w.typed = !c.ex.embedding_rows.empty() && !c.ex.embeddings.loaded();
  w.typed_positional = !c.ex.positional_rows.empty();
  if (Status read = ReadExample(c); !read.ok()) return read.error();
  FollowToken(c, focus);
  DescribeEmbeddingSource(c);
  // The four tutorials the pages name, by title and author as they give them (seeds 000-003).
  w.sources = {
      {"PyTorch notes",
       "the PyTorch notes: \"Token Embeddings and Sinusoidal Positional Encoding in Transformer "
       "Architectures\", Fading Coder (no author named)"},
      {"blog",
       "the blog: Rahul Lokurte, \"Understanding Token and Positional Embeddings in "
       "Transformers\""},
      {"JAX/Haiku notebook",
       "the JAX/Haiku notebook: \"Turning Tokens into Vectors: Embeddings and Positional "
       "Encoding\" (no author named)"},
      {"Annotated-Transformer-style tutorial",
       "the Annotated-Transformer-style tutorial: \"Embeddings & Softmax\", part 2 of "
       "DeKUT-DSAIL's "
       "Transformer Architecture tutorials, after Harvard NLP's The Annotated Transformer"}};
  for (const StepBuilder& step : kStepBuilders) {
    WalkPage& p = w.pages.emplace_back();
    p.step = step.step;
    p.title = std::to_string(w.pages.size()) + ". " + std::string(WalkStepName(step.step));
    step.build(c, p);
  }
  if (!c.any) {
    for (WalkPage& p : w.pages) p.highlight_text = "there are no tokens, so nothing is outlined.";
  }
  return w;
}

std::vector<Tick> WalkRowTicks(const Walkthrough& w, const WalkMatrix& m, double shown_rows,
                               double height, double name_height) {
  std::vector<Tick> ticks;
  if (m.row_axis != "token" || m.values.rows <= 0) return ticks;
  const double row_h = height / std::max(1.0, shown_rows);
  const int64_t every =
      row_h > 0 ? std::max<int64_t>(1, static_cast<int64_t>(std::ceil(name_height / row_h))) : 1;
  for (int64_t r = 0; r < m.values.rows; r += every) {
    const int64_t t =
        static_cast<size_t>(r) < m.row_ids.size() ? m.row_ids[static_cast<size_t>(r)] : r;
    const std::string name = t >= 0 && static_cast<size_t>(t) < w.token_labels.size()
                                 ? w.token_labels[static_cast<size_t>(t)]
                                 : std::to_string(t);
    ticks.push_back({static_cast<double>(r) + 0.5, name});
  }
  return ticks;
}

FigureImage WalkMatrixImage(const WalkMatrix& m, ColormapId colormap, float* range) {
  float hi = 0.0f;
  for (float v : m.values.data) hi = std::max(hi, std::fabs(v));
  if (!(hi > 0.0f)) hi = 1.0f;
  if (range != nullptr) *range = hi;
  FigureImage im;
  im.width = static_cast<int>(m.values.cols);
  im.height = static_cast<int>(m.values.rows);
  im.rgba.resize(m.values.data.size() * 4);
  MapToRgba(colormap, m.values.data.data(), static_cast<int64_t>(m.values.data.size()), -hi, hi,
            im.rgba.data());
  im.x0 = 0;
  im.x1 = static_cast<double>(m.values.cols);
  im.y0 = 0;
  im.y1 = static_cast<double>(m.values.rows);
  return im;
}

}  // namespace pe
