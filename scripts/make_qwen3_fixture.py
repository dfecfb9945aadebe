#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds the parity fixture tests/fixtures/qwen3-tiny with Hugging Face transformers.

A small random Qwen3 network (vocabulary 384, hidden 64, 2 layers, 4 heads over 2 key/value
heads of 16, untied lm_head, randomised q/k norms) is saved with save_pretrained (safetensors),
and its float32 logits for fixed inputs are recorded in expected.safetensors:

  tokens                [2, 13] int64
  causal_logits         [2, 13, 384]  positions 0..12, causal mask
  offset_positions      [2, 13] int64 positions 7..19
  offset_logits         [2, 13, 384]  those positions, causal mask
  block_mask            [2, 1, 13, 13] bool, block-causal in blocks of 4 (true: may attend)
  block_logits          [2, 13, 384]  positions 0..12 under block_mask

tst_model_parity loads the folder with the workbench's engine and compares. CPU execution is
enough; run it where transformers (5.x) and PyTorch are installed:

  python3 scripts/make_qwen3_fixture.py [OUTDIR]
"""
import os
import sys

import torch
from safetensors.torch import save_file
from transformers import Qwen3Config, Qwen3ForCausalLM

BLOCK = 4


def additive(mask_bool, dtype):
    # transformers uses a custom 4-D mask as given and adds it to the scores in eager attention.
    zero = torch.zeros(mask_bool.shape, dtype=dtype)
    return zero.masked_fill(~mask_bool, torch.finfo(dtype).min)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures", "qwen3-tiny")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(20260214)
    config = Qwen3Config(
        vocab_size=384,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=256,
        rope_theta=10000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        attention_bias=False,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    config._attn_implementation = "eager"
    model = Qwen3ForCausalLM(config).to(torch.float32).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.3 * torch.randn_like(p))
            else:
                p.copy_(0.12 * torch.randn_like(p))
    model.save_pretrained(out, safe_serialization=True)

    batch, length = 2, 13
    tokens = torch.randint(0, config.vocab_size, (batch, length), dtype=torch.int64)
    positions = torch.arange(length, dtype=torch.int64).unsqueeze(0).expand(batch, length).contiguous()
    idx = torch.arange(length)
    causal = (idx.unsqueeze(0) <= idx.unsqueeze(1)).expand(batch, 1, length, length)
    block = (idx // BLOCK).unsqueeze(0) <= (idx // BLOCK).unsqueeze(1)
    block_mask = block.expand(batch, 1, length, length).contiguous()

    with torch.no_grad():
        causal_logits = model(input_ids=tokens, position_ids=positions).logits.float()
        explicit = model(input_ids=tokens, position_ids=positions,
                         attention_mask=additive(causal, torch.float32)).logits.float()
        # The 4-D mask path must agree with transformers' own causal mask, else it is ignored.
        assert torch.allclose(causal_logits, explicit, atol=1e-6), "4-D mask not honoured"
        offset_positions = positions + 7
        offset_logits = model(input_ids=tokens, position_ids=offset_positions).logits.float()
        block_logits = model(input_ids=tokens, position_ids=positions,
                             attention_mask=additive(block_mask, torch.float32)).logits.float()
    assert not torch.allclose(block_logits, causal_logits), "block mask changed nothing"

    save_file({
        "tokens": tokens,
        "causal_logits": causal_logits.contiguous(),
        "offset_positions": offset_positions.contiguous(),
        "offset_logits": offset_logits.contiguous(),
        "block_mask": block_mask,
        "block_logits": block_logits.contiguous(),
    }, os.path.join(out, "expected.safetensors"), metadata={
        "transformers": __import__("transformers").__version__,
        "torch": torch.__version__,
    })
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print(f"fixture written to {out}: {total} bytes")


if __name__ == "__main__":
    main()
