// Writes golden.json: what Hugging Face's `tokenizers` Node binding (the reference) makes of a
// few texts with each normalizer and pre-tokenizer configuration below: normalizeString for a
// normalizer, preTokenizeString's piece strings for a pre-tokenizer (ByteLevel's pieces in its
// byte -> character alphabet). Run outside the repository:
//   cd "$(mktemp -d)" && npm install tokenizers
//   node /path/to/tests/data/components/reference.mjs "$PWD/node_modules" /path/to/tests/data/components
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
const [modules, out] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const { Tokenizer } = require('tokenizers');
const texts = [
  '  Héllo  Wörld ﬁne ½ Ⅻ  ', 'cafe\u0301 A\u030a x\u0323\u0307', 'İstanbul ΣΑΣ straße ǅ',
  '日本語のテキスト、カタカナ。 中文！', 'tab\there\nnew  line\r\n', 'ＡＢＣ１２３ ²³ 12345 ١٢٣',
  "it's DONE'S  -- ok?! (yes) a_b", 'emoji 🙂👍🏽 हिन्दी', ' ', 'a', '',
];
// A SentencePiece compiled character map (a Darts double-array trie over the keys' UTF-8 bytes,
// then the replacements, each ending in a zero byte), built here for a few rules: a node's
// children lie at base ^ label, its value (a replacement's offset) at base ^ 0.
function charsMap(rules) {
  const enc = new TextEncoder();
  const root = { kids: new Map(), value: -1 };
  let strings = [];
  let size = 0;
  for (const [key, rep] of rules) {
    let n = root;
    for (const b of enc.encode(key)) {
      if (!n.kids.has(b)) n.kids.set(b, { kids: new Map(), value: -1 });
      n = n.kids.get(b);
    }
    n.value = size;
    const bytes = [...enc.encode(rep), 0];
    strings = strings.concat(bytes);
    size += bytes.length;
  }
  const units = [];
  const used = new Set([0]);
  const bases = new Set();  // each node's base is its own, as Darts keeps them
  function place(n, at) {  // n's unit is units[at]; returns its children's base
    const labels = [...n.kids.keys()];
    if (n.value >= 0) labels.push(0);
    let base = 1;
    while (bases.has(base) || labels.some(l => used.has(base ^ l))) base++;
    bases.add(base);
    for (const l of labels) used.add(base ^ l);
    if (n.value >= 0) units[base] = n.value;
    units[at] = (units[at] || 0) | ((at ^ base) << 10);
    for (const [l, kid] of n.kids) {
      units[base ^ l] = l | (kid.value >= 0 ? 1 << 8 : 0);
      place(kid, base ^ l);
    }
  }
  place(root, 0);
  const out = new Uint8Array(4 + units.length * 4 + strings.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, units.length * 4, true);
  for (let k = 0; k < units.length; k++) view.setUint32(4 + 4 * k, (units[k] || 0) >>> 0, true);
  out.set(strings, 4 + units.length * 4);
  return Buffer.from(out).toString('base64');
}
const spm = charsMap([['ﬁ', 'fi'], ['Ⅻ', 'XII'], ['½', '1⁄2'], ['e\u0301', 'é'], ['A', 'a'],
                      ['\t', ' '], ['テ', 'て'], ['👍', ':+1:'], ['ＡＢ', 'ab']]);
const qwen = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const N = (o) => ({ normalizer: o });
const P = (o) => ({ pre_tokenizer: o });
const cases = [
  N({ type: 'NFC' }), N({ type: 'NFD' }), N({ type: 'NFKC' }), N({ type: 'NFKD' }),
  N({ type: 'Lowercase' }), N({ type: 'Strip', strip_left: true, strip_right: true }),
  N({ type: 'Strip', strip_left: false, strip_right: true }),
  N({ type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }] }),
  N({ type: 'StripAccents' }),
  N({ type: 'Replace', pattern: { String: ' ' }, content: '▁' }),
  N({ type: 'Replace', pattern: { Regex: '\\s{2,}' }, content: ' ' }),
  N({ type: 'Replace', pattern: { Regex: '\\p{N}+' }, content: '#' }),
  N({ type: 'Prepend', prepend: '▁' }), N({ type: 'Sequence', normalizers: [] }),
  N({ type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' },
                                      { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] }),
  N({ type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }, { type: 'Strip', strip_left: true, strip_right: true }] }),
  N({ type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true }),
  N({ type: 'Precompiled', precompiled_charsmap: spm }),
  N({ type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: null, lowercase: false }),
  ...['Isolated', 'Removed', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'].flatMap(b => [
    P({ type: 'Split', pattern: { Regex: qwen }, behavior: b, invert: false }),
    P({ type: 'Split', pattern: { Regex: '\\p{N}{1,3}' }, behavior: b, invert: true }),
    P({ type: 'Split', pattern: { String: ' ' }, behavior: b, invert: false }),
    P({ type: 'Punctuation', behavior: b }),
  ]),
  P({ type: 'Split', pattern: { Regex: '[一-龥\u3040-ゟ゠-ヿ]+' }, behavior: 'Isolated', invert: false }),
  P({ type: 'Split', pattern: { Regex: '\\w+|[^\\w\\s]+' }, behavior: 'Isolated', invert: false }),
  P({ type: 'Split', pattern: { Regex: 'x*' }, behavior: 'Isolated', invert: false }),
  P({ type: 'Split', pattern: { Regex: '(?=\\p{Lu})' }, behavior: 'MergedWithNext', invert: false }),
  P({ type: 'Digits', individual_digits: true }), P({ type: 'Digits', individual_digits: false }),
  P({ type: 'Whitespace' }), P({ type: 'WhitespaceSplit' }), P({ type: 'CharDelimiterSplit', delimiter: 'e' }), P({ type: 'BertPreTokenizer' }),
  P({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }),
  P({ type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }),
  P({ type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: false }),
  ...['first', 'always', 'never'].flatMap(s => [true, false].map(split =>
    P({ type: 'Metaspace', replacement: '▁', prepend_scheme: s, split })))
  ,
  P({ type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true }] }),
  P({ type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: qwen }, behavior: 'Isolated', invert: false },
                                        { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: false }] }),
  P({ type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }] }),
  P({ type: 'Sequence', pretokenizers: [] }),
];
const golden = [];
for (const c of cases) {
  const j = { version: '1.0', added_tokens: [], normalizer: null, pre_tokenizer: null,
              post_processor: null, decoder: null,
              model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' }, ...c };
  const t = Tokenizer.fromString(JSON.stringify(j));
  const outs = texts.map(s => c.normalizer ? t.getNormalizer().normalizeString(s)
                                          : t.getPreTokenizer().preTokenizeString(s).map(p => p[0]));
  golden.push({ ...c, texts, outs });
}
fs.writeFileSync(path.join(out, 'golden.json'), '[\n' + golden.map(g => JSON.stringify(g)).join(',\n') + '\n]\n');
console.log(golden.length, 'configurations,', texts.length, 'texts');
