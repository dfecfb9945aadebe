#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which scaled-dot-product-attention kernel the RL update's attention gets, and at what cost.

The update runs a layer's attention over the extended input (prompt, clean answer, noisy answer)
under a block mask, with grouped-query heads. This times forward plus backward of that attention
alone, per backend, for three ways of calling it: grouped heads with enable_gqa, the query heads
of a group folded into the query length, and keys and values repeated per query head. A backend
that cannot take a call is reported as such.

    python3 bench/sdpa_masked_gqa.py --output FILE.json [--length 3072] [--heads 16] [--kv-heads 8]
"""
import argparse
import json
import platform
import statistics
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def block_mask(length, prompt, block, device):
    # Prompt tokens see the prompt; answer positions see the prompt and every block up to their
    # own (bidirectional within a block), as the block-diffusion masks do.
    pos = torch.arange(length, device=device)
    blk = torch.where(pos < prompt, torch.zeros_like(pos), (pos - prompt) // block + 1)
    return (blk[None, :] <= blk[:, None])[None, None]


def timed(fn, iterations):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output", required=True)
    ap.add_argument("--length", type=int, default=3072)
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=20)
    a = ap.parse_args()
    dev = "cuda"
    torch.manual_seed(0)
    n, T, H, KV, D = a.batch, a.length, a.heads, a.kv_heads, a.head_dim
    g = H // KV
    mask = block_mask(T, a.prompt, 4, dev).expand(n, 1, T, T)
    q0 = torch.randn(n, H, T, D, device=dev, dtype=torch.bfloat16)
    k0 = torch.randn(n, KV, T, D, device=dev, dtype=torch.bfloat16)
    v0 = torch.randn(n, KV, T, D, device=dev, dtype=torch.bfloat16)
    grad = torch.randn(n, H, T, D, device=dev, dtype=torch.bfloat16)

    def gqa(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)

    folded_mask = mask.repeat(1, 1, g, 1)

    def folded(q, k, v):
        # [n, H, T, D] -> [n, KV, g * T, D]: a group's query heads one after another.
        f = q.reshape(n, KV, g * T, D)
        return F.scaled_dot_product_attention(f, k, v, attn_mask=folded_mask).reshape(n, H, T, D)

    def repeated(q, k, v):
        return F.scaled_dot_product_attention(
            q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1), attn_mask=mask)

    reference = None
    rows = []
    backends = {"default": None, "math": SDPBackend.MATH, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    for name, call in (("gqa", gqa), ("folded", folded), ("repeated", repeated)):
        for bname, backend in backends.items():
            q = q0.clone().requires_grad_()
            k = k0.clone().requires_grad_()
            v = v0.clone().requires_grad_()

            def step():
                out = call(q, k, v)
                out.backward(grad)
                return out

            row = {"call": name, "backend": bname}
            try:
                if backend is None:
                    out = step()
                    ms = timed(step, a.iterations)
                else:
                    with sdpa_kernel([backend]):
                        out = step()
                        ms = timed(step, a.iterations)
                out = out.float()
                if reference is None:
                    reference = out.detach()
                row["forward_backward_ms"] = ms
                row["max_abs_difference"] = (out.detach() - reference).abs().max().item()
            except RuntimeError as e:
                row["error"] = str(e).splitlines()[0][:300]
            rows.append(row)
            print(json.dumps(row), flush=True)
    report = {
        "kind": "sdpa-masked-gqa",
        "command": "python3 bench/sdpa_masked_gqa.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(a).items() if k != "output")
        + " --output " + a.output.split("/")[-1],
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                    "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                    "python": platform.python_version()},
        "shape": {"batch": n, "length": T, "heads": H, "kv_heads": KV, "head_dim": D},
        "results": rows,
    }
    json.dump(report, open(a.output, "w"), indent=1)


if __name__ == "__main__":
    main()
