#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Encodes text with Hugging Face `tokenizers`, the reference our tokenizer is checked against.

    check_tokenizer_hf.py TOKENIZER_JSON TEXT_FILE OUTPUT_JSON
        writes the ids (and the decoded text) of every line of TEXT_FILE, split on "\\n" only;
        tests/core/tst_tokenizer_trainer.cpp compares them with ours
        (tests/fixtures/tokenizer-train/hf_ids.json).

    check_tokenizer_hf.py --documents REFERENCE_JSON TOKENIZER_JSON OUTPUT_JSON
        encodes every document of a tokenizer_reference.cjs output and reports, per document,
        whether Hugging Face agrees with the ids recorded there.

Needs only the `tokenizers` package (it comes with `transformers`); no GPU.
"""
import argparse
import json
import os
import sys


def load(path, extra_added=None):
    from tokenizers import Tokenizer

    if not extra_added:
        return Tokenizer.from_file(path)
    with open(path, encoding="utf-8") as f:
        root = json.load(f)
    root["added_tokens"].extend(extra_added)
    return Tokenizer.from_str(json.dumps(root))


def lines_mode(args):
    tokenizer = load(args.tokenizer)
    with open(args.text, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    ids = [tokenizer.encode(line, add_special_tokens=False).ids for line in lines]
    decoded = [tokenizer.decode(i, skip_special_tokens=False) for i in ids]
    write(args.output, {"tokenizer": os.path.basename(args.tokenizer),
                        "text": os.path.basename(args.text), "lines": len(lines),
                        "ids": ids, "decoded": decoded})
    print(f"{len(lines)} lines, {sum(map(len, ids))} tokens -> {args.output}")
    return 0


def documents_mode(args):
    with open(args.documents, encoding="utf-8") as f:
        reference = json.load(f)
    tokenizer = load(args.tokenizer, reference.get("extra_added_tokens"))
    results = []
    differing = 0
    for doc in reference["documents"]:
        ids = tokenizer.encode(doc["text"], add_special_tokens=False).ids
        same = ids == doc["ids"]
        differing += not same
        entry = {"source": doc["source"], "name": doc["name"], "same": same}
        if not same:
            first = next((i for i, (a, b) in enumerate(zip(ids, doc["ids"])) if a != b),
                         min(len(ids), len(doc["ids"])))
            entry.update(first_difference=first, hf=ids[max(0, first - 3):first + 5],
                         reference=doc["ids"][max(0, first - 3):first + 5],
                         hf_count=len(ids), reference_count=len(doc["ids"]))
        results.append(entry)
    write(args.output, {"reference": reference.get("reference"), "documents": len(results),
                        "differing": differing, "results": results})
    print(f"{len(results)} documents, {differing} differ from {reference.get('reference')}")
    return 1 if differing else 0


def write(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", metavar="REFERENCE_JSON")
    parser.add_argument("tokenizer")
    parser.add_argument("text", nargs="?")
    parser.add_argument("output")
    args = parser.parse_args()
    try:
        import tokenizers
    except ImportError:
        print("check_tokenizer_hf.py: Hugging Face tokenizers is not installed "
              "(pip install tokenizers)", file=sys.stderr)
        return 2
    print(f"tokenizers {tokenizers.__version__}")
    if args.documents:
        return documents_mode(args)
    if not args.text:
        parser.error("TEXT_FILE is needed without --documents")
    return lines_mode(args)


if __name__ == "__main__":
    sys.exit(main())
