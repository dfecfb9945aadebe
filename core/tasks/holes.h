// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

// Holes in a skeleton: places the model fills. The marker is "{{hole}}" or "{{hole:NAME}}"
// (NAME: letters, digits, underscores), the same in CUDA C++ and in Python, and never valid code
// in either, so a skeleton with an unfilled hole cannot be mistaken for a finished candidate.
// docs/infill.md describes it.
namespace dice {

struct Hole {
    std::string name;        // "" for an anonymous "{{hole}}"
    std::size_t offset = 0;  // byte offset of the marker in the text
    std::size_t length = 0;  // byte length of the marker
    int line = 0;            // 1-based line of the marker
    int column = 0;          // 1-based column (bytes)
    std::string indentation; // the whitespace before the marker on its line
};

std::vector<Hole> findHoles(const std::string& text);
std::string holeMarker(const std::string& name = {});

// The text around one hole, as the model sees it: everything before and everything after, with
// the other holes left as markers.
struct InfillContext {
    std::string prefix;
    std::string suffix;
};
InfillContext infillContext(const std::string& text, const Hole& hole);

// Replaces the hole's marker with content, verbatim. Throws dice::Error when the marker is not at
// the hole's offset any more (the text changed since the holes were found).
std::string fillHole(const std::string& text, const Hole& hole, const std::string& content);

// Replaces the text between offsets [begin, end) with a hole marker named name. Whitespace at
// both ends of the selection stays in the text, so the marker sits where the code started.
// Throws dice::Error for a selection outside the text or a name that is not an identifier.
std::string makeHole(const std::string& text, std::size_t begin, std::size_t end,
                     const std::string& name);

// A skeleton of a native candidate (.dice): every __global__ kernel keeps its signature and loses
// its body, which becomes the hole "{{hole:KERNEL}}"; the host part is kept whole. Filling each
// hole with its body gives the candidate back exactly. Returns nullopt when the text has no kernel
// body to remove.
struct Skeleton {
    std::string text;
    std::vector<std::string> holes;  // kernel names, in order
    std::vector<std::string> bodies; // what each hole stood for, in the same order (the answers)
};
std::optional<Skeleton> makeSkeleton(const std::string& candidate);
// The skeleton with only its hole number `target` left: every other hole holds its body, as an
// infilling question shows a kernel in context.
std::string skeletonWithOneHole(const Skeleton& skeleton, std::size_t target);
// The skeleton as a fill in order sees it when it reaches hole number `target`: the holes before
// it hold their bodies, it and those after it are still holes.
std::string skeletonFilledBefore(const Skeleton& skeleton, std::size_t target);

} // namespace dice
