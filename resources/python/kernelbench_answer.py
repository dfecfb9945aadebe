#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The untrusted side of the KernelBench dialect: runs one answer inside the sandbox.

kernelbench_worker.py starts this program through dice-sandbox (kernelbench_sandbox.py) for each
evaluation. It runs the answer's code (which builds its extension with load_inline), builds
ModelNew, and calls it on the inputs the worker placed in a shared memory file, writing the
outputs back there. It answers with JSON lines on the replies descriptor; whatever it says is
data to the worker, which makes the inputs, compares the outputs and decides the verdict
(docs/sandbox.md).

  kernelbench_answer.py --requests FD --replies FD --shared FD
                        [--device-exchange FD --device-exchange-bytes N]
  kernelbench_answer.py --prebuild FILE --build-dir DIR     (compile only, print a JSON report)

DIR (and the "build_dir" of a load request) is the answer's own build folder, the one the
sandbox lets it write.

Requests, one JSON object per line, in this order:
  {"op": "attach", "device"}                                     (when there is GPU memory to map)
  {"op": "init", "device", "flush_bytes", "inputs", "outputs", "reference", "seed",
   "init_inputs"}                                                (before the answer's code runs)
  {"op": "ping", "seed", "patches", "outputs"}, any number       (still before it)
  {"op": "load", "source", "build_dir", "seed", "init_inputs"}
  {"op": "forward", "seed", "inputs", "outputs", "inputs_back"}, one per correctness trial
  {"op": "call", "seed", "patches", "outputs"}, one per warm-up and timed call
  {"op": "exit"}
An argument is {"kind": "tensor", "dtype", "shape", "offset", "nbytes"} (bytes in the shared
file, or in the GPU memory the worker shared when it has "where": "device") or {"kind": "value",
"value"}. An input in the GPU memory is handed to the model as it is there, so that the worker sees
whether the model wrote into it; the worker then sends no "inputs_back" slot for it. "inputs" of init are the timing inputs, kept here on the
device; a patch {"input", "index", "value"} sets elements of one of them (flat indices) before a
ping or a call. A ping is a call whose model is the problem's own reference (its Model built
here from "reference", the problem's source, before the answer's code exists), or, where that
cannot be built or fails, one that hands back zeros of the outputs' shapes: the worker times pings
and calls from its side, and what a ping costs besides its model is what it allows a call for the
harness around the model. The reference, not zeros, because the harness's own steps run slower
after a real model has run in the process: with zero-model pings, every timed call of the honest
eight-layer control (honest_layers) was raised to its round trip.
"""

import gc
import json
import mmap
import os
import sys
import time
import traceback


def set_build_environment():
    """The same compiler settings for --prebuild and for the evaluation, so that ninja finds the
    prebuilt extension up to date instead of building it again."""
    import torch
    os.environ.setdefault("TORCH_USE_CUDA_DSA", "1")
    if "TORCH_CUDA_ARCH_LIST" not in os.environ and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        os.environ["TORCH_CUDA_ARCH_LIST"] = "%d.%d" % (major, minor)


def traceback_line(error):
    line = 0
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == "candidate.py":
            line = frame.lineno or 0
    return line


def describe(error):
    text = str(error).strip()
    return text.splitlines()[-1] if text else type(error).__name__


def is_cuda_fault(error):
    return "CUDA" in str(error) or "cuda" in type(error).__name__.lower()


def set_seed(seed):
    import torch
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)


def flatten(value):
    import torch
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [value] if isinstance(value, torch.Tensor) or value is not None else []


def storage_bytes(tensor):
    try:
        return tensor.untyped_storage().nbytes()
    except AttributeError:
        return tensor.storage().nbytes()


class Answer:
    def __init__(self, shared_fd, replies_fd, device_fd=-1, device_bytes=0):
        self.shared_fd = shared_fd
        self.device_fd = device_fd
        self.device_bytes = device_bytes
        self.device_exchange = None
        self.shared = mmap.mmap(shared_fd, 0) if os.fstat(shared_fd).st_size else None
        self.replies = os.fdopen(replies_fd, "w", encoding="utf-8", buffering=1)
        self.model = None
        self.device = None
        self.flush = None
        self.timing_inputs = []
        self.output_specs = []
        self.zero_outputs = None
        self.ping_model = None
        self.ping_workload = "zeros"

    def reply(self, **body):
        self.replies.write(json.dumps(body, allow_nan=True, default=str) + "\n")
        self.replies.flush()

    def region(self, spec):
        import torch
        if spec.get("where") == "device":
            if self.device_exchange is None:
                raise ValueError("a tensor in GPU memory that was never mapped here")
            return self.device_exchange.view(spec["offset"], spec["nbytes"],
                                             getattr(torch, spec["dtype"]), spec["shape"])
        end = int(spec["offset"]) + int(spec["nbytes"])
        if self.shared is None or len(self.shared) < end:
            # The worker grows the file as bigger inputs come; map it again at its new size.
            self.shared = mmap.mmap(self.shared_fd, 0)
        dtype = getattr(torch, spec["dtype"])
        if int(spec["nbytes"]) == 0:
            return torch.empty(spec["shape"], dtype=dtype)
        raw = torch.frombuffer(self.shared, dtype=torch.uint8, count=int(spec["nbytes"]),
                               offset=int(spec["offset"]))
        return raw.view(dtype).view(spec["shape"]) if spec["shape"] else raw.view(dtype)[0]

    def argument(self, spec, keep):
        """One argument; keep: a tensor that outlives the request, so never the shared memory
        the worker writes the next request's tensors into."""
        if spec["kind"] == "value":
            return spec["value"]
        region = self.region(spec)
        if spec.get("where") == "device":
            return region.clone() if keep else region
        # Straight from the shared file to the GPU: a host copy first would hold a bench-sized
        # input twice. Anything that stays on the host is copied out of the file the worker
        # rewrites.
        if spec.get("on_device", True) and self.device.type != "cpu":
            return region.to(self.device)
        return region.clone()

    def arguments(self, specs, keep=False):
        return [self.argument(s, keep) for s in specs]

    def attach(self, request):
        """Maps the GPU memory the worker shared, before the answer's code exists."""
        import kernelbench_device_exchange
        try:
            if self.device_fd < 0:
                raise ValueError("no GPU memory was shared with this process")
            import torch
            device = torch.device(request["device"])
            self.device_exchange = kernelbench_device_exchange.DeviceExchange.attach(
                device.index or 0, self.device_fd, self.device_bytes)
        except BaseException as e:  # noqa: BLE001
            return self.reply(ok=False, error=describe(e))
        finally:
            if self.device_fd >= 0:
                os.close(self.device_fd)
                self.device_fd = -1
        return self.reply(ok=True)

    def synchronize(self):
        import torch
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def init(self, request):
        """Runs before the answer's code exists, so that the pings after it are timed in a
        pristine harness: the device, its context and everything a timed call needs."""
        import torch
        self.device = torch.device(request["device"])
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            torch.cuda.init()
            self.flush = torch.empty(int(request["flush_bytes"]) // 8, dtype=torch.int64,
                                     device=self.device)
        self.timing_inputs = self.arguments(request.get("inputs", []), keep=True)
        self.output_specs = request.get("outputs", [])
        if request.get("reference"):
            self.build_ping_model(request)
        self.synchronize()
        return self.reply(ok=True)

    def build_ping_model(self, request):
        """The problem's Model, built as the worker builds it (on the CPU after the seed, then
        moved), for the pings to run. Failing that, the pings hand back zeros and say so."""
        try:
            namespace = {"__name__": "dice_reference", "__file__": "reference.py"}
            exec(compile(request["reference"], "reference.py", "exec"), namespace)  # noqa: S102
            init_inputs = self.arguments(request.get("init_inputs", []), keep=True)
            set_seed(int(request.get("seed", 0)))
            self.ping_model = namespace["Model"](*init_inputs).to(self.device)
            self.ping_workload = "reference"
        except BaseException as e:  # noqa: BLE001
            self.ping_model = None
            self.ping_workload = "zeros (the reference was not built here: %s)" % describe(e)

    def load(self, request):
        # Pings come only before the answer's code: their outputs and the reference's weights
        # would hold as much device memory as the answer's own.
        self.zero_outputs = None
        self.ping_model = None
        # The reference's class lives in a cycle (its methods' globals hold it) that only the
        # collector frees: freed here, before the answer's code runs, or the answer finds the
        # problem's Model among the collector's objects and computes with it unseen.
        gc.collect()
        if self.device is not None and self.device.type == "cuda":
            import torch
            torch.cuda.empty_cache()
        source = request["source"]
        os.environ["TORCH_EXTENSIONS_DIR"] = request["build_dir"]
        set_build_environment()
        namespace = {"__name__": "dice_candidate", "__file__": "candidate.py"}
        started = time.perf_counter()
        try:
            exec(compile(source, "candidate.py", "exec"), namespace)  # noqa: S102
        except BaseException as e:  # noqa: BLE001 - SystemExit from an answer is a failure too
            return self.reply(ok=False, stage="compile", error=describe(e),
                              error_type=type(e).__name__, line=traceback_line(e),
                              compile_ms=(time.perf_counter() - started) * 1000.0)
        compile_ms = (time.perf_counter() - started) * 1000.0
        model_new = namespace.get("ModelNew")
        if model_new is None:
            return self.reply(ok=False, stage="define", error="the candidate defines no ModelNew",
                              compile_ms=compile_ms)
        init_inputs = self.arguments(request["init_inputs"], keep=True)
        try:
            set_seed(int(request["seed"]))
            self.model = model_new(*init_inputs).to(self.device)
            self.synchronize()
        except BaseException as e:  # noqa: BLE001
            return self.reply(ok=False, stage="construct", error=describe(e),
                              fault=is_cuda_fault(e), compile_ms=compile_ms)
        return self.reply(ok=True, compile_ms=compile_ms)

    def write_outputs(self, actual, wanted):
        """Copies the outputs into their slots and says what they were; the worker compares the
        bytes, and reads these facts only as the answer's claims."""
        import torch
        facts = []
        for index, value in enumerate(flatten(actual)):
            fact = {"type": type(value).__name__, "plain": type(value) is torch.Tensor}
            if isinstance(value, torch.Tensor):
                fact.update(device=str(value.device), dtype=str(value.dtype).replace("torch.", ""),
                            shape=list(value.shape))
                needed = value.element_size() * (value.storage_offset() + max(
                    [(s - 1) * st for s, st in zip(value.shape, value.stride())] + [0]) + 1) \
                    if value.numel() else 0
                fact["storage_ok"] = storage_bytes(value) >= needed
                if index < len(wanted) and fact["dtype"] == wanted[index]["dtype"] and \
                        fact["shape"] == list(wanted[index]["shape"]):
                    self.region(wanted[index]).copy_(value.detach().reshape(value.shape))
                    fact["written"] = True
            facts.append(fact)
        return facts

    def forward(self, request):
        import torch
        inputs = self.arguments(request["inputs"])
        try:
            with torch.no_grad():
                set_seed(int(request["seed"]))
                actual = self.model(*inputs)
                self.synchronize()
        except BaseException as e:  # noqa: BLE001
            return self.reply(ok=False, error=describe(e), fault=is_cuda_fault(e))
        facts = self.write_outputs(actual, request["outputs"])
        for spec, value in zip(request.get("inputs_back", []), inputs):
            if spec and isinstance(value, torch.Tensor):
                self.region(spec).copy_(value)
        self.synchronize()
        return self.reply(ok=True, outputs=facts)

    def patch(self, patches):
        import torch
        for patch in patches:
            flat = self.timing_inputs[int(patch["input"])].view(-1)
            index = torch.tensor(patch["index"], dtype=torch.int64, device=flat.device)
            flat[index] = torch.tensor(patch["value"], dtype=flat.dtype, device=flat.device)

    def call(self, request, model):
        """One timed call, or a ping (model then hands back the zero outputs). KernelBench's
        CUDA-event timing, with a device-wide synchronisation before the end event; the worker
        times the whole request as well and trusts "ms" only up to what it saw."""
        import torch
        cuda = self.device.type == "cuda"
        try:
            self.patch(request["patches"])
            with torch.no_grad():
                set_seed(int(request["seed"]))
                if cuda:
                    torch.cuda.synchronize(self.device)
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    self.flush.zero_()
                    start.record()
                    actual = model(*self.timing_inputs)
                    torch.cuda.synchronize(self.device)
                    end.record()
                    end.synchronize()
                    elapsed = start.elapsed_time(end)
                else:
                    began = time.perf_counter()
                    actual = model(*self.timing_inputs)
                    elapsed = (time.perf_counter() - began) * 1000.0
        except BaseException as e:  # noqa: BLE001
            return self.reply(ok=False, error=describe(e), fault=is_cuda_fault(e))
        facts = self.write_outputs(actual, request["outputs"])
        self.synchronize()
        if model == self.ping:
            return self.reply(ok=True, ms=elapsed, outputs=facts, workload=self.ping_workload)
        return self.reply(ok=True, ms=elapsed, outputs=facts)

    def ping(self, *inputs):
        if self.ping_model is not None:
            try:
                return self.ping_model(*inputs)
            except BaseException as e:  # noqa: BLE001
                self.ping_model = None
                self.ping_workload = "zeros (the reference failed here: %s)" % describe(e)
        if self.zero_outputs is None:
            # Made only when the reference cannot serve: a bench-sized output is gigabytes.
            import torch
            self.zero_outputs = [torch.zeros(spec["shape"], dtype=getattr(torch, spec["dtype"]),
                                             device=self.device) for spec in self.output_specs]
        return self.zero_outputs

    def serve(self, requests_fd):
        self.requests = os.fdopen(requests_fd, "r", encoding="utf-8")
        for line in self.requests:
            request = json.loads(line)
            op = request.get("op")
            if op == "exit":
                return
            if op == "attach":
                self.attach(request)
            elif op == "init":
                self.init(request)
            elif op == "ping":
                self.call(request, self.ping)
            elif op == "load":
                self.load(request)
            elif op == "forward":
                self.forward(request)
            elif op == "call":
                self.call(request, self.model)
            else:
                self.reply(ok=False, error="unknown request %r" % op)


def prebuild(path, build_dir):
    """Compiles an answer's extension into the folder its evaluation will use."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    os.environ["TORCH_EXTENSIONS_DIR"] = build_dir
    set_build_environment()
    started = time.perf_counter()
    report = {"ok": False, "compile_ms": 0.0, "message": ""}
    try:
        exec(compile(source, "candidate.py", "exec"),  # noqa: S102
             {"__name__": "dice_candidate", "__file__": "candidate.py"})
        report["ok"] = True
        report["message"] = "built"
    except BaseException as e:  # noqa: BLE001
        report["message"] = "does not compile: %s" % describe(e)
    report["compile_ms"] = (time.perf_counter() - started) * 1000.0
    return report


def option(argv, name):
    if name not in argv or argv.index(name) + 1 >= len(argv):
        return None
    return argv[argv.index(name) + 1]


def main(argv):
    if "--prebuild" in argv:
        path, build_root = option(argv, "--prebuild"), option(argv, "--build-dir")
        if not path or not build_root:
            print("usage: kernelbench_answer.py --prebuild FILE --build-dir DIR", file=sys.stderr)
            return 2
        # The report gets stdout to itself; whatever the answer and its build print goes to stderr.
        sys.stdout.flush()
        report_fd = os.dup(1)
        os.dup2(2, 1)
        report = prebuild(path, build_root)
        sys.stdout.flush()
        os.write(report_fd, (json.dumps(report) + "\n").encode("utf-8"))
        return 0 if report["ok"] else 1
    fds = [option(argv, n) for n in ("--requests", "--replies", "--shared")]
    if not all(fd and fd.isdigit() for fd in fds):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    requests_fd, replies_fd, shared_fd = (int(fd) for fd in fds)
    device = [option(argv, n) for n in ("--device-exchange", "--device-exchange-bytes")]
    device_fd, device_bytes = ((int(device[0]), int(device[1]))
                               if all(v and v.isdigit() for v in device) else (-1, 0))
    Answer(shared_fd, replies_fd, device_fd, device_bytes).serve(requests_fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
