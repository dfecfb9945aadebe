#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The denoising pass of `dice bench model` through Hugging Face transformers' Qwen3.

For each shape (random weights in the exact SDAR/DICE shapes) and batch: the cache is filled with
`cached` tokens, then a block of `block` tokens attends to the whole cache and to itself
(an all-zero additive 4-D mask, no causal mask inside the block) and the block's keys and values
are dropped again (DynamicCache.crop), as SDAR's denoising pass does. Eager attention, the given
dtype. Timed with CUDA events after warm-ups; prints one JSON object on stdout.

  python3 bench/hf_qwen3_bench.py --shapes 1.7b,4b,8b --dtype bf16 --batch 1,16
"""
import argparse
import json
import sys

try:
    import torch
    import transformers
    from transformers import DynamicCache, Qwen3Config, Qwen3ForCausalLM
except ImportError as error:
    # The caller records why there is no comparison instead of failing the whole benchmark.
    json.dump({"error": f"cannot import transformers and torch: {error}"}, sys.stdout)
    sys.exit(0)

SHAPES = {
    "1.7b": dict(hidden_size=2048, num_hidden_layers=28, num_attention_heads=16, intermediate_size=6144),
    "4b": dict(hidden_size=2560, num_hidden_layers=36, num_attention_heads=32, intermediate_size=9728),
    "8b": dict(hidden_size=4096, num_hidden_layers=36, num_attention_heads=32, intermediate_size=12288),
    "20m": dict(hidden_size=256, num_hidden_layers=6, num_attention_heads=4, intermediate_size=768,
                num_key_value_heads=2, head_dim=64, vocab_size=32000),
}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def build(shape, dtype, device):
    fields = dict(vocab_size=151936, num_key_value_heads=8, head_dim=128, rope_theta=1e6,
                  rms_norm_eps=1e-6, max_position_embeddings=32768, tie_word_embeddings=False,
                  attention_bias=False)
    fields.update(SHAPES[shape])
    config = Qwen3Config(**fields)
    config._attn_implementation = "eager"
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = Qwen3ForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval(), config


def time_passes(model, config, batch, cached, block, dtype, device, iterations, warmup):
    generator = torch.Generator(device="cpu").manual_seed(batch)
    prefix = torch.randint(0, 151643, (batch, cached), generator=generator).to(device)
    tokens = torch.randint(0, 151643, (batch, block), generator=generator).to(device)
    positions = torch.arange(cached, cached + block, device=device).unsqueeze(0).expand(batch, block)
    mask = torch.zeros((batch, 1, block, cached + block), dtype=dtype, device=device)
    cache = DynamicCache()
    with torch.no_grad():
        model(input_ids=prefix, past_key_values=cache, use_cache=True)
        times = []
        for i in range(warmup + iterations):
            start = torch.cuda.Event(enable_timing=True) if device == "cuda" else None
            end = torch.cuda.Event(enable_timing=True) if device == "cuda" else None
            if start is not None:
                start.record()
            model(input_ids=tokens, position_ids=positions, attention_mask=mask,
                  past_key_values=cache, use_cache=True)
            if end is not None:
                end.record()
                end.synchronize()
                elapsed = start.elapsed_time(end)
            else:
                elapsed = float("nan")
            cache.crop(cached)
            if i >= warmup:
                times.append(elapsed)
    times.sort()
    mid = len(times) // 2
    median = times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])
    return {"batch": batch, "cached": cached, "block": block, "iterations": iterations,
            "median_ms": median, "min_ms": times[0], "max_ms": times[-1]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", default="1.7b,4b,8b")
    parser.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    parser.add_argument("--batch", default="1,16")
    parser.add_argument("--cached", type=int, default=512)
    parser.add_argument("--block", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        json.dump({"error": "PyTorch sees no GPU"}, sys.stdout)
        return
    dtype = DTYPES[args.dtype]
    out = {"transformers": transformers.__version__, "torch": torch.__version__,
           "attn_implementation": "eager", "results": []}
    for shape in args.shapes.split(","):
        if args.device == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        model, config = build(shape, dtype, args.device)
        passes = [time_passes(model, config, int(b), args.cached, args.block, dtype, args.device,
                              args.iterations, args.warmup) for b in args.batch.split(",")]
        peak = torch.cuda.max_memory_allocated() if args.device == "cuda" else 0
        out["results"].append({"shape": shape, "passes": passes, "peak_memory_bytes": peak})
        print(f"transformers {shape}: " + ", ".join(
            f"batch {p['batch']} {p['median_ms']:.2f} ms" for p in passes), file=sys.stderr)
        del model
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
