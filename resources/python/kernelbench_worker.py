#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The evaluation worker of the KernelBench dialect.

Speaks the protocol of dice-evald (JSON lines, protocol "dice-evald", version 1; see
docs/worker-protocol.md and docs/kernelbench-evaluator.md) on stdin and stdout, and evaluates a
candidate (a Python file defining ModelNew, CUDA compiled by load_inline) against a KernelBench
problem with KernelBench's protocol: seed 42 before the inputs of the constructor and before each
model, correctness over 5 trials with fresh inputs, 3 warm-ups and 100 timed trials with an L2
flush before each, CUDA events, and the eager reference timed the same way in the same run. The
holes KernelBench leaves open are closed where a harness can close them (static checks, the
reference run first on cloned inputs, inputs checked unchanged, plain-tensor outputs with their
own storage, timers and thread counts checked, freed memory poisoned).

Requests: hello, environment, check, evaluate, shutdown. Other modes:
  --probe                      print what this interpreter offers (PyTorch, CUDA, nvcc, ninja)
  --prebuild FILE --build-dir D compile a candidate's extension ahead of its evaluation
"""

import hashlib
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernelbench_static  # noqa: E402

PROTOCOL = "dice-evald"
VERSION = 1
WORKER_NAME = "kernelbench_worker"
L2_FLUSH_BYTES = 256 * 1024 * 1024

DEFAULT_OPTIONS = {
    "correctness_trials": 5,
    "atol": 1e-4,
    "rtol": 1e-4,
    "warmups": 3,
    "timing_trials": 100,
    "timing": True,
    "seed": 42,
    "excessive_speedup": 10.0,
    "device": 0,
    "build_dir": "",
    "inputs_on_device": True,
}


class ProtocolError(Exception):
    pass


class ReferenceError_(Exception):
    """The problem itself failed: not the candidate's fault."""


# ----------------------------------------------------------------------------------------------
# Environment


def probe():
    """What this interpreter offers for the KernelBench dialect, and what is missing."""
    info = {
        "python": sys.executable,
        "python_version": sys.version.split()[0],
        "torch": False,
        "torch_version": "",
        "torch_cuda": "",
        "cuda_available": False,
        "gpus": 0,
        "device": "",
        "nvcc": "",
        "ninja": False,
        "problems": [],
    }
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure means the same to the user
        info["problems"].append("PyTorch cannot be imported by %s: %s" % (sys.executable, e))
        return info
    info["torch"] = True
    info["torch_version"] = torch.__version__
    info["torch_cuda"] = torch.version.cuda or ""
    if not torch.version.cuda:
        info["problems"].append(
            "PyTorch %s at %s is built without CUDA" % (torch.__version__, sys.executable))
    else:
        available = torch.cuda.is_available()
        info["cuda_available"] = available
        if available:
            info["gpus"] = torch.cuda.device_count()
            info["device"] = torch.cuda.get_device_name(0)
        else:
            info["problems"].append("PyTorch sees no GPU (torch.cuda.is_available() is False)")
    nvcc = ""
    try:
        from torch.utils import cpp_extension
        home = cpp_extension.CUDA_HOME
        if home and os.path.exists(os.path.join(home, "bin", "nvcc")):
            nvcc = os.path.join(home, "bin", "nvcc")
        info["ninja"] = bool(cpp_extension.is_ninja_available())
    except Exception as e:  # noqa: BLE001
        info["problems"].append("torch.utils.cpp_extension is unusable: %s" % e)
    if not nvcc:
        nvcc = shutil.which("nvcc") or ""
    info["nvcc"] = nvcc
    if not nvcc:
        info["problems"].append(
            "nvcc was not found (load_inline compiles with it; set CUDA_HOME or put the CUDA "
            "toolkit's bin folder on PATH)")
    if not info["ninja"]:
        info["problems"].append("ninja was not found (load_inline builds with it)")
    return info


# ----------------------------------------------------------------------------------------------
# Output capture: the compiler and the candidate print; the protocol owns the real stdout.


class CapturedOutput:
    """Sends file descriptors 1 and 2 to a temporary file for the duration of a block."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()
        return False


NVCC_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:()]+)\((?P<line>\d+)\): (?P<sev>error|warning)\s*"
                             r"(?:#\S+-D)?:?\s*(?P<msg>.*)$")
GCC_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): "
                            r"(?:fatal )?(?P<sev>error|warning): (?P<msg>.*)$")


def parse_compile_log(text):
    diagnostics = []
    for line in text.splitlines():
        m = NVCC_DIAGNOSTIC.match(line.strip()) or GCC_DIAGNOSTIC.match(line.strip())
        if not m:
            continue
        diagnostics.append({
            "file": os.path.basename(m.group("file")),
            "line": int(m.group("line")),
            "column": int(m.groupdict().get("col") or 0),
            "severity": m.group("sev"),
            "code": "",
            "message": m.group("msg").strip(),
        })
        if len(diagnostics) >= 50:
            break
    return diagnostics


def tail(text, lines=30):
    return "\n".join(text.strip().splitlines()[-lines:])


# ----------------------------------------------------------------------------------------------
# Evaluation


class Evaluation:
    """One evaluate request: the result dictionary and the steps that fill it."""

    def __init__(self, request, send):
        self.request = request
        self.send = send
        self.options = dict(DEFAULT_OPTIONS)
        self.options.update(request.get("options") or {})
        self.exit_after_reply = False
        self.result = {
            "task": request.get("task", ""),
            "level": int(request.get("level", 1) or 1),
            "dialect": "kernelbench",
            "preset": "bench",
            "verdict": "not_run",
            "message": "",
            "compiled": False,
            "compile_ms": 0.0,
            "diagnostics": [],
            "resources": [],
            "trials": [],
            "speedup": 0.0,
            "physical_bound_ms": 0.0,
            "flags": [],
            "device": "",
            "worker_state": "ok",
            "wall_ms": 0.0,
        }

    def progress(self, stage, fraction, message=""):
        self.send(make_message(self.request["id"], "progress", stage=stage,
                               fraction=fraction, message=message))

    def flag(self, code, message):
        for existing in self.result["flags"]:
            if existing["code"] == code and existing["message"] == message:
                return
        self.result["flags"].append({"code": code, "message": message})

    def finish(self, verdict, message):
        self.result["verdict"] = verdict
        self.result["message"] = message
        return self.result

    def run(self):
        started = time.perf_counter()
        try:
            return self.evaluate()
        finally:
            self.result["wall_ms"] = (time.perf_counter() - started) * 1000.0

    def evaluate(self):
        reference_source = self.request.get("reference")
        candidate_source = self.request.get("candidate")
        if not isinstance(reference_source, str) or not reference_source.strip():
            raise ProtocolError("evaluate: \"reference\" must be the problem's Python source")
        if not isinstance(candidate_source, str):
            raise ProtocolError("evaluate: \"candidate\" must be the candidate's Python source")

        self.progress("static_check", 0.0)
        findings = kernelbench_static.StaticChecker(candidate_source).run()
        for f in findings:
            self.flag(f.code, f.message + (" (line %d)" % f.line if f.line else ""))
        syntax = [f for f in findings if f.severity == kernelbench_static.COMPILE]
        if syntax:
            self.result["diagnostics"].append({
                "file": "candidate.py", "line": syntax[0].line, "column": 0,
                "severity": "error", "code": "syntax", "message": syntax[0].message})
            return self.finish("compile_error", syntax[0].message)
        errors = [f for f in findings if f.severity == kernelbench_static.ERROR]
        if errors:
            return self.finish("invalid_candidate",
                               "not run: " + "; ".join(f.message for f in errors[:3]))
        fallback = [f for f in findings if f.severity == kernelbench_static.FALLBACK]

        info = probe()
        if info["problems"]:
            return self.finish("not_run", "the KernelBench dialect cannot run here: " +
                               "; ".join(info["problems"]))
        import torch
        device = torch.device("cuda", int(self.options["device"]))
        torch.cuda.set_device(device)
        self.result["device"] = torch.cuda.get_device_name(device)
        self.timers = timer_identities()

        self.progress("reference", 0.05)
        reference = load_reference(reference_source)
        seed = int(self.options["seed"])
        with DefaultDevice(device, self.options["inputs_on_device"]):
            set_seed(seed)
            init_inputs = reference["get_init_inputs"]()
        init_inputs = [to_device(x, device) for x in init_inputs]
        try:
            with DefaultDevice(device, self.options["inputs_on_device"]):
                set_seed(seed)
                reference_model = reference["Model"](*init_inputs).to(device)
        except Exception as e:  # noqa: BLE001
            raise ReferenceError_("the reference Model cannot be built: %s" % e)

        self.progress("compile", 0.1)
        model_new = self.compile_candidate(candidate_source)
        if model_new is None:
            return self.result
        if timer_identities() != self.timers:
            self.flag("timer_patch", "importing the candidate replaced a timer function")
            return self.finish("invalid_candidate", "not run: the candidate replaced a timer")

        self.progress("construct", 0.3)
        try:
            with DefaultDevice(device, self.options["inputs_on_device"]):
                set_seed(seed)
                candidate_model = model_new(*init_inputs).to(device)
            torch.cuda.synchronize(device)
        except Exception as e:  # noqa: BLE001
            return self.runtime_failure("ModelNew cannot be built", e)

        self.progress("correctness", 0.35)
        correct = self.check_correctness(reference, reference_model, candidate_model, device)
        if correct is None:
            return self.result
        if not correct:
            return self.finish("incorrect", self.first_failure())

        if self.options["timing"]:
            self.progress("timing", 0.6)
            timed = self.time_both(reference, reference_model, candidate_model, device)
            if timed is None:
                return self.result
        if timer_identities() != self.timers:
            self.flag("timer_patch", "a timer function was replaced while the candidate ran")
            return self.finish("invalid_candidate", "a timer function was replaced")
        if any(f["code"] == "threads_started" for f in self.result["flags"]):
            return self.finish("invalid_candidate",
                               "the candidate started threads while it was timed")
        if fallback:
            return self.finish("fallback", "correct, but ModelNew computes with PyTorch: " +
                               "; ".join(f.message for f in fallback[:3]))
        message = "correct"
        if self.result["speedup"]:
            message += ", %.2fx the eager reference" % self.result["speedup"]
        return self.finish("correct", message)

    def compile_candidate(self, source):
        build_root = self.options["build_dir"] or os.path.join(tempfile.gettempdir(),
                                                               "dice-kernelbench-build")
        build_dir = os.path.join(build_root, source_digest(source))
        os.makedirs(build_dir, exist_ok=True)
        os.environ["TORCH_EXTENSIONS_DIR"] = build_dir
        set_build_environment()
        namespace = {"__name__": "dice_candidate", "__file__": "candidate.py"}
        started = time.perf_counter()
        capture = CapturedOutput()
        try:
            with capture:
                exec(compile(source, "candidate.py", "exec"), namespace)  # noqa: S102
        except BaseException as e:  # noqa: BLE001 - SystemExit from a candidate is a failure too
            self.result["compile_ms"] = (time.perf_counter() - started) * 1000.0
            log = getattr(capture, "text", "")
            self.result["diagnostics"] = parse_compile_log(log)
            detail = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            if not self.result["diagnostics"]:
                self.result["diagnostics"].append({
                    "file": "candidate.py", "line": traceback_line(e), "column": 0,
                    "severity": "error", "code": type(e).__name__, "message": detail})
            self.finish("compile_error", "the candidate does not compile: " + detail +
                        ("\n" + tail(log) if log.strip() else ""))
            return None
        self.result["compile_ms"] = (time.perf_counter() - started) * 1000.0
        self.result["compiled"] = True
        model_new = namespace.get("ModelNew")
        if model_new is None:
            self.finish("invalid_candidate", "the candidate defines no ModelNew")
            return None
        return model_new

    def runtime_failure(self, what, error):
        text = "%s: %s" % (what, str(error).strip() or type(error).__name__)
        if "CUDA" in str(error) or "cuda" in type(error).__name__.lower():
            # A fault leaves this process's CUDA context unusable: answer, then make way for a
            # fresh worker.
            self.exit_after_reply = True
            self.result["worker_state"] = "restarted after a fault"
        return self.finish("runtime_error", text)

    def first_failure(self):
        for trial in self.result["trials"]:
            if not trial["passed"]:
                return "trial %d: %s" % (trial["trial"], trial["detail"])
        return "incorrect"

    def check_correctness(self, reference, reference_model, candidate_model, device):
        import torch
        seed = int(self.options["seed"])
        trials = int(self.options["correctness_trials"])
        atol = float(self.options["atol"])
        rtol = float(self.options["rtol"])
        torch.manual_seed(seed)
        trial_seeds = [int(torch.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(trials)]
        all_passed = True
        for index, trial_seed in enumerate(trial_seeds):
            record = {"trial": index, "seed": trial_seed, "passed": False,
                      "max_abs_error": 0.0, "max_rel_error": 0.0, "detail": ""}
            self.result["trials"].append(record)
            with DefaultDevice(device, self.options["inputs_on_device"]):
                set_seed(trial_seed)
                inputs = [to_device(x, device) for x in reference["get_inputs"]()]
            pristine = clone_all(inputs)
            reference_inputs = clone_all(inputs)
            with torch.no_grad():
                try:
                    set_seed(trial_seed)
                    expected = reference_model(*reference_inputs)
                    torch.cuda.synchronize(device)
                except Exception as e:  # noqa: BLE001
                    raise ReferenceError_("the reference Model fails on trial %d: %s" %
                                          (index, e))
                poison_free_memory(expected)
                try:
                    set_seed(trial_seed)
                    actual = candidate_model(*inputs)
                    torch.cuda.synchronize(device)
                except Exception as e:  # noqa: BLE001
                    self.runtime_failure("ModelNew fails on trial %d" % index, e)
                    record["detail"] = self.result["message"]
                    return None
            problem = compare_outputs(expected, actual, device, atol, rtol, record)
            if problem is None and not tensors_equal(inputs, pristine):
                problem = "ModelNew changed its inputs"
                self.flag("inputs_mutated", "ModelNew wrote into its input tensors")
            if problem is not None:
                record["detail"] = problem
                all_passed = False
                if problem.startswith("the output is a"):
                    self.flag("lazy_output", problem)
                break
            record["passed"] = True
            del expected, actual
        return all_passed

    def time_both(self, reference, reference_model, candidate_model, device):
        import torch
        with DefaultDevice(device, self.options["inputs_on_device"]):
            set_seed(int(self.options["seed"]))
            inputs = [to_device(x, device) for x in reference["get_inputs"]()]
        flush = torch.empty(L2_FLUSH_BYTES // 8, dtype=torch.int64, device=device)
        warmups = int(self.options["warmups"])
        trials = int(self.options["timing_trials"])
        try:
            self.result["reference_time"] = time_model(reference_model, inputs, device, flush,
                                                       warmups, trials)
        except Exception as e:  # noqa: BLE001
            raise ReferenceError_("the reference Model fails while timed: %s" % e)
        threads_before = thread_count()
        try:
            self.result["candidate_time"] = time_model(candidate_model, inputs, device, flush,
                                                       warmups, trials)
        except Exception as e:  # noqa: BLE001
            self.runtime_failure("ModelNew fails while timed", e)
            return None
        if thread_count() > threads_before:
            self.flag("threads_started",
                      "ModelNew started %d thread(s) while it was timed" %
                      (thread_count() - threads_before))
        candidate_median = self.result["candidate_time"]["median_ms"]
        reference_median = self.result["reference_time"]["median_ms"]
        if candidate_median > 0:
            self.result["speedup"] = reference_median / candidate_median
        threshold = float(self.options["excessive_speedup"])
        if threshold > 0 and self.result["speedup"] > threshold:
            self.flag("excessive_speedup",
                      "%.1fx faster than the eager reference (above %.0fx): check the kernel "
                      "does the whole computation" % (self.result["speedup"], threshold))
        return True


def set_build_environment():
    """The same compiler settings for --prebuild and for the evaluation, so that ninja finds the
    prebuilt extension up to date instead of building it again."""
    import torch
    os.environ.setdefault("TORCH_USE_CUDA_DSA", "1")
    if "TORCH_CUDA_ARCH_LIST" not in os.environ and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        os.environ["TORCH_CUDA_ARCH_LIST"] = "%d.%d" % (major, minor)


def source_digest(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def traceback_line(error):
    line = 0
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == "candidate.py":
            line = frame.lineno or 0
    return line


def timer_identities():
    import torch
    return (id(time.perf_counter), id(time.time), id(time.monotonic),
            id(torch.cuda.synchronize), id(torch.cuda.Event),
            id(getattr(torch.cuda.Event, "record", None)),
            id(getattr(torch.cuda.Event, "elapsed_time", None)),
            id(getattr(torch.cuda.Event, "synchronize", None)))


def thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def set_seed(seed):
    import torch
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)


def to_device(value, device):
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    return value


def clone_all(values):
    import torch
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def tensors_equal(values, originals):
    import torch
    for value, original in zip(values, originals):
        if isinstance(value, torch.Tensor):
            if value.shape != original.shape or not torch.equal(value, original):
                return False
    return True


def flatten_outputs(value):
    import torch
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(flatten_outputs(v))
        return out
    return [value] if isinstance(value, torch.Tensor) or value is not None else []


def poison_free_memory(expected):
    """Hands NaN-filled blocks back to the caching allocator, so that an output the candidate
    allocates but never writes reads as NaN instead of as the reference's result."""
    import torch
    for tensor in flatten_outputs(expected):
        if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
            poison = torch.full_like(tensor, float("nan"))
            del poison


def storage_bytes(tensor):
    try:
        return tensor.untyped_storage().nbytes()
    except AttributeError:
        return tensor.storage().nbytes()


def compare_outputs(expected, actual, device, atol, rtol, record):
    """None when the candidate's output matches, else why not (for the trial's detail)."""
    import torch
    expected_list = flatten_outputs(expected)
    actual_list = flatten_outputs(actual)
    if len(expected_list) != len(actual_list):
        return "ModelNew returns %d tensors, the reference %d" % (len(actual_list),
                                                                 len(expected_list))
    worst_abs = 0.0
    worst_rel = 0.0
    for e, a in zip(expected_list, actual_list):
        if type(a) is not torch.Tensor:
            return "the output is a %s, not a plain torch.Tensor" % type(a).__name__
        if a.device != device:
            return "the output lives on %s, not on %s" % (a.device, device)
        if tuple(a.shape) != tuple(e.shape):
            return "output shape %s, expected %s" % (list(a.shape), list(e.shape))
        if a.dtype != e.dtype:
            return "output dtype %s, expected %s" % (a.dtype, e.dtype)
        needed = a.element_size() * (a.storage_offset() + max(
            [(s - 1) * st for s, st in zip(a.shape, a.stride())] + [0]) + 1) if a.numel() else 0
        if storage_bytes(a) < needed:
            return "the output's storage holds %d bytes, its view needs %d" % (
                storage_bytes(a), needed)
        if e.numel() == 0:
            continue
        # Error statistics in the output's own precision: a float64 copy of a bench-sized
        # output would not fit beside the inputs.
        compute = e.dtype if e.is_floating_point() else torch.float32
        difference = (a.to(compute) - e.to(compute)).abs()
        if bool(torch.isfinite(difference).all()):
            abs_error = float(difference.max())
            rel_error = float((difference / e.to(compute).abs().clamp_min(1e-12)).max())
        else:
            abs_error = float("inf")
            rel_error = float("inf")
        del difference
        worst_abs = max(worst_abs, abs_error)
        worst_rel = max(worst_rel, rel_error)
        record["max_abs_error"] = finite_or_large(worst_abs)
        record["max_rel_error"] = finite_or_large(worst_rel)
        if e.is_floating_point():
            if not torch.allclose(a, e, atol=atol, rtol=rtol):
                return "values differ: max abs error %.3g, max rel error %.3g (atol=rtol=%g)" % (
                    abs_error, rel_error, atol)
        elif not torch.equal(a, e):
            return "values differ (exact comparison of %s)" % e.dtype
    return None


def finite_or_large(value):
    return value if math.isfinite(value) else 1e300


def time_model(model, inputs, device, flush, warmups, trials):
    """KernelBench's CUDA-event timing, with a device-wide synchronisation before the end event
    so that work on any stream is inside the measured interval."""
    import torch
    with torch.no_grad():
        for _ in range(warmups):
            model(*inputs)
            torch.cuda.synchronize(device)
        torch.cuda.empty_cache()
        samples = []
        for index in range(trials + 1):
            torch.cuda.synchronize(device)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            flush.zero_()
            start.record()
            model(*inputs)
            torch.cuda.synchronize(device)
            end.record()
            end.synchronize()
            if index > 0:
                samples.append(start.elapsed_time(end))
    return {
        "method": "cuda_events",
        "warmups": warmups,
        "trials": trials,
        "median_ms": statistics.median(samples),
        "mean_ms": statistics.fmean(samples),
        "std_ms": statistics.pstdev(samples),
        "min_ms": min(samples),
        "max_ms": max(samples),
        "samples_ms": samples,
    }


class DefaultDevice:
    """Creates the problem's tensors directly on the GPU (KernelBench draws them on the CPU,
    which takes seconds for the larger inputs); the distribution is the same."""

    FACTORIES = ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "zeros",
                 "ones", "full", "empty", "arange", "linspace", "eye", "tensor", "randperm",
                 "normal", "bernoulli", "ones_like", "zeros_like", "empty_like", "full_like")

    def __init__(self, device, enabled):
        self.device = device
        self.enabled = enabled
        self.mode = None

    def __enter__(self):
        if not self.enabled:
            return self
        import torch
        from torch.overrides import TorchFunctionMode
        factories = {getattr(torch, name) for name in self.FACTORIES if hasattr(torch, name)}
        device = self.device

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
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


def load_reference(source):
    namespace = {"__name__": "dice_reference"}
    try:
        exec(compile(source, "reference.py", "exec"), namespace)  # noqa: S102
    except Exception as e:  # noqa: BLE001
        raise ReferenceError_("the problem file does not run: %s" % e)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in namespace:
            raise ReferenceError_("the problem file defines no %s" % name)
    return namespace


# ----------------------------------------------------------------------------------------------
# Protocol


def make_message(request_id, kind, **body):
    message = {"protocol": PROTOCOL, "version": VERSION, "id": request_id, "type": kind}
    for key, value in body.items():
        message.setdefault(key, value)
    return message


def parse_request(line):
    try:
        message = json.loads(line)
    except ValueError as e:
        raise ProtocolError("request is not valid JSON: %s" % e)
    if not isinstance(message, dict):
        raise ProtocolError("request is not a JSON object")
    if message.get("protocol") != PROTOCOL:
        raise ProtocolError("request does not name the protocol \"%s\"" % PROTOCOL)
    version = message.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError("request has no protocol version")
    if version != VERSION:
        raise ProtocolError("request uses protocol version %d, this worker speaks version %d" %
                            (version, VERSION))
    request_id = message.get("id")
    if not isinstance(request_id, int) or isinstance(request_id, bool):
        raise ProtocolError("request has no integer \"id\"")
    if not isinstance(message.get("type"), str):
        raise ProtocolError("request has no \"type\"")
    return message


REQUESTS = ("hello", "environment", "check", "evaluate", "shutdown")


def handle(message, send):
    """Answers one request. Returns (keep_running, exit_after_reply)."""
    kind = message["type"]
    request_id = message["id"]
    if kind == "shutdown":
        send(make_message(request_id, "result", shutdown=True))
        return False, False
    if kind == "hello":
        send(make_message(request_id, "result",
                          worker={"name": WORKER_NAME, "version": str(VERSION),
                                  "dialect": "kernelbench"},
                          pid=os.getpid(), requests=list(REQUESTS),
                          python=sys.executable, python_version=sys.version.split()[0]))
        return True, False
    if kind == "environment":
        send(make_message(request_id, "result", environment=probe()))
        return True, False
    if kind == "check":
        source = message.get("source")
        if not isinstance(source, str):
            raise ProtocolError("check: \"source\" must be the candidate's Python source")
        send(make_message(request_id, "result",
                          findings=kernelbench_static.check_source(source)))
        return True, False
    if kind == "evaluate":
        evaluation = Evaluation(message, send)
        try:
            result = evaluation.run()
        except ReferenceError_ as e:
            send(make_message(request_id, "error", message=str(e)))
            return True, False
        send(make_message(request_id, "result", evaluation=result,
                          exit_after_reply=evaluation.exit_after_reply))
        return True, evaluation.exit_after_reply
    send(make_message(request_id, "error", message="unknown request type \"%s\"" % kind))
    return True, False


def serve():
    # The protocol gets its own descriptor; everything else that writes to stdout (the
    # candidate, the compiler, PyTorch) goes to stderr instead.
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(protocol_fd, "w", encoding="utf-8", buffering=1)

    def send(message):
        out.write(json.dumps(message, allow_nan=False, default=str) + "\n")
        out.flush()

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = parse_request(line)
        except ProtocolError as e:
            send(make_message(-1, "error", message=str(e)))
            continue
        try:
            keep_running, exit_now = handle(message, send)
        except ProtocolError as e:
            send(make_message(message["id"], "error", message=str(e)))
            continue
        except Exception as e:  # noqa: BLE001 - the worker answers every request
            send(make_message(message["id"], "error",
                              message="internal error: %s: %s" % (type(e).__name__, e)))
            continue
        if not keep_running or exit_now:
            break
    out.close()


def prebuild(path, build_root):
    """Compiles a candidate's extension into the folder its evaluation will use."""
    source = open(path, encoding="utf-8").read()
    findings = kernelbench_static.StaticChecker(source).run()
    blocking = [f for f in findings if f.severity in (kernelbench_static.ERROR,
                                                      kernelbench_static.COMPILE)]
    report = {"file": path, "ok": False, "compile_ms": 0.0, "message": ""}
    if blocking:
        report["message"] = "not built: " + "; ".join(f.message for f in blocking[:3])
        return report
    build_dir = os.path.join(build_root, source_digest(source))
    os.makedirs(build_dir, exist_ok=True)
    os.environ["TORCH_EXTENSIONS_DIR"] = build_dir
    set_build_environment()
    started = time.perf_counter()
    capture = CapturedOutput()
    try:
        with capture:
            exec(compile(source, "candidate.py", "exec"),  # noqa: S102
                 {"__name__": "dice_candidate", "__file__": "candidate.py"})
        report["ok"] = True
        report["message"] = "built"
    except BaseException as e:  # noqa: BLE001
        report["message"] = "does not compile: %s\n%s" % (e, tail(getattr(capture, "text", "")))
    report["compile_ms"] = (time.perf_counter() - started) * 1000.0
    return report


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    if "--probe" in argv:
        print(json.dumps(probe()))
        return 0
    if "--prebuild" in argv:
        index = argv.index("--prebuild")
        if index + 1 >= len(argv) or "--build-dir" not in argv:
            print("usage: kernelbench_worker.py --prebuild FILE --build-dir DIR", file=sys.stderr)
            return 2
        build_root = argv[argv.index("--build-dir") + 1]
        report = prebuild(argv[index + 1], build_root)
        print(json.dumps(report))
        return 0 if report["ok"] else 1
    if len(argv) > 1:
        print("kernelbench_worker.py: unknown argument %s" % argv[1], file=sys.stderr)
        return 2
    serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
