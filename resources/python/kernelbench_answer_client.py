# SPDX-License-Identifier: GPL-3.0-or-later
"""The trusted side's handle on one sandboxed answer process (kernelbench_answer.py).

The worker keeps the inputs, the reference's outputs and the timing of the reference to itself;
the answer's process gets copies of the inputs in memory both map and writes its outputs there:
GPU memory for what lives on the GPU (kernelbench_device_exchange.py), a shared memory file for
the rest and wherever the GPU's cannot serve. Nothing it sends is unpickled or executed: replies are bounded JSON lines whose fields are
checked before use, and outputs are raw bytes read at the shapes and dtypes the worker expects.
Every request is timed from this side, and refused when a reply is already waiting before it is
sent (one written in advance would end a timed round trip at once).
"""

import fcntl
import json
import mmap
import os
import select
import subprocess
import time

import kernelbench_device_exchange
import kernelbench_sandbox

REPLY_LIMIT = 1 << 20
UNCONFINED_VARIABLE = "DICE_KERNELBENCH_NO_SANDBOX"
LOG_TAIL_BYTES = 64 * 1024
ALIGNMENT = 256


class AnswerFailed(Exception):
    """The answer's process died, hung up, or broke its protocol."""


class RepliedAhead(AnswerFailed):
    """The answer's process wrote a reply before it was asked: a timed round trip would end on
    a line written in advance."""


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def aligned(offset):
    """Where the next tensor may start at or after offset."""
    return (offset + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def tensor_spec(like, offset, **more):
    """The spec of a tensor shaped like `like` at offset, as a request names it."""
    spec = {"kind": "tensor", "dtype": dtype_name(like.dtype), "shape": list(like.shape),
            "offset": offset, "nbytes": like.numel() * like.element_size()}
    spec.update(more)
    return spec


def exchange_bytes(requests):
    """The memory that the tensors of the largest request take, laid out as reserve lays them
    out: what the GPU memory shared with the answer's process is sized for."""
    import torch
    largest = 0
    for values in requests:
        total = 0
        for value in values:
            if isinstance(value, torch.Tensor) and value.numel():
                total = aligned(total) + value.numel() * value.element_size()
        largest = max(largest, total)
    return largest


class SharedFile:
    """A memory file both processes map; the worker lays out each request's tensors in it."""

    def __init__(self):
        self.fd = os.memfd_create("dice-kernelbench-exchange", os.MFD_ALLOW_SEALING)
        # The answer holds the same file: shrunk under the worker's map, it would kill the worker
        # with SIGBUS at its next access, and sealed against growth it would stop the next
        # request; the last seal keeps it from adding either.
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
        self.size = 0
        self.map = None
        self.cursor = 0

    def reset(self):
        self.cursor = 0

    def reserve(self, nbytes):
        offset = aligned(self.cursor)
        self.cursor = offset + nbytes
        if self.cursor > self.size:
            # From the file's real size: the answer may have grown it, and the seal refuses any
            # ftruncate that would shrink it.
            actual = os.fstat(self.fd).st_size
            self.size = max(self.cursor, self.size * 2, 1 << 20)
            if self.size > actual:
                os.ftruncate(self.fd, self.size)
            self.map = mmap.mmap(self.fd, self.size)
        return offset

    def view(self, offset, nbytes, dtype, shape):
        import torch
        if nbytes == 0:
            return torch.empty(shape, dtype=dtype)
        raw = torch.frombuffer(self.map, dtype=torch.uint8, count=nbytes, offset=offset)
        return raw.view(dtype).view(shape)

    def put(self, tensor, on_device=True):
        tensor = tensor.detach()
        nbytes = tensor.numel() * tensor.element_size()
        offset = self.reserve(nbytes)
        self.view(offset, nbytes, tensor.dtype, list(tensor.shape)).copy_(tensor)
        return tensor_spec(tensor, offset, on_device=on_device)

    def slot(self, like, fill=None):
        """Room for a tensor shaped like `like`, filled with `fill` (NaN poison, say)."""
        spec = tensor_spec(like, self.reserve(like.numel() * like.element_size()))
        if fill is not None and spec["nbytes"]:
            self.read(spec).fill_(fill)
        return spec

    def read(self, spec):
        import torch
        return self.view(spec["offset"], spec["nbytes"], getattr(torch, spec["dtype"]),
                         spec["shape"])

    def close(self):
        self.map = None
        os.close(self.fd)


class Exchange:
    """Where a request's tensors travel: the GPU memory both processes map, for a tensor on the
    GPU that fits there, else the host file. A spec says which ("where": "device")."""

    def __init__(self):
        self.host = SharedFile()
        self.device = None
        self.cursor = 0
        self.pending = False
        self.note = "host: the evaluation runs on the CPU"

    def use_device(self, exchange, note):
        self.device = exchange
        self.note = note

    def drop_device(self, note):
        if self.device is not None:
            self.device.close()
        self.device = None
        self.note = note

    def reset(self):
        self.host.reset()
        self.cursor = 0

    def holds(self, tensor):
        """Whether the tensor lives where the shared GPU memory does."""
        return self.device is not None and tensor.device == self.device.bytes.device

    def reserve_device(self, nbytes):
        if self.device is None:
            return None
        offset = aligned(self.cursor)
        if offset + nbytes > self.device.size:
            return None
        self.cursor = offset + nbytes
        return offset

    def put(self, tensor, on_device=True):
        tensor = tensor.detach()
        nbytes = tensor.numel() * tensor.element_size()
        offset = self.reserve_device(nbytes) if on_device and self.holds(tensor) else None
        if offset is None:
            return self.host.put(tensor, on_device)
        spec = tensor_spec(tensor, offset, on_device=True, where="device")
        self.read(spec).copy_(tensor)
        self.pending = True
        return spec

    def slot(self, like, fill=None, on_device=True):
        """Room for a tensor shaped like `like`, filled with `fill` (NaN poison, say): on the GPU
        when on_device and it fits there."""
        nbytes = like.numel() * like.element_size()
        offset = self.reserve_device(nbytes) if on_device else None
        if offset is None:
            return self.host.slot(like, fill)
        spec = tensor_spec(like, offset, where="device")
        if fill is not None and nbytes:
            self.read(spec).fill_(fill)
            self.pending = True
        return spec

    def read(self, spec):
        import torch
        if spec.get("where") == "device":
            return self.device.view(spec["offset"], spec["nbytes"],
                                    getattr(torch, spec["dtype"]), spec["shape"])
        return self.host.read(spec)

    def mark_written(self):
        """What this process wrote on the GPU outside put and slot (a poison fill)."""
        self.pending = self.device is not None

    def ready(self):
        """Waits for this side's writes to the GPU memory before a request lets the answer's
        process read or overwrite it."""
        if self.pending and self.device is not None and self.device.bytes.is_cuda:
            import torch
            torch.cuda.synchronize(self.device.bytes.device)
        self.pending = False

    @property
    def fd(self):
        return self.host.fd

    def close(self):
        self.drop_device(self.note)
        self.host.close()


def encode_arguments(shared, values, on_device):
    """The specs of a list of inputs; non-tensor inputs travel as JSON values."""
    import torch
    specs = []
    for value in values:
        if isinstance(value, torch.Tensor):
            specs.append(shared.put(value, on_device))
            continue
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError):
            raise AnswerFailed("an input of type %s cannot be handed to the answer's process" %
                               type(value).__name__)
        specs.append({"kind": "value", "value": value})
    return specs


class AnswerProcess:
    """One sandboxed kernelbench_answer.py, started for one evaluation and ended with it."""

    def __init__(self, sandbox_program, build_dir, scripts_dir, python, gpu, device_bytes=0,
                 device_ordinal=0):
        """build_dir is the answer's own folder (one per source text): the only place it may
        write, so that no answer can plant files in another's build. device_bytes, when not 0,
        is the GPU memory to share with it for the tensors of one request (see attach)."""
        self.shared = Exchange()
        self.device_ordinal = device_ordinal
        self.log_path = os.path.join(build_dir, "answer.log")
        requests_read, self.requests = os.pipe()
        self.replies, replies_write = os.pipe()
        report_read, report_write = os.pipe()
        policy = kernelbench_sandbox.policy([build_dir], readable=[scripts_dir], gpu=gpu)
        child_fds = [requests_read, replies_write, self.shared.fd, report_write]
        argv = [python, os.path.join(scripts_dir, "kernelbench_answer.py"),
                "--requests", str(requests_read), "--replies", str(replies_write),
                "--shared", str(self.shared.fd)]
        device_fd = -1
        if gpu and device_bytes > 0:
            try:
                exchange, device_fd = kernelbench_device_exchange.DeviceExchange.create(
                    device_ordinal, device_bytes)
                self.shared.use_device(exchange, "device: %d bytes of GPU memory both map" %
                                       exchange.size)
                child_fds.append(device_fd)
                argv += ["--device-exchange", str(device_fd), "--device-exchange-bytes",
                         str(exchange.size)]
            except kernelbench_device_exchange.ExchangeUnavailable as e:
                self.shared.drop_device("host: no GPU memory to share (%s)" % e)
        elif gpu:
            self.shared.note = "host: nothing of the evaluation lives on the GPU"
        os.makedirs(build_dir, exist_ok=True)
        # For measuring what the confinement costs, as DICE_EVALD_NO_SANDBOX does for the native
        # dialect: the same processes and exchange, the answer's not confined.
        unconfined = os.environ.get(UNCONFINED_VARIABLE) == "1"
        self.buffer = b""
        try:
            log = open(self.log_path, "wb")
            try:
                self.process = subprocess.Popen(
                    argv if unconfined else
                    kernelbench_sandbox.command(sandbox_program, policy, argv, report_write),
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=child_fds,
                    env=kernelbench_sandbox.environment(build_dir), close_fds=True)
            finally:
                log.close()
                for fd in (requests_read, replies_write, report_write, device_fd):
                    if fd >= 0:
                        os.close(fd)
            report, report_read = report_read, -1
            if unconfined:
                os.close(report)
                self.sandbox = {"unconfined": "%s=1: the answer's process ran without "
                                "dice-sandbox" % UNCONFINED_VARIABLE}
            else:
                self.sandbox = self.read_report(report)
        except BaseException:
            # An answer that never started holds nothing of the worker's: the shared memory
            # (GPU memory that would stay allocated for the worker's life) goes now.
            for fd in (self.requests, self.replies, report_read):
                if fd >= 0:
                    os.close(fd)
            self.shared.close()
            raise

    def attach(self):
        """Has the answer's process map the GPU memory, before any request names it; where it
        cannot, every tensor goes through the host file, and the note says why."""
        if self.shared.device is None:
            return self.shared.note
        reply = self.call({"op": "attach", "device": "cuda:%d" % self.device_ordinal})
        if not reply.get("ok"):
            self.shared.drop_device("host: the answer's process could not map the GPU memory "
                                    "(%s)" % (text(reply, "error", 300) or "no reason given"))
        return self.shared.note

    def read_report(self, fd):
        """What dice-sandbox applied: one JSON line before the program starts."""
        data = b""
        while len(data) < REPLY_LIMIT:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
        os.close(fd)
        try:
            report = json.loads(data.decode("utf-8", "replace") or "null")
        except ValueError:
            report = None
        if not isinstance(report, dict):
            self.process.wait()
            raise AnswerFailed("the sandbox did not start the answer's process: " +
                               self.log_tail(2000).strip())
        if "refused" in report:
            self.process.wait()
            raise AnswerFailed(str(report["refused"])[:400])
        return report

    def log_tail(self, limit=LOG_TAIL_BYTES):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - limit))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def send(self, request):
        data = (json.dumps(request, allow_nan=True) + "\n").encode("utf-8")
        try:
            while data:
                written = os.write(self.requests, data)
                data = data[written:]
        except (BrokenPipeError, OSError):
            raise AnswerFailed(self.death())

    def fill(self, block):
        """Reads what the replies pipe holds into the buffer: waits for it when block, else
        returns False at once when there is nothing. A hang-up raises AnswerFailed."""
        if len(self.buffer) > REPLY_LIMIT:
            raise AnswerFailed("the answer's process sent more than %d bytes without a line "
                               "end" % REPLY_LIMIT)
        ready, _, _ = select.select([self.replies], [], [], None if block else 0)
        if not ready:
            return False
        chunk = os.read(self.replies, 65536)
        if not chunk:
            raise AnswerFailed(self.death())
        self.buffer += chunk
        return True

    def receive(self):
        """The next reply, a dict; raises AnswerFailed when the process ends or misbehaves."""
        while b"\n" not in self.buffer:
            self.fill(block=True)
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            reply = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            raise AnswerFailed("the answer's process sent a reply that is not JSON")
        if not isinstance(reply, dict):
            raise AnswerFailed("the answer's process sent a reply that is not a JSON object")
        return reply

    def round_trip(self, request):
        """Sends one request and returns its reply with the round trip's time in ms, as this
        process's clock saw it. Every request is refused an answer that wrote ahead of it."""
        if self.buffer or self.fill(block=False):
            raise RepliedAhead("the answer's process replied before it was asked")
        self.shared.ready()
        started = time.perf_counter()
        self.send(request)
        reply = self.receive()
        return reply, (time.perf_counter() - started) * 1000.0

    def call(self, request):
        return self.round_trip(request)[0]

    def thread_count(self):
        """Threads of the answer's process and of every process it started, read from /proc:
        dice-sandbox execs into the interpreter, so the pid Popen knows is the answer's own."""
        return thread_count(self.process.pid)

    def death(self):
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        how = ("was killed by signal %d" % -code) if code < 0 else ("exited with status %d" % code)
        tail = self.log_tail(2000).strip().splitlines()[-3:]
        return "the answer's process %s%s" % (how, (": " + " | ".join(tail)) if tail else "")

    def close(self):
        if self.process.poll() is None:
            try:
                self.send({"op": "exit"})
            except AnswerFailed:
                pass
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self.shared.close()


def thread_count(pid):
    total = 0
    pending = [pid]
    seen = set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            tasks = os.listdir("/proc/%d/task" % current)
        except OSError:
            continue
        total += len(tasks)
        for task in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (current, task)) as f:
                    pending.extend(int(child) for child in f.read().split())
            except (OSError, ValueError):
                continue
    return total


def text(reply, key, limit=4000):
    value = reply.get(key, "")
    return value[:limit] if isinstance(value, str) else ""


def number(reply, key):
    value = reply.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value)
