// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <map>
#include <string>

// What is done around the model when a hole of a skeleton is filled (docs/infill.md), the same
// for the Infill area and for a reinforcement-learning infilling phase: the context the model
// sees, the prompt in the skeleton's dialect, the hole's content cut out of the model's answer,
// and a new hole made from a selection.
namespace dice {

struct Task;

enum class InfillDialect {
    Native,      // a .dice skeleton (or any text that is not KernelBench): the answer is the hole
    KernelBench, // Python defining ModelNew: the answer is the whole program
};

InfillDialect infillDialect(const std::string& text);

// The longest answer a fill asks for, in either dialect: the built-in GEMMs' kernel bodies are up
// to about 1,800 tokens of the embedded model's vocabulary, a KernelBench program about 2,000. A
// fill ends at the model's end token, so short bodies cost no more for it.
constexpr int kInfillAnswerTokens = 2048;

// `text` with every other hole that has a proposal filled with it, so holes filled earlier in
// the same run lend their proposals as context. `proposals` maps hole names to their contents;
// the hole named `hole` stays a marker.
std::string contextForHole(const std::string& text, const std::string& hole,
                           const std::map<std::string, std::string>& proposals);

struct HolePrompt {
    enum class Problem {
        None,
        NoSuchHole, // the context has no hole of that name
        NoTask,     // a native skeleton is filled for a task, and none was given
        Failed,     // the KernelBench prompt's example files could not be read: see message
    };
    Problem problem = Problem::None;
    std::string text; // the prompt; empty when there is a problem
    std::string message;
};

// The prompt for the hole named `hole` of `context` (contextForHole's text). The native dialect
// states the task and shows the skeleton; the KernelBench dialect is the paper's infilling
// prompt, with the task's PyTorch module when a task is given.
HolePrompt promptForHole(const std::string& context, const std::string& hole, const Task* task);

struct HoleContent {
    std::string content; // what replaces the hole's marker
    std::string note;    // KernelBench dialect: how the answer was put back into the skeleton
};

// The content of the hole named `hole` of `context` from the model's answer to its prompt. A
// native answer is the first fenced block, or the whole answer without model tokens, with its
// trailing blank space dropped. A KernelBench answer is a whole program: the middle is cut out
// and the context's prefix and suffix are kept, whatever the model wrote there.
HoleContent contentFromAnswer(const std::string& context, const std::string& hole,
                              const std::string& answer);

struct HoleEdit {
    enum class Problem {
        None,
        NameTaken, // the text has a hole of that name already
        Invalid,   // makeHole refused the selection or the name: see message
    };
    Problem problem = Problem::None;
    std::string message;
    std::string text; // the whole text with the new hole
    // The part of the old text that changed, and what replaces it: an editor that replaces only
    // this makes the edit one undo step and keeps its view in place.
    std::size_t offset = 0;
    std::size_t length = 0;
    std::string replacement;
};

// Replaces the selection [begin, end) of `text` with the hole marker named `name` (makeHole:
// whitespace at both ends of the selection stays).
HoleEdit holeFromSelection(const std::string& text, std::size_t begin, std::size_t end,
                           const std::string& name);

} // namespace dice
