#!/usr/bin/env python3
"""Writes full-size tokenizer.json files for the loading and encoding benchmarks of bench/.

    /usr/bin/python3 bench/make_tokenizers.py OUT_DIR

Each file keeps everything of a reduced test file in tests/data but the vocabulary and the
merges, which are grown to a real model's size:

  OUT_DIR/byte_level/tokenizer.json  o200k's pre-tokenizer (tests/data/regex_bpe/o200k), a
                                     byte-level BPE of 200,000 tokens and 199,744 merges
  OUT_DIR/sp_bpe/tokenizer.json      Gemma 3's layout (tests/data/gemma3_small): BPE over
                                     characters with byte fallback, 262,144 tokens and 261,352 merges
  OUT_DIR/unigram/tokenizer.json     T5's layout (tests/data/unigram_small): Unigram, 32,100
                                     pieces

The tokens come first from the words of the benchmarks' text (the licence texts Debian ships,
this repository's README and the strings of tests/data/regex_bpe), each built left to right by
merges in the order of the words' frequency, then from pseudo-random pairs of tokens already in
the vocabulary (a fixed seed: the files are the same on every run). Merges and ids are therefore
consistent, but the files are no model's: they measure speed, never ids.
"""
import json
import math
import os
import random
import re
import sys
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus():
    text = ""
    for path in ("/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0",
                 "/usr/share/common-licenses/MPL-2.0", os.path.join(REPO, "README.md")):
        try:
            with open(path, encoding="utf-8") as f:
                text += f.read()
        except OSError:
            pass
    with open(os.path.join(REPO, "tests/data/regex_bpe/strings.json"), encoding="utf-8") as f:
        text += " ".join(json.load(f))
    return text


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def grow(words, base, vocab_size, merge_limit, rng, max_len):
    """Vocabulary (token list) and merges: `base` tokens, then the words' prefixes by merges,
    then random pairs until `vocab_size` tokens or `merge_limit` merges."""
    tokens = list(base)
    seen = set(tokens)
    merges = []

    def add(a, b):
        ab = a + b
        if ab in seen:
            return
        seen.add(ab)
        tokens.append(ab)
        merges.append([a, b])

    for word, _ in words.most_common():
        chars = list(word)
        if any(c not in seen for c in chars):
            continue
        prefix = chars[0]
        for c in chars[1:]:
            if len(tokens) >= vocab_size or len(merges) >= merge_limit:
                break
            add(prefix, c)
            prefix += c
    while len(tokens) < vocab_size and len(merges) < merge_limit:
        a = tokens[rng.randrange(len(tokens))]
        b = tokens[rng.randrange(len(tokens))]
        if len(a) + len(b) <= max_len:
            add(a, b)
    return tokens, merges


def main():
    out = sys.argv[1]
    rng = random.Random(20261128)
    text = corpus()

    # Byte-level BPE with o200k's pre-tokenizer.
    b2u = bytes_to_unicode()
    words = Counter()
    for w in re.findall(r" ?\w+| ?[^\s\w]+|\s+", text):
        words["".join(b2u[b] for b in w.encode("utf-8"))] += 1
    with open(os.path.join(REPO, "tests/data/regex_bpe/o200k/tokenizer.json"),
              encoding="utf-8") as f:
        j = json.load(f)
    special = {a["content"]: a["id"] for a in j["added_tokens"]}
    base = [b2u[b] for b in range(256)]
    tokens, merges = grow(words, base, 200000 - len(special), 199744, rng, 16)
    vocab = {t: i for i, t in enumerate(tokens)}
    for content in special:
        j_id = len(vocab)
        vocab[content] = j_id
    j["added_tokens"] = [dict(a, id=vocab[a["content"]]) for a in j["added_tokens"]]
    j["model"]["vocab"] = vocab
    j["model"]["merges"] = merges
    write(out, "byte_level", j)

    # BPE over characters with byte fallback, Gemma 3's layout.
    words = Counter("\u2581" + w for w in text.split())
    with open(os.path.join(REPO, "tests/data/gemma3_small/tokenizer.json"),
              encoding="utf-8") as f:
        j = json.load(f)
    old = j["model"]["vocab"]
    first = [t for t, _ in sorted(old.items(), key=lambda p: p[1])
             if len(t) > 1 and not re.fullmatch(r"\u2581+|\n+", t)]
    first += ["<0x%02X>" % b for b in range(256) if "<0x%02X>" % b not in first]
    chars = sorted(set(text.replace(" ", "\u2581")) - set(first))
    tokens, merges = grow(words, first + chars, 262144, 10**9, rng, 16)
    j["model"]["vocab"] = {t: i for i, t in enumerate(tokens)}
    j["model"]["merges"] = merges
    ids = j["model"]["vocab"]
    j["added_tokens"] = [dict(a, id=ids[a["content"]]) for a in j["added_tokens"]
                         if a["content"] in ids]
    fix_template(j, ids)
    write(out, "sp_bpe", j)

    # Unigram, T5's layout: the specials, every character, then the words and random pieces.
    with open(os.path.join(REPO, "tests/data/unigram_small/tokenizer.json"),
              encoding="utf-8") as f:
        j = json.load(f)
    pieces = [p for p in j["model"]["vocab"][:3]]
    seen = {p[0] for p in pieces}
    total = sum(words.values())
    for c in sorted(set(text.replace(" ", "\u2581")) - seen - {"\n", "\t", "\r"}):
        pieces.append([c, -12.0 - rng.random()])
        seen.add(c)
    for w, n in words.most_common():
        if len(pieces) >= 24000:
            break
        if w not in seen:
            pieces.append([w, round(math.log(n / total), 4)])
            seen.add(w)
    keys = [w for w, _ in words.most_common() if len(w) >= 3]
    while len(pieces) < 32100:
        # A piece of a word, or when those run out, two pieces joined.
        w = keys[rng.randrange(len(keys))]
        a = rng.randrange(len(w) - 1)
        p = w[a:a + rng.randrange(2, 6)]
        if p in seen:
            p = pieces[rng.randrange(3, len(pieces))][0] + pieces[rng.randrange(3, len(pieces))][0]
        if p not in seen and len(p) <= 16:
            pieces.append([p, round(-9.0 - 4 * rng.random(), 4)])
            seen.add(p)
    j["model"]["vocab"] = pieces
    ids = {p[0]: k for k, p in enumerate(pieces)}
    j["added_tokens"] = [dict(a, id=ids[a["content"]]) for a in j["added_tokens"]
                         if a["content"] in ids]
    fix_template(j, ids)
    write(out, "unigram", j)


def fix_template(j, ids):
    """The post-processor's special tokens given the new ids."""
    post = j.get("post_processor") or {}
    for name, s in (post.get("special_tokens") or {}).items():
        s["ids"] = [ids[t] for t in s["tokens"]]


def write(out, sub, j):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
    path = os.path.join(out, sub, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(j, f, ensure_ascii=False)
    print(path, len(j["model"]["vocab"]), "tokens,", len(j["model"].get("merges") or []),
          "merges,", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
