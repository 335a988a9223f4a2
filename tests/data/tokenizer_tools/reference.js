// The reference ids: Hugging Face tokenizers through its Node binding (npm package `tokenizers`).
// Usage: NODE_PATH=/path/to/node_modules node reference.js tokenizer.json strings.json > golden.json
// Each golden entry: the text, its ids with special tokens added (`add`) and without (`none`).
// node ref.js tokenizer.json strings.json -> [{text, ids_add, ids_none}]
const {Tokenizer} = require('tokenizers');
const fs = require('fs');
(async () => {
  const t = Tokenizer.fromFile(process.argv[2]);
  const strings = JSON.parse(fs.readFileSync(process.argv[3], 'utf-8'));
  const out = [];
  for (const s of strings) {
    const a = await t.encode(s, null, {addSpecialTokens: true});
    const n = await t.encode(s, null, {addSpecialTokens: false});
    out.push({text: s, add: a.getIds(), none: n.getIds()});
  }
  console.log(JSON.stringify(out));
})();
