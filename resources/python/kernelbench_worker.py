#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The evaluation worker of the KernelBench dialect: the trusted side.

Speaks the protocol of dice-evald (JSON lines, protocol "dice-evald", version 1; see
docs/worker-protocol.md and docs/kernelbench-evaluator.md) on stdin and stdout, and evaluates a
candidate (a Python file defining ModelNew, CUDA compiled by load_inline) against a KernelBench
problem with KernelBench's protocol: seed 42 before the inputs of the constructor and before each
model, correctness over 5 trials with fresh inputs, 3 warm-ups and 100 timed trials with an L2
flush before each, CUDA events, and the eager reference timed the same way in the same run.

The candidate never runs in this process. This worker makes the inputs, runs and times the
reference, and only then starts the answer's own process inside the sandbox
(kernelbench_sandbox.py, kernelbench_answer.py), hands it copies of the inputs through shared
memory, reads its outputs back as raw bytes and compares them here. What that process says is
data: every timed call is a request this worker times itself, against an overhead calibrated
before the answer's code ran; the inputs change a little before every call and calls picked
here at random are checked (docs/kernelbench-bridge.md, step 5).

Requests: hello, environment, check, evaluate, shutdown. Other modes:
  --probe                      print what this interpreter offers (PyTorch, CUDA, nvcc, ninja)
  --prebuild FILE --build-dir D compile a candidate's extension ahead of its evaluation, in the
                               sandbox
  --sandbox-program PATH       the sandbox launcher (dice-sandbox); else $DICE_SANDBOX_PROGRAM
"""

import hashlib
import json
import math
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernelbench_answer_client  # noqa: E402
import kernelbench_sandbox  # noqa: E402
import kernelbench_static  # noqa: E402

# The launcher that confines answers (dice-sandbox): --sandbox-program, else
# $DICE_SANDBOX_PROGRAM.
SANDBOX_PROGRAM = ""
PROTOCOL = "dice-evald"
VERSION = 1
WORKER_NAME = "kernelbench_worker"
L2_FLUSH_BYTES = 256 * 1024 * 1024
# Round trips that calibrate a call's overhead, after a few that are not counted.
PING_WARMUPS = 2
PINGS = 24
# Elements of every floating-point timing input changed before each call.
PATCH_POSITIONS = 8
# Timed calls checked against the reference besides the last one.
CHECKED_CALLS = 3
# Elements of an output compared at a time (256 MB of float32).
COMPARE_PIECE = 1 << 26

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
        self.exchange = ""
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
            "speedup_of_means": 0.0,
            "physical_bound_ms": 0.0,
            "flags": [],
            "device": "",
            "worker_state": "ok",
            "wall_ms": 0.0,
            # Where the evaluation's time went, stage by stage, for the stages it reached.
            "stages_ms": {},
        }
        self.last_lap = time.perf_counter()

    def lap(self, stage):
        """Records the time since the last lap as the stage's."""
        now = time.perf_counter()
        self.result["stages_ms"][stage] = (now - self.last_lap) * 1000.0
        self.last_lap = now

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
        self.last_lap = started
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
        self.lap("static_check")

        cpu = self.options.get("device_type") == "cpu"
        if not cpu:
            info = probe()
            self.lap("probe")
            if info["problems"]:
                return self.finish("not_run", "the KernelBench dialect cannot run here: " +
                                   "; ".join(info["problems"]))
        try:
            sandbox = kernelbench_sandbox.sandbox_program(SANDBOX_PROGRAM)
        except kernelbench_sandbox.SandboxUnavailable as e:
            return self.finish("not_run", "the answer is not run without its sandbox: %s" % e)
        import torch
        if cpu:
            device = torch.device("cpu")
            self.result["device"] = "cpu"
        else:
            device = torch.device("cuda", int(self.options["device"]))
            torch.cuda.set_device(device)
            self.result["device"] = torch.cuda.get_device_name(device)
        on_device = bool(self.options["inputs_on_device"]) and not cpu

        # Everything the verdict rests on is made in this process: the reference and its time
        # before the answer's process exists, each trial's inputs and expected outputs while it
        # waits for that trial. Nothing of it is in the answer's reach but copies of the inputs.
        self.progress("reference", 0.05)
        reference = load_reference(reference_source)
        seed = int(self.options["seed"])
        with DefaultDevice(device, on_device):
            set_seed(seed)
            init_inputs = reference["get_init_inputs"]()
        init_inputs = [to_device(x, device) for x in init_inputs]
        try:
            # Built on the CPU and moved, as KernelBench builds both models and as the answer's
            # process builds ModelNew: layers made on the GPU draw their weights from the GPU's
            # generator, and a ModelNew that copies the reference's layers would then hold other
            # weights than the reference and be judged wrong.
            set_seed(seed)
            reference_model = reference["Model"](*init_inputs).to(device)
        except Exception as e:  # noqa: BLE001
            raise ReferenceError_("the reference Model cannot be built: %s" % e)
        trials = self.reference_trials(reference, reference_model, device, on_device)
        timing = None
        if bool(self.options["timing"]):
            with DefaultDevice(device, on_device):
                set_seed(seed)
                timing_inputs = [to_device(x, device) for x in reference["get_inputs"]()]
            # Contiguous, so that a patch's flat indices mean the same here and in the answer's
            # copy, which is rebuilt from the shared file's contiguous bytes.
            timing_inputs = [x.clone(memory_format=torch.contiguous_format)
                             if isinstance(x, torch.Tensor) else x for x in timing_inputs]
            flush = torch.empty(L2_FLUSH_BYTES // 8, dtype=torch.int64, device=device) \
                if not cpu else None
            try:
                self.result["reference_time"] = time_model(
                    reference_model, clone_all(timing_inputs), device, flush,
                    int(self.options["warmups"]), int(self.options["timing_trials"]))
                with torch.no_grad():
                    set_seed(seed)
                    shapes = flatten_outputs(reference_model(*clone_all(timing_inputs)))
                    synchronize(device)
            except Exception as e:  # noqa: BLE001
                raise ReferenceError_("the reference Model fails while timed: %s" % e)
            timing = TimingInputs(timing_inputs, reference_model, shapes, device, flush)
            del shapes

        device_bytes = 0
        requests = []
        if not cpu:
            if timing is not None:
                requests = [timing.inputs + init_inputs, timing.shapes,
                            timing.inputs + timing.shapes]
            elif trials:
                # The first trial made now, for its sizes: the GPU memory shared with the
                # answer's process is made before that process starts.
                first_seed, make = trials[0]
                made = [make(0, first_seed)]
                requests = [init_inputs, made[0][0] + made[0][1]]

                def make_first(index, trial_seed):
                    return made.pop() if made and index == 0 else make(index, trial_seed)

                trials[0] = (first_seed, make_first)
            device_bytes = kernelbench_answer_client.exchange_bytes(requests)
        del requests
        release_cached(device)
        self.lap("reference")
        build_dir = answer_build_dir(self.options["build_dir"], candidate_source)
        self.progress("compile", 0.1)
        try:
            answer = kernelbench_answer_client.AnswerProcess(
                sandbox, build_dir, os.path.dirname(os.path.abspath(__file__)),
                sys.executable, gpu=not cpu, device_bytes=device_bytes,
                device_ordinal=device.index or 0)
        except (kernelbench_answer_client.AnswerFailed, OSError) as e:
            return self.finish("not_run", "the answer's sandbox did not start: %s" % e)
        self.result["sandbox"] = answer.sandbox
        try:
            return self.judge(answer, candidate_source, build_dir, device, on_device,
                              init_inputs, trials, timing, fallback)
        except kernelbench_answer_client.RepliedAhead as e:
            self.flag("reply_ahead", "a reply came before its request: it may have been written "
                      "in advance")
            return self.finish("invalid_candidate", str(e))
        except kernelbench_answer_client.AnswerFailed as e:
            return self.finish("runtime_error", str(e))
        finally:
            answer.close()
            self.lap("answer_end")

    def reference_trials(self, reference, reference_model, device, on_device):
        """The correctness trials: each one's seed, and a function that makes its inputs and the
        reference's outputs. They are made one trial at a time, in this process, while the
        answer's process waits: every trial's tensors at once took 60 GB for a bench-sized ReLU
        on a GPU the answer's process shares."""
        import torch
        seed = int(self.options["seed"])
        count = int(self.options["correctness_trials"])
        torch.manual_seed(seed)
        trial_seeds = [int(torch.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(count)]

        def make(index, trial_seed):
            with DefaultDevice(device, on_device):
                set_seed(trial_seed)
                inputs = [to_device(x, device) for x in reference["get_inputs"]()]
            with torch.no_grad():
                try:
                    set_seed(trial_seed)
                    expected = reference_model(*clone_all(inputs))
                    synchronize(device)
                except Exception as e:  # noqa: BLE001
                    raise ReferenceError_("the reference Model fails on trial %d: %s" %
                                          (index, e))
            release_cached(device)
            return inputs, flatten_outputs(expected)

        return [(trial_seed, make) for trial_seed in trial_seeds]

    def judge(self, answer, source, build_dir, device, on_device, init_inputs, trials, timing,
              fallback):
        client = kernelbench_answer_client
        self.exchange = answer.attach()
        shared = answer.shared
        shared.reset()
        start = {"op": "init", "device": str(device), "flush_bytes": L2_FLUSH_BYTES}
        if timing is not None:
            start["inputs"] = client.encode_arguments(shared, timing.inputs, on_device)
            start["outputs"] = [{"dtype": client.dtype_name(t.dtype), "shape": list(t.shape)}
                                for t in timing.shapes]
            # The pings run the problem's reference, so that the harness around them runs as it
            # does after a real model (kernelbench_answer.py says why).
            start.update(reference=self.request["reference"], seed=int(self.options["seed"]),
                         init_inputs=client.encode_arguments(shared, init_inputs, True))
        reply = answer.call(start)
        self.lap("answer_start")
        if not reply.get("ok"):
            return self.answer_failure("the answer's harness did not start", reply)
        calibration = None
        if timing is not None:
            calibration = self.calibrate(answer, timing)
            self.lap("calibration")
        shared.reset()
        reply = answer.call({
            "op": "load", "source": source, "build_dir": build_dir,
            "seed": int(self.options["seed"]),
            "init_inputs": client.encode_arguments(shared, init_inputs, True)})
        self.result["compile_ms"] = client.number(reply, "compile_ms")
        self.lap("load")
        if not reply.get("ok"):
            stage = client.text(reply, "stage")
            error = client.text(reply, "error") or "it failed"
            if stage == "compile":
                log = answer.log_tail()
                self.result["diagnostics"] = parse_compile_log(log)
                if not self.result["diagnostics"]:
                    line = reply.get("line")
                    self.result["diagnostics"].append({
                        "file": "candidate.py",
                        "line": line if isinstance(line, int) and not isinstance(line, bool)
                        else 0,
                        "column": 0, "severity": "error",
                        "code": client.text(reply, "error_type", 100), "message": error})
                return self.finish("compile_error", "the candidate does not compile: " + error +
                                   ("\n" + tail(log) if log.strip() else ""))
            self.result["compiled"] = True
            if stage == "define":
                return self.finish("invalid_candidate", "the candidate defines no ModelNew")
            return self.finish("runtime_error", "ModelNew cannot be built: " + error)
        self.result["compiled"] = True

        self.progress("correctness", 0.35)
        correct = self.check_correctness(answer, device, on_device, trials)
        self.lap("correctness")
        if correct is None:
            return self.result
        if not correct:
            return self.finish("incorrect", self.first_failure())

        if timing is not None:
            self.progress("timing", 0.6)
            timed = self.time_candidate(answer, timing, calibration, device)
            self.lap("timing")
            if timed is None:
                return self.result
            if any(f["code"] == "timing_misreported" for f in self.result["flags"]):
                return self.finish("invalid_candidate",
                                   "the answer's process reported less time than it took")
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

    def answer_failure(self, what, reply):
        text = "%s: %s" % (what, kernelbench_answer_client.text(reply, "error") or "it failed")
        return self.finish("runtime_error", text)

    def first_failure(self):
        for trial in self.result["trials"]:
            if not trial["passed"]:
                return "trial %d: %s" % (trial["trial"], trial["detail"])
        return "incorrect"

    def check_correctness(self, answer, device, on_device, trials):
        import torch
        client = kernelbench_answer_client
        atol = float(self.options["atol"])
        rtol = float(self.options["rtol"])
        all_passed = True
        for index, (trial_seed, make) in enumerate(trials):
            inputs, expected = make(index, trial_seed)
            record = {"trial": index, "seed": trial_seed, "passed": False,
                      "max_abs_error": 0.0, "max_rel_error": 0.0, "detail": ""}
            self.result["trials"].append(record)
            shared = answer.shared
            shared.reset()
            specs = client.encode_arguments(shared, inputs, on_device)
            # Unwritten outputs read as NaN (or all bits set), never as a stale right answer.
            outputs = [shared.slot(e, float("nan") if e.is_floating_point() else -1)
                       for e in expected]
            # An input in the shared GPU memory is the model's own argument, and is read back
            # where it is; one that went through the host file comes back in a slot.
            inputs_back = [shared.slot(x, on_device=False)
                           if isinstance(x, torch.Tensor) and spec.get("where") != "device"
                           else None for x, spec in zip(inputs, specs)]
            reply = answer.call({"op": "forward", "seed": trial_seed, "inputs": specs,
                                 "outputs": outputs, "inputs_back": inputs_back})
            if not reply.get("ok"):
                self.answer_failure("ModelNew fails on trial %d" % index, reply)
                record["detail"] = self.result["message"]
                return None
            problem = self.compare(reply.get("outputs"), expected, outputs,
                                   [shared.read(spec) for spec in outputs], device, atol, rtol,
                                   record)
            if problem is None:
                for spec, back, original in zip(specs, inputs_back, inputs):
                    seen = back if back is not None else \
                        spec if spec.get("where") == "device" else None
                    if seen is not None and not same_values(original, shared.read(seen),
                                                            original.device):
                        problem = "ModelNew changed its inputs"
                        self.flag("inputs_mutated", "ModelNew wrote into its input tensors")
                        break
            if problem is not None:
                record["detail"] = problem
                all_passed = False
                if problem.startswith("the output is a"):
                    self.flag("lazy_output", problem)
                break
            record["passed"] = True
        return all_passed

    def check_facts(self, facts, expected, outputs, device):
        """None when the answer's account of its outputs fits the reference's, else why not.
        The account is only a claim; the values compared are the bytes it wrote."""
        if not isinstance(facts, list) or not all(isinstance(f, dict) for f in facts):
            return "the answer's process gave no account of its outputs"
        if len(facts) != len(expected):
            return "ModelNew returns %d tensors, the reference %d" % (len(facts), len(expected))
        for fact, e, spec in zip(facts, expected, outputs):
            kind = kernelbench_answer_client.text(fact, "type", 100)
            if fact.get("plain") is not True:
                return "the output is a %s, not a plain torch.Tensor" % (kind or "non-tensor")
            if kernelbench_answer_client.text(fact, "device", 100) != str(device):
                return "the output lives on %s, not on %s" % (
                    kernelbench_answer_client.text(fact, "device", 100), device)
            shape = fact.get("shape")
            if shape != list(e.shape):
                return "output shape %s, expected %s" % (
                    shape if isinstance(shape, list) else "unknown", list(e.shape))
            dtype = kernelbench_answer_client.text(fact, "dtype", 100)
            if dtype != spec["dtype"]:
                return "output dtype %s, expected %s" % (dtype, e.dtype)
            if fact.get("storage_ok") is not True:
                return "the output's storage is smaller than its view"
        return None

    def compare(self, facts, expected, outputs, actual, device, atol, rtol, record):
        """None when the answer's outputs match the reference's, else why not. `facts` are the
        answer's own account of its outputs; `actual` the bytes it wrote into `outputs`."""
        problem = self.check_facts(facts, expected, outputs, device)
        if problem is not None:
            return problem
        return compare_outputs(expected, actual, device, atol, rtol, record)

    def round_trip(self, answer, timing, op, outputs):
        """One ping or call, prepared the same way for both: new input values, poisoned output
        slots, the cache flushed here; then the request, timed from this side. Returns the
        reply, the round trip in ms and the seed the call ran under."""
        patches = timing.patch()
        for spec, like in zip(outputs, timing.shapes):
            if spec["nbytes"]:
                answer.shared.read(spec).fill_(float("nan") if like.is_floating_point() else -1)
        answer.shared.mark_written()
        seed = timing.random.randrange(2 ** 63)
        timing.settle()
        reply, wall_ms = answer.round_trip({"op": op, "seed": seed, "patches": patches,
                                            "outputs": outputs})
        return reply, wall_ms, seed

    def calibrate(self, answer, timing):
        """What a call costs besides the model, measured before the answer's code runs: pings
        go through the same harness, patches, flush, synchronisation and output copy as a
        call, with a model that only hands back zeros."""
        shared = answer.shared
        shared.reset()
        outputs = [shared.slot(like) for like in timing.shapes]
        overheads = []
        workload = "zeros"
        for index in range(PING_WARMUPS + PINGS):
            reply, wall_ms, _ = self.round_trip(answer, timing, "ping", outputs)
            workload = kernelbench_answer_client.text(reply, "workload", 300) or workload
            reported = reported_ms(reply)
            if not reply.get("ok") or reported is None:
                raise kernelbench_answer_client.AnswerFailed(
                    "the answer's harness failed a ping before the answer ran: %s" %
                    (kernelbench_answer_client.text(reply, "error") or "no usable reply"))
            if index >= PING_WARMUPS:
                overheads.append(max(0.0, wall_ms - reported))
        # The last ping left the reference's outputs on the timing inputs in the shared file,
        # which the answer's code could read once loaded.
        for spec, like in zip(outputs, timing.shapes):
            if spec["nbytes"]:
                shared.read(spec).fill_(float("nan") if like.is_floating_point() else -1)
        shared.mark_written()
        return {"median_ms": statistics.median(overheads),
                "p90_ms": statistics.quantiles(overheads, n=10)[-1], "samples_ms": overheads,
                "workload": workload}

    def time_candidate(self, answer, timing, calibration, device):
        """KernelBench's warm-ups and timed calls, each one request timed from here. A call's
        time is the answer's own figure, raised to the round trip less the calibrated overhead
        where it is lower; a few calls, picked here at random, are checked against the
        reference on their inputs. Returns None when the verdict is already given."""
        shared = answer.shared
        shared.reset()
        outputs = [shared.slot(like) for like in timing.shapes]
        warmups = int(self.options["warmups"])
        trials = int(self.options["timing_trials"])
        atol = float(self.options["atol"])
        rtol = float(self.options["rtol"])
        # time_model leaves out the reference's first timed trial; here that is one more
        # unmeasured call, so that both sides follow the same rule.
        first = warmups + 1
        total = first + trials
        picker = random.SystemRandom()
        checked = set(picker.sample(range(first, total - 1),
                                    min(CHECKED_CALLS, max(0, trials - 1))))
        if trials > 0:
            checked.add(total - 1)
        # p90 rather than the median: an honest call whose harness was slower than usual should
        # not be raised; what a liar gains is the gap between its own overhead and the p90.
        allowance = calibration["p90_ms"]
        check = {
            "method": "worker_round_trip",
            "pings": PINGS,
            "ping_median_ms": calibration["median_ms"],
            "ping_p90_ms": calibration["p90_ms"],
            "allowance_ms": allowance,
            # The output copy is inside every ping and call: large outputs widen the allowance,
            # the more where they cross through the host file.
            "copy_bytes": sum(spec["nbytes"] for spec in outputs),
            "exchange": self.exchange,
            "ping_overheads_ms": calibration["samples_ms"],
            # What the pings ran: the reference, or zeros where it could not run there. Only the
            # first is what an honest call costs around its model.
            "ping_workload": calibration["workload"],
            "raised_calls": 0,
            "underreported_calls": 0,
            "checked_calls": sorted(index - first + 1 for index in checked),
            "checked": [],
            "l2_persisting_reset": timing.l2_note,
            "reported_ms": [],
            "round_trip_ms": [],
        }
        self.result["timing_check"] = check
        threads_before = answer.thread_count()
        samples = []
        for index in range(total):
            reply, wall_ms, seed = self.round_trip(answer, timing, "call", outputs)
            if not reply.get("ok"):
                self.answer_failure("ModelNew fails while timed", reply)
                return None
            reported = reported_ms(reply)
            if reported is None:
                self.finish("invalid_candidate",
                            "the answer's process gave no usable account of its timing")
                return None
            number = index - first + 1
            what = ("timed call %d of %d" % (number, trials)) if number > 0 else "a warm-up call"
            if index in checked:
                actual = [shared.read(spec).clone() for spec in outputs]
                expected = timing.expected(seed)
                record = {"call": number, "passed": False, "max_abs_error": 0.0,
                          "max_rel_error": 0.0}
                problem = self.compare(reply.get("outputs"), expected, outputs, actual, device,
                                       atol, rtol, record)
                del expected, actual
                record["passed"] = problem is None
                check["checked"].append(record)
            else:
                problem = self.check_facts(reply.get("outputs"), timing.shapes, outputs, device)
            if problem is not None:
                # The native dialect's name for a timed call's wrong values, whatever kept them.
                self.flag("lazy_output" if problem.startswith("the output is a") else
                          "cached_results", "%s: %s" % (what, problem))
                self.finish("incorrect", "%s, on inputs changed since the correctness trials: "
                            "%s" % (what, problem))
                return None
            if number <= 0:
                continue
            seen = wall_ms - allowance
            if reported < seen:
                check["raised_calls"] += 1
            if reported < wall_ms - 2.0 * allowance - 0.05:
                check["underreported_calls"] += 1
            check["reported_ms"].append(reported)
            check["round_trip_ms"].append(wall_ms)
            samples.append(max(reported, seen))
        threads_after = answer.thread_count()
        check["threads_before"] = threads_before
        check["threads_after"] = threads_after
        if threads_after > threads_before:
            self.flag("threads_started",
                      "the answer's process had %d thread(s) before the timed calls and %d "
                      "after" % (threads_before, threads_after))
        if check["underreported_calls"] > trials / 2:
            self.flag("timing_misreported",
                      "%d of %d timed calls reported less than their round trip less twice the "
                      "harness's overhead (%.3f ms)" % (check["underreported_calls"], trials,
                                                       allowance))
        median = statistics.median(samples) if samples else 0.0
        self.result["candidate_time"] = {
            "method": "worker_round_trip",
            "warmups": warmups,
            "trials": trials,
            "median_ms": median,
            "mean_ms": statistics.fmean(samples) if samples else 0.0,
            "std_ms": statistics.pstdev(samples) if samples else 0.0,
            "min_ms": min(samples) if samples else 0.0,
            "max_ms": max(samples) if samples else 0.0,
            "samples_ms": samples,
        }
        reference_median = self.result["reference_time"]["median_ms"]
        if median > 0:
            self.result["speedup"] = reference_median / median
        # KernelBench's own statistic, kept beside the median ratio.
        mean = self.result["candidate_time"]["mean_ms"]
        if mean > 0:
            self.result["speedup_of_means"] = self.result["reference_time"]["mean_ms"] / mean
        threshold = float(self.options["excessive_speedup"])
        if threshold > 0 and self.result["speedup"] > threshold:
            self.flag("excessive_speedup",
                      "%.1fx faster than the eager reference (above %.0fx): check the kernel "
                      "does the whole computation" % (self.result["speedup"], threshold))
        return True


class TimingInputs:
    """The worker's copy of the timing inputs, which every ping and call changes a little, and
    what it takes to check a call made on them."""

    def __init__(self, inputs, reference_model, outputs, device, flush):
        import torch
        self.inputs = inputs
        self.reference_model = reference_model
        # Only shapes and dtypes are kept: the real outputs would hold device memory.
        self.shapes = [torch.empty(o.shape, dtype=o.dtype, device="meta") for o in outputs]
        self.device = device
        self.flush = flush
        # Seeded from the system, not from the options: the answer can read this file, and must
        # not know the next call's inputs or which calls are checked.
        self.random = random.Random(secrets.randbits(128))
        self.reset_l2, self.l2_note = persisting_l2_reset(device)

    def patch(self):
        """Sets PATCH_POSITIONS random elements of every floating-point input to values taken
        from other random elements of the same tensor, here and (through the returned patches)
        in the answer's copy. Taking values from the tensor itself keeps its range and its
        discreteness; exact zeros are neither chosen nor written, so structural zeros (a
        triangular input) stay."""
        import torch
        patches = []
        for number, tensor in enumerate(self.inputs):
            if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point() or \
                    tensor.numel() < 2:
                continue
            flat = tensor.view(-1)
            positions = self.random.sample(range(flat.numel()),
                                           min(flat.numel(), 4 * PATCH_POSITIONS))
            values = flat[torch.tensor(positions, device=flat.device)].tolist()
            usable = [(p, v) for p, v in zip(positions, values) if v != 0 and math.isfinite(v)]
            count = min(PATCH_POSITIONS, len(usable) // 2)
            if count == 0:
                continue
            index = [p for p, _ in usable[:count]]
            value = [v for _, v in usable[count:2 * count]]
            flat[torch.tensor(index, device=flat.device)] = torch.tensor(
                value, dtype=flat.dtype, device=flat.device)
            patches.append({"input": number, "index": index, "value": value})
        return patches

    def settle(self):
        """The worker's share of the L2 flush before every ping and call, outside the measured
        window: the answer's harness flushes too, but that harness is the answer's to patch."""
        if self.device.type != "cuda":
            return
        import torch
        self.flush.zero_()
        if self.reset_l2 is not None:
            self.reset_l2()
        torch.cuda.synchronize(self.device)

    def expected(self, seed):
        """The reference's outputs on the inputs as they are now, under the call's seed."""
        import torch
        with torch.no_grad():
            set_seed(seed)
            outputs = flatten_outputs(self.reference_model(*clone_all(self.inputs)))
            synchronize(self.device)
        return outputs


def persisting_l2_reset(device):
    """The driver's cuCtxResetPersistingL2Cache, so that L2 lines an answer marked persisting do
    not survive into its next call, and a note of whether it is used."""
    if device.type != "cuda":
        return None, "not applicable: no GPU"
    import ctypes
    try:
        reset = ctypes.CDLL("libcuda.so.1").cuCtxResetPersistingL2Cache
    except (OSError, AttributeError) as e:
        return None, "not applied: the CUDA driver offers no cuCtxResetPersistingL2Cache (%s)" % e
    reset.restype = ctypes.c_int
    reset.argtypes = []
    status = reset()
    if status != 0:
        return None, "not applied: cuCtxResetPersistingL2Cache failed with CUresult %d" % status
    return reset, "applied: cuCtxResetPersistingL2Cache before every ping and call"


def reported_ms(reply):
    """The answer's time of one call, or None when it is not a usable number."""
    value = reply.get("ms")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        return None
    return float(value)

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


def answer_build_dir(build_root, source):
    """The build folder of one answer: beneath the evaluation's build folder, named after the
    source text, so that --prebuild and the evaluation share it and no other answer writes it."""
    root = build_root or os.path.join(tempfile.gettempdir(), "dice-kernelbench-build")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    return os.path.join(os.path.abspath(root), digest)


def release_cached(device):
    """Gives the memory this process's allocator keeps for reuse back to the driver: the
    answer's process, not this one, needs it next."""
    import torch
    if device.type == "cuda":
        torch.cuda.empty_cache()


def synchronize(device):
    import torch
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def flatten_outputs(value):
    import torch
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(flatten_outputs(v))
        return out
    return [value] if isinstance(value, torch.Tensor) or value is not None else []


def output_pieces(expected, actual, device):
    """Both tensors as matching flat pieces of COMPARE_PIECE elements, the answer's moved to the
    device one piece at a time: comparing a bench-sized output whole takes several copies of it
    beside the inputs (on an 80 GB GPU, KernelBench's level-1 ReLU ran out of memory)."""
    flat_expected = expected.reshape(-1)
    flat_actual = actual.reshape(-1)
    for start in range(0, flat_expected.numel(), COMPARE_PIECE):
        stop = min(start + COMPARE_PIECE, flat_expected.numel())
        yield flat_expected[start:stop], flat_actual[start:stop].to(device)


def compare_outputs(expected, actual, device, atol, rtol, record):
    """None when the values of the answer's outputs (tensors of the expected shapes and dtypes,
    on the device or not) match the reference's, else why not (for the trial's detail)."""
    import torch
    worst_abs = 0.0
    worst_rel = 0.0
    for e, a in zip(expected, actual):
        if e.numel() == 0:
            continue
        # Error statistics in the output's own precision: a float64 copy of a bench-sized
        # output would not fit beside the inputs.
        compute = e.dtype if e.is_floating_point() else torch.float32
        abs_error = 0.0
        rel_error = 0.0
        error_squares = 0.0
        reference_squares = 0.0
        same = True
        for piece, answer in output_pieces(e, a, device):
            difference = (answer.to(compute) - piece.to(compute)).abs()
            if e.is_floating_point():
                # Norms in float32 at least: a float16 piece's squares overflow at 256.
                wide = torch.float64 if e.dtype == torch.float64 else torch.float32
                error_squares += float(torch.linalg.vector_norm(difference, dtype=wide)) ** 2
                reference_squares += float(torch.linalg.vector_norm(piece, dtype=wide)) ** 2
            if bool(torch.isfinite(difference).all()):
                abs_error = max(abs_error, float(difference.max()))
                rel_error = max(rel_error, float(
                    (difference / piece.to(compute).abs().clamp_min(1e-12)).max()))
            else:
                abs_error = float("inf")
                rel_error = float("inf")
            del difference
            if e.is_floating_point():
                same = same and torch.allclose(answer, piece, atol=atol, rtol=rtol)
            else:
                same = same and torch.equal(answer, piece)
            del answer
        worst_abs = max(worst_abs, abs_error)
        worst_rel = max(worst_rel, rel_error)
        record["max_abs_error"] = finite_or_large(worst_abs)
        record["max_rel_error"] = finite_or_large(worst_rel)
        if not same:
            if e.is_floating_point():
                return "values differ: max abs error %.3g, max rel error %.3g (atol=rtol=%g)" % (
                    abs_error, rel_error, atol)
            return "values differ (exact comparison of %s)" % e.dtype
        # The same rule over the output as a whole, atol taken relative to the reference's size:
        # where the reference's values are small against atol (a softmax over thousands of
        # columns), zeros or another function's values are within atol of every element, and
        # only the whole output tells them from a right answer. One rounding step of the dtype
        # per element is allowed besides: level 2's Conv3d_GroupNorm_Mean returns means of
        # normalised values, zero but for rounding, and a right answer's noise is as large.
        error = math.sqrt(error_squares)
        size = math.sqrt(reference_squares)
        noise = torch.finfo(e.dtype).eps * math.sqrt(e.numel()) if e.is_floating_point() else 0.0
        if size > 0 and error > (atol + rtol) * size + noise:
            return ("every element is within atol=rtol=%g, but the output as a whole is not: its "
                    "L2 error is %.2e of the reference's L2 norm (at most atol + rtol)" % (
                        atol, error / size))
    return None


def same_values(expected, actual, device):
    """torch.equal of a tensor and the answer's copy of it, piece by piece."""
    import torch
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return False
    return all(torch.equal(answer, piece) for piece, answer in
               output_pieces(expected, actual, device))


def finite_or_large(value):
    return value if math.isfinite(value) else 1e300


def time_model(model, inputs, device, flush, warmups, trials):
    """KernelBench's CUDA-event timing, with a device-wide synchronisation before the end event
    so that work on any stream is inside the measured interval (on the CPU, the wall clock)."""
    import torch
    cuda = device.type == "cuda"
    with torch.no_grad():
        for _ in range(warmups):
            model(*inputs)
            synchronize(device)
        if cuda:
            torch.cuda.empty_cache()
        samples = []
        for index in range(trials + 1):
            if cuda:
                torch.cuda.synchronize(device)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                flush.zero_()
                start.record()
                model(*inputs)
                torch.cuda.synchronize(device)
                end.record()
                end.synchronize()
                elapsed = start.elapsed_time(end)
            else:
                began = time.perf_counter()
                model(*inputs)
                elapsed = (time.perf_counter() - began) * 1000.0
            if index > 0:
                samples.append(elapsed)
    return {
        "method": "cuda_events" if cuda else "wall_clock",
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
    """Compiles a candidate's extension into the folder its evaluation will use, inside the
    answer's sandbox: building runs the answer's code."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    findings = kernelbench_static.StaticChecker(source).run()
    blocking = [f for f in findings if f.severity in (kernelbench_static.ERROR,
                                                      kernelbench_static.COMPILE)]
    report = {"file": path, "ok": False, "compile_ms": 0.0, "message": ""}
    if blocking:
        report["message"] = "not built: " + "; ".join(f.message for f in blocking[:3])
        return report
    try:
        sandbox = kernelbench_sandbox.sandbox_program(SANDBOX_PROGRAM)
    except kernelbench_sandbox.SandboxUnavailable as e:
        report["message"] = "not built: %s" % e
        return report
    build_dir = answer_build_dir(build_root, source)
    scripts = os.path.dirname(os.path.abspath(__file__))
    answer_file = os.path.abspath(path)
    policy = kernelbench_sandbox.policy([build_dir], readable=[scripts, answer_file])
    argv = [sys.executable, os.path.join(scripts, "kernelbench_answer.py"),
            "--prebuild", answer_file, "--build-dir", build_dir]
    run = subprocess.run(kernelbench_sandbox.command(sandbox, policy, argv),
                         stdin=subprocess.DEVNULL, capture_output=True,
                         env=kernelbench_sandbox.environment(build_dir))
    lines = run.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        built = json.loads(lines[-1]) if lines else None
    except ValueError:
        built = None
    if not isinstance(built, dict):
        report["message"] = "the build ended without a report (%s): %s" % (
            ("status %d" % run.returncode) if run.returncode >= 0 else
            ("signal %d" % -run.returncode), tail(run.stderr.decode("utf-8", "replace")))
        return report
    report["ok"] = built.get("ok") is True and run.returncode == 0
    report["compile_ms"] = float(built.get("compile_ms") or 0.0) \
        if isinstance(built.get("compile_ms"), (int, float)) else 0.0
    message = built.get("message")
    report["message"] = message[:4000] if isinstance(message, str) else ""
    if not report["ok"]:
        report["message"] += "\n" + tail(run.stderr.decode("utf-8", "replace"))
    return report


def main(argv):
    global SANDBOX_PROGRAM
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    if "--sandbox-program" in argv:
        index = argv.index("--sandbox-program")
        if index + 1 >= len(argv):
            print("kernelbench_worker.py: --sandbox-program needs the launcher's path",
                  file=sys.stderr)
            return 2
        SANDBOX_PROGRAM = argv[index + 1]
        argv = argv[:index] + argv[index + 2:]
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
