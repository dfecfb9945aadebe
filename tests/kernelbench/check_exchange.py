#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How the KernelBench worker lays out a request's tensors between the GPU memory it shares with
the answer's process and the host file, and how the answer's side reads them (on the CPU).

The shared GPU memory is stood in for by a byte tensor on the CPU behind the real view code, so
that the routing (what fits goes to it, the rest to the host file), the alignment, the bounds
and the sizing are checked where no GPU is; and that an answer process that does not start
leaves nothing open.

  check_exchange.py SCRIPTS_DIR
"""

import os
import shutil
import sys
import tempfile

import torch


def stand_in(kernelbench_device_exchange, nbytes):
    """A DeviceExchange whose memory is a CPU byte tensor: its views are the real ones."""
    exchange = object.__new__(kernelbench_device_exchange.DeviceExchange)
    exchange.lib = None
    exchange.ordinal = 0
    exchange.handle = 0
    exchange.pointer = 0
    exchange.size = nbytes
    exchange.bytes = torch.zeros(nbytes, dtype=torch.uint8)
    return exchange


def main(argv):
    sys.path.insert(0, argv[1])
    import kernelbench_answer
    import kernelbench_answer_client as client
    import kernelbench_device_exchange

    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    shared = client.Exchange()
    shared.use_device(stand_in(kernelbench_device_exchange, 4096), "device: stand-in")
    small = torch.arange(10, dtype=torch.float32)
    spec = shared.put(small)
    expect(spec.get("where") == "device", "a tensor that fits goes to the shared GPU memory")
    expect(torch.equal(shared.read(spec), small), "what was put reads back the same")
    second = shared.put(torch.ones(3, dtype=torch.int64))
    expect(second["offset"] % client.ALIGNMENT == 0 and second["offset"] >= spec["nbytes"],
           "each tensor starts on an aligned offset after the one before")
    large = torch.randn(2000)
    spec_large = shared.put(large)
    expect(spec_large.get("where") != "device", "a tensor that does not fit goes to the host file")
    expect(torch.equal(shared.read(spec_large), large), "the host file reads back the same")
    poisoned = shared.slot(torch.empty(4, dtype=torch.float32, device="meta"), float("nan"))
    expect(poisoned.get("where") == "device" and torch.isnan(shared.read(poisoned)).all(),
           "an output slot in the shared GPU memory is poisoned")
    host_slot = shared.slot(torch.empty(4), float("nan"), on_device=False)
    expect(host_slot.get("where") != "device", "a slot asked for on the host is in the host file")
    shared.reset()
    expect(shared.put(small)["offset"] == 0, "a reset starts the next request at the start")

    replies_read, replies_write = os.pipe()
    answer = kernelbench_answer.Answer(shared.fd, replies_write)
    answer.device = torch.device("cpu")
    try:
        answer.region(spec)
        failures.append("a device spec is refused where no shared GPU memory was mapped")
    except ValueError:
        pass
    answer.device_exchange = shared.device
    spec = shared.put(small)
    borrowed = answer.argument(spec, keep=False)
    kept = answer.argument(spec, keep=True)
    expect(borrowed.data_ptr() == shared.read(spec).data_ptr(),
           "a request's input is the model's argument where it lies")
    expect(kept.data_ptr() != borrowed.data_ptr() and torch.equal(kept, small),
           "an input kept past its request is a copy")
    try:
        shared.device.view(4000, 200, torch.uint8, [200])
        failures.append("a region past the end of the shared GPU memory is refused")
    except ValueError:
        pass

    meta = torch.empty(1000, dtype=torch.float32, device="meta")
    sizes = client.exchange_bytes(
        [[torch.empty(100), 3, torch.empty(10)], [meta], [torch.empty(0)]])
    expect(sizes == 4000, "the largest request sizes the shared GPU memory (got %d)" % sizes)
    first = client.exchange_bytes([[torch.empty(100), torch.empty(10)]])
    expect(first == 256 * 2 + 40, "tensors are laid out at aligned offsets (got %d)" % first)

    shared.device = None
    shared.host.close()
    os.close(replies_read)

    # An answer whose sandbox does not start keeps nothing open in the worker: not its pipes,
    # not the shared memory (on a GPU, memory that would stay allocated for the worker's life).
    build = tempfile.mkdtemp(prefix="dice-exchange-check-")
    try:
        before = sorted(os.listdir("/proc/self/fd"))
        try:
            client.AnswerProcess("/bin/false", build, argv[1], sys.executable, gpu=False)
            failures.append("an answer process whose sandbox exits at once is refused")
        except client.AnswerFailed:
            pass
        after = sorted(os.listdir("/proc/self/fd"))
        expect(after == before, "descriptors left open by an answer that did not start: %s" %
               sorted(set(after) - set(before)))
    finally:
        shutil.rmtree(build, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
