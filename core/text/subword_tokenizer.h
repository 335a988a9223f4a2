// Real subword tokenizers, read from a model's files, so a sentence gets the ids that model
// gives it: byte-level BPE (GPT-2, the Llama 3 family, Qwen, DeepSeek, o200k), BPE over
// characters with byte fallback (Mistral, Llama 2, Gemma), Unigram (T5), WordLevel and WordPiece
// (BERT).
//
// Read from a Hugging Face tokenizer.json (the normalizer and pre-tokenizer components of
// text/normalizers.h and text/pretokenizers.h; the models of subword_bpe.cpp,
// subword_wordpiece.cpp and subword_models.cpp; the post-processor), or from GPT-2's own pair of
// files in a folder: vocab.json + merges.txt, or encoder.json + vocab.bpe (the names openai/gpt-2
// uses). Added tokens (special tokens such as <|endoftext|>) are matched in the text before
// anything else, as the Hugging Face library does, with their lstrip, rstrip and single_word.
// Not here: BPE dropout (random; refused).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "text/flat_tables.h"

namespace pe {

class Normalizer;
class PreTokenizer;
class ByteSource;
struct GgufFile;
}  // namespace pe
namespace sentencepiece {
class SentencePieceProcessor;
}  // namespace sentencepiece
namespace pe {

// The split before BPE, written by hand over code points (text/unicode_props.h):
// kGpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//          (openai/gpt-2 src/encoder.py; the ByteLevel pre-tokenizer's use_regex in HF
//          tokenizers, pre_tokenizers/byte_level.rs)
// kLlama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//          ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+   (Llama 3's tokenizer.json Split)
enum class SplitPattern { kGpt2, kLlama3 };
std::string_view SplitPatternName(SplitPattern p);  // "GPT-2", "Llama 3"
// The regex text of a pattern, as tokenizer.json writes it.
std::string_view SplitPatternRegex(SplitPattern p);

// The pieces [begin, end) (byte offsets) the pattern cuts valid UTF-8 `text` into; they cover
// the text in order, none empty. Leftmost-first alternation, as the regex engines do.
std::vector<std::pair<size_t, size_t>> SplitPreTokens(std::string_view text, SplitPattern p);

// GPT-2's reversible byte -> printable code point map (openai/gpt-2 encoder.py bytes_to_unicode):
// the printable Latin-1 bytes map to themselves, the other 68 to U+0100.. in byte order, so ' '
// is 'Ġ' (U+0120) and '\n' is 'Ċ' (U+010A).
char32_t ByteToUnicode(unsigned char b);

struct SubwordPiece {
  int32_t id = 0;
  int64_t begin = 0;  // byte offsets into the encoded text
  int64_t end = 0;
  bool operator==(const SubwordPiece&) const = default;
};

// Whether Encode adds the tokens the tokenizer's post-processor puts around a text (BERT's
// [CLS] ... [SEP], Llama's <s>): kAdd gives what Python's `tokenizer(text)` gives, what a model
// sees; kNone what `add_special_tokens=False` gives.
enum class SpecialTokens { kAdd, kNone };
std::string_view SpecialTokensName(SpecialTokens s);  // add, none
std::optional<SpecialTokens> ParseSpecialTokens(std::string_view name);

class SubwordTokenizer {
 public:
  // kBpe: BPE over characters (SentencePiece-style: Llama 2, Mistral, Gemma), with byte
  // fallback and the unknown token; kUnigram: Viterbi over piece scores (T5, XLM-R, ALBERT);
  // kWordLevel: one id per pre-token.
  // kSentencePiece: a SentencePiece .model run by the SentencePiece library.
  enum class Model { kByteLevelBpe, kWordPiece, kBpe, kUnigram, kWordLevel, kSentencePiece };

  // `json`: the text of a tokenizer.json; `name` (its path) starts every message. Errors name
  // what is wrong and where: the JSON's line and column, the key ("model.merges[12]"), the token.
  static Result<SubwordTokenizer> FromTokenizerJson(std::string_view json, const std::string& name);
  // Whether FromTokenizerJson reads `json` in one pass of simdjson, its fast way, rather than
  // through the document reader that names every problem (for tests).
  static bool ReadsInOnePass(std::string_view json);
  // The tokenizer in a GGUF file's metadata (tokenizer.ggml.model gpt2, llama, bert or t5,
  // .tokens, .scores, .token_type, .merges, .pre, the special tokens' ids and add_* flags),
  // built as the tokenizer.json of the same model (subword_gguf.cpp). `file` was parsed from
  // `source`, which the arrays are read from again; errors name the key.
  static Result<SubwordTokenizer> FromGguf(ByteSource& source, const GgufFile& file,
                                           const std::string& name, const MemoryCap& cap);
  // A SentencePiece .model file's bytes (its serialized ModelProto), run by the SentencePiece
  // library (subword_sentencepiece.cpp). With SpecialTokens::kAdd the model's BOS piece goes
  // before the text, or, without one, its EOS piece after.
  static Result<SubwordTokenizer> FromSentencePiece(std::string_view bytes,
                                                    const std::string& name);
  // GPT-2's pair: a JSON object token -> id, and merges "a b" one a line (a first line
  // "#version: ..." is skipped). Errors name the file and its line or byte offset.
  static Result<SubwordTokenizer> FromGpt2Files(std::string_view vocab_json,
                                                const std::string& vocab_name,
                                                std::string_view merges,
                                                const std::string& merges_name);

  Model model() const { return model_; }
  SplitPattern pattern() const { return pattern_; }
  // V: the largest id + 1 (the rows an embedding table for this tokenizer has).
  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  int64_t merge_count() const { return static_cast<int64_t>(merge_count_); }
  // The vocabulary's string for `id` ("Ġworld", "##ing"); empty for an id no token has.
  const std::string& token(int64_t id) const { return tokens_[static_cast<size_t>(id)]; }
  // The id of a vocabulary string, or -1.
  int64_t Id(std::string_view token) const;
  // What `id` stands for, readable: byte-level tokens as the text they encode with a space
  // shown as U+2423 (␣) and a newline as U+21B5 (↵), bytes that are not whole UTF-8 as <0xE6>;
  // WordPiece tokens as they are ("##ing").
  std::string DisplayToken(int64_t id) const;
  // "byte-level BPE, GPT-2 split, 50257 tokens, 50000 merges".
  std::string Describe() const;
  // Whether `id` is a special token (an added token marked "special", or one the post-processor
  // inserts): drawn as a chip of its own colour.
  bool IsSpecial(int64_t id) const;
  // The byte a byte-fallback token <0xNN> stands for, or -1 for any other id.
  int ByteFallbackByte(int64_t id) const;
  // The bytes the ids stand for (the decoder's view): byte-level tokens as their bytes, ▁ as a
  // space, <0xNN> pieces as their bytes, WordPiece's ## joined; special tokens left out.
  std::string Decode(const std::vector<int32_t>& ids) const;

  // The ids of `text`, with the bytes of `text` each covers. An error when `text` is not valid
  // UTF-8 (naming the byte). Words already encoded in this call are looked up, not merged again.
  // Tokens the post-processor adds (kAdd) cover no bytes: begin == end, at 0 before the text and
  // at its end after it.
  Result<std::vector<SubwordPiece>> Encode(std::string_view text,
                                           SpecialTokens special = SpecialTokens::kNone) const;

  // The vocabulary object and the merges list of a tokenizer.json, read straight from the JSON
  // parser's events rather than into the document: they hold hundreds of thousands of entries,
  // and a document node per entry cost most of the loading time. Defined and used only in
  // subword_readers.cpp.
  struct BulkLists;

 private:
  struct Merge {
    int32_t rank;
    int32_t id;  // the merged token
  };
  struct AddedToken {
    std::string content;
    int32_t id = 0;
    bool special = false;
    bool lstrip = false;       // takes the whitespace before it
    bool rstrip = false;       // takes the whitespace after it
    bool single_word = false;  // only where no word character touches it
    bool normalized = false;
  };
  class Encoder;

  // FromTokenizerJson's work on the parsed JSON; `bulk`, when given, holds model.vocab and
  // model.merges, which the document then holds only as empty placeholders.
  static Result<SubwordTokenizer> FromJsonRoot(const nlohmann::json& root, const std::string& name,
                                               const BulkLists* bulk = nullptr);
  Status SetTokenIds(const std::vector<std::pair<std::string, int64_t>>& entries,
                     const std::string& where);
  // `where` names the merge in a refusal; it is called only then.
  Status AddMerge(std::string_view a, std::string_view b,
                  const std::function<std::string()>& where);
  Status FinishByteLevel(const std::string& name);
  // Appends; FinishAddedTokens then drops repeats and orders them longest first.
  Status AddAddedToken(const AddedToken& token, const std::string& where);
  void FinishAddedTokens();
  // What FromTokenizerJson reads for the models other than byte-level BPE and WordPiece, and
  // the post-processor (subword_models.cpp); `json` is the model's or post-processor's object.
  friend struct ModelReaders;
  Status ReadMerges(const nlohmann::json& model, const std::string& name, const BulkLists* bulk);
  // The tokenizer.json name of the model: "BPE", "WordPiece", "Unigram", "WordLevel".
  std::string_view ModelName() const;
  void UseGeneralPath(Normalizer normalizer, PreTokenizer pre_tokenizer);

  Model model_ = Model::kByteLevelBpe;
  // The general path (text/normalizers.h, text/pretokenizers.h): set when the file's normalizer
  // and pre-tokenizer are not one of the fast paths below (byte-level BPE with the GPT-2 or
  // Llama 3 split and no normalizer; WordPiece with BertNormalizer and BertPreTokenizer).
  std::shared_ptr<const Normalizer> normalizer_;
  std::shared_ptr<const PreTokenizer> pre_tokenizer_;
  SplitPattern pattern_ = SplitPattern::kGpt2;
  bool add_prefix_space_ = false;
  bool ignore_merges_ = false;       // a word that is a token as a whole is not merged (Llama 3)
  std::vector<std::string> tokens_;  // (V) id -> string
  // Looked up by std::string_view too, without a copy of the key.
  TokenIdTable ids_;
  PairTable<Merge> merges_;  // (left id << 32 | right id) -> merge
  size_t merge_count_ = 0;
  int32_t byte_ids_[256] = {};     // byte-level BPE: the token of each single byte
  std::vector<AddedToken> added_;  // longest first
  // WordPiece; BPE's continuing_subword_prefix (kBpe: empty for none)
  std::string continuing_prefix_ = "##";
  int32_t unk_id_ = -1;
  // BPE over characters (kBpe)
  std::string end_of_word_suffix_;
  bool byte_fallback_ = false;
  bool fuse_unk_ = false;
  int32_t byte_fallback_ids_[256] = {};  // the <0xNN> tokens, -1 where missing
  // Unigram
  std::vector<double> scores_;  // (V)
  double min_score_ = 0;
  struct TrieNode {
    int32_t id = -1;            // the piece ending here, or -1
    uint32_t first = 0, n = 0;  // children: edges_[first, first + n), sorted by byte
  };
  std::vector<TrieNode> trie_;
  std::vector<std::pair<unsigned char, uint32_t>> edges_;
  // The post-processor's tokens around one sequence (TemplateProcessing's single, BERT's,
  // RoBERTa's), in order; post_name_ names it ("TemplateProcessing"), empty for none.
  std::vector<int32_t> post_prefix_, post_suffix_;
  std::string post_name_;
  std::shared_ptr<const sentencepiece::SentencePieceProcessor> sentencepiece_;
  std::vector<bool> special_;  // (V) an added token marked special or a post-processor's
  int decode_strip_ = 0;       // leading spaces Decode drops (the decoder's Strip, Metaspace)
  int64_t max_input_chars_per_word_ = 100;
  bool clean_text_ = false, handle_chinese_chars_ = false, strip_accents_ = false,
       lowercase_ = false;
};

// What a file's bytes say it is, for File > Open: a Hugging Face tokenizer.json (a JSON object
// with a top-level "model" key), GPT-2's vocab.json / encoder.json (a JSON object whose first
// member maps a string to an integer), or neither. Looks at the structure only (strings,
// nesting); the full check is the load's.
enum class TokenizerFileKind { kNone, kTokenizerJson, kGpt2Vocab };
TokenizerFileKind SniffTokenizerFile(std::string_view bytes);
// The same for the file at `path`: a regular file (memory-mapped, read as far as the answer
// needs); anything else, or a file that cannot be opened, is kNone.
TokenizerFileKind SniffTokenizerPath(const std::string& path);

// A tokenizer from `path`: a tokenizer.json, a GGUF file's tokenizer, GPT-2's vocab.json or
// encoder.json (read with the merges.txt or vocab.bpe beside it), or a folder holding vocab.json +
// merges.txt or encoder.json + vocab.bpe (or a tokenizer.json). Only regular files are read; each
// must fit under `cap` with room for its parsed form (about 24 times the file's size for JSON).
// Errors name the path and, for a folder, the files looked for.
Result<std::shared_ptr<const SubwordTokenizer>> LoadSubwordTokenizer(const std::string& path,
                                                                     const MemoryCap& cap);

}  // namespace pe
