#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that every built-in task's KernelBench-style module computes what its TorchScript
reference computes.

For each task file: the module text is executed, its size constants are compared with the bench
preset, then set to the small preset; Model(*get_init_inputs()) is built; get_inputs() must give
tensors of the shapes and dtypes the task declares; inputs and parameters are drawn as the task
file describes them; the floating-point entries of the model's state_dict, in order, take the
task's parameters (the reference's parameter order); and the module's output must match the
reference's, compiled by TorchScript with `torch` bound to the ATen operators as the C++
compiler binds it, within the task's tolerance.

    check_task_modules.py [TASK_DIR] [--only NAME ...]

Exits non-zero when any task fails, after reporting every failure.
"""
import argparse
import json
import math
import os
import sys
import traceback

import torch

DTYPES = {"float32": torch.float32, "float": torch.float32, "float16": torch.float16,
          "half": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
          "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}


class TaskProblem(Exception):
    pass


def evaluate(expression, variables):
    """Evaluates a dimension or fan-in expression (+ - * / parentheses, integers, variables)."""
    tree = compile(str(expression), "<expression>", "eval")
    for name in tree.co_names:
        if name not in variables:
            raise TaskProblem(f"expression {expression!r}: unknown variable {name!r}")
    value = eval(tree, {"__builtins__": {}}, dict(variables))
    return value


def shape_of(spec, variables):
    dims = []
    for dim in spec["shape"]:
        value = evaluate(dim, variables)
        if value != int(value) or value < 0:
            raise TaskProblem(f"{spec['name']}: dimension {dim!r} is {value}, not a size")
        dims.append(int(value))
    return dims


def draw(spec, variables, generator):
    shape = shape_of(spec, variables)
    dtype = DTYPES[spec.get("dtype", "float32")]
    init = spec.get("init", {"kind": "normal"})
    kind = init["kind"]
    if kind == "normal":
        values = torch.randn(shape, generator=generator, dtype=torch.float64)
        values = values * init.get("std", 1) + init.get("mean", 0)
    elif kind == "uniform":
        low, high = init.get("low", 0), init.get("high", 1)
        values = torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low
    elif kind == "uniform_fan_in":
        bound = 1.0 / math.sqrt(evaluate(init["fan_in"], variables))
        values = (torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound
    elif kind == "randint":
        values = torch.randint(int(init.get("low", 0)), int(init.get("high", 2)), shape,
                               generator=generator)
    elif kind == "bernoulli":
        values = torch.rand(shape, generator=generator) < init.get("p", 0.5)
    elif kind == "ones":
        values = torch.ones(shape)
    else:
        raise TaskProblem(f"{spec['name']}: init kind {kind!r} is not drawn by this check")
    return values.to(dtype)


def compile_reference(source):
    unit = torch.jit.CompilationUnit()
    # The C++ compiler resolves `torch` to the ATen builtins and nothing else; do the same, so a
    # reference that only Python's frontend understands (torch.nn.functional.*, math.*) fails here.
    unit.define(source, rcb=lambda name: torch.ops.aten if name == "torch" else None)
    return unit.reference


def compare(name, got, expected, tolerance):
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            raise TaskProblem(f"{name}: the module returns {type(got).__name__}, the reference a "
                              f"tuple of {len(expected)}")
        for i, (g, e) in enumerate(zip(got, expected)):
            compare(f"{name}[{i}]", g, e, tolerance)
        return
    if not isinstance(got, torch.Tensor):
        raise TaskProblem(f"{name}: the module returns {type(got).__name__}, not a tensor")
    if got.shape != expected.shape:
        raise TaskProblem(f"{name}: shape {list(got.shape)} from the module, "
                          f"{list(expected.shape)} from the reference")
    if got.dtype != expected.dtype:
        raise TaskProblem(f"{name}: dtype {got.dtype} from the module, {expected.dtype} from the "
                          "reference")
    if not expected.is_floating_point():
        if not torch.equal(got, expected):
            raise TaskProblem(f"{name}: {int((got != expected).sum())} elements differ")
        return
    atol, rtol = tolerance
    if not torch.isfinite(expected).all():
        raise TaskProblem(f"{name}: the reference output is not finite")
    if not torch.allclose(got, expected, atol=atol, rtol=rtol):
        worst = (got - expected).abs().max().item()
        raise TaskProblem(f"{name}: max |difference| {worst:.3g} exceeds atol {atol} rtol {rtol}")


def tolerance_of(task, dtype_name):
    tol = task.get("tolerance", {}).get(dtype_name)
    if tol is not None:
        return tol.get("atol", 0.0), tol.get("rtol", 0.0)
    if dtype_name in ("float16", "half", "bfloat16"):
        return 1e-2, 1e-2
    return 1e-4, 1e-4


def check_task(path):
    with open(path, encoding="utf-8") as f:
        task = json.load(f)
    name = task["name"]
    bench = task["presets"]["bench"]
    small = task["presets"]["small"]

    namespace = {"__name__": f"task_{name}"}
    exec(compile(task["pytorch_module"], f"{name}.pytorch_module", "exec"), namespace)
    for variable, value in bench.items():
        if namespace.get(variable) != value:
            raise TaskProblem(f"module constant {variable} is {namespace.get(variable)!r}, the "
                              f"bench preset says {value}")
    namespace.update(small)

    generator = torch.Generator().manual_seed(task.get("seed", 42))
    inputs = [draw(spec, small, generator) for spec in task["inputs"]]
    parameters = [draw(spec, small, generator) for spec in task.get("parameters", [])]

    module_inputs = namespace["get_inputs"]()
    if len(module_inputs) != len(inputs):
        raise TaskProblem(f"get_inputs() gives {len(module_inputs)} tensors, the task has "
                          f"{len(inputs)} inputs")
    for spec, made, drawn in zip(task["inputs"], module_inputs, inputs):
        if list(made.shape) != list(drawn.shape) or made.dtype != drawn.dtype:
            raise TaskProblem(f"get_inputs() gives {spec['name']} as {made.dtype}"
                              f"{list(made.shape)}, the task says {drawn.dtype}{list(drawn.shape)}")

    torch.manual_seed(task.get("seed", 42))
    model = namespace["Model"](*namespace["get_init_inputs"]())
    state = model.state_dict()
    floating = [key for key, value in state.items() if value.is_floating_point()]
    if len(floating) != len(parameters):
        raise TaskProblem(f"the module holds {len(floating)} floating-point tensors "
                          f"({', '.join(floating)}), the task has {len(parameters)} parameters")
    for key, spec, value in zip(floating, task.get("parameters", []), parameters):
        if list(state[key].shape) != list(value.shape):
            raise TaskProblem(f"parameter {spec['name']} is {list(value.shape)}, the module's "
                              f"{key} is {list(state[key].shape)}")
        state[key] = value
    model.load_state_dict(state)

    reference = compile_reference(task["reference"])
    originals = [x.clone() for x in inputs]
    with torch.no_grad():
        expected = reference(*inputs, *parameters)
        got = model(*inputs)
    for spec, x, original in zip(task["inputs"], inputs, originals):
        if not torch.equal(x, original):
            raise TaskProblem(f"input {spec['name']} was modified")
    out_dtype = expected[0].dtype if isinstance(expected, tuple) else expected.dtype
    dtype_name = {v: k for k, v in DTYPES.items()}.get(out_dtype, "float32")
    compare("output", got, expected, tolerance_of(task, dtype_name))

    # A reference that gives nearly the same value everywhere does not test a candidate.
    flat = (expected[0] if isinstance(expected, tuple) else expected).double().flatten()
    if flat.numel() > 1 and flat.std().item() <= 1e-6 * max(flat.abs().mean().item(), 1e-30):
        raise TaskProblem("the reference output is constant on the small preset")
    return name


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_dir = os.path.normpath(os.path.join(here, "..", "..", "resources", "tasks"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task_dir", nargs="?", default=default_dir)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()

    torch.set_num_threads(1)
    files = sorted(f for f in os.listdir(args.task_dir) if f.endswith(".json"))
    if args.only:
        files = [f for f in files if f[:-5] in args.only]
    failures = 0
    for file in files:
        try:
            check_task(os.path.join(args.task_dir, file))
            print(f"ok    {file}")
        except Exception as error:  # every failure is reported, then the run fails
            failures += 1
            detail = str(error) if isinstance(error, TaskProblem) else traceback.format_exc()
            print(f"FAIL  {file}: {detail}")
    print(f"{len(files) - failures} of {len(files)} task modules agree with their references "
          f"(PyTorch {torch.__version__})")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
