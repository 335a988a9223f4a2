// The pre-tokenizer components of a tokenizer.json, after Hugging Face tokenizers'
// pre_tokenizers/ (split.rs, byte_level.rs, metaspace.rs, digits.rs, punctuation.rs,
// whitespace.rs, bert.rs, sequence.rs) and tokenizer/normalizer.rs (the split behaviours) and
// tokenizer/pattern.rs (matches and the pieces between them), read and written anew here.
// Regexes run in PCRE2 (Debian's libpcre2-8) with its JIT.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/pretokenizers.h"

#include <pcre2.h>

#include <nlohmann/json.hpp>

#include "text/component_json.h"
#include "text/subword_internal.h"
#include "text/unicode_props.h"

namespace pe {

using Json = nlohmann::json;

namespace {

constexpr int kMaxDepth = 16;
// Bounds on one match: enough for any real tokenizer's pattern on any piece, far below what a
// pattern that backtracks exponentially asks for.
constexpr uint32_t kMatchLimit = 10'000'000;
constexpr uint32_t kDepthLimit = 100'000;
constexpr uint32_t kHeapLimitKiB = 64 * 1024;

// Oniguruma's word characters (Alphabetic, marks, decimal digits, connector punctuation, the
// join controls), as PCRE2 class items.
constexpr std::string_view kWordItems = R"(\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D})";

// Oniguruma's \s \S \w \W as PCRE2 writes the same Unicode classes (PCRE2's own \s adds U+180E,
// its \w lacks the marks). Other syntax passes through: the two agree on what tokenizers use.
std::string OnigToPcre2(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 32);
  int depth = 0;  // inside a character class (nested classes count)
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char d = p[i + 1];
      ++i;
      if (d == 's') {
        out += R"(\p{White_Space})";
      } else if (d == 'S') {
        out += R"(\P{White_Space})";
      } else if (d == 'w' || (d == 'W' && depth == 0)) {
        if (depth == 0) out += d == 'w' ? "[" : "[^";
        out.append(kWordItems);
        if (depth == 0) out += ']';
      } else {
        out += c;
        out += d;
      }
      continue;
    }
    out += c;
    if (c == '[') {
      if (depth > 0 && i + 1 < p.size() && p[i + 1] == ':') {  // [:alpha:]
        const size_t e = p.find(":]", i + 2);
        if (e != std::string_view::npos) {
          out.append(p.substr(i + 1, e + 1 - i));
          i = e + 1;
          continue;
        }
      }
      ++depth;
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];  // a literal ] first
    } else if (c == ']' && depth > 0) {
      --depth;
    }
  }
  return out;
}

// One thread's match state: PCRE2's match data, match context (the limits) and JIT stack.
struct MatchScratch {
  pcre2_match_data* data = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  MatchScratch() {
    data = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr);
    pcre2_jit_stack_assign(context, nullptr, stack);
    pcre2_set_match_limit(context, kMatchLimit);
    pcre2_set_depth_limit(context, kDepthLimit);
    pcre2_set_heap_limit(context, kHeapLimitKiB);
  }
  ~MatchScratch() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  MatchScratch(const MatchScratch&) = delete;
  MatchScratch& operator=(const MatchScratch&) = delete;
};

std::string Short(std::string_view s) {
  if (s.size() <= 80) return std::string(s);
  size_t e = 77;
  while (e > 0 && (static_cast<unsigned char>(s[e]) & 0xC0) == 0x80) --e;
  return std::string(s.substr(0, e)) + "...";
}

using component_json::Bool;
using component_json::Member;
using component_json::TypeOf;

// A piece's segments: [begin, end) and whether it is a match (a delimiter).
struct Segment {
  size_t begin, end;
  bool match;
};

}  // namespace

// ---- SplitRegex

SplitRegex::~SplitRegex() {
  pcre2_code_free(static_cast<pcre2_code*>(code_));
}

Result<std::shared_ptr<const SplitRegex>> SplitRegex::Compile(std::string_view pattern,
                                                              const std::string& where) {
  const std::string translated = OnigToPcre2(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(error, buf, sizeof buf);
    // The offset is in the translated pattern; it is the file's own when nothing was rewritten
    // before it.
    std::string at = std::to_string(offset);
    if (translated.compare(0, offset, pattern.substr(0, std::min(offset, pattern.size()))) != 0)
      at += " of the pattern as rewritten for PCRE2 (" + Short(translated) + ")";
    return InvalidArgument(where + ": the regex \"" + Short(pattern) + "\" is not valid: " +
                           reinterpret_cast<const char*>(buf) + ", at character offset " + at);
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // without a JIT the interpreter runs it
  std::shared_ptr<SplitRegex> r(new SplitRegex());
  r->source_ = std::string(pattern);
  r->code_ = code;
  return std::shared_ptr<const SplitRegex>(std::move(r));
}

std::shared_ptr<const SplitRegex> SplitRegex::Literal(std::string s) {
  std::shared_ptr<SplitRegex> r(new SplitRegex());
  r->source_ = s;
  r->literal_ = std::move(s);
  return r;
}

Status SplitRegex::FindAll(std::string_view subject,
                           std::vector<std::pair<size_t, size_t>>& matches) const {
  if (!code_) {
    if (literal_.empty()) return {};
    for (size_t at = subject.find(literal_); at != std::string_view::npos;
         at = subject.find(literal_, at + literal_.size())) {
      matches.emplace_back(at, at + literal_.size());
    }
    return {};
  }
  thread_local MatchScratch scratch;
  const auto* code = static_cast<const pcre2_code*>(code_);
  const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
  for (size_t at = 0; at <= subject.size();) {
    const int rc =
        pcre2_match(code, s, subject.size(), at, PCRE2_NO_UTF_CHECK, scratch.data, scratch.context);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof buf);
      return InvalidArgument("the regex \"" + Short(source_) + "\" gave up on a piece of " +
                             std::to_string(subject.size()) + " bytes at its byte " +
                             std::to_string(at) + ": " + reinterpret_cast<const char*>(buf) +
                             " (a pattern that backtracks without end)");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(scratch.data);
    const size_t e = ov[1];
    const size_t b = std::min<size_t>(ov[0], e);  // \K can put the start after the end
    matches.emplace_back(b, e);
    if (e > at) {
      at = e;
    } else {
      if (e >= subject.size()) break;
      at = e + static_cast<size_t>(Utf8At(subject, e).length);
    }
  }
  return {};
}

// ---- parsing

Result<PreTokenizer> PreTokenizer::FromJson(const Json& j, const std::string& where) {
  PreTokenizer p;
  if (j.is_null()) return p;
  if (Status s = p.Add(j, where, 0); !s.ok()) return s.error();
  return p;
}

Result<PreTokenizer::Behavior> PreTokenizer::ParseBehavior(const Json& j,
                                                           const std::string& where) {
  const Json* b = Member(j, "behavior");
  if (!b) return Behavior::kIsolated;
  const std::string s = b->is_string() ? b->get<std::string>() : "";
  if (s == "Isolated") return Behavior::kIsolated;
  if (s == "Removed") return Behavior::kRemoved;
  if (s == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (s == "MergedWithNext") return Behavior::kMergedWithNext;
  if (s == "Contiguous") return Behavior::kContiguous;
  return InvalidArgument(where + ": behavior " + (b->is_string() ? "\"" + s + "\"" : b->dump()) +
                         " is not one of Isolated, Removed, MergedWithPrevious, MergedWithNext, "
                         "Contiguous");
}

Status PreTokenizer::Add(const Json& j, const std::string& where, int depth) {
  if (!j.is_object()) return InvalidArgument(where + " is not a JSON object");
  const std::string type = TypeOf(j);
  const std::string at = where + " (" + type + ")";
  Step s;
  if (type == "Sequence") {
    if (depth >= kMaxDepth) return InvalidArgument(at + ": Sequences nested too deep");
    const Json* list = Member(j, "pretokenizers");
    if (!list || !list->is_array()) return InvalidArgument(at + ": pretokenizers is not a list");
    for (size_t k = 0; k < list->size(); ++k) {
      if (Status st = Add((*list)[k], where + " step " + std::to_string(k), depth + 1); !st.ok())
        return st;
    }
    return {};
  } else if (type == "Split") {
    s.kind = Step::Kind::kSplit;
    const Json* pattern = Member(j, "pattern");
    const Json* str = pattern ? Member(*pattern, "String") : nullptr;
    const Json* regex = pattern ? Member(*pattern, "Regex") : nullptr;
    if (str && str->is_string() && !str->get<std::string>().empty()) {
      s.regex = SplitRegex::Literal(str->get<std::string>());
    } else if (regex && regex->is_string()) {
      const std::string r = regex->get<std::string>();
      for (SplitPattern sp : {SplitPattern::kGpt2, SplitPattern::kLlama3}) {
        if (r == SplitPatternRegex(sp)) s.hand_written = static_cast<int>(sp);
      }
      if (s.hand_written < 0) {
        Result<std::shared_ptr<const SplitRegex>> c = SplitRegex::Compile(r, at + ": pattern");
        if (!c.ok()) return c.error();
        s.regex = c.value();
      }
    } else {
      return InvalidArgument(at + ": pattern is not {\"String\": a non-empty string} or " +
                             "{\"Regex\": a string}");
    }
    Result<Behavior> b = ParseBehavior(j, at);
    if (!b.ok()) return b.error();
    s.behavior = b.value();
    Result<bool> invert = Bool(j, "invert", false, at);
    if (!invert.ok()) return invert.error();
    s.invert = invert.value();
    if (s.hand_written >= 0 && (s.behavior != Behavior::kIsolated || s.invert)) {
      // The hand-written splitters give the pieces of an Isolated, non-inverted split only.
      Result<std::shared_ptr<const SplitRegex>> c = SplitRegex::Compile(
          SplitPatternRegex(static_cast<SplitPattern>(s.hand_written)), at + ": pattern");
      if (!c.ok()) return c.error();
      s.regex = c.value();
      s.hand_written = -1;
    }
  } else if (type == "ByteLevel") {
    s.kind = Step::Kind::kByteLevel;
    Result<bool> prefix = Bool(j, "add_prefix_space", false, at);
    Result<bool> use_regex = Bool(j, "use_regex", true, at);
    if (!prefix.ok()) return prefix.error();
    if (!use_regex.ok()) return use_regex.error();
    s.add_prefix_space = prefix.value();
    s.use_regex = use_regex.value();
  } else if (type == "Metaspace") {
    s.kind = Step::Kind::kMetaspace;
    const Json* rep = Member(j, "replacement");
    if (!rep) rep = Member(j, "str_rep");
    s.replacement = rep && rep->is_string() ? rep->get<std::string>() : "\xe2\x96\x81";  // ▁
    if (s.replacement.empty() ||
        DecodeUtf8(s.replacement, 0).length != static_cast<int>(s.replacement.size())) {
      return InvalidArgument(at + ": replacement is not one character");
    }
    if (const Json* scheme = Member(j, "prepend_scheme")) {
      const std::string v = scheme->is_string() ? scheme->get<std::string>() : "";
      if (v == "always") {
        s.prepend = Step::Prepend::kAlways;
      } else if (v == "first") {
        s.prepend = Step::Prepend::kFirst;
      } else if (v == "never") {
        s.prepend = Step::Prepend::kNever;
      } else {
        return InvalidArgument(at + ": prepend_scheme " + scheme->dump() +
                               " is not \"first\", \"always\" or \"never\"");
      }
    } else {
      Result<bool> prefix = Bool(j, "add_prefix_space", true, at);  // the older key
      if (!prefix.ok()) return prefix.error();
      s.prepend = prefix.value() ? Step::Prepend::kAlways : Step::Prepend::kNever;
    }
    Result<bool> split = Bool(j, "split", true, at);
    if (!split.ok()) return split.error();
    s.split = split.value();
  } else if (type == "Digits") {
    s.kind = Step::Kind::kDigits;
    Result<bool> individual = Bool(j, "individual_digits", false, at);
    if (!individual.ok()) return individual.error();
    s.individual_digits = individual.value();
    s.behavior = s.individual_digits ? Behavior::kIsolated : Behavior::kContiguous;
  } else if (type == "Punctuation") {
    s.kind = Step::Kind::kPunctuation;
    Result<Behavior> b = ParseBehavior(j, at);
    if (!b.ok()) return b.error();
    s.behavior = b.value();
  } else if (type == "Whitespace") {
    s.kind = Step::Kind::kWhitespace;
    Result<std::shared_ptr<const SplitRegex>> c =
        SplitRegex::Compile(R"(\w+|[^\w\s]+)", at + ": pattern");
    if (!c.ok()) return c.error();
    s.regex = c.value();
    s.behavior = Behavior::kRemoved;
    s.invert = true;
  } else if (type == "WhitespaceSplit") {
    s.kind = Step::Kind::kWhitespaceSplit;
    s.behavior = Behavior::kRemoved;
  } else if (type == "CharDelimiterSplit") {
    const Json* d = Member(j, "delimiter");
    if (!d || !d->is_string() || d->get<std::string>().empty() ||
        DecodeUtf8(d->get<std::string>(), 0).length !=
            static_cast<int>(d->get<std::string>().size()))
      return InvalidArgument(at + ": delimiter is not one character");
    s.kind = Step::Kind::kSplit;
    s.regex = SplitRegex::Literal(d->get<std::string>());
    s.behavior = Behavior::kRemoved;
  } else if (type == "BertPreTokenizer") {
    s.kind = Step::Kind::kBert;
  } else {
    return InvalidArgument(at + ": the pre-tokenizer type \"" + type +
                           "\" is not supported (Split, ByteLevel, Metaspace, Digits, "
                           "Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, "
                           "BertPreTokenizer and Sequence are)");
  }
  steps_.push_back(std::move(s));
  return {};
}

std::string PreTokenizer::Describe() const {
  static constexpr const char* kNames[] = {"Split",           "ByteLevel",       "Metaspace",
                                           "Digits",          "Punctuation",     "Whitespace",
                                           "WhitespaceSplit", "BertPreTokenizer"};
  std::string d;
  for (const Step& s : steps_) {
    if (!d.empty()) d += ", ";
    d += kNames[static_cast<int>(s.kind)];
  }
  return d;
}

bool PreTokenizer::IsByteLevelFastPath(SplitPattern* pattern, bool* prefix_space) const {
  if (steps_.size() == 1 && steps_[0].kind == Step::Kind::kByteLevel && steps_[0].use_regex) {
    *pattern = SplitPattern::kGpt2;
    *prefix_space = steps_[0].add_prefix_space;
    return true;
  }
  if (steps_.size() == 2 && steps_[0].kind == Step::Kind::kSplit && steps_[0].hand_written >= 0 &&
      steps_[1].kind == Step::Kind::kByteLevel && !steps_[1].use_regex &&
      !steps_[1].add_prefix_space) {
    *pattern = static_cast<SplitPattern>(steps_[0].hand_written);
    *prefix_space = false;
    return true;
  }
  return false;
}

bool PreTokenizer::HasByteLevel() const {
  for (const Step& s : steps_) {
    if (s.kind == Step::Kind::kByteLevel) return true;
  }
  return false;
}

bool PreTokenizer::IsBertOnly() const {
  return steps_.size() == 1 && steps_[0].kind == Step::Kind::kBert;
}

// ---- applying

namespace {

// The pieces one piece [b, e) becomes, from its segments (matches and the text between), by
// `behavior` (tokenizer/normalizer.rs, NormalizedString::split).
using Behavior = PreTokenizer::Behavior;

void EmitSegments(std::vector<Segment>& segs, bool invert, Behavior behavior,
                  std::vector<std::pair<size_t, size_t>>& out) {
  if (invert) {
    for (Segment& g : segs) g.match = !g.match;
  }
  if (behavior == Behavior::kRemoved) {
    for (const Segment& g : segs) {
      if (!g.match && g.end > g.begin) out.emplace_back(g.begin, g.end);
    }
    return;
  }
  std::vector<std::pair<size_t, size_t>> merged;
  if (behavior == Behavior::kMergedWithPrevious) {
    bool previous_match = false;
    for (const Segment& g : segs) {
      if (g.match && !previous_match && !merged.empty()) {
        merged.back().second = g.end;
      } else {
        merged.emplace_back(g.begin, g.end);
      }
      previous_match = g.match;
    }
  } else if (behavior == Behavior::kMergedWithNext) {
    bool previous_match = false;
    for (size_t k = segs.size(); k-- > 0;) {
      const Segment& g = segs[k];
      if (g.match && !previous_match && !merged.empty()) {
        merged.back().first = g.begin;
      } else {
        merged.emplace_back(g.begin, g.end);
      }
      previous_match = g.match;
    }
    std::reverse(merged.begin(), merged.end());
  } else if (behavior == Behavior::kContiguous) {
    bool previous_match = false;
    for (const Segment& g : segs) {
      if (g.match == previous_match && !merged.empty()) {
        merged.back().second = g.end;
      } else {
        merged.emplace_back(g.begin, g.end);
      }
      previous_match = g.match;
    }
  } else {  // Isolated
    for (const Segment& g : segs) merged.emplace_back(g.begin, g.end);
  }
  for (const auto& m : merged) {
    if (m.second > m.first) out.push_back(m);
  }
}

// Segments of [b, e) where each code point `pred` holds for is a match of its own.
template <typename Pred>
void CharSegments(std::string_view t, size_t b, size_t e, Pred pred, std::vector<Segment>& segs) {
  size_t run = b;
  for (size_t i = b; i < e;) {
    const Utf8Char u = Utf8At(t, i);
    const size_t n = i + static_cast<size_t>(u.length);
    if (pred(u.cp)) {
      if (run < i) segs.push_back({run, i, false});
      segs.push_back({i, n, true});
      run = n;
    }
    i = n;
  }
  if (run < e) segs.push_back({run, e, false});
}

// Rebuilds p.text piece by piece: `edit(piece, out)` appends the piece's new text to `out`
// (with its sources); the text between pieces is copied as it is.
template <typename Edit>
void RebuildPieces(PreTokenized& p, Edit edit) {
  AlignedText out;
  out.text.reserve(p.text.text.size() + p.pieces.size());
  out.from.reserve(p.text.text.size() + p.pieces.size() + 1);
  size_t at = 0;
  auto copy = [&](size_t b, size_t e) {
    out.text.append(p.text.text, b, e - b);
    out.from.insert(out.from.end(), p.text.from.begin() + static_cast<ptrdiff_t>(b),
                    p.text.from.begin() + static_cast<ptrdiff_t>(e));
  };
  for (auto& [b, e] : p.pieces) {
    copy(at, b);
    const size_t nb = out.text.size();
    edit(b, e, out);
    at = e;
    b = nb;
    e = out.text.size();
  }
  copy(at, p.text.text.size());
  out.from.push_back(p.text.from.back());
  p.text = std::move(out);
}

}  // namespace

Status PreTokenizer::Apply(AlignedText in, PreTokenized& out) const {
  out.text = std::move(in);
  out.pieces.clear();
  if (!out.text.text.empty()) out.pieces.emplace_back(0, out.text.text.size());
  std::vector<std::pair<size_t, size_t>> next;
  for (const Step& s : steps_) {
    next.clear();
    if (Status st = ApplyStep(s, out, next); !st.ok()) return st;
    out.pieces.swap(next);
  }
  return {};
}

Status PreTokenizer::ApplyStep(const Step& s, PreTokenized& p,
                               std::vector<std::pair<size_t, size_t>>& next) {
  const std::string_view t = p.text.text;
  std::vector<Segment> segs;
  std::vector<std::pair<size_t, size_t>> matches;
  auto emit = [&](bool invert, Behavior behavior) { EmitSegments(segs, invert, behavior, next); };
  auto hand_split = [&](SplitPattern sp) {
    for (const auto& [b, e] : p.pieces) {
      const std::string_view piece = t.substr(b, e - b);
      for (size_t i = 0; i < piece.size();) {
        const size_t n =
            sp == SplitPattern::kGpt2 ? NextGpt2PreToken(piece, i) : NextLlama3PreToken(piece, i);
        next.emplace_back(b + i, b + n);
        i = n;
      }
    }
  };
  switch (s.kind) {
    case Step::Kind::kSplit:
    case Step::Kind::kWhitespace:
      if (s.hand_written >= 0) {
        hand_split(static_cast<SplitPattern>(s.hand_written));
        return {};
      }
      for (const auto& [b, e] : p.pieces) {
        matches.clear();
        if (Status st = s.regex->FindAll(t.substr(b, e - b), matches); !st.ok()) return st;
        if (s.behavior == Behavior::kIsolated && !s.invert) {  // the common case, directly
          size_t prev = 0;
          for (const auto& [mb, me] : matches) {
            if (prev < mb) next.emplace_back(b + prev, b + mb);
            if (mb < me) next.emplace_back(b + mb, b + me);
            prev = me;
          }
          if (prev < e - b) next.emplace_back(b + prev, e);
          continue;
        }
        if (s.behavior == Behavior::kRemoved) {  // keep the matches (inverted) or the gaps
          size_t prev = 0;
          for (const auto& [mb, me] : matches) {
            if (s.invert && mb < me) next.emplace_back(b + mb, b + me);
            if (!s.invert && prev < mb) next.emplace_back(b + prev, b + mb);
            prev = me;
          }
          if (!s.invert && prev < e - b) next.emplace_back(b + prev, e);
          continue;
        }
        segs.clear();
        size_t prev = 0;
        for (const auto& [mb, me] : matches) {
          if (prev < mb) segs.push_back({b + prev, b + mb, false});
          segs.push_back({b + mb, b + me, true});
          prev = me;
        }
        if (prev < e - b) segs.push_back({b + prev, e, false});
        emit(s.invert, s.behavior);
      }
      return {};
    case Step::Kind::kDigits:
    case Step::Kind::kPunctuation:
    case Step::Kind::kWhitespaceSplit:
      for (const auto& [b, e] : p.pieces) {
        segs.clear();
        if (s.kind == Step::Kind::kDigits) {
          CharSegments(t, b, e, IsNumber, segs);
        } else if (s.kind == Step::Kind::kPunctuation) {
          CharSegments(t, b, e, IsPunctuation, segs);
        } else {
          CharSegments(t, b, e, IsWhiteSpace, segs);
        }
        emit(false, s.behavior);
      }
      return {};
    case Step::Kind::kBert:
      // Whitespace removed, then each punctuation character a piece of its own.
      for (const auto& [b, e] : p.pieces) {
        segs.clear();
        CharSegments(t, b, e, IsWhiteSpace, segs);
        std::vector<std::pair<size_t, size_t>> words;
        EmitSegments(segs, false, Behavior::kRemoved, words);
        for (const auto& [wb, we] : words) {
          segs.clear();
          CharSegments(t, wb, we, IsPunctuation, segs);
          emit(false, Behavior::kIsolated);
        }
      }
      return {};
    case Step::Kind::kByteLevel:
      if (s.add_prefix_space) {
        RebuildPieces(p, [&](size_t b, size_t e, AlignedText& out) {
          if (p.text.text[b] != ' ') {
            out.text += ' ';
            out.from.push_back(p.text.from[b]);
          }
          out.text.append(p.text.text, b, e - b);
          out.from.insert(out.from.end(), p.text.from.begin() + static_cast<ptrdiff_t>(b),
                          p.text.from.begin() + static_cast<ptrdiff_t>(e));
        });
      }
      if (s.use_regex) {
        // p.text may have been rebuilt: hand_split reads it afresh.
        const std::string_view t2 = p.text.text;
        for (const auto& [b, e] : p.pieces) {
          const std::string_view piece = t2.substr(b, e - b);
          for (size_t i = 0; i < piece.size();) {
            const size_t n = NextGpt2PreToken(piece, i);
            next.emplace_back(b + i, b + n);
            i = n;
          }
        }
      } else {
        next = p.pieces;
      }
      return {};
    case Step::Kind::kMetaspace: {
      const std::string& rep = s.replacement;
      RebuildPieces(p, [&](size_t b, size_t e, AlignedText& out) {
        const std::string_view piece = std::string_view(p.text.text).substr(b, e - b);
        // Checked after the spaces became the replacement, as the reference does.
        const bool starts = piece.compare(0, rep.size(), rep) == 0 || piece[0] == ' ';
        const bool prepend =
            !starts && (s.prepend == Step::Prepend::kAlways ||
                        (s.prepend == Step::Prepend::kFirst && p.text.from[b] == 0));
        if (prepend) {
          out.text += rep;
          out.from.insert(out.from.end(), rep.size(), p.text.from[b]);
        }
        for (size_t i = b; i < e; ++i) {
          if (p.text.text[i] == ' ') {
            out.text += rep;
            out.from.insert(out.from.end(), rep.size(), p.text.from[i]);
          } else {
            out.text += p.text.text[i];
            out.from.push_back(p.text.from[i]);
          }
        }
      });
      if (!s.split) {
        next = p.pieces;
        return {};
      }
      // Split on the replacement, each one starting the piece after it (MergedWithNext).
      const std::string_view t2 = p.text.text;
      for (const auto& [b, e] : p.pieces) {
        segs.clear();
        size_t prev = b;
        for (size_t at = t2.substr(0, e).find(rep, b); at != std::string_view::npos;
             at = t2.substr(0, e).find(rep, at + rep.size())) {
          if (prev < at) segs.push_back({prev, at, false});
          segs.push_back({at, at + rep.size(), true});
          prev = at + rep.size();
        }
        if (prev < e) segs.push_back({prev, e, false});
        emit(false, Behavior::kMergedWithNext);
      }
      return {};
    }
  }
  return {};
}

}  // namespace pe
