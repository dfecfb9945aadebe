// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the native evaluator: included only by its LibTorch sources.
#include <torch/torch.h>

#include "core/eval/eval_options.h"
#include "core/eval/host_program.h"
#include "core/tasks/task.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dice::native {

// What forward returned as a list of tensors; throws CandidateFault for anything else.
std::vector<at::Tensor> outputsOf(const c10::IValue& value);

// "[2, 3]".
std::string shapeText(at::IntArrayRef sizes);

struct Comparison {
    bool passed = false;
    double maxAbs = 0; // over the finite elements
    double maxRel = 0;
    std::string detail; // why it failed, in plain words
};

// Count, shape, dtype and device of the outputs against the reference's; no values are read, so
// it works on meta tensors.
Comparison compareLayout(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref);

// Why the outputs are not tensors of their own, or empty when they are: an output whose elements
// overlap (an expanded view standing in for the result), or one that shares memory with an input,
// a parameter or another output. Reads no values.
std::string unmaterialisedOutput(const std::vector<at::Tensor>& out,
                                 const std::vector<at::Tensor>& arguments);

// What the comparison needs of one piece of a floating output: how many elements are outside
// |out - ref| <= atol + rtol * |ref| (NaN never within), how many of the output's are NaN, the
// largest absolute and relative errors over the finite elements, and the squared L2 norms of
// those errors and of the reference (summed in double).
struct PieceFigures {
    std::int64_t outside = 0;
    std::int64_t nans = 0;
    double maxAbs = 0;
    double maxRel = 0;
    double errorSquares = 0;
    double referenceSquares = 0;
};

// The figures with LibTorch's operators, in float32 (float64 for float64 pieces).
PieceFigures pieceFigures(const at::Tensor& out, const at::Tensor& ref, double atol, double rtol);

// Another way to work out a piece's figures (the evaluator's own kernel on the GPU, one pass);
// nullopt where it does not apply, and pieceFigures serves.
using PieceComparer = std::function<std::optional<PieceFigures>(
    const at::Tensor& out, const at::Tensor& ref, double atol, double rtol)>;

// The candidate's outputs against the reference's: count, shape, dtype and device must match;
// integers and booleans exactly, floating outputs within the task's tolerance for their dtype
// (or the options' override), |out - ref| <= atol + rtol * |ref|, NaN never within, and each
// output as a whole within (atol + rtol) of the reference's L2 norm.
Comparison compareOutputs(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref,
                          const Task& task, const EvalOptions& options,
                          const PieceComparer& comparer = {});

// Two passes of one trial agree: bitwise, within tolerance, or not at all.
enum class Agreement { Identical, WithinTolerance, Different };

Agreement agreement(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b,
                    const Task& task, const EvalOptions& options,
                    const PieceComparer& comparer = {});

// The bits written into memory a candidate has not initialised, per element size (and for
// 16-bit floats per format), and into shared memory before each pass.
struct PoisonPattern {
    std::uint64_t bits64;
    std::uint32_t bits32;
    std::uint16_t bits16; // float16
    std::uint16_t bf16;
    std::uint8_t bits8;
    std::uint32_t shared;
};

// Pass A: quiet NaN (an element never written fails any comparison). Pass B: a finite value, so
// that an output computed from memory it did not write differs between the passes.
inline constexpr PoisonPattern kPoisonA = {
    0x7FF8000000000000ULL, 0x7FC00000u, 0x7E00u, 0x7FC0u, 0xA5u, 0x7FC00000u};
inline constexpr PoisonPattern kPoisonB = {
    0x3FF199999999999AULL, 0x3F8CCCCDu, 0x3C66u, 0x3F8Cu, 0x0Fu, 0x3F8CCCCDu};

// What the guard bands around allocations hold in each pass: bytes that are neither pass's
// poison, so that an element copied out of bounds from memory never written (the poison) still
// changes a band.
inline constexpr PoisonPattern kBandA = {
    0x5C5C5C5C5C5C5C5CULL, 0x5C5C5C5Cu, 0x5C5Cu, 0x5C5Cu, 0x5Cu, 0x5C5C5C5Cu};
inline constexpr PoisonPattern kBandB = {
    0xC3C3C3C3C3C3C3C3ULL, 0xC3C3C3C3u, 0xC3C3u, 0xC3C3u, 0xC3u, 0xC3C3C3C3u};

// Fills a one-dimensional tensor with the pattern for its element size.
void fillPattern(at::Tensor flat, const PoisonPattern& p);
// True when every element of a one-dimensional tensor still holds the pattern.
bool patternIntact(const at::Tensor& flat, const PoisonPattern& p);

// Every allocation of the host code gets a fresh buffer between two guard bands filled with
// `band`; uninitialised ones are filled with the pass's poison.
class PoisonGuard : public AllocationGuard {
public:
    PoisonGuard(const PoisonPattern& pattern, const PoisonPattern& band)
        : m_pattern(pattern)
        , m_band(band) {}

    at::Tensor guard(const at::Tensor& allocated, bool poison) override;

    // True when every guard band still holds its pattern.
    bool bandsIntact() const;

private:
    struct Region {
        at::Tensor base;
        int64_t band;
        int64_t span;
    };
    PoisonPattern m_pattern;
    PoisonPattern m_band;
    std::vector<Region> m_regions;
};

} // namespace dice::native
