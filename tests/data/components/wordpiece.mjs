// Writes wordpiece.json: a WordPiece tokenizer.json whose normalizer (NFD, Lowercase,
// StripAccents) and pre-tokenizer (Whitespace, Digits) take the general path, with the ids and
// offsets Hugging Face's `tokenizers` Node binding gives a few texts. Run outside the repository:
//   node /path/to/tests/data/components/wordpiece.mjs "$PWD/node_modules" > wordpiece.json
import path from 'path';
import { createRequire } from 'module';
const require = createRequire(path.join(process.argv[2], 'x.js'));
const { Tokenizer } = require('tokenizers');
const vocab = {};
['[UNK]', 'hello', 'world', '##s', 'cafe', '!', ',', 'un', '##believ', '##able', 'the', '##re', '1', '2', '3', 'ok', '.', 'nai', '##ve', 'resume', '日', '本'].forEach((t, i) => vocab[t] = i);
const j = { version: '1.0', added_tokens: [], post_processor: null, decoder: null,
  normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'Lowercase' }, { type: 'StripAccents' }] },
  pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }] },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab } };
const t = Tokenizer.fromString(JSON.stringify(j));
const texts = ['Hello, WORLDS!', 'Unbelievable. Café naïve résumé', 'ok 123 there', '日本 xyz', '  '];
const out = [];
for (const s of texts) { const e = await t.encode(s, null, { addSpecialTokens: false }); out.push({ text: s, ids: e.getIds(), offsets: e.getOffsets() }); }
console.log(JSON.stringify({ tokenizer: j, golden: out }));
