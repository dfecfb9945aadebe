// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/eval/native_output_checks.h"

#include "core/common/number_format.h"
#include "core/cuda/nvtx_range.h"
#include "core/eval/candidate_fault.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dice::native {

namespace {

// Elements compared at once: 64 Mi, so that the comparison's temporaries stay near a gigabyte
// however large the output.
constexpr std::int64_t kComparePiece = std::int64_t(1) << 26;

// The gap between 1 and the next value of the dtype.
double roundingStep(DType dtype) {
    switch (dtype) {
    case DType::Float16:
        return 0x1p-10;
    case DType::BFloat16:
        return 0x1p-7;
    case DType::Float64:
        return std::numeric_limits<double>::epsilon();
    default:
        return std::numeric_limits<float>::epsilon();
    }
}

} // namespace

std::vector<at::Tensor> outputsOf(const c10::IValue& value) {
    std::vector<at::Tensor> out;
    if (value.isTensor()) {
        out.push_back(value.toTensor());
    } else if (value.isTuple()) {
        for (const auto& e : value.toTupleRef().elements()) {
            if (!e.isTensor())
                throw CandidateFault{"forward returned a tuple holding a " + e.tagKind() +
                                     ", not tensors"};
            out.push_back(e.toTensor());
        }
    } else if (value.isTensorList()) {
        for (const auto& t : value.toTensorVector())
            out.push_back(t);
    } else {
        throw CandidateFault{"forward returned a " + value.tagKind() +
                             ", not a tensor or a tuple of tensors"};
    }
    return out;
}

std::string shapeText(at::IntArrayRef sizes) {
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i)
        s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

Comparison compareLayout(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref) {
    Comparison c;
    if (out.size() != ref.size()) {
        c.detail = "forward returned " + std::to_string(out.size()) + " tensors; the reference " +
                   std::to_string(ref.size());
        return c;
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        const at::Tensor& o = out[i];
        const at::Tensor& r = ref[i];
        const std::string which = out.size() > 1 ? "output " + std::to_string(i) + ": " : "";
        if (!o.defined()) {
            c.detail = which + "undefined tensor";
            return c;
        }
        if (o.sizes() != r.sizes()) {
            c.detail =
                which + "shape " + shapeText(o.sizes()) + ", expected " + shapeText(r.sizes());
            return c;
        }
        if (o.scalar_type() != r.scalar_type()) {
            c.detail = which + "dtype " + std::string(c10::toString(o.scalar_type())) +
                       ", expected " + c10::toString(r.scalar_type());
            return c;
        }
        if (o.device() != r.device()) {
            c.detail = which + "on " + o.device().str() + ", expected " + r.device().str();
            return c;
        }
    }
    c.passed = true;
    return c;
}

std::string unmaterialisedOutput(const std::vector<at::Tensor>& out,
                                 const std::vector<at::Tensor>& arguments) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        const at::Tensor& o = out[i];
        const std::string which = out.size() > 1 ? "output " + std::to_string(i) : "the output";
        if (!o.defined())
            continue;
        // Sorted by stride, each dimension must step past everything the smaller ones reach;
        // otherwise two indices may share an element (an expand, a stride of 0).
        std::vector<std::pair<int64_t, int64_t>> dims;
        for (int64_t d = 0; d < o.dim(); ++d)
            if (o.size(d) > 1)
                dims.emplace_back(o.stride(d), o.size(d));
        std::sort(dims.begin(), dims.end());
        int64_t reach = 1;
        for (const auto& [stride, size] : dims) {
            if (stride < reach)
                return which + " has overlapping elements (shape " + shapeText(o.sizes()) +
                       ", strides " + shapeText(o.strides()) +
                       "): an expanded view, not a materialised tensor";
            reach += stride * (size - 1);
        }
        for (const at::Tensor& a : arguments)
            if (a.defined() && o.is_alias_of(a))
                return which + " shares memory with an input or a parameter";
        for (std::size_t j = 0; j < i; ++j)
            if (out[j].defined() && o.is_alias_of(out[j]))
                return which + " shares memory with output " + std::to_string(j);
    }
    return {};
}

PieceFigures pieceFigures(const at::Tensor& out, const at::Tensor& ref, double atol, double rtol) {
    const auto work =
        ref.scalar_type() == c10::ScalarType::Double ? torch::kFloat64 : torch::kFloat32;
    const at::Tensor of = out.to(work);
    const at::Tensor rf = ref.to(work);
    const at::Tensor diff = (of - rf).abs_();
    const at::Tensor scale = rf.abs();
    // Errors over the finite elements only (JSON has no infinity); the detail counts NaNs.
    const double big = std::numeric_limits<float>::max();
    const at::Tensor finiteDiff = torch::nan_to_num(diff, 0.0, big, big);
    // Each figure in its own statement, so that its temporaries go before the next one's are
    // made; then all of them in one tensor: one wait for the GPU per piece.
    const at::Tensor bad = diff.le(scale * rtol + atol).logical_not_().sum();
    const at::Tensor nans = of.isnan().sum();
    const at::Tensor largestAbs = finiteDiff.max();
    const at::Tensor largestRel =
        torch::nan_to_num(finiteDiff.div(scale.clamp_min_(1e-30)), 0.0, big, big).max();
    const at::Tensor errorSum = finiteDiff.square().sum(torch::kDouble);
    const at::Tensor referenceSum = rf.square().sum(torch::kDouble);
    const at::Tensor host = torch::stack({bad.to(torch::kDouble), nans.to(torch::kDouble),
                                          largestAbs.to(torch::kDouble),
                                          largestRel.to(torch::kDouble), errorSum, referenceSum})
                                .cpu();
    const double* f = host.data_ptr<double>();
    return {
        static_cast<std::int64_t>(f[0]), static_cast<std::int64_t>(f[1]), f[2], f[3], f[4], f[5]};
}

Comparison compareOutputs(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref,
                          const Task& task, const EvalOptions& options,
                          const PieceComparer& comparer) {
    Comparison c = compareLayout(out, ref);
    if (!c.passed)
        return c;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const at::Tensor& o = out[i];
        const at::Tensor& r = ref[i];
        const std::string which = out.size() > 1 ? "output " + std::to_string(i) + ": " : "";
        if (!at::isFloatingType(r.scalar_type())) {
            if (!torch::equal(o, r)) {
                const auto wrong = o.ne(r).sum().item<int64_t>();
                c.passed = false;
                c.detail = which + std::to_string(wrong) + " of " + std::to_string(r.numel()) +
                           " elements differ";
                return c;
            }
            continue;
        }
        DType dtype = DType::Float32;
        if (r.scalar_type() == c10::ScalarType::Half)
            dtype = DType::Float16;
        else if (r.scalar_type() == c10::ScalarType::BFloat16)
            dtype = DType::BFloat16;
        else if (r.scalar_type() == c10::ScalarType::Double)
            dtype = DType::Float64;
        Tolerance tol = task.tolerance(dtype);
        if (options.tolerance)
            tol = Tolerance{*options.tolerance, *options.tolerance};
        // A piece at a time: the temporaries of a whole output of the largest presets (several
        // of its size) would take more GPU memory than the evaluation's own tensors, and the
        // counts and maxima are the same whatever the pieces.
        const at::Tensor oFlat = o.reshape({-1});
        const at::Tensor rFlat = r.reshape({-1});
        const std::int64_t total = rFlat.numel();
        std::int64_t badCount = 0;
        std::int64_t nanCount = 0;
        double errorSquares = 0;
        double referenceSquares = 0;
        for (std::int64_t at = 0; at < total; at += kComparePiece) {
            const std::int64_t n = std::min(kComparePiece, total - at);
            const at::Tensor op = oFlat.narrow(0, at, n);
            const at::Tensor rp = rFlat.narrow(0, at, n);
            std::optional<PieceFigures> f;
            if (comparer)
                f = comparer(op, rp, tol.atol, tol.rtol);
            if (!f)
                f = pieceFigures(op, rp, tol.atol, tol.rtol);
            badCount += f->outside;
            nanCount += f->nans;
            c.maxAbs = std::max(c.maxAbs, f->maxAbs);
            c.maxRel = std::max(c.maxRel, f->maxRel);
            errorSquares += f->errorSquares;
            referenceSquares += f->referenceSquares;
        }
        if (badCount > 0) {
            c.passed = false;
            c.detail = which + std::to_string(badCount) + " of " + std::to_string(r.numel()) +
                       " elements outside atol " + formatFixed(tol.atol, 6) + ", rtol " +
                       formatFixed(tol.rtol, 6);
            if (nanCount > 0)
                c.detail += " (" + std::to_string(nanCount) +
                            " are NaN: elements never written hold the poison)";
            return c;
        }
        // The same rule over the output as a whole, atol taken relative to the reference's size:
        // where the reference's values are small against atol (a softmax over thousands of
        // columns holds values near 1e-4), every element is within atol of zeros, or of another
        // function's values, and only the whole output tells such an answer from a right one.
        // An error of one rounding step of the dtype per element (at magnitude 1) is allowed
        // besides: where the reference is itself rounding noise (KernelBench's level-2
        // Conv3d_GroupNorm_Mean returns means of normalised values, zero but for rounding), a
        // right answer's noise is as large as the reference and no relative rule can hold.
        const double error = std::sqrt(errorSquares);
        const double size = std::sqrt(referenceSquares);
        const double noise = roundingStep(dtype) * std::sqrt(static_cast<double>(total));
        if (size > 0 && error > (tol.atol + tol.rtol) * size + noise) {
            c.passed = false;
            c.detail = which + "every element is within atol " + formatFixed(tol.atol, 6) +
                       ", rtol " + formatFixed(tol.rtol, 6) +
                       ", but the output as a whole is not: its L2 error is " +
                       formatScientific(error / size, 2) +
                       " of the reference's L2 norm (at most atol + rtol)";
            return c;
        }
    }
    return c;
}

Agreement agreement(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b,
                    const Task& task, const EvalOptions& options, const PieceComparer& comparer) {
    if (a.size() != b.size())
        return Agreement::Different;
    bool identical = true;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].sizes() != b[i].sizes() || a[i].scalar_type() != b[i].scalar_type())
            return Agreement::Different;
        if (!torch::equal(a[i], b[i]))
            identical = false;
    }
    if (identical)
        return Agreement::Identical;
    return compareOutputs(a, b, task, options, comparer).passed ? Agreement::WithinTolerance
                                                                : Agreement::Different;
}

void fillPattern(at::Tensor flat, const PoisonPattern& p) {
    switch (flat.element_size()) {
    case 8:
        flat.view(torch::kInt64).fill_(static_cast<int64_t>(p.bits64));
        break;
    case 4:
        flat.view(torch::kInt32).fill_(static_cast<int32_t>(p.bits32));
        break;
    case 2:
        flat.view(torch::kInt16)
            .fill_(static_cast<int16_t>(
                flat.scalar_type() == c10::ScalarType::BFloat16 ? p.bf16 : p.bits16));
        break;
    default:
        flat.view(torch::kUInt8).fill_(static_cast<int64_t>(p.bits8));
        break;
    }
}

bool patternIntact(const at::Tensor& flat, const PoisonPattern& p) {
    if (flat.numel() == 0)
        return true;
    auto expected = torch::empty_like(flat);
    fillPattern(expected, p);
    switch (flat.element_size()) {
    case 8:
        return torch::equal(flat.view(torch::kInt64), expected.view(torch::kInt64));
    case 4:
        return torch::equal(flat.view(torch::kInt32), expected.view(torch::kInt32));
    case 2:
        return torch::equal(flat.view(torch::kInt16), expected.view(torch::kInt16));
    default:
        return torch::equal(flat.view(torch::kUInt8), expected.view(torch::kUInt8));
    }
}

at::Tensor PoisonGuard::guard(const at::Tensor& allocated, bool poison) {
    const NvtxGap harness;
    int64_t span = allocated.numel() > 0 ? 1 : 0;
    for (int64_t d = 0; d < allocated.dim(); ++d)
        if (allocated.size(d) > 0)
            span += (allocated.size(d) - 1) * allocated.stride(d);
    const int64_t item = static_cast<int64_t>(allocated.element_size());
    const int64_t bandBytes =
        std::min<int64_t>(16 << 20, std::max<int64_t>(64 << 10, span * item / 8));
    const int64_t band = std::max<int64_t>(1, bandBytes / item);
    at::Tensor base = torch::empty({span + 2 * band}, allocated.options());
    // Each byte written once: the bands with theirs, the allocation with the poison or its data.
    fillPattern(base.narrow(0, 0, band), m_band);
    fillPattern(base.narrow(0, band + span, band), m_band);
    at::Tensor placed = base.as_strided(allocated.sizes(), allocated.strides(), band);
    if (poison)
        fillPattern(base.narrow(0, band, span), m_pattern);
    else
        placed.copy_(allocated);
    m_regions.push_back({base, band, span});
    return placed;
}

bool PoisonGuard::bandsIntact() const {
    for (const auto& r : m_regions) {
        if (!patternIntact(r.base.narrow(0, 0, r.band), m_band) ||
            !patternIntact(r.base.narrow(0, r.band + r.span, r.band), m_band))
            return false;
    }
    return true;
}

} // namespace dice::native
