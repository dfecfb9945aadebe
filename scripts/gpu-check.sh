#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU check. On a CUDA machine with a CUDA PyTorch but no Qt: builds core, the CLI and the
# worker against PyTorch's LibTorch, runs `dice selftest` and the benchmarks, and writes their
# result files (JSON with the command, GPU, driver, CUDA and LibTorch versions) to OUTDIR.
#
#   scripts/gpu-check.sh [OUTDIR] [STEP...]
#
# OUTDIR defaults to bench/results. STEPs default to all of them: selftest, then every benchmark
# this version has. DICE_DEPS_PREFIX names a prefix of build dependencies prepared by
# scripts/gpu-deps-bundle.sh when the machine lacks them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/bench/results}"
shift || true
steps=("$@")
if ((${#steps[@]} == 0)); then
    steps=(selftest bench-model)
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

python="${PYTHON:-python3}"
torch_prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
prefix_path="$torch_prefix"
if [[ -n "${DICE_DEPS_PREFIX:-}" ]]; then
    deps="$(cd "$DICE_DEPS_PREFIX" && pwd)"
    prefix_path="$deps/usr;$prefix_path"
    export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # A compiler built without multiarch does not look in lib/x86_64-linux-gnu by itself.
    library_path="$deps/usr/lib/x86_64-linux-gnu"
fi
cupti_hints="$("$python" -c 'import nvidia.cuda_cupti, os; d=os.path.dirname(nvidia.cuda_cupti.__file__); print(d + "/lib;" + d + "/include")' 2>/dev/null || true)"

build="$here/build/gpu"
cmake -S "$here" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DDICE_GUI=OFF -DDICE_CUDA=ON -DDICE_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$prefix_path" \
    -DCMAKE_LIBRARY_PATH="${library_path:-}" \
    -DDICE_CUPTI_HINTS="$cupti_hints"
cmake --build "$build" --target dice dice-evald

dice="$build/bin/dice"
device="$("$dice" info --json | "$python" -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print((d[0]["name"] if d else "cpu").lower().replace(" ", "-"))')"
# The model self-test compares the engine with transformers' logits in this fixture.
export DICE_QWEN3_FIXTURE="$here/tests/fixtures/qwen3-tiny"
# Result files record the command that made them; run from the output folder so that it names
# files, not folders of this machine.
cd "$out"
status=0
for step in "${steps[@]}"; do
    case "$step" in
    selftest)
        "$dice" info
        "$dice" selftest --output "selftest-$device.json" || status=1
        ;;
    bench-eval)
        "$python" "$here/bench/eval_bench.py" --dice "$dice" \
            --output "bench-eval-$device.json" || status=1
        ;;
    kernelbench-import | bench-kernelbench)
        # KernelBench's problems: ../shared/data/kernelbench beside the checkout, shared/ inside
        # it, or $KERNELBENCH_DIR. Result files record relative paths only.
        kb="${KERNELBENCH_DIR:-$here/../shared/data/kernelbench}"
        [[ -d "$kb" ]] || kb="$here/shared/data/kernelbench"
        if [[ ! -d "$kb/level1" ]]; then
            echo "gpu-check: $step needs the KernelBench problems (set KERNELBENCH_DIR)" >&2
            status=1
            continue
        fi
        # Links in the output folder keep the recorded commands free of this machine's paths.
        ln -sfn "$(cd "$kb" && pwd)" kernelbench-problems
        ln -sfn "$here/bench/kernelbench_solutions" kernelbench-solutions
        if [[ "$step" == kernelbench-import ]]; then
            # Every converted reference against the original Model at the bench sizes.
            for level in 1 2; do
                "$dice" import kernelbench --verify-bench --fast-init --device cuda \
                    --python "$python" --report "kernelbench-import-level$level-$device.json" \
                    "kernelbench-problems/level$level" || status=1
            done
        else
            "$dice" kernelbench bench --python "$python" --work kernelbench-work \
                --solutions kernelbench-solutions --problems kernelbench-problems \
                --output "bench-kernelbench-$device.json" || status=1
        fi
        ;;
    bench-model)
        # Random weights in the 1.7B, 4B and 8B shapes, bf16, batch 1 and 16, beside
        # transformers' Qwen3 (bench/hf_qwen3_bench.py) and the weight-streaming bound.
        "$dice" bench model --output "bench-model-$device.json" || status=1
        ;;
    *)
        echo "gpu-check: unknown step '$step'" >&2
        status=2
        ;;
    esac
done
exit $status
