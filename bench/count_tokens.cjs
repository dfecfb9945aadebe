// SPDX-License-Identifier: GPL-3.0-or-later
// How long corpus examples are in a tokenizer's vocabulary: each line's prompt and answer
// encoded with the reference JavaScript tokenizer the tokenizer tests use (@lenml/tokenizers,
// installed by scripts/setup.sh), and the median, 90th percentile, longest and how many are over
// 2,048 and 3,072 tokens printed as JSON.
//
//   node bench/count_tokens.cjs TOKENIZER.json EXAMPLES.jsonl
"use strict";

const fs = require("fs");
const path = require("path");

const [tokenizerFile, examplesFile] = process.argv.slice(2);
if (!tokenizerFile || !examplesFile) {
  process.stderr.write("usage: node bench/count_tokens.cjs TOKENIZER.json EXAMPLES.jsonl\n");
  process.exit(2);
}
const modules = path.resolve(__dirname, "..", "third_party", "node", "node_modules");
const { TokenizerLoader } = require(path.join(modules, "@lenml", "tokenizers"));
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(fs.readFileSync(tokenizerFile, "utf8")),
  tokenizerConfig: { tokenizer_class: "Qwen2Tokenizer" },
});
const count = (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
const lengths = fs
  .readFileSync(examplesFile, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => {
    const e = JSON.parse(line);
    return count(e.prompt) + count(e.answer);
  })
  .sort((a, b) => a - b);
if (lengths.length === 0) {
  process.stderr.write(`count_tokens: ${examplesFile} holds no example\n`);
  process.exit(2);
}
const at = (q) => lengths[Math.floor(q * (lengths.length - 1))];
process.stdout.write(
  JSON.stringify({
    examples: lengths.length,
    median: at(0.5),
    p90: at(0.9),
    longest: lengths[lengths.length - 1],
    over_2048: lengths.filter((n) => n > 2048).length,
    over_3072: lengths.filter((n) => n > 3072).length,
  }) + "\n",
);
