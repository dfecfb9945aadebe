#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The KernelBench worker's output comparison, piece by piece, against torch's own verdict on
the whole tensors (on the CPU).

The worker compares a bench-sized output a piece at a time, so that it never holds several
copies of it on the GPU; the verdict and the error figures must be those of the whole tensors.

  check_output_comparison.py SCRIPTS_DIR
"""

import math
import sys

import torch


def main(argv):
    sys.path.insert(0, argv[1])
    import kernelbench_worker as worker

    # Pieces of 1,000 elements, so that small tensors span several and a last, shorter one.
    worker.COMPARE_PIECE = 1000
    cpu = torch.device("cpu")
    failures = []
    generator = torch.Generator().manual_seed(7)

    def check(name, expected, actual, atol=1e-4, rtol=1e-4):
        record = {}
        problem = worker.compare_outputs([expected], [actual], cpu, atol, rtol, record)
        if expected.is_floating_point():
            whole = torch.allclose(actual, expected, atol=atol, rtol=rtol)
        else:
            whole = torch.equal(actual, expected)
        if (problem is None) != whole:
            failures.append("%s: piecewise says %r, torch on the whole tensors says %s" %
                            (name, problem, whole))
            return
        if expected.is_floating_point() and torch.isfinite(actual).all():
            difference = (actual - expected).abs()
            if not math.isclose(record["max_abs_error"], float(difference.max()),
                                rel_tol=1e-6):
                failures.append("%s: max abs error %g, whole tensors %g" %
                                (name, record["max_abs_error"], float(difference.max())))

    base = torch.randn(4, 2501, generator=generator)
    check("equal", base, base.clone())
    near = base + 1e-6 * torch.randn(base.shape, generator=generator)
    check("within tolerance", base, near)
    late = base.clone()
    late.view(-1)[-1] += 1.0
    check("one wrong element in the last, shorter piece", base, late)
    middle = base.clone()
    middle.view(-1)[4321] = float("nan")
    check("a NaN in a middle piece", base, middle)
    infinite = base.clone()
    infinite.view(-1)[17] = float("inf")
    check("an infinity in the first piece", base, infinite)
    check("a transposed reference", base.t(), base.t().contiguous())
    wrong_transposed = base.t().contiguous()
    wrong_transposed[100, 2] += 0.5
    check("a transposed reference, one value wrong", base.t(), wrong_transposed)
    integers = torch.randint(0, 1000, (3333,), generator=generator)
    check("integers", integers, integers.clone())
    off_by_one = integers.clone()
    off_by_one[2999] += 1
    check("integers, one off", integers, off_by_one)

    # Values small against atol: every element of zeros is within atol of a softmax over 16,384
    # columns, so only the rule over the whole output tells zeros from the softmax.
    softmax = torch.softmax(torch.randn(4, 16384, generator=generator), dim=1)
    zeros = torch.zeros_like(softmax)
    if not torch.allclose(zeros, softmax, atol=1e-2, rtol=1e-2):
        failures.append("the softmax fixture is not small against atol")
    record = {}
    problem = worker.compare_outputs([softmax], [zeros], cpu, 1e-2, 1e-2, record)
    if problem is None or "as a whole" not in problem:
        failures.append("zeros for a softmax of small values: %r" % problem)
    rounded = softmax.half().float()
    problem = worker.compare_outputs([softmax], [rounded], cpu, 1e-2, 1e-2, record)
    if problem is not None:
        failures.append("the softmax rounded to float16: %r" % problem)
    # A reference that is rounding noise (KernelBench's level-2 Conv3d_GroupNorm_Mean: means of
    # normalised values), against another answer's noise and against zeros: both right.
    noise = 1e-8 * torch.randn(64, generator=generator)
    for name, answer in (("noise", 1e-8 * torch.randn(64, generator=generator)),
                         ("zeros", torch.zeros(64))):
        problem = worker.compare_outputs([noise], [answer], cpu, 1e-4, 1e-4, record)
        if problem is not None:
            failures.append("%s for a reference of rounding noise: %r" % (name, problem))
    reference_zero = torch.zeros(3000)
    problem = worker.compare_outputs([reference_zero], [reference_zero + 1e-5], cpu, 1e-4, 1e-4,
                                     record)
    if problem is not None:
        failures.append("a reference of zeros, answers within atol: %r" % problem)

    # The worker's check that the answer left its inputs alone, piece by piece too.
    if not worker.same_values(integers, integers.clone(), cpu):
        failures.append("same_values: equal tensors differ")
    if worker.same_values(integers, off_by_one, cpu):
        failures.append("same_values: a changed element went unseen")
    if worker.same_values(base, base.reshape(2501, 4), cpu):
        failures.append("same_values: tensors of other shapes are the same")

    for failure in failures:
        print("FAIL", failure)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
