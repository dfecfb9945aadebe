// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tasks/task.h"

#include <cstdint>
#include <string>
#include <vector>

// The synthetic corpus: native tasks and their solutions over many operator families of levels 1
// and 2, with varied shapes, dtypes, constants, compositions and implementations. Every solution
// is a native candidate (docs/native-dialect.md); curation later keeps only the ones the evaluator
// verifies on a GPU. docs/corpus-format.md describes what is written.
namespace dice {

enum class CorpusSplit {
    Train,          // used for training
    HeldOutVariant, // a family seen in training, with shapes, constants or compositions it is not
    HeldOutFamily,  // a family never seen in training
    // Expression trees whose primitives were all trained but one of whose parent-child pairs
    // never was.
    HeldOutComposition,
    HeldOutPrimitive // expression trees with a primitive never seen in training
};
std::string toString(CorpusSplit split);

struct SynthTask {
    Task task;
    std::string solution; // the .dice text
    std::string family;
    CorpusSplit split = CorpusSplit::Train;
    // The task as `dice import kernelbench` converts its module text (corpus_kernelbench.h): asked
    // with the generation prompt only, its parameter files beside its task file.
    bool kernelbenchStyle = false;
};

struct SynthOptions {
    std::uint64_t seed = 1;
    int variantsPerFamily = 24;
    // Variants of each expression-tree family; 0 takes variantsPerFamily. Their point is to
    // teach translation rather than a template, which takes far more of them than of a family
    // whose variants differ only in shapes and constants.
    int treeVariants = 0;
    // Share of each training family's variants held out (shapes, constants, compositions).
    double heldOutVariantShare = 0.15;
    // Families never seen in training; empty takes the default choice.
    std::vector<std::string> heldOutFamilies;
    // The families to make tasks of; empty makes all. Each family draws from a stream of its own,
    // so a family's tasks are the same whichever others are made.
    std::vector<std::string> families;
};

struct FamilyInfo {
    std::string name;
    int level = 1;
    std::string archetype; // "map", "row_map", "row_reduce", "row_norm", "scan"
};

std::vector<FamilyInfo> synthFamilies();
// The tasks each expression-tree family makes under `options`.
int treeVariantCount(const SynthOptions& options);
std::vector<std::string> defaultHeldOutFamilies();

// Deterministic for a given seed. Throws dice::Error for unknown families (held out or asked).
std::vector<SynthTask> synthesizeTasks(const SynthOptions& options);

} // namespace dice
