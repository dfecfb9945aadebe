// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/data/corpus_synth.h"

#include <string>
#include <vector>

namespace dice {

// One training or evaluation example of the corpus (a line of corpus.jsonl).
struct CorpusExample {
    std::string id; // "relu_v3/generate", "relu_v3/infill/relu_vec"
    std::string task;
    std::string family;
    int level = 1;
    std::string split;  // train, heldout_variant, heldout_family
    std::string kind;   // generate or infill
    std::string hole;   // for infill: the kernel whose body is the answer
    std::string prompt; // the user message (before the chat template)
    std::string answer; // what the model must write
    // Asked as the workbench asks about an imported KernelBench problem ("style": "kernelbench").
    bool kernelbenchStyle = false;
};

// The generation example and one infilling example per kernel of each task's solution (the other
// kernels' bodies stay in place, so each example has exactly one hole); a KernelBench-style task
// has the generation example only.
std::vector<CorpusExample> corpusExamples(const SynthTask& task);

// The built-in suite's tasks that have a native solution in the data folder, as training tasks of
// their own family each (split train): the demo tasks a teacher tries first, which the embedded
// model may learn (docs/dice-nano.md says so). They never enter a synthetic corpus, whose
// curation and held-out splits stay about the synthetic families.
std::vector<SynthTask> builtinTrainingTasks();

// The examples of builtinTrainingTasks, their answers without comment lines: the solutions'
// comments are paragraphs of prose, unlike anything of the synthetic corpus, and a small model
// that garbles one of them writes code before '#pragma dice device'. The prompts stay the
// product's own, comments and all.
std::vector<CorpusExample> builtinExamples();

// The text without its whole-line comments: "//" lines outside the host part, "#" lines in it
// other than "#pragma"; a blank line left next to another goes with them.
std::string withoutCommentLines(const std::string& candidate);

// Writes DIR/tasks/NAME.json (with the parameter files of imported tasks), DIR/solutions/NAME.dice,
// DIR/corpus.jsonl and DIR/manifest.json (families, splits, counts, the KernelBench-style tasks per
// split, the options), and DIR/tokenizer-text.txt (the training split's prompts and answers as
// plain text, to train a tokenizer on). Returns the number of examples.
std::size_t writeCorpus(const std::string& directory, const std::vector<SynthTask>& tasks,
                        const SynthOptions& options);

std::string toJsonLine(const CorpusExample& example);
// What a tokenizer learns from in one example: its prompt and answer as plain text, each ended by
// a line break (the form of DIR/tokenizer-text.txt).
std::string tokenizerText(const CorpusExample& example);
// Throws dice::Error naming the field when the line is not an example.
CorpusExample corpusExampleFromJson(const std::string& line);

} // namespace dice
