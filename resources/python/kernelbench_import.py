#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns KernelBench problem files into native DICE tasks (dice-task/1).

For each problem file: run it, build Model with get_init_inputs() after seeding 42 (KernelBench's
convention), trace forward with torch.fx, and write a TorchScript function `reference` in which
every submodule call is its functional form (nn.Conv2d becomes torch.conv2d(x, w, b, stride,
padding, dilation, groups), and so on) and the module's parameters are parameters of the task,
stored in a safetensors file beside the task file. The `bench` preset keeps the file's sizes; the
`small` preset scales the batch and the large sizes down (parameters keep their shapes). A
conversion is accepted only when the TorchScript reference gives the original Model's outputs on
the same inputs (small preset, CPU unless --device says otherwise).

Usage:
  kernelbench_import.py [--output DIR] [--level N] [--dry-run] [--fast-init] [--jsonl]
                        [--device DEV] [--verify-bench] FILE...

  --dry-run       convert and verify, write nothing
  --fast-init     fill parameters with a cheap pattern instead of the seeded initialisation
                  (only with --dry-run: the check does not depend on the values)
  --verify-bench  also compare the reference with the original at the bench sizes (on --device)
  --jsonl         one JSON object per problem on stdout, then a summary object
"""

import argparse
import ast
import builtins
import dis
import inspect
import json
import math
import operator
import os
import re
import struct
import sys
import time
import traceback
import types
import typing

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

SEED = 42
SMALL_TARGET_ELEMENTS = 1 << 18   # inputs of the small preset, all together
SMALL_LIMIT_ELEMENTS = 1 << 25    # beyond this a CPU check is not "small" any more
SMALL_PRESET_BYTES = 1 << 30      # what the workbench's task loader lets a small preset hold
SMALL_WORK = 2e8                   # multiply-adds and element writes of one small forward
CHECK_LARGEST_OUTPUT = 1 << 28     # the largest tensor a forward run to check it may write
MAX_REFERENCE_BYTES = 64 * 1024    # what the workbench's TorchScript compiler accepts
MAX_BRACKET_NESTING = 200
VERIFY_RTOL = 1e-4
VERIFY_ATOL = 1e-5


class ConversionError(Exception):
    pass


# ----------------------------------------------------------------------------------------------
# The problem file


class Problem:
    def __init__(self, path, level):
        self.path = path
        self.source = open(path, encoding="utf-8").read()
        self.namespace = {"__name__": "kernelbench_problem", "__file__": path}
        try:
            exec(compile(self.source, path, "exec"), self.namespace)  # noqa: S102
        except Exception as e:  # noqa: BLE001
            raise ConversionError("the problem file does not run here: %s" % short(e))
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if name not in self.namespace:
                raise ConversionError("the problem file defines no %s" % name)
        self.level = level
        stem = os.path.splitext(os.path.basename(path))[0]
        match = re.match(r"^(\d+)_?(.*)$", stem)
        # KernelBench numbers its files (19_ReLU.py); a file without a number keeps its whole
        # name in the task's name and title.
        self.number = int(match.group(1)) if match else None
        self.words = (match.group(2) if match else stem).replace("_", " ").strip() or stem
        slug = re.sub(r"[^a-z0-9]+", "_", self.words.lower()).strip("_") or "problem"
        numbered = "%03d_" % self.number if match else ""
        self.name = ("kb_l%d_%s%s" % (level, numbered, slug))[:96]
        self.stem = stem

    def docstring(self):
        doc = inspect.getdoc(self.namespace["Model"]) or ""
        first = " ".join(doc.strip().split("\n\n")[0].split())
        return first

    def variables(self):
        """Module-level sizes: ints, and the ints inside tuples (as NAME_i)."""
        found = {}
        for name, value in self.namespace.items():
            if name.startswith("_"):
                continue
            if isinstance(value, bool):
                continue
            if isinstance(value, int):
                found[name] = value
            elif isinstance(value, tuple) and value and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value):
                for i, v in enumerate(value):
                    found["%s_%d" % (name, i)] = v
        return found

    def assign(self, values):
        """Sets module-level sizes (tuple elements included); returns what to restore."""
        saved = {}
        for key, value in values.items():
            base, index = split_tuple_variable(key, self.namespace)
            if index is None:
                saved.setdefault(base, self.namespace[base])
                self.namespace[base] = value
            else:
                saved.setdefault(base, self.namespace[base])
                items = list(self.namespace[base])
                items[index] = value
                self.namespace[base] = tuple(items)
        return saved

    def restore(self, saved):
        self.namespace.update(saved)

    def call_get_inputs(self, values=None, device=None, seed=SEED):
        saved = self.assign(values or {})
        try:
            with FactoryDevice(device):
                torch.manual_seed(seed)
                return list(self.namespace["get_inputs"]())
        finally:
            self.restore(saved)

    def fixed_names(self):
        """Globals read by get_init_inputs, by the classes and by helper functions: their
        values shape the parameters or are baked into the trace, so no preset may change
        them."""
        names = set()
        for key, value in self.namespace.items():
            if key in ("get_inputs",):
                continue
            if isinstance(value, types.FunctionType) and value.__module__ == "kernelbench_problem":
                names |= global_names(value.__code__)
            elif isinstance(value, type) and value.__module__ == "kernelbench_problem":
                for member in vars(value).values():
                    function = getattr(member, "__func__", member)
                    if isinstance(function, types.FunctionType):
                        names |= global_names(function.__code__)
        return names

    def tied_closure(self, names):
        """The names, with every module-level variable defined from one of them or defining one
        (`num_channels = embed_dim`): a size tied to a fixed one must stay equal to it."""
        assignments = module_assignments(self.source)
        closed = set(names)
        changed = True
        while changed:
            changed = False
            for target, reads in assignments.items():
                if target in closed and not reads <= closed:
                    closed |= reads
                    changed = True
                elif target not in closed and reads & closed:
                    closed.add(target)
                    changed = True
        return closed


def module_assignments(source):
    """For each name the file assigns at module level, the names its value reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    found.setdefault(name.id, set()).update(reads)
    return found


def split_tuple_variable(key, namespace):
    if key in namespace:
        return key, None
    base, _, index = key.rpartition("_")
    return base, int(index)


def global_names(code):
    names = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= global_names(const)
    return names


def short(error):
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return "%s: %s" % (type(error).__name__, " / ".join(lines[:2]) if lines else "")


# ----------------------------------------------------------------------------------------------
# Devices and cheap initialisation


FACTORY_NAMES = ("rand", "randn", "randint", "zeros", "ones", "full", "empty", "arange", "eye",
                 "tensor", "linspace", "randperm", "normal", "rand_like", "randn_like",
                 "randint_like", "zeros_like", "ones_like", "empty_like", "full_like")


class FactoryDevice:
    """Makes the problem's tensor factories create tensors on another device (the meta device
    for shapes without memory, or the GPU)."""

    def __init__(self, device):
        self.device = device
        self.mode = None

    def __enter__(self):
        if self.device is None or str(self.device) == "cpu":
            return self
        factories = {getattr(torch, n) for n in FACTORY_NAMES if hasattr(torch, n)}
        device = self.device

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types_, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                if func in factories and kwargs.get("device") is None and not any(
                        isinstance(a, torch.Tensor) for a in args):
                    kwargs["device"] = device
                return func(*args, **kwargs)

        self.mode = Mode()
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        if self.mode is not None:
            self.mode.__exit__(*exc)
        return False


class CheapInit:
    """Replaces torch.nn.init's random initialisers by a repeated pseudo-random block scaled
    like the original (drawing a billion values one by one takes minutes on some CPUs)."""

    PATCHED = ("uniform_", "normal_", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_",
               "xavier_normal_", "trunc_normal_", "orthogonal_", "sparse_")

    def __init__(self, enabled):
        self.enabled = enabled
        self.saved = {}

    def __enter__(self):
        if not self.enabled:
            return self
        init = torch.nn.init
        for name in self.PATCHED:
            if hasattr(init, name):
                self.saved[name] = getattr(init, name)
                setattr(init, name, self.make(name))
        return self

    def __exit__(self, *exc):
        for name, function in self.saved.items():
            setattr(torch.nn.init, name, function)
        return False

    @staticmethod
    def make(name):
        def fill(tensor, *args, **kwargs):
            bound = 1.0
            centre = 0.0
            if name == "uniform_":
                a = args[0] if args else kwargs.get("a", 0.0)
                b = args[1] if len(args) > 1 else kwargs.get("b", 1.0)
                centre, bound = (a + b) / 2.0, (b - a) / 2.0
            elif name == "normal_":
                centre = args[0] if args else kwargs.get("mean", 0.0)
                bound = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
            elif tensor.dim() >= 2:
                fan_in = tensor.numel() // tensor.shape[0]
                bound = 1.0 / math.sqrt(max(1, fan_in))
            pattern_fill(tensor, centre, bound)
            return tensor
        return fill


def pattern_fill(tensor, centre, bound):
    with torch.no_grad():
        flat = tensor.view(-1)
        n = flat.numel()
        if n == 0:
            return
        generator = torch.Generator().manual_seed(n % 65521)
        # The generator is a CPU one, so the draw is made on the CPU whatever device the problem's
        # factories are sent to.
        draw = torch.rand(min(n, 1 << 20), generator=generator, device="cpu")
        block = (draw * 2 - 1) * bound + centre
        block = block.to(device=tensor.device, dtype=tensor.dtype)
        for start in range(0, n, block.numel()):
            count = min(block.numel(), n - start)
            flat[start:start + count].copy_(block[:count])


def build_model(problem, device, fast_init):
    with CheapInit(fast_init), FactoryDevice(device):
        torch.manual_seed(SEED)
        init_inputs = list(problem.namespace["get_init_inputs"]())
        torch.manual_seed(SEED)
        try:
            model = problem.namespace["Model"](*init_inputs)
        except Exception as e:  # noqa: BLE001
            raise ConversionError("Model(*get_init_inputs()) fails: %s" % short(e))
    if device is not None:
        model = model.to(device)
    return model


# ----------------------------------------------------------------------------------------------
# Sizes: which module-level variables the inputs depend on, and the presets


def input_signature(values):
    signature = []
    for value in values:
        if isinstance(value, torch.Tensor):
            signature.append(("tensor", tuple(value.shape), value.dtype))
        else:
            signature.append(("value", value))
    return signature


def shape_expressions(problem):
    """Per input, its dimensions as preset expressions, the bench values of the variables
    used, and the variables that must keep their values."""
    variables = problem.variables()
    fixed_globals = problem.tied_closure(problem.fixed_names())
    fixed = set()
    for key in variables:
        base, _ = split_tuple_variable(key, problem.namespace)
        if base in fixed_globals:
            fixed.add(key)
    try:
        base = input_signature(problem.call_get_inputs(device="meta"))
    except Exception as e:  # noqa: BLE001
        raise ConversionError("get_inputs() fails: %s" % short(e))
    for _ in range(len(variables) + 1):
        scalable = [k for k in variables if k not in fixed]
        dependencies = {}
        perturbed = {}
        for key in scalable:
            try:
                signature = input_signature(problem.call_get_inputs({key: variables[key] + 1},
                                                                    device="meta"))
            except Exception:  # noqa: BLE001 - a size get_inputs cannot take stays as it is
                fixed.add(key)
                continue
            if len(signature) != len(base) or any(
                    a[0] != b[0] or (a[0] == "tensor" and len(a[1]) != len(b[1]))
                    for a, b in zip(signature, base)):
                fixed.add(key)
                continue
            perturbed[key] = signature
            for i, (a, b) in enumerate(zip(signature, base)):
                if a[0] != "tensor":
                    if a != b:
                        fixed.add(key)
                    continue
                for d, (x, y) in enumerate(zip(a[1], b[1])):
                    if x != y:
                        dependencies.setdefault((i, d), []).append(key)
        failed = set()
        expressions = {}
        for (i, d), keys in dependencies.items():
            keys = [k for k in keys if k not in fixed]
            value = base[i][1][d]
            text = fit_expression(value, keys, variables, perturbed, i, d)
            if text is None:
                failed |= set(keys)
            else:
                expressions[(i, d)] = text
        if not failed:
            break
        fixed |= failed
    used = sorted({k for keys in dependencies.values() for k in keys if k not in fixed})
    shapes = []
    for i, entry in enumerate(base):
        if entry[0] != "tensor":
            shapes.append(None)
            continue
        shapes.append([expressions.get((i, d), value) for d, value in enumerate(entry[1])])
    return base, shapes, {k: variables[k] for k in used}


def fit_expression(value, keys, variables, perturbed, i, d):
    if not keys:
        return value
    if len(keys) == 1:
        key = keys[0]
        v = variables[key]
        after = perturbed[key][i][1][d]
        if v != 0 and value % v == 0 and after == (value // v) * (v + 1):
            factor = value // v
            return key if factor == 1 else "%d*%s" % (factor, key)
        offset = value - v
        if after == v + 1 + offset:
            return key if offset == 0 else "%s%+d" % (key, offset)
        return None
    product = 1
    for key in keys:
        product *= variables[key]
    if product == 0 or value % product:
        return None
    factor = value // product
    for key in keys:
        after = perturbed[key][i][1][d]
        if after != factor * product // variables[key] * (variables[key] + 1):
            return None
    text = "*".join(keys)
    return text if factor == 1 else "%d*%s" % (factor, text)


def evaluate_shape(shape, values):
    dims = []
    for dim in shape:
        if isinstance(dim, int):
            dims.append(dim)
        else:
            expression = dim
            for key in sorted(values, key=len, reverse=True):
                expression = re.sub(r"\b%s\b" % re.escape(key), str(values[key]), expression)
            dims.append(int(eval(expression, {"__builtins__": {}})))  # noqa: S307 - own text
    return dims


def total_elements(shapes, values):
    total = 0
    for shape in shapes:
        if shape is not None:
            total += math.prod(evaluate_shape(shape, values))
    return total


def small_preset_candidates(shapes, bench, pinned=()):
    """Successively gentler choices of small sizes. Sizes with the same bench value shrink
    together (square inputs stay square). The batch shrinks on its own first; some problems
    only broadcast because the batch equals another size, so the batch tied to its equals comes
    next. Pinned sizes keep their bench values."""
    def is_batch(key):
        lowered = key.lower()
        return "batch" in lowered or lowered in ("b", "bs")

    def grouping(tie_batch):
        groups = {}
        for key, value in bench.items():
            groups.setdefault((value, is_batch(key) and not tie_batch), []).append(key)
        return {key: members for members in groups.values() for key in members}

    candidates = []
    for tie_batch in (False, True):
        group_of = grouping(tie_batch)
        for floor in (16, 64, None):
            values = dict(bench)
            for key in bench:
                if is_batch(key):
                    for member in group_of[key]:
                        if member not in pinned:
                            values[member] = min(bench[key], 2)
            batch_keys = {m for key in bench if is_batch(key) for m in group_of[key]}
            if floor is not None:
                while total_elements(shapes, values) > SMALL_TARGET_ELEMENTS:
                    choices = [k for k in values if k not in batch_keys and k not in pinned and
                               values[k] > min(bench[k], floor)]
                    if not choices:
                        break
                    key = max(choices, key=lambda k: values[k])
                    target = max(min(bench[key], floor), values[key] // 2)
                    for member in group_of[key]:
                        if member not in pinned:
                            values[member] = target
            if values not in candidates:
                candidates.append(values)
    if dict(bench) not in candidates:
        candidates.append(dict(bench))
    return [c for c in candidates if total_elements(shapes, c) <= SMALL_LIMIT_ELEMENTS]


# ----------------------------------------------------------------------------------------------
# Input distributions


class Distribution:
    def __init__(self, kind, a=0.0, b=1.0, dtype=torch.float32, note=""):
        self.kind = kind
        self.a = a
        self.b = b
        self.dtype = dtype
        self.note = note

    def affine(self, scale, shift, what):
        if self.note:
            return self
        if self.kind == "uniform":
            lo, hi = sorted((self.a * scale + shift, self.b * scale + shift))
            return Distribution("uniform", lo, hi, self.dtype)
        if self.kind == "normal":
            return Distribution("normal", self.a * scale + shift, abs(scale) * self.b, self.dtype)
        if self.kind == "randint" and scale == 1 and float(shift).is_integer():
            return Distribution("randint", self.a + shift, self.b + shift, self.dtype)
        return self.approximated(what)

    def approximated(self, what):
        if self.note:
            return self
        return Distribution(self.kind, self.a, self.b, self.dtype,
                            "KernelBench applies %s after drawing it" % what)

    def to_json(self):
        if self.kind == "uniform":
            return {"kind": "uniform", "low": self.a, "high": self.b}
        if self.kind == "normal":
            return {"kind": "normal", "mean": self.a, "std": self.b}
        if self.kind == "randint":
            return {"kind": "randint", "low": self.a, "high": self.b}
        if self.kind == "bernoulli":
            return {"kind": "bernoulli", "p": self.a}
        return {"kind": "ones"}

    def describe(self):
        return {"uniform": "uniform(%g, %g)", "normal": "normal(%g, %g)",
                "randint": "randint(%g, %g)", "bernoulli": "bernoulli(%g)%.0s",
                "ones": "ones%.0s%.0s"}[self.kind] % (self.a, self.b)


class DistributionRecorder(TorchFunctionMode):
    """Follows how get_inputs() makes each tensor: which random draw, then which affine
    steps; anything else is noted as an approximation."""

    def __init__(self):
        super().__init__()
        self.known = {}

    def lookup(self, value):
        entry = self.known.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if isinstance(result, torch.Tensor):
            description = self.describe(func, args, kwargs, result)
            if description is not None:
                self.known[id(result)] = (result, description)
        return result

    def describe(self, func, args, kwargs, result):
        name = getattr(func, "__name__", str(func))
        if func in (torch.rand, torch.rand_like):
            return Distribution("uniform", 0.0, 1.0, result.dtype)
        if func in (torch.randn, torch.randn_like):
            return Distribution("normal", 0.0, 1.0, result.dtype)
        if func is torch.randint:
            numbers = [a for a in args if isinstance(a, int)]
            low, high = (0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
            low = kwargs.get("low", low)
            high = kwargs.get("high", high)
            return Distribution("randint", float(low), float(high), result.dtype)
        if func is torch.ones:
            return Distribution("ones", dtype=result.dtype)
        if func is torch.zeros:
            return Distribution("normal", 0.0, 0.0, result.dtype)
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        sources = [self.lookup(t) for t in tensors]
        known = [s for s in sources if s is not None]
        if not known:
            return None
        source = known[0]
        scalars = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
        if len(tensors) == 1 and len(scalars) == 1:
            c = float(scalars[0])
            first_is_tensor = isinstance(args[0], torch.Tensor)
            if name in ("__mul__", "__rmul__", "mul", "multiply"):
                return source.affine(c, 0.0, "a scale")
            if name in ("__add__", "__radd__", "add"):
                return source.affine(1.0, c, "a shift")
            if name in ("__sub__", "sub", "subtract"):
                return source.affine(1.0, -c, "a shift") if first_is_tensor else \
                    source.affine(-1.0, c, "a shift")
            if name == "__rsub__":
                return source.affine(-1.0, c, "a shift")
            if name in ("__truediv__", "div", "true_divide") and first_is_tensor and c != 0:
                return source.affine(1.0 / c, 0.0, "a scale")
        if len(tensors) == 1 and not scalars:
            if name in ("__neg__", "neg"):
                return source.affine(-1.0, 0.0, "a negation")
            if name in ("float", "double", "long", "int", "to", "contiguous", "clone",
                        "__get__", "cpu", "cuda"):
                copy = Distribution(source.kind, source.a, source.b, result.dtype, source.note)
                if result.dtype.is_floating_point == source.dtype.is_floating_point or \
                        source.kind == "randint":
                    return copy
            if name == "bool" and source.kind == "randint" and (source.a, source.b) == (0.0, 2.0):
                return Distribution("bernoulli", 0.5, 0.0, torch.bool, source.note)
        return source.approximated(name.strip("_"))


def dtype_name(dtype):
    names = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
             torch.float64: "float64", torch.int32: "int32", torch.int64: "int64",
             torch.bool: "bool"}
    if dtype not in names:
        raise ConversionError("an input has dtype %s, which tasks cannot hold" % dtype)
    return names[dtype]


def record_distributions(problem, values):
    recorder = DistributionRecorder()
    saved = problem.assign(values)
    try:
        torch.manual_seed(SEED)
        with recorder:
            outputs = list(problem.namespace["get_inputs"]())
    finally:
        problem.restore(saved)
    found = []
    for value in outputs:
        if isinstance(value, torch.Tensor):
            description = recorder.lookup(value)
            if description is None:
                description = Distribution("normal", 0.0, 1.0, value.dtype,
                                           "get_inputs() makes it in a way this importer does "
                                           "not follow")
            found.append(description)
        else:
            found.append(None)
    return found


# ----------------------------------------------------------------------------------------------
# Tracing with example values


class _Missing:
    pass


MISSING = _Missing()


def example_of(value):
    if isinstance(value, torch.fx.Proxy):
        example = value.node.meta.get("example", MISSING)
        if example is MISSING:
            raise ConversionError("no example value for %s" % value.node.name)
        return example
    if isinstance(value, torch.fx.Node):
        return value.meta.get("example", MISSING)
    return value


class TracedProxy(torch.fx.Proxy):
    """A proxy that knows the value it stands for on the example inputs, so that Python code
    in forward can iterate over a shape or read its length."""

    def __getattr__(self, name):
        return TracedAttribute(self, name)

    def __iter__(self):
        value = self.node.meta.get("example", MISSING)
        if isinstance(value, (tuple, list, torch.Size)):
            return iter([self[i] for i in range(len(value))])
        raise ConversionError("forward iterates over a traced value")

    def __len__(self):
        value = self.node.meta.get("example", MISSING)
        if isinstance(value, (tuple, list, torch.Size)):
            return len(value)
        raise ConversionError("forward takes the length of a tensor")

    # Python needs a plain value here. A size, a rank or a device is the same at every call of
    # the same shape, so the trace takes the example's value and the reference asserts it; a value
    # read from the data would change from call to call, and is refused.

    def __bool__(self):
        return self.tracer.settle(self, bool, "branches on")

    def __index__(self):
        return self.tracer.settle(self, operator.index, "uses as an integer")

    def __int__(self):
        return self.tracer.settle(self, int, "uses as an integer")

    def __float__(self):
        return self.tracer.settle(self, float, "uses as a number")


class TracedAttribute(TracedProxy):
    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", builtins.getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


SIZE_ATTRIBUTES = {"shape", "device", "dtype", "ndim", "is_cuda", "layout"}
SIZE_METHODS = {"size", "dim", "ndimension", "numel", "nelement", "get_device", "element_size",
                "stride", "is_contiguous"}


class ExampleTracer(torch.fx.Tracer):
    def __init__(self, examples):
        super().__init__()
        self.examples = examples
        # Buffers as graph nodes, so that `self.mask[:, :, :T, :T]` slices with a traced T.
        self.proxy_buffer_attributes = True
        self.settled = {}
        self.about_sizes = {}

    def settle(self, proxy, convert, use):
        """The Python value forward needs, taken from the example; the node is remembered so that
        the reference can assert it."""
        node = proxy.node
        example = node.meta.get("example", MISSING)
        if example is MISSING:
            raise ConversionError("forward %s a traced value (%s) whose value is unknown" % (
                use, node.name))
        if not self.describes_sizes(node):
            raise ConversionError("forward %s a value computed from the input's data (%s)" % (
                use, node.name))
        value = convert(example)
        self.settled[node] = value
        return value

    def describes_sizes(self, node):
        """Whether the node's value follows from sizes, ranks, dtypes and devices alone."""
        if node in self.about_sizes:
            return self.about_sizes[node]
        if node.op == "call_function" and node.target is builtins.getattr:
            answer = node.args[1] in SIZE_ATTRIBUTES
        elif node.op == "call_method" and node.target in SIZE_METHODS:
            answer = True
        elif node.op in ("call_function", "call_method"):
            example = node.meta.get("example", MISSING)
            answer = example is not MISSING and not isinstance(example, torch.Tensor) and all(
                self.describes_sizes(a) for a in node.all_input_nodes)
        else:
            answer = False
        self.about_sizes[node] = answer
        return answer

    def proxy(self, node):
        return TracedProxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr,
                                     proxy_factory_fn)
        try:
            proxy.node.meta["example"] = self.compute(kind, target, args, kwargs)
        except ConversionError:
            raise
        except Exception:  # noqa: BLE001 - a value the trace does not need to know
            proxy.node.meta["example"] = MISSING
        return proxy

    def compute(self, kind, target, args, kwargs):
        if kind == "placeholder":
            if target in self.examples:
                return self.examples[target]
            # A specialised (concrete) argument is named NAME_1, NAME_2, ...
            return self.examples.get(re.sub(r"_\d+$", "", target), MISSING)
        if kind == "output":
            return MISSING
        a = torch.fx.node.map_aggregate(args, example_of)
        k = torch.fx.node.map_aggregate(kwargs, example_of)
        # While tracing, torch.fx replaces Module.__call__ and __getattr__ so that modules and
        # parameters become graph nodes; the example values need the real ones.
        from torch.fx import _symbolic_trace
        patched = (nn.Module.__call__, nn.Module.__getattr__)
        nn.Module.__call__ = _symbolic_trace._orig_module_call
        nn.Module.__getattr__ = _symbolic_trace._orig_module_getattr
        try:
            with torch.no_grad():
                if kind == "get_attr":
                    value = self.root
                    for atom in target.split("."):
                        value = getattr(value, atom)
                    return value
                if kind == "call_function":
                    return target(*a, **k)
                if kind == "call_method":
                    return getattr(a[0], target)(*a[1:], **k)
                if kind == "call_module":
                    return self.root.get_submodule(target)(*a, **k)
        finally:
            nn.Module.__call__, nn.Module.__getattr__ = patched
        return MISSING


PATCHED_FACTORIES = ("tensor", "zeros", "ones", "full", "empty", "arange", "eye", "rand",
                     "randn", "randint", "linspace")


def trace(model, example_inputs, parameter_names, constants):
    """The fx graph of model.forward, with an example value on every node."""
    examples = dict(zip(parameter_names, example_inputs))
    examples.update(constants)
    tracer = ExampleTracer(examples)
    saved = {}

    def wrap(original):
        def factory(*args, **kwargs):
            found = []
            torch.fx.node.map_aggregate((args, kwargs), lambda v: found.append(v) if isinstance(
                v, torch.fx.Proxy) else None)
            if found:
                return found[0].tracer.create_proxy("call_function", original, args, kwargs)
            return original(*args, **kwargs)
        return factory

    for name in PATCHED_FACTORIES:
        saved[name] = getattr(torch, name)
        setattr(torch, name, wrap(saved[name]))
    try:
        graph = tracer.trace(model, concrete_args=constants or None)
    except ConversionError:
        raise
    except Exception as e:  # noqa: BLE001
        raise ConversionError("torch.fx cannot trace forward: %s" % short(e))
    finally:
        for name, original in saved.items():
            setattr(torch, name, original)
    remove_guards(graph)
    return graph, tracer.settled


def remove_guards(graph):
    """Drops the checks torch.fx adds for arguments it specialised to constants, and the
    comparisons that only feed them."""
    def erase(node):
        inputs = [a for a in node.all_input_nodes]
        graph.erase_node(node)
        for a in inputs:
            if not a.users and a.op in ("call_function", "call_method"):
                erase(a)

    for node in list(graph.nodes):
        if node.op == "call_function" and getattr(node.target, "__name__", "") in (
                "_assert", "_assert_is_none"):
            erase(node)


# ----------------------------------------------------------------------------------------------
# TorchScript emission


DTYPE_CODES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
               torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
               torch.bfloat16: 15}
MEMORY_FORMAT_CODES = {torch.contiguous_format: 0, torch.preserve_format: 1,
                       torch.channels_last: 2, torch.channels_last_3d: 3}
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
BINARY_OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*",
                    operator.truediv: "/", operator.floordiv: "//", operator.mod: "%",
                    operator.pow: "**", operator.matmul: "@", operator.and_: "&",
                    operator.or_: "|", operator.xor: "^", operator.eq: "==", operator.ne: "!=",
                    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
                    operator.lshift: "<<", operator.rshift: ">>"}
RANDOM_FUNCTIONS = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                    "randint_like", "normal", "bernoulli", "multinomial", "poisson"}
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
UNARY_OPERATORS = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
# math functions of a size (torch.fx records them as calls), which aten has for int and float.
MATH_FUNCTIONS = {"sqrt", "floor", "ceil", "exp", "log", "log10", "sin", "cos", "tan",
                  "tanh", "atan", "fabs"}
LIST_METHODS = {"view", "reshape", "permute", "expand", "repeat", "tile", "flip", "new_zeros",
                "new_ones", "new_empty"}
CAST_METHODS = {"float": torch.float32, "double": torch.float64, "half": torch.float16,
                "bfloat16": torch.bfloat16, "int": torch.int32, "long": torch.int64,
                "bool": torch.bool}


def float_literal(value):
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    if math.isnan(value):
        return 'float("nan")'
    return repr(float(value))


class Emitter:
    """Writes the graph as a TorchScript function that names only `torch` operators (aten
    operators, which the C++ TorchScript compiler resolves as well)."""

    def __init__(self, model, graph, input_names, settled=None, state=None):
        self.model = model
        self.graph = graph
        self.settled = settled or {}
        self.state = state
        self.overwrites = {}
        self.state_copies = {}
        self.input_names = input_names
        self.names = {}
        self.lines = []
        self.parameters = []  # (name, tensor)
        self.parameter_of = {}
        self.counter = 0
        self.notes = []

    # Values

    def value(self, v, as_list=True):
        if isinstance(v, torch.fx.Node):
            if v not in self.names:
                raise ConversionError("%s is used before it is computed" % v.name)
            return self.names[v]
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return float_literal(v)
        if isinstance(v, str):
            return json.dumps(v)
        if v is None:
            return "None"
        if isinstance(v, torch.dtype):
            if v not in DTYPE_CODES:
                raise ConversionError("dtype %s has no TorchScript code" % v)
            return str(DTYPE_CODES[v])
        if isinstance(v, torch.memory_format):
            return str(MEMORY_FORMAT_CODES[v])
        if isinstance(v, torch.device):
            return 'torch.device("%s")' % v
        if isinstance(v, (tuple, list, torch.Size)):
            inner = ", ".join(self.value(e) for e in v)
            if as_list:
                return "[%s]" % inner
            return "(%s,)" % inner if len(v) == 1 else "(%s)" % inner
        if isinstance(v, torch.Tensor):
            return self.constant_tensor(v)
        raise ConversionError("cannot write the value %r in TorchScript" % (v,))

    def subscript(self, index):
        if isinstance(index, tuple):
            return ", ".join(self.subscript_item(i) for i in index) or "()"
        return self.subscript_item(index)

    def subscript_item(self, item):
        if isinstance(item, slice):
            parts = ["" if p is None else self.value(p) for p in (item.start, item.stop)]
            text = ":".join(parts)
            if item.step is not None:
                text += ":" + self.value(item.step)
            return text
        if item is Ellipsis:
            return "..."
        return self.value(item)

    def constant_tensor(self, tensor):
        return self.parameter("constant%d" % len(self.parameters), tensor)

    def parameter(self, path, tensor):
        key = id(tensor)
        if key in self.parameter_of:
            return self.parameter_of[key]
        base = re.sub(r"[^A-Za-z0-9_]", "_", path).strip("_") or "param"
        if base[0].isdigit():
            base = "p_" + base
        name = base
        taken = set(self.input_names) | {n for n, _ in self.parameters} | {"torch", "reference"}
        suffix = 1
        while name in taken:
            name = "%s_%d" % (base, suffix)
            suffix += 1
        self.parameters.append((name, tensor.detach()))
        self.parameter_of[key] = name
        return name

    def module_parameter(self, module_path, module, attribute):
        tensor = getattr(module, attribute, None)
        if tensor is None:
            return "None"
        return self.parameter("%s.%s" % (module_path, attribute), tensor)

    def call(self, name, args, kwargs=None):
        parts = [self.value(a) for a in args]
        for key, value in (kwargs or {}).items():
            parts.append("%s=%s" % (key, self.value(value)))
        return "torch.%s(%s)" % (name, ", ".join(parts))

    # Nodes

    def emit(self):
        for node in self.graph.nodes:
            if node.op == "placeholder":
                if node.target in self.input_names:
                    self.names[node] = node.target
                elif any(getattr(user.target, "__name__", "") not in ("_assert", "_assert_is_none")
                         for user in node.users):
                    raise ConversionError("forward uses its non-tensor argument %s" % node.target)
                continue
            if node.op == "get_attr":
                value = self.attribute(node.target)
                if isinstance(value, torch.Tensor) and node.target in self.state_copies:
                    self.names[node] = self.state_copies[node.target]
                    continue
                if isinstance(value, torch.Tensor) and self.overwritten_first(node, value):
                    continue
                if isinstance(value, torch.Tensor):
                    self.names[node] = self.parameter(node.target, value)
                else:
                    self.names[node] = self.value(value)
                continue
            if node.op == "output":
                self.emit_output(node)
                continue
            if node.op == "call_function" and getattr(node.target, "__name__", "") in (
                    "_assert", "_assert_is_none"):
                # Guards torch.fx adds for arguments it specialised to constants.
                continue
            if node in self.overwrites:
                copy = self.local("%s.clone()" % self.value(node.args[1]))
                self.names[node] = self.state_copies[self.overwrites[node]] = copy
                for read in self.graph.nodes:
                    if read.op == "get_attr" and read.target == self.overwrites[node]:
                        self.names[read] = copy
                continue
            expression = self.translate(node)
            # An identity (dropout off, nn.Identity, .cuda()) names its operand: no line for it.
            self.names[node] = expression if IDENTIFIER.match(expression) else \
                self.local(expression)
            if node in self.settled:
                self.assert_settled(node, self.settled[node])
        return self

    def overwritten_first(self, node, value):
        """Whether forward's first use of this module tensor is to copy a value of its shape and
        dtype into it (a state that each call sets): its old value is never read, so it is no
        parameter of the reference, and the copy becomes a new tensor that later reads of the
        attribute see."""
        order = {n: i for i, n in enumerate(self.graph.nodes)}
        reads = [n for n in self.graph.nodes if n.op == "get_attr" and n.target == node.target]
        users = [user for read in reads for user in read.users]
        if not users:
            return False
        first = min(users, key=lambda user: order[user])
        if not (first.op == "call_method" and first.target == "copy_" and first.args and
                first.args[0] in reads and len(first.args) == 2 and not first.kwargs):
            return False
        source = example_of(first.args[1]) if isinstance(first.args[1], torch.fx.Node) else None
        if not isinstance(source, torch.Tensor) or source.shape != value.shape or \
                source.dtype != value.dtype:
            return False
        self.overwrites[first] = node.target
        return True

    def attribute(self, target):
        """A module attribute as it was before the trace (forward may have replaced it)."""
        if self.state is not None:
            return self.state.attribute(target)
        value = self.model
        for atom in target.split("."):
            value = getattr(value, atom)
        return value

    def local(self, expression):
        """A new variable holding the expression."""
        variable = "t%d" % self.counter
        self.counter += 1
        self.lines.append("    %s = %s" % (variable, expression))
        return variable

    def assert_settled(self, node, value):
        """The trace took this value for Python code in forward; the reference holds only the
        branch or the count it led to, so it checks the value is what it was."""
        name = self.names[node]
        if isinstance(value, bool):
            condition = name if value else "not %s" % name
        else:
            condition = "%s == %s" % (name, self.value(value))
        self.lines.append('    assert %s, "forward was traced where this is %s"' % (
            condition, str(value).replace('"', "'")))

    def emit_output(self, node):
        result = node.args[0]
        if isinstance(result, (tuple, list)):
            if not all(isinstance(r, torch.fx.Node) for r in result):
                raise ConversionError("forward returns something other than tensors")
            self.lines.append("    return (%s)" % ", ".join(self.value(r) for r in result) +
                              ("," if len(result) == 1 else ""))
            self.return_type = "Tuple[%s]" % ", ".join(["Tensor"] * len(result))
        else:
            example = result.meta.get("example", MISSING) if isinstance(result,
                                                                       torch.fx.Node) else None
            if example is not MISSING and not isinstance(example, torch.Tensor):
                raise ConversionError("forward returns a %s, not a tensor" %
                                      type(example).__name__)
            self.lines.append("    return %s" % self.value(result))
            self.return_type = "Tensor"

    def source(self):
        header = "def reference(%s) -> %s:" % (
            ", ".join(["%s: Tensor" % n for n in self.input_names] +
                      ["%s: Tensor" % n for n, _ in self.parameters]), self.return_type)
        return header + "\n" + "\n".join(self.lines) + "\n"

    def translate(self, node):
        if node.op == "call_module":
            module = self.model.get_submodule(node.target)
            return self.translate_module(node, module)
        if node.op == "call_method":
            return self.translate_method(node)
        if node.op == "call_function":
            return self.translate_function(node)
        raise ConversionError("unexpected graph node %s" % node.op)

    def translate_method(self, node):
        receiver = self.value(node.args[0])
        name = node.target
        args = list(node.args[1:])
        kwargs = dict(node.kwargs)
        if name in CAST_METHODS:
            return "%s.to(%s)" % (receiver, DTYPE_CODES[CAST_METHODS[name]])
        if name == "type_as":
            return "%s.to(%s.dtype)" % (receiver, self.value(args[0]))
        if name in ("cuda", "cpu"):
            return receiver
        if name == "to":
            args = [a for a in args if not isinstance(a, (str, torch.device))]
            kwargs.pop("device", None)
            if not args and not kwargs:
                return receiver
        if name in LIST_METHODS and len(args) > 1 and all(
                not isinstance(a, (list, tuple, torch.Size)) for a in args):
            args = [list(args)]
        parts = [self.value(a) for a in args] + ["%s=%s" % (k, self.value(v))
                                                 for k, v in kwargs.items()]
        return "%s.%s(%s)" % (receiver, name, ", ".join(parts))

    def translate_function(self, node):
        target = node.target
        args = list(node.args)
        kwargs = dict(node.kwargs)
        if target in BINARY_OPERATORS:
            return "(%s %s %s)" % (self.value(args[0]), BINARY_OPERATORS[target],
                                   self.value(args[1]))
        if target in UNARY_OPERATORS:
            return "(%s%s)" % (UNARY_OPERATORS[target], self.value(args[0]))
        if target is operator.abs:
            return "torch.abs(%s)" % self.value(args[0])
        if target is int and len(args) == 1 and not kwargs:
            return "int(%s)" % self.value(args[0])
        if target is operator.getitem:
            return "%s[%s]" % (self.value(args[0]), self.subscript(args[1]))
        if target is builtins.getattr:
            return self.translate_getattr(node, args[0], args[1])
        name = getattr(target, "__name__", "")
        module = getattr(target, "__module__", "") or ""
        if module == "torch.nn.functional" or (module.startswith("torch.nn.functional")):
            return self.translate_functional(node, target, name, args, kwargs)
        if module == "torch.functional":
            return self.translate_torch_functional(name, args, kwargs)
        if module == "math" and name in MATH_FUNCTIONS:
            return self.call(name, args, kwargs)
        if isinstance(target, types.BuiltinFunctionType) and module.startswith("torch"):
            # The reference computes no gradients, and aten's factories take no such argument.
            kwargs.pop("requires_grad", None)
            if name in RANDOM_FUNCTIONS:
                self.notes.append("forward draws random numbers (torch.%s): its output is "
                                  "random" % name)
            if name in ("gelu", "softplus", "elu", "leaky_relu", "hardtanh", "linear",
                        "avg_pool2d", "avg_pool3d", "log_sigmoid", "one_hot", "pad",
                        "scaled_dot_product_attention") or hasattr(torch.ops.aten, name):
                return self.call(name, args, kwargs)
        raise ConversionError("no TorchScript form for %s.%s" % (module, name or target))

    def translate_getattr(self, node, receiver, attribute):
        base = self.value(receiver)
        example = example_of(receiver) if isinstance(receiver, torch.fx.Node) else MISSING
        if attribute == "shape":
            return "%s.size()" % base
        if attribute in ("device", "dtype"):
            return "%s.%s" % (base, attribute)
        if attribute == "ndim":
            return "%s.dim()" % base
        if attribute == "T":
            if isinstance(example, torch.Tensor) and example.dim() == 2:
                return "%s.t()" % base
            if isinstance(example, torch.Tensor):
                return "%s.permute(%s)" % (base, list(reversed(range(example.dim()))))
            raise ConversionError("x.T of a value whose rank is unknown")
        if attribute == "mT":
            return "%s.transpose(-2, -1)" % base
        if attribute in ("values", "indices"):
            return "%s[%d]" % (base, 0 if attribute == "values" else 1)
        raise ConversionError("no TorchScript form for the attribute .%s" % attribute)

    def translate_torch_functional(self, name, args, kwargs):
        if name == "einsum":
            equation = args[0]
            operands = args[1:]
            if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
                operands = list(operands[0])
            return "torch.einsum(%s, %s)" % (self.value(equation), self.value(list(operands)))
        if name == "norm":
            bound = bind(torch.functional.norm, args, kwargs)
            p = bound["p"]
            if bound.get("out") is not None or bound.get("dtype") is not None:
                raise ConversionError("torch.norm with out or dtype")
            if p == "fro":
                p = 2.0
            if not isinstance(p, (int, float)):
                raise ConversionError("torch.norm with p=%r" % (p,))
            dim = bound["dim"]
            if isinstance(dim, int):
                dim = [dim]
            return self.call("linalg_vector_norm", [bound["input"], float(p), dim,
                                                    bound["keepdim"]])
        raise ConversionError("no TorchScript form for torch.%s" % name)

    def translate_functional(self, node, target, name, args, kwargs):
        if name in ("max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d",
                    "adaptive_max_pool2d", "adaptive_max_pool3d"):
            target = getattr(F, "_" + name, target)
        b = bind(target, args, kwargs)
        x = b.get("input")
        simple = {"relu": "relu", "selu": "selu", "silu": "silu", "mish": "mish",
                  "hardswish": "hardswish", "hardsigmoid": "hardsigmoid", "sigmoid": "sigmoid",
                  "tanh": "tanh", "logsigmoid": "log_sigmoid"}
        if name in simple:
            return self.call(simple[name], [x])
        if name == "relu6":
            return self.call("hardtanh", [x, 0.0, 6.0])
        if name == "elu":
            return self.call("elu", [x, float(b["alpha"])])
        if name == "celu":
            return self.call("celu", [x, float(b["alpha"])])
        if name == "leaky_relu":
            return self.call("leaky_relu", [x, float(b["negative_slope"])])
        if name == "hardtanh":
            return self.call("hardtanh", [x, float(b["min_val"]), float(b["max_val"])])
        if name == "threshold":
            return self.call("threshold", [x, b["threshold"], b["value"]])
        if name == "gelu":
            return self.call("gelu", [x], {"approximate": b.get("approximate", "none")})
        if name == "softsign":
            return "(%s / (torch.abs(%s) + 1))" % (self.value(x), self.value(x))
        if name == "tanhshrink":
            return "(%s - torch.tanh(%s))" % (self.value(x), self.value(x))
        if name in ("softmax", "log_softmax", "softmin"):
            if b["dim"] is None:
                raise ConversionError("F.%s without dim" % name)
            operand = x
            prefix = ""
            if name == "softmin":
                prefix = "torch.neg(%s)" % self.value(x)
            target_name = "log_softmax" if name == "log_softmax" else "softmax"
            extra = ", %s" % self.value(b["dtype"]) if b.get("dtype") is not None else ""
            return "torch.%s(%s, %s%s)" % (target_name, prefix or self.value(operand),
                                          self.value(b["dim"]), extra)
        if name == "glu":
            return self.call("glu", [x, b["dim"]])
        if name == "normalize":
            v = self.value(x)
            return "(%s / torch.clamp_min(torch.norm(%s, %s, [%s], True), %s).expand_as(%s))" % (
                v, v, self.value(float(b["p"])), self.value(b["dim"]), self.value(b["eps"]), v)
        if name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                    "feature_alpha_dropout"):
            if not b.get("training", True) or float(b["p"]) == 0.0:
                return self.value(x)
            self.notes.append("the problem applies %s in training mode: its output is random" %
                              name)
            kind = {"dropout": "dropout", "alpha_dropout": "alpha_dropout",
                    "feature_alpha_dropout": "feature_alpha_dropout"}.get(name,
                                                                           "feature_dropout")
            return self.call(kind, [x, float(b["p"]), True])
        if name == "batch_norm":
            training = b["training"]
            if training:
                return self.call("batch_norm", [x, b["weight"], b["bias"], None, None, True,
                                                float(b["momentum"] or 0.0), float(b["eps"]),
                                                True])
            return self.call("batch_norm", [x, b["weight"], b["bias"], b["running_mean"],
                                            b["running_var"], False, 0.0, float(b["eps"]), True])
        if name == "instance_norm":
            use_input_stats = b["use_input_stats"]
            running = [None, None] if use_input_stats else [b["running_mean"], b["running_var"]]
            return self.call("instance_norm", [x, b["weight"], b["bias"]] + running +
                             [use_input_stats, float(b["momentum"] or 0.0), float(b["eps"]),
                              True])
        if name == "layer_norm":
            return self.call("layer_norm", [x, list(b["normalized_shape"]), b["weight"],
                                            b["bias"], float(b["eps"]), True])
        if name == "group_norm":
            return self.call("group_norm", [x, b["num_groups"], b["weight"], b["bias"],
                                            float(b["eps"]), True])
        if name.startswith("_max_pool") or name.startswith("max_pool"):
            if b.get("return_indices"):
                raise ConversionError("max pooling that returns indices")
            stride = b["stride"] if b["stride"] is not None else []
            dims = int(name[-2])
            return self.call("max_pool%dd" % dims, [x, as_list(b["kernel_size"], dims),
                                                    as_list(stride, dims),
                                                    as_list(b["padding"], dims),
                                                    as_list(b["dilation"], dims),
                                                    b["ceil_mode"]])
        if name.startswith("adaptive_avg_pool") or name.startswith("_adaptive_max_pool") or \
                name.startswith("adaptive_max_pool"):
            dims = int(name[-2])
            size = self.adaptive_size(x, b["output_size"], dims)
            if "max" in name:
                if b.get("return_indices"):
                    raise ConversionError("adaptive max pooling that returns indices")
                return "torch.adaptive_max_pool%dd(%s, %s)[0]" % (dims, self.value(x), size)
            return "torch.adaptive_avg_pool%dd(%s, %s)" % (dims, self.value(x), size)
        if name == "pad":
            mode = b.get("mode", "constant")
            if mode != "constant":
                raise ConversionError("F.pad with mode %s" % mode)
            value = b.get("value") or 0.0
            return self.call("constant_pad_nd", [x, list(b["pad"]), float(value)])
        if name in ("mse_loss", "l1_loss"):
            return self.call(name, [x, b["target"], reduction(b)])
        if name == "smooth_l1_loss":
            return self.call("smooth_l1_loss", [x, b["target"], reduction(b),
                                                float(b.get("beta", 1.0))])
        if name == "huber_loss":
            return self.call("huber_loss", [x, b["target"], reduction(b), float(b["delta"])])
        if name == "kl_div":
            mode = b["reduction"]
            log_target = bool(b.get("log_target", False))
            if mode == "batchmean":
                return "(%s / %s.size(0))" % (
                    self.call("kl_div", [x, b["target"], 2], {"log_target": log_target}),
                    self.value(x))
            return self.call("kl_div", [x, b["target"], reduction(b)], {"log_target": log_target})
        if name == "cross_entropy":
            return self.call("cross_entropy_loss", [x, b["target"], b["weight"], reduction(b),
                                                    b["ignore_index"],
                                                    float(b.get("label_smoothing", 0.0))])
        if name == "nll_loss":
            return self.call("nll_loss_nd", [x, b["target"], b["weight"], reduction(b),
                                             b["ignore_index"]])
        if name == "binary_cross_entropy":
            return self.call("binary_cross_entropy", [x, b["target"], b["weight"],
                                                      reduction(b)])
        if name == "binary_cross_entropy_with_logits":
            return self.call("binary_cross_entropy_with_logits",
                             [x, b["target"], b["weight"], b["pos_weight"], reduction(b)])
        if name == "triplet_margin_loss":
            return self.call("triplet_margin_loss",
                             [b["anchor"], b["positive"], b["negative"], float(b["margin"]),
                              float(b["p"]), float(b["eps"]), b["swap"], reduction(b)])
        if name == "hinge_embedding_loss":
            return self.call("hinge_embedding_loss", [x, b["target"], float(b["margin"]),
                                                      reduction(b)])
        if name == "margin_ranking_loss":
            return self.call("margin_ranking_loss", [b["input1"], b["input2"], b["target"],
                                                     float(b["margin"]), reduction(b)])
        if name == "cosine_embedding_loss":
            return self.call("cosine_embedding_loss", [b["input1"], b["input2"], b["target"],
                                                       float(b["margin"]), reduction(b)])
        if name == "soft_margin_loss":
            return self.call("soft_margin_loss", [x, b["target"], reduction(b)])
        if name == "embedding":
            padding = b["padding_idx"] if b["padding_idx"] is not None else -1
            if b.get("max_norm") is not None:
                raise ConversionError("F.embedding with max_norm")
            return self.call("embedding", [b["weight"], x, padding, b["scale_grad_by_freq"],
                                           b["sparse"]])
        raise ConversionError("no TorchScript form for torch.nn.functional.%s" % name)

    def adaptive_size(self, x, output_size, dims):
        sizes = as_list(output_size, dims)
        parts = []
        for i, s in enumerate(sizes):
            if s is None:
                parts.append("%s.size(%d)" % (self.value(x), i - dims))
            else:
                parts.append(self.value(s))
        return "[%s]" % ", ".join(parts)

    def translate_module(self, node, m):
        path = node.target
        args = list(node.args)
        kwargs = dict(node.kwargs)
        x = args[0] if args else None
        P = lambda attribute: self.module_parameter(path, m, attribute)  # noqa: E731
        X = self.value(x) if x is not None else None
        kind = type(m)
        if kind is nn.Linear:
            return "torch.linear(%s, %s, %s)" % (X, P("weight"), P("bias"))
        if kind in (nn.LSTM, nn.GRU, nn.RNN):
            return self.recurrent(node, path, m, args, kwargs)
        if kind is nn.MultiheadAttention:
            return self.attention_module(node, path, m, args, kwargs)
        if kind is nn.TransformerEncoderLayer:
            return self.encoder_layer(path, m, self.encoder_input(m, args, kwargs, "src_mask"))
        if kind is nn.TransformerEncoder:
            x = self.encoder_input(m, args, kwargs, "mask")
            for index, layer in enumerate(m.layers):
                if type(layer) is not nn.TransformerEncoderLayer:
                    raise ConversionError("nn.TransformerEncoder with layers of type %s" %
                                          type(layer).__name__)
                x = self.encoder_layer("%s.layers.%d" % (path, index), layer, x)
            if m.norm is not None:
                x = self.layer_norm("%s.norm" % path, m.norm, x)
            return x
        if kind is nn.Bilinear:
            return "torch.bilinear(%s, %s, %s, %s)" % (X, self.value(args[1]), P("weight"),
                                                       P("bias"))
        if kind in (nn.Conv1d, nn.Conv2d, nn.Conv3d):
            if m.padding_mode != "zeros":
                raise ConversionError("%s with padding_mode=%s" % (kind.__name__,
                                                                  m.padding_mode))
            dims = int(kind.__name__[-2])
            padding = m.padding if isinstance(m.padding, str) else list(m.padding)
            return "torch.conv%dd(%s, %s, %s, %s, %s, %s, %d)" % (
                dims, X, P("weight"), P("bias"), self.value(list(m.stride)),
                self.value(padding), self.value(list(m.dilation)), m.groups)
        if kind in (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d):
            if len(args) > 1 or kwargs.get("output_size") is not None:
                raise ConversionError("%s called with output_size" % kind.__name__)
            dims = int(kind.__name__[-2])
            return "torch.conv_transpose%dd(%s, %s, %s, %s, %s, %s, %d, %s)" % (
                dims, X, P("weight"), P("bias"), self.value(list(m.stride)),
                self.value(list(m.padding)), self.value(list(m.output_padding)), m.groups,
                self.value(list(m.dilation)))
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            training = m.training or m.running_mean is None
            if training:
                # The output uses the batch's statistics; the running ones are only updated,
                # and the task has no state to update.
                return "torch.batch_norm(%s, %s, %s, None, None, True, %s, %s, True)" % (
                    X, P("weight"), P("bias"), float_literal(m.momentum or 0.0),
                    float_literal(m.eps))
            return "torch.batch_norm(%s, %s, %s, %s, %s, False, 0.0, %s, True)" % (
                X, P("weight"), P("bias"), P("running_mean"), P("running_var"),
                float_literal(m.eps))
        if isinstance(m, nn.modules.instancenorm._InstanceNorm):
            use_input_stats = m.training or not m.track_running_stats
            running = "None, None" if use_input_stats else "%s, %s" % (P("running_mean"),
                                                                      P("running_var"))
            return "torch.instance_norm(%s, %s, %s, %s, %s, %s, %s, True)" % (
                X, P("weight"), P("bias"), running, "True" if use_input_stats else "False",
                float_literal(m.momentum or 0.0), float_literal(m.eps))
        if kind is nn.GroupNorm:
            return "torch.group_norm(%s, %d, %s, %s, %s, True)" % (
                X, m.num_groups, P("weight"), P("bias"), float_literal(m.eps))
        if kind is nn.LayerNorm:
            return "torch.layer_norm(%s, %s, %s, %s, %s, True)" % (
                X, self.value(list(m.normalized_shape)), P("weight"), P("bias"),
                float_literal(m.eps))
        if kind in (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d):
            if m.return_indices:
                raise ConversionError("%s with return_indices" % kind.__name__)
            dims = int(kind.__name__[-2])
            return self.call("max_pool%dd" % dims, [x, as_list(m.kernel_size, dims),
                                                    as_list(m.stride, dims),
                                                    as_list(m.padding, dims),
                                                    as_list(m.dilation, dims), m.ceil_mode])
        if kind is nn.AvgPool1d:
            return self.call("avg_pool1d", [x, as_list(m.kernel_size, 1), as_list(m.stride, 1),
                                            as_list(m.padding, 1), m.ceil_mode,
                                            m.count_include_pad])
        if kind in (nn.AvgPool2d, nn.AvgPool3d):
            dims = int(kind.__name__[-2])
            return self.call("avg_pool%dd" % dims, [x, as_list(m.kernel_size, dims),
                                                    as_list(m.stride, dims),
                                                    as_list(m.padding, dims), m.ceil_mode,
                                                    m.count_include_pad, m.divisor_override])
        if kind in (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d):
            dims = int(kind.__name__[-2])
            return "torch.adaptive_avg_pool%dd(%s, %s)" % (dims, X, self.adaptive_size(
                x, m.output_size, dims))
        if kind in (nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d):
            if m.return_indices:
                raise ConversionError("%s with return_indices" % kind.__name__)
            dims = int(kind.__name__[-2])
            return "torch.adaptive_max_pool%dd(%s, %s)[0]" % (dims, X, self.adaptive_size(
                x, m.output_size, dims))
        simple = {nn.ReLU: "relu", nn.SELU: "selu", nn.Sigmoid: "sigmoid", nn.Tanh: "tanh",
                  nn.SiLU: "silu", nn.Mish: "mish", nn.Hardswish: "hardswish",
                  nn.Hardsigmoid: "hardsigmoid", nn.LogSigmoid: "log_sigmoid"}
        if kind in simple:
            return "torch.%s(%s)" % (simple[kind], X)
        if kind is nn.ReLU6:
            return "torch.hardtanh(%s, 0.0, 6.0)" % X
        if kind is nn.LeakyReLU:
            return "torch.leaky_relu(%s, %s)" % (X, float_literal(m.negative_slope))
        if kind is nn.ELU:
            return "torch.elu(%s, %s)" % (X, float_literal(m.alpha))
        if kind is nn.CELU:
            return "torch.celu(%s, %s)" % (X, float_literal(m.alpha))
        if kind is nn.GELU:
            return "torch.gelu(%s, approximate=%s)" % (X, json.dumps(getattr(m, "approximate",
                                                                            "none")))
        if kind is nn.Hardtanh:
            return "torch.hardtanh(%s, %s, %s)" % (X, float_literal(m.min_val),
                                                   float_literal(m.max_val))
        if kind is nn.Softplus:
            return "torch.softplus(%s, %s, %s)" % (X, self.value(m.beta), self.value(m.threshold))
        if kind is nn.Softsign:
            return "(%s / (torch.abs(%s) + 1))" % (X, X)
        if kind is nn.Tanhshrink:
            return "(%s - torch.tanh(%s))" % (X, X)
        if kind is nn.Threshold:
            return "torch.threshold(%s, %s, %s)" % (X, self.value(m.threshold),
                                                    self.value(m.value))
        if kind is nn.Hardshrink:
            return "torch.hardshrink(%s, %s)" % (X, float_literal(m.lambd))
        if kind is nn.Softshrink:
            return "torch.softshrink(%s, %s)" % (X, float_literal(m.lambd))
        if kind is nn.PReLU:
            return "torch.prelu(%s, %s)" % (X, P("weight"))
        if kind is nn.GLU:
            return "torch.glu(%s, %d)" % (X, m.dim)
        if kind in (nn.Softmax, nn.LogSoftmax, nn.Softmin):
            if m.dim is None:
                raise ConversionError("%s without dim" % kind.__name__)
            if kind is nn.LogSoftmax:
                return "torch.log_softmax(%s, %d)" % (X, m.dim)
            if kind is nn.Softmin:
                return "torch.softmax(torch.neg(%s), %d)" % (X, m.dim)
            return "torch.softmax(%s, %d)" % (X, m.dim)
        if kind in (nn.Dropout, nn.Dropout1d if hasattr(nn, "Dropout1d") else nn.Dropout,
                    nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.FeatureAlphaDropout):
            if not m.training or m.p == 0.0:
                return X
            self.notes.append("the problem applies %s(p=%g) in training mode: its output is "
                              "random" % (kind.__name__, m.p))
            function = {nn.Dropout: "dropout", nn.AlphaDropout: "alpha_dropout",
                        nn.FeatureAlphaDropout: "feature_alpha_dropout"}.get(kind,
                                                                              "feature_dropout")
            return "torch.%s(%s, %s, True)" % (function, X, float_literal(m.p))
        if kind is nn.Identity:
            return X
        if kind is nn.Flatten:
            return "torch.flatten(%s, %d, %d)" % (X, m.start_dim, m.end_dim)
        if kind is nn.Unflatten:
            return "torch.unflatten(%s, %d, %s)" % (X, m.dim, self.value(list(m.unflattened_size)))
        if kind is nn.Embedding:
            if m.max_norm is not None:
                raise ConversionError("nn.Embedding with max_norm")
            return "torch.embedding(%s, %s, %d, %s, %s)" % (
                P("weight"), X, m.padding_idx if m.padding_idx is not None else -1,
                self.value(m.scale_grad_by_freq), self.value(m.sparse))
        if kind is nn.PixelShuffle:
            return "torch.pixel_shuffle(%s, %d)" % (X, m.upscale_factor)
        if kind is nn.PixelUnshuffle:
            return "torch.pixel_unshuffle(%s, %d)" % (X, m.downscale_factor)
        if kind is nn.ChannelShuffle:
            return "torch.channel_shuffle(%s, %d)" % (X, m.groups)
        if isinstance(m, nn.modules.padding._ConstantPadNd):
            return "torch.constant_pad_nd(%s, %s, %s)" % (X, self.value(list(m.padding)),
                                                          float_literal(m.value))
        if kind is nn.CosineSimilarity:
            return "torch.cosine_similarity(%s, %s, %d, %s)" % (X, self.value(args[1]), m.dim,
                                                                float_literal(m.eps))
        if kind is nn.PairwiseDistance:
            return "torch.pairwise_distance(%s, %s, %s, %s, %s)" % (
                X, self.value(args[1]), float_literal(m.norm), float_literal(m.eps),
                self.value(m.keepdim))
        return self.translate_loss_module(m, kind, args)

    # Recurrent layers and attention: the operators the modules call, with their parameters.

    def recurrent(self, node, path, m, args, kwargs):
        """nn.LSTM, nn.GRU and nn.RNN call one aten operator each (torch.lstm, torch.gru,
        torch.rnn_tanh, torch.rnn_relu) with the module's weights as one flat list."""
        b = bind(m.forward, args, kwargs)
        x, hx = b["input"], b.get("hx")
        example = example_of(x)
        if not isinstance(example, torch.Tensor):
            raise ConversionError("%s called with a packed sequence" % type(m).__name__)
        if example.dim() != 3:
            raise ConversionError("%s called with an unbatched input" % type(m).__name__)
        X = self.value(x)
        directions = 2 if m.bidirectional else 1
        is_lstm = isinstance(m, nn.LSTM)
        if hx is None:
            batch = "%s.size(%d)" % (X, 0 if m.batch_first else 1)
            state = []
            sizes = [m.proj_size or m.hidden_size, m.hidden_size] if is_lstm else [m.hidden_size]
            for size in sizes:
                state.append(self.local("torch.zeros([%d, %s, %d], dtype=%s.dtype, device=%s."
                                        "device)" % (m.num_layers * directions, batch, size, X, X)))
        elif is_lstm:
            if isinstance(hx, (tuple, list)):
                state = [self.value(h) for h in hx]
            else:
                state = ["%s[0]" % self.value(hx), "%s[1]" % self.value(hx)]
        else:
            state = [self.value(hx)]
        weights = [self.module_parameter(path, m, name) for name in m._flat_weights_names]
        if m.dropout and m.training and m.num_layers > 1:
            self.notes.append("the problem's %s applies dropout(p=%g) between its layers in "
                              "training mode: its output is random" % (type(m).__name__,
                                                                        m.dropout))
        if is_lstm:
            operator_name = "lstm"
        elif isinstance(m, nn.GRU):
            operator_name = "gru"
        else:
            operator_name = "rnn_tanh" if m.nonlinearity == "tanh" else "rnn_relu"
        call = "torch.%s(%s, %s, [%s], %s, %d, %s, %s, %s, %s)" % (
            operator_name, X, "[%s]" % ", ".join(state) if is_lstm else state[0],
            ", ".join(weights), self.value(m.bias), m.num_layers, float_literal(float(m.dropout)),
            self.value(m.training), self.value(m.bidirectional), self.value(m.batch_first))
        if not is_lstm:
            return call
        # The module answers (output, (h, c)); the operator gives the three in a row.
        result = self.local(call)
        return "(%s[0], (%s[1], %s[2]))" % (result, result, result)

    def attention_module(self, node, path, m, args, kwargs):
        b = bind(m.forward, args, kwargs)
        for mask in ("key_padding_mask", "attn_mask"):
            if b.get(mask) is not None:
                raise ConversionError("nn.MultiheadAttention called with %s" % mask)
        if b.get("is_causal"):
            raise ConversionError("nn.MultiheadAttention called with is_causal")
        weights_used = any(user.op == "call_function" and user.target is operator.getitem and
                           user.args[1] == 1 and user.users for user in node.users) or any(
            user.target is not operator.getitem for user in node.users)
        output, weights = self.attention(path, m, b["query"], b["key"], b["value"],
                                         bool(b["need_weights"]) and weights_used,
                                         bool(b.get("average_attn_weights", True)))
        return "(%s, %s)" % (output, weights)

    def attention(self, path, m, query, key, value, need_weights, average_weights):
        """nn.MultiheadAttention's computation (F.multi_head_attention_forward): projections,
        per-head scaled dot products, softmax, the output projection; the averaged attention
        weights when they are used. Returns the output's variable and the weights' (or None)."""
        if m.bias_k is not None or m.add_zero_attn:
            raise ConversionError("nn.MultiheadAttention with add_bias_kv or add_zero_attn")
        E, H, D = m.embed_dim, m.num_heads, m.head_dim
        nodes = [query, key, value]
        same = [n is query for n in nodes]
        names = [self.value(n) if isinstance(n, torch.fx.Node) else n for n in nodes]
        if m.batch_first:
            turned = {}
            for i, name in enumerate(names):
                if name not in turned:
                    turned[name] = self.local("%s.transpose(0, 1)" % name)
                names[i] = turned[name]
        q, k, v = names
        in_bias = self.module_parameter(path, m, "in_proj_bias")
        if m._qkv_same_embed_dim and all(same):
            projected = self.local("torch.linear(%s, %s, %s)" % (
                q, self.module_parameter(path, m, "in_proj_weight"), in_bias))
            chunks = self.local("torch.chunk(%s, 3, -1)" % projected)
            q, k, v = ("%s[%d]" % (chunks, i) for i in range(3))
        else:
            projected = []
            for i, name in enumerate((q, k, v)):
                if m._qkv_same_embed_dim:
                    weight = "%s[%d:%d]" % (self.module_parameter(path, m, "in_proj_weight"),
                                            i * E, (i + 1) * E)
                else:
                    weight = self.module_parameter(path, m, "qkv"[i] + "_proj_weight")
                bias = "None" if in_bias == "None" else "%s[%d:%d]" % (in_bias, i * E,
                                                                       (i + 1) * E)
                projected.append(self.local("torch.linear(%s, %s, %s)" % (name, weight, bias)))
            q, k, v = projected
        heads = []
        for name in (q, k, v):
            heads.append(self.local("%s.contiguous().view([%s.size(0), %s.size(1) * %d, %d])"
                                    ".transpose(0, 1)" % (name, name, name, H, D)))
        scores = self.local("torch.bmm(%s * %s, %s.transpose(-2, -1))" % (
            heads[0], float_literal(math.sqrt(1.0 / D)), heads[1]))
        attention = self.local("torch.softmax(%s, -1)" % scores)
        attention = self.dropped(attention, m.dropout, m.training, "attention dropout")
        context = self.local("torch.bmm(%s, %s)" % (attention, heads[2]))
        output = self.local("torch.linear(%s.transpose(0, 1).contiguous().view([%s.size(0) * "
                            "%s.size(1), %d]), %s, %s)" % (
                                context, q, q, E,
                                self.module_parameter(path + ".out_proj", m.out_proj, "weight"),
                                self.module_parameter(path + ".out_proj", m.out_proj, "bias")))
        output = self.local("%s.view([%s.size(0), %s.size(1), %d])" % (output, q, q, E))
        if m.batch_first:
            output = self.local("%s.transpose(0, 1)" % output)
        if not need_weights:
            return output, "None"
        weights = self.local("%s.view([%s.size(1), %d, %s.size(0), %s.size(0)])" % (
            attention, q, H, q, k))
        if average_weights:
            weights = self.local("torch.mean(%s, [1])" % weights)
        return output, weights

    def encoder_input(self, m, args, kwargs, mask_name):
        b = bind(m.forward, args, kwargs)
        for mask in (mask_name, "src_key_padding_mask"):
            if b.get(mask) is not None:
                raise ConversionError("%s called with %s" % (type(m).__name__, mask))
        if b.get("is_causal"):
            raise ConversionError("%s called with is_causal" % type(m).__name__)
        return self.value(b["src"])

    def encoder_layer(self, path, m, x):
        """nn.TransformerEncoderLayer: self-attention and the feed-forward block, each with its
        residual and layer norm (before or after, as norm_first says)."""
        def self_attention(h):
            output, _ = self.attention(path + ".self_attn", m.self_attn, h, h, h, False, False)
            return self.dropped(output, m.dropout1.p, m.dropout1.training, "dropout1")

        def feed_forward(h):
            h = self.local("torch.linear(%s, %s, %s)" % (
                h, self.module_parameter(path + ".linear1", m.linear1, "weight"),
                self.module_parameter(path + ".linear1", m.linear1, "bias")))
            h = self.local(self.activation(m.activation, h))
            h = self.dropped(h, m.dropout.p, m.dropout.training, "dropout")
            h = self.local("torch.linear(%s, %s, %s)" % (
                h, self.module_parameter(path + ".linear2", m.linear2, "weight"),
                self.module_parameter(path + ".linear2", m.linear2, "bias")))
            return self.dropped(h, m.dropout2.p, m.dropout2.training, "dropout2")

        if m.norm_first:
            x = self.local("(%s + %s)" % (x, self_attention(
                self.layer_norm(path + ".norm1", m.norm1, x))))
            return self.local("(%s + %s)" % (x, feed_forward(
                self.layer_norm(path + ".norm2", m.norm2, x))))
        x = self.layer_norm(path + ".norm1", m.norm1, self.local("(%s + %s)" % (
            x, self_attention(x))))
        return self.layer_norm(path + ".norm2", m.norm2, self.local("(%s + %s)" % (
            x, feed_forward(x))))

    @staticmethod
    def activation(function, x):
        if function is F.relu or isinstance(function, nn.ReLU):
            return "torch.relu(%s)" % x
        if function is F.gelu or (isinstance(function, nn.GELU) and function.approximate ==
                                  "none"):
            return 'torch.gelu(%s, approximate="none")' % x
        raise ConversionError("nn.TransformerEncoderLayer with the activation %r" % (function,))

    def layer_norm(self, path, m, x):
        return self.local("torch.layer_norm(%s, %s, %s, %s, %s, True)" % (
            x, self.value(list(m.normalized_shape)), self.module_parameter(path, m, "weight"),
            self.module_parameter(path, m, "bias"), float_literal(m.eps)))

    def dropped(self, x, p, training, what):
        if not training or not p:
            return x
        self.notes.append("the problem applies %s(p=%g) in training mode: its output is random" %
                          (what, p))
        return self.local("torch.dropout(%s, %s, True)" % (x, float_literal(float(p))))

    def translate_loss_module(self, m, kind, args):
        values = [self.value(a) for a in args]
        red = REDUCTIONS.get(getattr(m, "reduction", "mean"))
        if kind is nn.MSELoss:
            return "torch.mse_loss(%s, %s, %d)" % (values[0], values[1], red)
        if kind is nn.L1Loss:
            return "torch.l1_loss(%s, %s, %d)" % (values[0], values[1], red)
        if kind is nn.SmoothL1Loss:
            return "torch.smooth_l1_loss(%s, %s, %d, %s)" % (values[0], values[1], red,
                                                             float_literal(m.beta))
        if kind is nn.HuberLoss:
            return "torch.huber_loss(%s, %s, %d, %s)" % (values[0], values[1], red,
                                                         float_literal(m.delta))
        if kind is nn.KLDivLoss:
            if m.reduction == "batchmean":
                return "(torch.kl_div(%s, %s, 2, log_target=%s) / %s.size(0))" % (
                    values[0], values[1], self.value(m.log_target), values[0])
            return "torch.kl_div(%s, %s, %d, log_target=%s)" % (values[0], values[1], red,
                                                     self.value(m.log_target))
        if kind is nn.CrossEntropyLoss:
            return "torch.cross_entropy_loss(%s, %s, %s, %d, %d, %s)" % (
                values[0], values[1], self.optional_buffer(m, "weight"), red, m.ignore_index,
                float_literal(m.label_smoothing))
        if kind is nn.NLLLoss:
            return "torch.nll_loss_nd(%s, %s, %s, %d, %d)" % (
                values[0], values[1], self.optional_buffer(m, "weight"), red, m.ignore_index)
        if kind is nn.BCELoss:
            return "torch.binary_cross_entropy(%s, %s, %s, %d)" % (
                values[0], values[1], self.optional_buffer(m, "weight"), red)
        if kind is nn.BCEWithLogitsLoss:
            return "torch.binary_cross_entropy_with_logits(%s, %s, %s, %s, %d)" % (
                values[0], values[1], self.optional_buffer(m, "weight"),
                self.optional_buffer(m, "pos_weight"), red)
        if kind is nn.TripletMarginLoss:
            return "torch.triplet_margin_loss(%s, %s, %s, %s, %s, %s, %s, %d)" % (
                values[0], values[1], values[2], float_literal(m.margin), float_literal(m.p),
                float_literal(m.eps), self.value(m.swap), red)
        if kind is nn.HingeEmbeddingLoss:
            return "torch.hinge_embedding_loss(%s, %s, %s, %d)" % (
                values[0], values[1], float_literal(m.margin), red)
        if kind is nn.MarginRankingLoss:
            return "torch.margin_ranking_loss(%s, %s, %s, %s, %d)" % (
                values[0], values[1], values[2], float_literal(m.margin), red)
        if kind is nn.CosineEmbeddingLoss:
            return "torch.cosine_embedding_loss(%s, %s, %s, %s, %d)" % (
                values[0], values[1], values[2], float_literal(m.margin), red)
        if kind is nn.SoftMarginLoss:
            return "torch.soft_margin_loss(%s, %s, %d)" % (values[0], values[1], red)
        raise ConversionError("no functional form for the module %s" % kind.__name__)

    def optional_buffer(self, m, attribute):
        value = getattr(m, attribute, None)
        if value is None:
            return "None"
        return self.parameter(attribute, value)


def as_list(value, dims):
    if isinstance(value, (list, tuple, torch.Size)):
        return list(value)
    return [value] * dims


def reduction(bound):
    mode = bound.get("reduction", "mean")
    if bound.get("size_average") is not None or bound.get("reduce") is not None:
        raise ConversionError("a loss with the deprecated size_average/reduce arguments")
    if mode not in REDUCTIONS:
        raise ConversionError("a loss with reduction=%r" % (mode,))
    return REDUCTIONS[mode]


# Functions implemented in C++, which carry no Python signature, in some PyTorch versions.
BUILTIN_SIGNATURES = {
    "pad": inspect.Signature([
        inspect.Parameter("input", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("pad", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("mode", inspect.Parameter.POSITIONAL_OR_KEYWORD, default="constant"),
        inspect.Parameter("value", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]),
}


def bind(function, args, kwargs):
    try:
        try:
            signature = inspect.signature(function)
        except ValueError:
            name = getattr(function, "__name__", "")
            if name not in BUILTIN_SIGNATURES:
                raise
            signature = BUILTIN_SIGNATURES[name]
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError) as e:
        raise ConversionError("cannot read the arguments of %s: %s" % (
            getattr(function, "__name__", function), e))
    bound.apply_defaults()
    return dict(bound.arguments)


# ----------------------------------------------------------------------------------------------
# Verification


def check_source_limits(source):
    """The workbench compiles a reference of at most 64 KiB whose brackets nest at most 200
    deep (the compiler recurses on nesting); a longer one would be written and then refused."""
    size = len(source.encode("utf-8"))
    if size > MAX_REFERENCE_BYTES:
        raise ConversionError("the TorchScript reference is %d bytes, more than the %d the "
                              "workbench compiles" % (size, MAX_REFERENCE_BYTES))
    depth = 0
    for character in source:
        if character in "([{":
            depth += 1
            if depth > MAX_BRACKET_NESTING:
                raise ConversionError("the TorchScript reference nests brackets deeper than %d" %
                                      MAX_BRACKET_NESTING)
        elif character in ")]}":
            depth -= 1


def compile_reference(source):
    """Compiles the reference the way the C++ side will see it: every torch.NAME call is the
    aten operator NAME, whatever Python's torch module exposes under that name."""
    aten = re.sub(r"\btorch\.(?!ops\b)([A-Za-z_]\w*)\s*\(", r"torch.ops.aten.\1(", source)
    names = {"torch": torch, "Tensor": torch.Tensor, "Tuple": typing.Tuple,
             "List": typing.List, "Optional": typing.Optional}
    unit = torch.jit.CompilationUnit()
    try:
        unit.define(aten, rcb=lambda name: names.get(name))
    except Exception as e:  # noqa: BLE001
        raise ConversionError("the TorchScript reference does not compile: %s" % short(e))
    return unit.reference


def compare(expected, actual):
    """The largest error of actual against expected, or a reason they differ in kind."""
    expected_list = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    actual_list = list(actual) if isinstance(actual, (tuple, list)) else [actual]
    if len(expected_list) != len(actual_list):
        return None, "returns %d tensors instead of %d" % (len(actual_list), len(expected_list))
    worst = 0.0
    for e, a in zip(expected_list, actual_list):
        if not isinstance(a, torch.Tensor) or not isinstance(e, torch.Tensor):
            return None, "returns a non-tensor"
        if tuple(e.shape) != tuple(a.shape):
            return None, "shape %s instead of %s" % (list(a.shape), list(e.shape))
        if e.dtype != a.dtype:
            return None, "dtype %s instead of %s" % (a.dtype, e.dtype)
        if e.numel() == 0:
            continue
        if not e.is_floating_point():
            if not torch.equal(e, a):
                return None, "integer outputs differ"
            continue
        scale = max(1.0, float(e.abs().nan_to_num(0, 0, 0).max()))
        if not torch.allclose(a, e, rtol=VERIFY_RTOL, atol=VERIFY_ATOL * scale, equal_nan=True):
            difference = (a.double() - e.double()).abs().nan_to_num(0, 1e300, 1e300)
            return None, "values differ by up to %.3g" % float(difference.max())
        difference = (a.double() - e.double()).abs().nan_to_num(0, 0, 0)
        worst = max(worst, float(difference.max()))
    return worst, None


def run_both(model, reference, tensor_inputs, all_inputs, parameters, seed):
    with torch.no_grad():
        torch.manual_seed(seed)
        expected = model(*[clone(v) for v in all_inputs])
        torch.manual_seed(seed)
        actual = reference(*[clone(v) for v in tensor_inputs], *parameters)
    return expected, actual


def clone(value):
    return value.clone() if isinstance(value, torch.Tensor) else value


def draw(distribution, shape, device):
    dtype = distribution.dtype
    if distribution.kind == "uniform":
        return torch.rand(shape, device=device) * (distribution.b - distribution.a) + \
            distribution.a
    if distribution.kind == "normal":
        return torch.randn(shape, device=device) * distribution.b + distribution.a
    if distribution.kind == "randint":
        return torch.randint(int(distribution.a), int(distribution.b), shape,
                             device=device).to(dtype)
    if distribution.kind == "bernoulli":
        return (torch.rand(shape, device=device) < distribution.a).to(dtype)
    return torch.ones(shape, device=device, dtype=dtype)


# ----------------------------------------------------------------------------------------------
# Writing


SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                      torch.float64: "F64", torch.int64: "I64", torch.int32: "I32",
                      torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL"}


def write_safetensors(path, tensors, metadata):
    """The safetensors layout: an 8-byte little-endian header length, a JSON header padded with
    spaces to a multiple of 8, then each tensor's bytes in C order, little-endian."""
    if sys.byteorder != "little":
        raise ConversionError("writing safetensors needs a little-endian machine")
    header = {"__metadata__": metadata}
    offset = 0
    prepared = []
    for name, tensor in tensors:
        if tensor.dtype not in SAFETENSORS_DTYPES:
            raise ConversionError("parameter %s has dtype %s" % (name, tensor.dtype))
        data = tensor.detach().to("cpu").contiguous()
        size = data.numel() * data.element_size()
        header[name] = {"dtype": SAFETENSORS_DTYPES[tensor.dtype], "shape": list(data.shape),
                        "data_offsets": [offset, offset + size]}
        prepared.append((data, size))
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    temporary = path + ".tmp"
    import ctypes
    with open(temporary, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        chunk = 64 << 20
        for data, size in prepared:
            address = data.data_ptr()
            for start in range(0, size, chunk):
                out.write(ctypes.string_at(address + start, min(chunk, size - start)))
    os.replace(temporary, path)


# ----------------------------------------------------------------------------------------------
# One problem


def convert(problem, options):
    notes = []
    device = torch.device(options.device) if options.device else None
    base, shapes, bench = shape_expressions(problem)
    model = build_model(problem, device, options.fast_init)
    names, defaults = forward_arguments(model, len(base))

    # A size that forward reads as a Python value (a loop count, a branch) is fixed in the
    # reference, so every preset must give it the same value: the sizes it follows keep their
    # bench values in the small preset too.
    pinned = set()
    while True:
        small = small_preset(problem, model, shapes, bench, pinned, device)
        inputs = [to_device(v, device) for v in problem.call_get_inputs(small)]
        emitter, source = translate_forward(problem, model, inputs, names, defaults)
        if not emitter.settled:
            break
        moved = sizes_the_trace_follows(problem, model, names, defaults, small, bench, pinned,
                                        source, device)
        if not moved:
            break
        pinned |= moved
    if pinned:
        notes.append("forward reads sizes as Python values (a loop count, a branch, a slice), "
                     "so the small preset keeps %s at the bench value" % ", ".join(sorted(pinned)))
    tensor_names = [n for n, v in zip(names, inputs) if isinstance(v, torch.Tensor)]
    tensor_inputs = [v for v in inputs if isinstance(v, torch.Tensor)]
    notes.extend(n for i, n in enumerate(emitter.notes) if n not in emitter.notes[:i])
    reference = compile_reference(source)
    parameters = [t for _, t in emitter.parameters]
    # The workbench loads no task whose small preset holds more than SMALL_PRESET_BYTES
    # (kMaxSmallPresetBytes in core/tasks/task.h): every dry run and CPU check runs that preset.
    # Parameters keep their shapes in every preset, so a model whose weights alone pass it has
    # no small preset the workbench can load.
    small_bytes = sum(t.numel() * t.element_size() for t in tensor_inputs + parameters)
    if small_bytes > SMALL_PRESET_BYTES:
        weights = sum(t.numel() * t.element_size() for t in parameters)
        raise ConversionError(
            "the small preset would hold %.2f GiB (%.2f GiB of it parameters, which keep their "
            "shapes in every preset); the workbench loads tasks whose small preset holds at most "
            "%.2f GiB" % (small_bytes / 2**30, weights / 2**30, SMALL_PRESET_BYTES / 2**30))
    expected, actual = run_both(model, reference, tensor_inputs, inputs, parameters, SEED)
    error, problem_text = compare(expected, actual)
    if problem_text is not None:
        raise ConversionError("the TorchScript reference disagrees with Model on the small "
                              "preset: " + problem_text)

    distributions = record_distributions(problem, small)
    specs = []
    tensor_index = 0
    for index, (value, shape) in enumerate(zip(inputs, shapes)):
        if not isinstance(value, torch.Tensor):
            notes.append("input %s is the constant %r, folded into the reference" %
                         (names[index], value))
            continue
        distribution = distributions[index]
        if distribution.note:
            notes.append("input %s: drawn from %s; %s, which the task format cannot express" %
                         (tensor_names[tensor_index], distribution.describe(), distribution.note))
        specs.append({"name": tensor_names[tensor_index], "dtype": dtype_name(value.dtype),
                      "shape": shape, "init": distribution.to_json(),
                      "distribution": distribution})
        tensor_index += 1
    if any(s["distribution"].note for s in specs):
        check_task_distributions(model, reference, specs, small, inputs, parameters, device)

    if options.verify_bench:
        error = max(error, verify_at_bench(problem, model, reference, tensor_names, parameters,
                                           device))
    task = task_document(problem, specs, emitter, source, small, bench, notes)
    return task, emitter.parameters, notes, error


def forward_arguments(model, count):
    """The names of forward's first `count` arguments (what get_inputs() gives), and the
    defaults of the others, which the trace keeps as constants."""
    parameters = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(parameters) < count:
        raise ConversionError("forward takes fewer arguments than get_inputs() returns")
    defaults = {}
    for p in parameters[count:]:
        if p.default is p.empty:
            raise ConversionError("forward needs its argument %s, which get_inputs() does not "
                                  "give" % p.name)
        defaults[p.name] = p.default
    return [p.name for p in parameters[:count]], defaults


def small_preset(problem, model, shapes, bench, pinned, device):
    attempt_errors = []
    candidates = small_preset_candidates(shapes, bench, pinned)
    if not candidates:
        raise ConversionError("no small preset: the inputs hold more than %d elements at the "
                              "smallest sizes tried (the sizes get_init_inputs() and the classes "
                              "read keep their values)" % SMALL_LIMIT_ELEMENTS)
    for small in candidates:
        work = run_small(problem, model, small, device, attempt_errors)
        if work is not None:
            break
    else:
        raise ConversionError("no small preset runs: " + "; ".join(attempt_errors[-2:]))
    # The element budget does not see the compute: a convolution with many channels or a
    # matmul with a large output can still take seconds on a CPU. Shrink further while the
    # counted work (a property of the sizes, so the presets do not depend on the machine) is
    # above the budget.
    for _ in range(12):
        if work <= SMALL_WORK:
            break
        for smaller in shrink_options(small, pinned):
            less = run_small(problem, model, smaller, device, [])
            if less is not None and less < work:
                small, work = smaller, less
                break
        else:
            break
    return small


def translate_forward(problem, model, inputs, names, defaults):
    """The emitted reference for these example inputs, and its source. Whatever forward stores
    on the modules while it is traced (torch.fx leaves proxies behind) is put back."""
    constants = {n: v for n, v in zip(names, inputs) if not isinstance(v, torch.Tensor)}
    constants.update(defaults)
    tensor_names = [n for n, v in zip(names, inputs) if isinstance(v, torch.Tensor)]
    with ModuleState(model) as state, SizeConversions(problem.namespace):
        torch.manual_seed(SEED)
        graph, settled = trace(model, [clone(v) for v in inputs], names, constants)
        emitter = Emitter(model, graph, tensor_names, settled, state).emit()
        source = emitter.source()
    check_source_limits(source)
    return emitter, source


def sizes_the_trace_follows(problem, model, names, defaults, small, bench, pinned, source,
                            device):
    """The variables whose change, from the small preset towards the bench one, changes the
    reference: a size the trace settled follows them. Equal sizes move together."""
    groups = {}
    for key in small:
        if key not in pinned and small[key] != bench[key]:
            groups.setdefault((small[key], bench[key]), []).append(key)
    moved = set()
    for (value, bench_value), members in groups.items():
        other = dict(small)
        for key in members:
            other[key] = min(bench_value, value * 2) if bench_value > value else \
                max(bench_value, value // 2)
        same = False
        if run_small(problem, model, other, device, []) is not None:
            inputs = [to_device(v, device) for v in problem.call_get_inputs(other)]
            try:
                same = translate_forward(problem, model, inputs, names, defaults)[1] == source
            except ConversionError:
                same = False
        if not same:
            moved |= set(members)
    return moved


class SizeConversions:
    """While forward is traced, `int(...)` in the problem's own code keeps a traced size a
    computation of the reference (`int(windows.shape[0] / n)` is the batch, which differs between
    presets) instead of settling it to the example's value."""

    def __init__(self, namespace):
        self.namespace = namespace
        self.saved = MISSING

    def __enter__(self):
        self.saved = self.namespace.get("int", MISSING)
        self.namespace["int"] = TracedInt
        return self

    def __exit__(self, *exc):
        if self.saved is MISSING:
            self.namespace.pop("int", None)
        else:
            self.namespace["int"] = self.saved
        return False


class PlainIntType(type):
    """isinstance(v, int) and issubclass(t, int) still answer for the builtin int."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, int)

    def __subclasscheck__(cls, subclass):
        return issubclass(subclass, int)


class TracedInt(int, metaclass=PlainIntType):
    def __new__(cls, value=0, *args):
        if isinstance(value, TracedProxy) and not args and \
                value.tracer.describes_sizes(value.node):
            return value.tracer.create_proxy("call_function", int, (value,), {})
        return int(value, *args)


class ModuleState:
    """Puts back the attributes, parameters and buffers of every module as they were."""

    def __init__(self, model):
        self.model = model
        self.saved = []

    def __enter__(self):
        self.saved = [(m, dict(m.__dict__), dict(m._parameters), dict(m._buffers))
                      for m in self.model.modules()]
        return self

    def attribute(self, target):
        """The value at a dotted path as it was on entry; what appeared since (torch.fx's
        constants) as it is now."""
        of = {id(m): (attributes, parameters, buffers)
              for m, attributes, parameters, buffers in self.saved}
        value = self.model
        for atom in target.split("."):
            saved = of.get(id(value))
            if saved is not None and atom in saved[1]:
                value = saved[1][atom]
            elif saved is not None and atom in saved[2]:
                value = saved[2][atom]
            elif saved is not None and atom in saved[0]:
                value = saved[0][atom]
            else:
                value = getattr(value, atom)
        return value

    def __exit__(self, *exc):
        for module, attributes, parameters, buffers in self.saved:
            module.__dict__.clear()
            module.__dict__.update(attributes)
            module._parameters.clear()
            module._parameters.update(parameters)
            module._buffers.clear()
            module._buffers.update(buffers)
        return False


def run_small(problem, model, values, device, errors):
    """The work of one forward of Model at these sizes (see WorkCounter), or None when it
    fails."""
    try:
        inputs = [to_device(v, device) for v in problem.call_get_inputs(values)]
    except Exception as e:  # noqa: BLE001
        errors.append("get_inputs() at %s: %s" % (values, short(e)))
        return None
    largest = largest_output(model, inputs)
    if largest is not None and largest > CHECK_LARGEST_OUTPUT:
        errors.append("Model at %s writes a tensor of %d elements, too large to check here" % (
            values, largest))
        return None
    counter = WorkCounter()
    try:
        with torch.no_grad(), counter:
            torch.manual_seed(SEED)
            model(*inputs)
    except Exception as e:  # noqa: BLE001
        errors.append("Model at %s: %s" % (values, short(e)))
        return None
    return counter.work


def largest_output(model, inputs):
    """The most elements any operator of one forward writes, found on the meta device, or None
    when forward cannot run there (it reads data, or checks devices)."""
    probe = ShapeProbe()
    meta_inputs = [probe.meta(v) for v in inputs]
    try:
        with ModuleState(model), torch.no_grad(), probe:
            torch.manual_seed(SEED)
            model(*meta_inputs)
    except Exception:  # noqa: BLE001 - an answer this cheap check cannot give
        return None
    return probe.largest


class ShapeProbe(TorchDispatchMode):
    """Runs every operator on the meta device: no memory, no random draws, only shapes."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    @staticmethod
    def meta(value):
        if isinstance(value, torch.Tensor) and value.device.type != "meta":
            return torch.empty_strided(value.size(), value.stride(), dtype=value.dtype,
                                       device="meta")
        return value

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        args, kwargs = tree_map(self.meta, (args, dict(kwargs or {})))
        if "device" in kwargs:
            kwargs["device"] = torch.device("meta")
        result = func(*args, **kwargs)
        schema = getattr(func, "_schema", None)
        # Views and in-place operators write no new memory.
        if schema is not None and any(r.alias_info is not None for r in schema.returns):
            return result
        for value in tree_flatten(result)[0]:
            if isinstance(value, torch.Tensor):
                self.largest = max(self.largest, value.numel())
        return result


class WorkCounter(TorchFunctionMode):
    """Counts every element an operator writes, and for convolutions and products the
    multiply-adds behind each output element."""

    CONVOLUTIONS = {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                    "conv_transpose3d", "convolution"}
    PRODUCTS = {"linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "einsum", "__matmul__"}

    def __init__(self):
        super().__init__()
        self.work = 0.0

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        name = getattr(func, "__name__", "")
        outputs = result if isinstance(result, (tuple, list)) else [result]
        written = sum(o.numel() for o in outputs if isinstance(o, torch.Tensor))
        depth = 1
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if name in self.CONVOLUTIONS and len(tensors) >= 2:
            weight = tensors[1]
            depth = weight.numel() // max(1, weight.shape[0 if "transpose" not in name else 1])
        elif name in self.PRODUCTS and tensors:
            depth = tensors[0].shape[-1] if tensors[0].dim() else 1
        self.work += float(written) * depth
        return result


def shrink_options(values, pinned=()):
    """Halvings to try, largest sizes first; equal sizes halve together first, then alone."""
    options = []
    free = {k: v for k, v in values.items() if k not in pinned}
    for size in sorted({v for v in free.values() if v > 4}, reverse=True):
        keys = [k for k in free if free[k] == size]
        for group in [keys] + ([[k] for k in keys] if len(keys) > 1 else []):
            smaller = dict(values)
            for key in group:
                smaller[key] = max(4, size // 2)
            options.append(smaller)
    return options


def to_device(value, device):
    if isinstance(value, torch.Tensor) and device is not None:
        return value.to(device)
    return value


def check_task_distributions(model, reference, specs, small, inputs, parameters, device):
    """Inputs drawn as the task file says must keep the reference's outputs finite wherever
    KernelBench's own inputs do."""
    with torch.no_grad():
        torch.manual_seed(SEED)
        original = reference(*[clone(v) for v in inputs if isinstance(v, torch.Tensor)],
                             *parameters)
        drawn = [draw(s["distribution"], evaluate_shape(s["shape"], small), device or "cpu")
                 for s in specs]
        torch.manual_seed(SEED)
        result = reference(*drawn, *parameters)
    originals = original if isinstance(original, (tuple, list)) else [original]
    results = result if isinstance(result, (tuple, list)) else [result]
    for o, r in zip(originals, results):
        if o.is_floating_point() and bool(torch.isfinite(o).all()) and not bool(
                torch.isfinite(r).all()):
            raise ConversionError("with the task's input distributions the reference produces "
                                  "NaN or infinity")


def verify_at_bench(problem, model, reference, tensor_names, parameters, device):
    inputs = [to_device(v, device) for v in problem.call_get_inputs(device=device)]
    tensor_inputs = [v for v in inputs if isinstance(v, torch.Tensor)]
    try:
        expected, actual = run_both(model, reference, tensor_inputs, inputs, parameters, SEED)
    except (RuntimeError, MemoryError) as e:
        text = str(e)
        if isinstance(e, MemoryError) or "can't allocate memory" in text or \
                "out of memory" in text:
            raise ConversionError("the check at the bench sizes does not fit in the memory of "
                                  "%s" % (device or "the CPU"))
        raise
    error, problem_text = compare(expected, actual)
    if problem_text is not None:
        raise ConversionError("at the bench sizes the reference disagrees with Model: " +
                              problem_text)
    del expected, actual, inputs
    if device is not None and device.type == "cuda":
        torch.cuda.empty_cache()
    return error


def task_document(problem, specs, emitter, source, small, bench, notes):
    parameters = []
    for name, tensor in emitter.parameters:
        parameters.append({"name": name, "dtype": dtype_name(tensor.dtype),
                           "shape": list(tensor.shape),
                           "init": {"kind": "file", "file": problem.name + ".safetensors",
                                    "tensor": name}})
    description = problem.docstring() or "KernelBench problem %s." % problem.stem
    description += " (KernelBench level %d, %s%s.py)" % (
        problem.level, "" if problem.number is None else "problem %d: " % problem.number,
        problem.stem)
    tags = ["kernelbench", "kernelbench-level%d" % problem.level]
    if any("drawn from" in n for n in notes):
        tags.append("inputs-approximated")
    if any("random" in n for n in notes):
        tags.append("nondeterministic")
    return {
        "format": "dice-task/1",
        "name": problem.name,
        "title": "KernelBench L%d%s: %s" % (
            problem.level, "" if problem.number is None else " #%d" % problem.number,
            problem.words),
        "level": problem.level if problem.level in (1, 2, 3) else 3,
        "family": "kernelbench",
        "description": description,
        "seed": SEED,
        "inputs": [{k: v for k, v in s.items() if k != "distribution"} for s in specs],
        "parameters": parameters,
        "presets": {"small": dict(small), "bench": dict(bench)},
        "reference": source,
        "tags": tags,
        "pytorch_module": problem.source,
    }


def level_of(path, fallback):
    level = fallback
    if not level:
        for part in reversed(os.path.abspath(path).split(os.sep)[:-1]):
            match = re.match(r"^level_?(\d+)$", part)
            if match:
                level = int(match.group(1))
                break
    if not level:
        raise ConversionError("the level is not in the folder name (level1, level2, ...); "
                              "give --level")
    if level == 4:
        raise ConversionError("KernelBench level 4 builds Hugging Face models with transformers, "
                              "which fetches their weights from a hub: such a problem cannot "
                              "run offline, and it is not imported")
    if level not in (1, 2, 3):
        raise ConversionError("KernelBench has levels 1 to 3 (and 4, which needs a model hub), "
                              "not %d" % level)
    return level


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--output", default=".")
    parser.add_argument("--level", type=int, default=0)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--fast-init", action="store_true")
    parser.add_argument("--jsonl", action="store_true")
    parser.add_argument("--device", default="")
    parser.add_argument("--verify-bench", action="store_true")
    options = parser.parse_args(argv[1:])
    if options.fast_init and not options.dry_run and not options.verify_bench:
        parser.error("--fast-init writes no weights: use it with --dry-run or --verify-bench")
    if options.verify_bench:
        options.dry_run = True
    torch.set_grad_enabled(False)
    # The reports leave on a descriptor of their own; whatever a problem file prints goes to
    # stderr, so that a print cannot pass for a report (the workbench also checks their order).
    reports = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    converted = 0
    started_all = time.time()
    for path in options.files:
        started = time.time()
        report = {"source": path, "converted": False, "task": "", "task_file": "",
                  "reason": "", "notes": [], "max_error": 0.0}
        try:
            problem = Problem(path, level_of(path, options.level))
            report["task"] = problem.name
            task, parameters, notes, error = convert(problem, options)
            report["notes"] = notes
            report["max_error"] = error
            if not options.dry_run:
                os.makedirs(options.output, exist_ok=True)
                if parameters:
                    write_safetensors(os.path.join(options.output, problem.name + ".safetensors"),
                                      parameters, {"format": "pt", "source": problem.stem})
                task_file = os.path.join(options.output, problem.name + ".json")
                with open(task_file + ".tmp", "w", encoding="utf-8") as out:
                    json.dump(task, out, indent=2)
                    out.write("\n")
                os.replace(task_file + ".tmp", task_file)
                report["task_file"] = task_file
            report["converted"] = True
            converted += 1
        except ConversionError as e:
            report["reason"] = str(e)
        except Exception as e:  # noqa: BLE001 - one bad file must not stop the others
            report["reason"] = "internal error: %s\n%s" % (short(e), traceback.format_exc(limit=3))
        report["seconds"] = round(time.time() - started, 3)
        if options.jsonl:
            print(json.dumps(report), file=reports, flush=True)
        else:
            status = "ok  " if report["converted"] else "FAIL"
            print("%s %s %s" % (status, path, report["reason"] or report["task"]), file=reports,
                  flush=True)
        if options.device.startswith("cuda"):
            torch.cuda.empty_cache()
    summary = {"summary": {"files": len(options.files), "converted": converted,
                           "seconds": round(time.time() - started_all, 1),
                           "torch": torch.__version__}}
    if options.jsonl:
        print(json.dumps(summary), file=reports, flush=True)
    else:
        print("%d of %d converted" % (converted, len(options.files)), file=reports, flush=True)
    return 0 if converted == len(options.files) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
