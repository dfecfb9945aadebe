// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/file_util.h"

// The most bytes read of each kind of file that comes from outside: a model folder, a task or a
// candidate someone wrote, a result file from another machine. Each is far above what a real file
// of its kind holds, and low enough that a hostile one cannot exhaust memory.
namespace dice::limits {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

// config.json and generation_config.json of a Hugging Face checkpoint hold a few kilobytes.
inline constexpr FileLimit kModelConfig{"a model's config.json", 4 * kMiB};
inline constexpr FileLimit kGenerationConfig{"a generation_config.json", 4 * kMiB};
// Qwen's tokenizer.json is 11 MB, the largest in common use about 35 MB.
inline constexpr FileLimit kTokenizerJson{"a tokenizer.json", 256 * kMiB};
// model.safetensors.index.json takes about 100 bytes per tensor.
inline constexpr FileLimit kSafetensorsIndex{"a safetensors index", 64 * kMiB};
// A safetensors file is mapped, never read whole; its limit only keeps offsets far from overflow.
inline constexpr FileLimit kSafetensors{"a safetensors file", 4096 * kGiB};
// A task file (docs/task-format.md) with its reference and its KernelBench module.
inline constexpr FileLimit kTaskFile{"a task file", 16 * kMiB};
// A native candidate (.dice) or a CUDA source; the candidate parser refuses larger text too.
inline constexpr FileLimit kCandidate{"a candidate", 1 * kMiB};
// A KernelBench problem, solution or model answer, or a skeleton's prefix or suffix.
inline constexpr FileLimit kKernelBenchSource{"a KernelBench source", 16 * kMiB};
// A result file of dice selftest or dice eval --json, imported into the run store.
inline constexpr FileLimit kResultFile{"a result file", 256 * kMiB};
// corpus.jsonl of dice data synth, and the curation report beside it.
inline constexpr FileLimit kCorpus{"a corpus file", 1 * kGiB};
// A decode trace (JSON lines) saved by dice generate or the Generate area.
inline constexpr FileLimit kDecodeTrace{"a decode trace", 256 * kMiB};
// One text file the tokenizer trainer reads.
inline constexpr FileLimit kTrainingText{"a training text", 1 * kGiB};

} // namespace dice::limits
