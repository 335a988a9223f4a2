// The normalizer components of a tokenizer.json, after Hugging Face tokenizers' normalizers/
// (unicode.rs, utils.rs Sequence and Lowercase, strip.rs Strip and StripAccents, replace.rs,
// prepend.rs, bert.rs), read and written anew here. Unicode normalization forms come from ICU
// (Normalizer2), which the system keeps current; the code points' other properties from
// unicode_props.h, as the BERT path already uses them.
#include "text/normalizers.h"

#include <unicode/brkiter.h>
#include <unicode/edits.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utext.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "text/component_json.h"
#include "text/pretokenizers.h"
#include "text/unicode_props.h"

namespace pe {

using Json = nlohmann::json;

AlignedText AlignedText::Of(std::string_view source, int64_t base) {
  AlignedText t;
  t.text.assign(source);
  t.from.resize(source.size() + 1);
  for (size_t i = 0; i <= source.size(); ++i) t.from[i] = base + static_cast<int64_t>(i);
  return t;
}

namespace {

constexpr int kMaxDepth = 16;

using component_json::Bool;
using component_json::Member;
using component_json::TypeOf;

// Rebuilds `t` code point by code point: `map(cp, out)` appends what `cp` becomes (nothing to
// drop it); the bytes it appends come from the code point's source byte.
template <typename Map>
void MapCodePoints(AlignedText& t, Map map) {
  AlignedText out;
  out.text.reserve(t.text.size());
  out.from.reserve(t.text.size() + 1);
  for (size_t i = 0; i < t.text.size();) {
    const Utf8Char u = DecodeUtf8(t.text, i);
    const size_t before = out.text.size();
    map(u.cp, out.text);
    out.from.insert(out.from.end(), out.text.size() - before, t.from[i]);
    i += static_cast<size_t>(u.length);
  }
  out.from.push_back(t.from.back());
  t = std::move(out);
}

void IcuNormalize(const icu::Normalizer2* n, AlignedText& t) {
  UErrorCode err = U_ZERO_ERROR;
  if (n->isNormalizedUTF8(t.text, err) && U_SUCCESS(err)) return;
  // ICU records what it changed (Edits): unchanged bytes keep their source, the bytes of a
  // change come from the first source byte of what it replaced.
  AlignedText out;
  out.text.reserve(t.text.size() + t.text.size() / 8);
  icu::Edits edits;
  icu::StringByteSink<std::string> sink(&out.text);
  err = U_ZERO_ERROR;
  n->normalizeUTF8(0, icu::StringPiece(t.text.data(), static_cast<int32_t>(t.text.size())), sink,
                   &edits, err);
  if (U_FAILURE(err)) return;
  out.from.reserve(out.text.size() + 1);
  icu::Edits::Iterator it = edits.getFineIterator();
  while (it.next(err) && U_SUCCESS(err)) {
    const auto src = static_cast<size_t>(it.sourceIndex());
    if (it.hasChange()) {
      const int64_t at = src < t.from.size() ? t.from[src] : t.from.back();
      out.from.insert(out.from.end(), static_cast<size_t>(it.newLength()), at);
    } else {
      out.from.insert(
          out.from.end(), t.from.begin() + static_cast<ptrdiff_t>(src),
          t.from.begin() + static_cast<ptrdiff_t>(src + static_cast<size_t>(it.oldLength())));
    }
  }
  if (out.from.size() != out.text.size()) return;  // not what ICU promised: keep the text
  out.from.push_back(t.from.back());
  t = std::move(out);
}

bool IsCombiningMark(char32_t cp) {
  const int8_t c = u_charType(static_cast<UChar32>(cp));
  return c == U_NON_SPACING_MARK || c == U_ENCLOSING_MARK || c == U_COMBINING_SPACING_MARK;
}

// The [begin, end) of each non-empty match of `s` or `regex` in `text`.
Status Matches(std::string_view text, const std::string& literal, const SplitRegex* regex,
               std::vector<std::pair<size_t, size_t>>& out) {
  out.clear();
  if (regex) {
    if (Status s = regex->FindAll(text, out); !s.ok()) return s;
    std::erase_if(out, [](const auto& m) { return m.first == m.second; });
    return {};
  }
  for (size_t at = text.find(literal); at != std::string_view::npos;
       at = text.find(literal, at + literal.size())) {
    out.emplace_back(at, at + literal.size());
  }
  return {};
}

// Standard base64 (RFC 4648) with padding; nullopt-like false on anything else.
bool DecodeBase64(std::string_view in, std::string& out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return true;
}

}  // namespace

// SentencePiece's compiled character map (normalizer.cc, and the spm_precompiled crate Hugging
// Face tokenizers uses): a little-endian uint32 byte size of a double-array trie (Darts units),
// the trie, then the replacement strings, each ending in a zero byte. A key's trie value is the
// offset of its replacement.
struct Normalizer::CharsMap {
  std::vector<uint32_t> units;
  std::string strings;

  // The value of the shortest prefix of `key` the trie holds (spm_precompiled's transform takes
  // the first of the common-prefix results), or -1. Bounds are checked: the map comes from the
  // file.
  int64_t FirstPrefixValue(std::string_view key) const {
    auto offset = [](uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); };
    if (units.empty()) return -1;
    size_t node = offset(units[0]);
    for (char ch : key) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == 0) break;
      node ^= c;
      if (node >= units.size()) return -1;
      const uint32_t u = units[node];
      if ((u & ((1u << 31) | 0xFF)) != c) return -1;  // label
      node ^= offset(u);
      if (node >= units.size()) return -1;
      if ((u >> 8) & 1) return units[node] & ((1u << 31) - 1);  // has_leaf: value
    }
    return -1;
  }
  // The replacement for `chunk`, or false.
  bool Transform(std::string_view chunk, std::string_view* out) const {
    const int64_t v = FirstPrefixValue(chunk);
    if (v < 0 || static_cast<size_t>(v) >= strings.size()) return false;
    const size_t b = static_cast<size_t>(v);
    size_t e = strings.find('\0', b);
    if (e == std::string::npos) e = strings.size();
    *out = std::string_view(strings).substr(b, e - b);
    return true;
  }
};

namespace {}  // namespace

Result<Normalizer> Normalizer::FromJson(const Json& j, const std::string& where) {
  Normalizer n;
  if (j.is_null()) return n;
  if (Status s = n.Add(j, where, 0); !s.ok()) return s.error();
  return n;
}

Status Normalizer::Add(const Json& j, const std::string& where, int depth) {
  if (!j.is_object()) return InvalidArgument(where + " is not a JSON object");
  const std::string type = TypeOf(j);
  const std::string at = where + " (" + type + ")";
  Step s;
  if (type == "Sequence") {
    if (depth >= kMaxDepth) return InvalidArgument(at + ": Sequences nested too deep");
    const Json* list = Member(j, "normalizers");
    if (!list || !list->is_array()) return InvalidArgument(at + ": normalizers is not a list");
    for (size_t k = 0; k < list->size(); ++k) {
      if (Status st = Add((*list)[k], where + " step " + std::to_string(k), depth + 1); !st.ok())
        return st;
    }
    return {};
  } else if (type == "NFC") {
    s.kind = Step::Kind::kNfc;
  } else if (type == "NFD") {
    s.kind = Step::Kind::kNfd;
  } else if (type == "NFKC") {
    s.kind = Step::Kind::kNfkc;
  } else if (type == "NFKD") {
    s.kind = Step::Kind::kNfkd;
  } else if (type == "Lowercase") {
    s.kind = Step::Kind::kLowercase;
  } else if (type == "StripAccents") {
    s.kind = Step::Kind::kStripAccents;
  } else if (type == "Strip") {
    s.kind = Step::Kind::kStrip;
    Result<bool> left = Bool(j, "strip_left", true, at);
    Result<bool> right = Bool(j, "strip_right", true, at);
    if (!left.ok()) return left.error();
    if (!right.ok()) return right.error();
    s.left = left.value();
    s.right = right.value();
  } else if (type == "Prepend") {
    s.kind = Step::Kind::kPrepend;
    const Json* p = Member(j, "prepend");
    if (!p || !p->is_string()) return InvalidArgument(at + ": prepend is not a string");
    s.content = p->get<std::string>();
  } else if (type == "Replace") {
    s.kind = Step::Kind::kReplace;
    const Json* content = Member(j, "content");
    if (!content || !content->is_string()) return InvalidArgument(at + ": content is not a string");
    s.content = content->get<std::string>();
    const Json* pattern = Member(j, "pattern");
    const Json* str = pattern ? Member(*pattern, "String") : nullptr;
    const Json* regex = pattern ? Member(*pattern, "Regex") : nullptr;
    if (str && str->is_string() && !str->get<std::string>().empty()) {
      s.pattern = str->get<std::string>();
    } else if (regex && regex->is_string()) {
      Result<std::shared_ptr<const SplitRegex>> r =
          SplitRegex::Compile(regex->get<std::string>(), at + ": pattern.Regex");
      if (!r.ok()) return r.error();
      s.regex = r.value();
    } else {
      return InvalidArgument(at + ": pattern is not {\"String\": a non-empty string} or " +
                             "{\"Regex\": a string}");
    }
  } else if (type == "BertNormalizer") {
    s.kind = Step::Kind::kBert;
    Result<bool> clean = Bool(j, "clean_text", true, at);
    Result<bool> chinese = Bool(j, "handle_chinese_chars", true, at);
    Result<bool> lower = Bool(j, "lowercase", true, at);
    if (!clean.ok()) return clean.error();
    if (!chinese.ok()) return chinese.error();
    if (!lower.ok()) return lower.error();
    s.bert.clean_text = clean.value();
    s.bert.handle_chinese_chars = chinese.value();
    s.bert.lowercase = lower.value();
    // strip_accents: null follows lowercase (BERT's uncased models strip, cased ones do not).
    Result<bool> strip = Bool(j, "strip_accents", s.bert.lowercase, at);
    if (!strip.ok()) return strip.error();
    s.bert.strip_accents = strip.value();
  } else if (type == "Precompiled") {
    s.kind = Step::Kind::kPrecompiled;
    const Json* map = Member(j, "precompiled_charsmap");
    if (!map || !map->is_string()) {
      return InvalidArgument(at + ": precompiled_charsmap is not a base64 string");
    }
    std::string bytes;
    if (!DecodeBase64(map->get<std::string>(), bytes)) {
      return InvalidArgument(at + ": precompiled_charsmap is not valid base64");
    }
    auto charsmap = std::make_shared<CharsMap>();
    if (!bytes.empty()) {
      uint32_t trie_size = 0;
      if (bytes.size() >= 4) std::memcpy(&trie_size, bytes.data(), 4);  // little-endian x86
      if (bytes.size() < 4 || trie_size % 4 != 0 || trie_size > bytes.size() - 4) {
        return InvalidArgument(at + ": precompiled_charsmap's trie size " +
                               std::to_string(trie_size) + " does not fit its " +
                               std::to_string(bytes.size()) + " bytes");
      }
      charsmap->units.resize(trie_size / 4);
      std::memcpy(charsmap->units.data(), bytes.data() + 4, trie_size);
      charsmap->strings = bytes.substr(4 + trie_size);
    }
    s.charsmap = std::move(charsmap);
  } else {
    return InvalidArgument(at + ": the normalizer type \"" + type +
                           "\" is not supported (NFC, NFD, NFKC, NFKD, Lowercase, Strip, "
                           "StripAccents, Replace, Prepend, BertNormalizer and Sequence are)");
  }
  steps_.push_back(std::move(s));
  return {};
}

std::string Normalizer::Describe() const {
  static constexpr const char* kNames[] = {"NFC",       "NFD",           "NFKC",         "NFKD",
                                           "Lowercase", "Strip",         "StripAccents", "Replace",
                                           "Prepend",   "BertNormalizer"};
  std::string d;
  for (const Step& s : steps_) {
    if (!d.empty()) d += ", ";
    d += kNames[static_cast<int>(s.kind)];
  }
  return d;
}

bool Normalizer::IsBertOnly(Bert* settings) const {
  if (steps_.size() != 1 || steps_[0].kind != Step::Kind::kBert) return false;
  *settings = steps_[0].bert;
  return true;
}

// Grapheme by grapheme (ICU's extended grapheme clusters, as the unicode-segmentation crate):
// a grapheme under 6 bytes the map holds is replaced whole; else each of its code points the
// map holds is replaced (tokenizers' normalizers/precompiled.rs).
void Normalizer::ApplyCharsMap(const CharsMap& map, AlignedText& t) {
  if (map.units.empty() || t.text.empty()) return;
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), err));
  UText* ut = utext_openUTF8(nullptr, t.text.data(), static_cast<int64_t>(t.text.size()), &err);
  if (U_FAILURE(err) || !it) {
    utext_close(ut);
    return;
  }
  it->setText(ut, err);
  AlignedText out;
  out.text.reserve(t.text.size());
  out.from.reserve(t.text.size() + 1);
  auto put = [&](std::string_view s, int64_t source) {
    out.text.append(s);
    out.from.insert(out.from.end(), s.size(), source);
  };
  auto copy = [&](size_t b, size_t e) {
    out.text.append(t.text, b, e - b);
    out.from.insert(out.from.end(), t.from.begin() + static_cast<ptrdiff_t>(b),
                    t.from.begin() + static_cast<ptrdiff_t>(e));
  };
  std::string_view rep;
  for (int32_t b = it->first(), e = it->next(); e != icu::BreakIterator::DONE;
       b = e, e = it->next()) {
    const auto gb = static_cast<size_t>(b), ge = static_cast<size_t>(e);
    const std::string_view g = std::string_view(t.text).substr(gb, ge - gb);
    if (g.size() < 6 && map.Transform(g, &rep)) {
      put(rep, t.from[gb]);
      continue;
    }
    for (size_t i = gb; i < ge;) {
      const size_t n = i + static_cast<size_t>(DecodeUtf8(t.text, i).length);
      if (map.Transform(std::string_view(t.text).substr(i, n - i), &rep)) {
        put(rep, t.from[i]);
      } else {
        copy(i, n);
      }
      i = n;
    }
  }
  utext_close(ut);
  out.from.push_back(t.from.back());
  t = std::move(out);
}

void Normalizer::Apply(AlignedText& t) const {
  for (const Step& s : steps_) ApplyStep(s, t);
}

void Normalizer::ApplyStep(const Step& s, AlignedText& t) {
  switch (s.kind) {
    case Step::Kind::kNfc: {
      UErrorCode err = U_ZERO_ERROR;
      IcuNormalize(icu::Normalizer2::getNFCInstance(err), t);
      break;
    }
    case Step::Kind::kNfd: {
      UErrorCode err = U_ZERO_ERROR;
      IcuNormalize(icu::Normalizer2::getNFDInstance(err), t);
      break;
    }
    case Step::Kind::kNfkc: {
      UErrorCode err = U_ZERO_ERROR;
      IcuNormalize(icu::Normalizer2::getNFKCInstance(err), t);
      break;
    }
    case Step::Kind::kNfkd: {
      UErrorCode err = U_ZERO_ERROR;
      IcuNormalize(icu::Normalizer2::getNFKDInstance(err), t);
      break;
    }
    case Step::Kind::kLowercase:
      MapCodePoints(t, [](char32_t cp, std::string& out) { AppendLowercase(out, cp); });
      break;
    case Step::Kind::kStripAccents:
      MapCodePoints(t, [](char32_t cp, std::string& out) {
        if (!IsCombiningMark(cp)) AppendUtf8(out, cp);
      });
      break;
    case Step::Kind::kStrip: {
      size_t b = 0, e = t.text.size();
      if (s.left) {
        while (b < e) {
          const Utf8Char u = DecodeUtf8(t.text, b);
          if (!IsWhiteSpace(u.cp)) break;
          b += static_cast<size_t>(u.length);
        }
      }
      if (s.right) {
        while (e > b) {
          size_t k = e - 1;
          while (k > b && (static_cast<unsigned char>(t.text[k]) & 0xC0) == 0x80) --k;
          if (!IsWhiteSpace(DecodeUtf8(t.text, k).cp)) break;
          e = k;
        }
      }
      if (b == 0 && e == t.text.size()) break;
      const int64_t end_from = t.from[e];
      t.text = t.text.substr(b, e - b);
      t.from.erase(t.from.begin() + static_cast<ptrdiff_t>(e), t.from.end());
      t.from.erase(t.from.begin(), t.from.begin() + static_cast<ptrdiff_t>(b));
      t.from.push_back(end_from);
      break;
    }
    case Step::Kind::kPrepend:
      if (!t.text.empty()) {
        t.text.insert(0, s.content);
        t.from.insert(t.from.begin(), s.content.size(), t.from[0]);
      }
      break;
    case Step::Kind::kReplace: {
      std::vector<std::pair<size_t, size_t>> m;
      // A regex that exceeds its limits leaves the text as it is (the pre-tokenizer's limits
      // are the ones reported).
      if (!Matches(t.text, s.pattern, s.regex.get(), m).ok() || m.empty()) break;
      AlignedText out;
      size_t at = 0;
      for (const auto& [b, e] : m) {
        out.text.append(t.text, at, b - at);
        out.from.insert(out.from.end(), t.from.begin() + static_cast<ptrdiff_t>(at),
                        t.from.begin() + static_cast<ptrdiff_t>(b));
        out.text += s.content;
        out.from.insert(out.from.end(), s.content.size(), t.from[b]);
        at = e;
      }
      out.text.append(t.text, at, std::string::npos);
      out.from.insert(out.from.end(), t.from.begin() + static_cast<ptrdiff_t>(at), t.from.end());
      t = std::move(out);
      break;
    }
    case Step::Kind::kPrecompiled:
      ApplyCharsMap(*s.charsmap, t);
      break;
    case Step::Kind::kBert: {
      const Bert b = s.bert;
      MapCodePoints(t, [b](char32_t cp, std::string& out) {
        if (b.clean_text && (cp == 0 || cp == 0xFFFD || IsBertControl(cp))) return;
        std::string piece;
        if (b.clean_text && IsBertWhitespace(cp)) {
          piece.push_back(' ');
        } else if (b.handle_chinese_chars && IsCjk(cp)) {
          piece.push_back(' ');
          AppendUtf8(piece, cp);
          piece.push_back(' ');
        } else {
          AppendUtf8(piece, cp);
        }
        if (b.strip_accents) {
          std::string s2;
          for (size_t k = 0; k < piece.size();) {
            const Utf8Char v = DecodeUtf8(piece, k);
            AppendStripAccents(s2, v.cp);
            k += static_cast<size_t>(v.length);
          }
          piece = std::move(s2);
        }
        if (b.lowercase) {
          for (size_t k = 0; k < piece.size();) {
            const Utf8Char v = DecodeUtf8(piece, k);
            AppendLowercase(out, v.cp);
            k += static_cast<size_t>(v.length);
          }
        } else {
          out += piece;
        }
      });
      break;
    }
  }
}

}  // namespace pe
