// Byte-fallback pieces grouped into the characters they spell. A SentencePiece-style tokenizer
// with byte_fallback writes a character its vocabulary lacks as one <0xNN> piece per UTF-8 byte
// (Llama 2 and Mistral spell an emoji as <0xF0><0x9F><0x98><0x80>); the token strip shows each
// run as one group with the character it spells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "text/subword_tokenizer.h"

namespace pe {

struct ByteFallbackGroup {
  size_t first = 0;       // index of the group's first piece in the ids
  size_t count = 0;       // pieces: the character's UTF-8 length, 2 to 4
  std::string character;  // its UTF-8 bytes
  char32_t code_point = 0;
};

// The runs of byte-fallback pieces among `ids` that spell one whole character each (a lead
// byte, then its continuation bytes: no overlong form, no surrogate, at most U+10FFFF), in
// order. A piece that is ASCII (<0x0A>) or part of no whole character is in no group.
std::vector<ByteFallbackGroup> ByteFallbackGroups(const SubwordTokenizer& tokenizer,
                                                  std::span<const int64_t> ids);

}  // namespace pe
