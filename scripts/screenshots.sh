#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the screenshots in docs/screenshots/ by running the workbench in a real window on a
# virtual X server (Xvfb). Needs a build (scripts/setup.sh).
# The Generate and Infill pictures are taken with the embedded model (resources/models/dice-nano).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$here/build/dev/bin"
out="$here/docs/screenshots"
mkdir -p "$out"
# The Japanese pictures need a font with Japanese glyphs, or every character is a box.
if ! fc-list :lang=ja | grep -q .; then
    echo "screenshots: no Japanese font; install one first (apt-get install fonts-noto-cjk)" >&2
    exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Settings and the run store of their own, so the pictures do not depend on earlier runs.
export XDG_CONFIG_HOME="$work/config"
export XDG_DATA_HOME="$work/data"
# A platform left set for headless tests (offscreen) would bound the first window by its small
# screen; the pictures are taken on the virtual X server.
unset QT_QPA_PLATFORM

shoot() {
    local name="$1"
    shift
    xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/dice-workbench" --screenshot "$out/$name.png" "$@"
    echo "screenshots: $out/$name.png"
}
shoot main-window --lang en --task layer_norm --area generate --no-model
shoot main-window-ja --lang ja --task layer_norm --area generate --no-model
shoot generate-live --lang en --task gelu --generate
shoot infill-filled --lang en --task relu --fill

# A kernel with a mistake on line 7, for the diagnostics.
cat >"$work/broken.cu" <<'CU'
// Scale and add, with a typo on line 7.
extern "C" __global__ void scale_add(const float* __restrict__ x, const float* __restrict__ y,
                                     float* __restrict__ out, float alpha, long long n)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = alpha * x[i] + y_[i];
}
CU
shoot profile-diagnostics --lang en --task softmax --area profile --no-model \
    --source "$work/broken.cu"

# Real H200 timings: the GPU machine's self-test result (bench/results) imported into the run
# store, and its matmul evaluation opened from there.
"$bin/dice" runs import "$here/bench/results/selftest-nvidia-h200.json" >"$work/import.txt"
run="$(grep -m1 ': matmul, ' "$work/import.txt" | sed -E 's/^run ([0-9]+):.*/\1/')"
shoot profile-h200 --lang en --task matmul --area profile --no-model --run "$run" --quit-after 4000

# Nsight Compute's counters of a built-in solution, from the GPU machine's result file, where
# there is one (scripts/gpu-check.sh counters).
counters="$(ls "$here"/bench/results/bench-counters-*.json 2>/dev/null | head -n 1)"
if [[ -n "$counters" ]]; then
    shoot profile-counters --lang en --task matmul --area profile --no-model --counters "$counters"
fi

# Fine-tune, following a BiC-RL run folder: by default the CPU demo run kept in docs/runs
# (DICE_RL_RUN names another, such as a run copied back from a GPU server), compared with the
# short run of the test fixture.
# Folders relative to the repository, so that no machine's path shows in the pictures.
cd "$here"
rl_run="${DICE_RL_RUN:-docs/runs/cpu-demo}"
rl_compare="${DICE_RL_COMPARE:-tests/fixtures/rl-run}"
rl_step="${DICE_RL_STEP:-6}"
shoot finetune-setup --lang en --area finetune --no-model --rl-run "$rl_run" --rl-page setup \
    --quit-after 2500
shoot finetune-curves --lang en --area finetune --no-model --rl-run "$rl_run" \
    --rl-compare "$rl_compare" --rl-page curves --quit-after 4000
shoot finetune-rollouts --lang en --area finetune --no-model --rl-run "$rl_run" \
    --rl-page rollouts --rl-step "$rl_step" --quit-after 5000
shoot finetune-checkpoints --lang en --area finetune --no-model --rl-run "$rl_run" \
    --rl-page checkpoints --quit-after 2500
shoot finetune-ja --lang ja --area finetune --no-model --rl-run "$rl_run" --rl-page curves \
    --quit-after 4000
