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
# nccl.h for c10d's NCCL process group (docs/distributed.md): PyTorch's wheel takes NCCL from the
# nvidia-nccl package.
nccl_hints="$("$python" -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0] + "/include")' 2>/dev/null || true)"

build="$here/build/gpu"
cmake -S "$here" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DDICE_GUI=OFF -DDICE_CUDA=ON -DDICE_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$prefix_path" \
    -DCMAKE_LIBRARY_PATH="${library_path:-}" \
    -DDICE_CUPTI_HINTS="$cupti_hints" \
    -DDICE_NCCL_HINTS="$nccl_hints"
cmake --build "$build" --target dice dice-evald

dice="$build/bin/dice"
device="$("$dice" info --json | "$python" -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print((d[0]["name"] if d else "cpu").lower().replace(" ", "-"))')"
# The model self-test compares the engine with transformers' logits in this fixture.
export DICE_QWEN3_FIXTURE="$here/tests/fixtures/qwen3-tiny"
# Result files record the command that made them; run from the output folder so that it names
# files, not folders of this machine.
cd "$out"
status=0

# The embedded model's corpus (docs/dice-nano.md) in the current folder, made again when the
# arguments it was made with differ. NANO_SYNTH_ARGS adds arguments of `dice data synth` (say
# --tree-variants 240 --vary-kernelbench-surface) and NANO_CORPUS_LABEL then names the result
# files made from that corpus; training and evaluation must see the same corpus, so both read it
# here.
corpus_label="${NANO_CORPUS_LABEL:+-$NANO_CORPUS_LABEL}"
synth_corpus() {
    local args=(--seed 1 --variants 24 --kernelbench-style)
    read -r -a more <<<"${NANO_SYNTH_ARGS:-}"
    args+=("${more[@]}")
    if [[ -f corpus/corpus.jsonl && "$(cat corpus/synth-args 2>/dev/null)" == "${args[*]}" ]]; then
        return 0
    fi
    # A curation of the corpus made before is not this one's.
    rm -rf corpus curation.json
    "$dice" data synth --output corpus "${args[@]}" --python "$python" || return 1
    echo "${args[*]}" >corpus/synth-args
}

# KernelBench's problems: $KERNELBENCH_DIR, else ../shared/data/kernelbench beside the checkout,
# else shared/ inside it.
kernelbench_dir() {
    local kb="${KERNELBENCH_DIR:-$here/../shared/data/kernelbench}"
    [[ -d "$kb" ]] || kb="$here/shared/data/kernelbench"
    echo "$kb"
}

for step in "${steps[@]}"; do
    case "$step" in
    selftest)
        "$dice" info
        "$dice" selftest --output "selftest-$device.json" || status=1
        ;;
    bench-reward)
        # BENCH_REWARD_CANDIDATES asks fewer than an RL step's 1,024 and BENCH_REWARD_ALONE=0 skips
        # the one-by-one agreement pass, when a call's time is short; BENCH_REWARD_ALONE_WORKERS
        # gives that pass several workers. BENCH_REWARD_FAST_COMPILE (min, mid, max) builds with
        # fewer optimisations and BENCH_REWARD_PRESET=small judges at the small sizes, each into a
        # result file of its own. BENCH_REWARD_ARGS adds options of `dice bench reward` (--workers,
        # --compile-threads, --no-spare-workers, --longest-first) and BENCH_REWARD_PART names
        # the file of such a run.
        # shellcheck disable=SC2206
        more=(${BENCH_REWARD_ARGS:-})
        part="${BENCH_REWARD_PART:+-$BENCH_REWARD_PART}"
        [[ -n "${BENCH_REWARD_CANDIDATES:-}" ]] && more+=(--candidates "$BENCH_REWARD_CANDIDATES")
        [[ "${BENCH_REWARD_ALONE:-1}" == 0 ]] && more+=(--no-alone)
        [[ -n "${BENCH_REWARD_ALONE_WORKERS:-}" ]] &&
            more+=(--alone-workers "$BENCH_REWARD_ALONE_WORKERS")
        if [[ -n "${BENCH_REWARD_FAST_COMPILE:-}" ]]; then
            more+=(--fast-compile "$BENCH_REWARD_FAST_COMPILE")
            part+="-fast-compile-$BENCH_REWARD_FAST_COMPILE"
        fi
        if [[ -n "${BENCH_REWARD_PRESET:-}" ]]; then
            more+=(--preset "$BENCH_REWARD_PRESET")
            [[ "$BENCH_REWARD_PRESET" == bench ]] || part+="-$BENCH_REWARD_PRESET"
        fi
        "$dice" bench reward "${more[@]}" --output "bench-reward$part-$device.json" || status=1
        ;;
    sandbox-probe)
        # Which layer of a KernelBench answer's sandbox CUDA needs (docs/sandbox.md): the policy
        # as configured and with one thing changed at a time.
        "$python" "$here/bench/sandbox_cuda_probe.py" --sandbox "$build/bin/dice-sandbox" \
            --output "sandbox-cuda-probe-$device.json" || status=1
        ;;
    counters)
        # Nsight Compute's counters of the built-in solutions and their references, with ncu's
        # raw pages beside them (the parser's fixtures come from such pages).
        "$dice" bench counters --keep-pages "counters-pages-$device" \
            --output "bench-counters-$device.json" || status=1
        ;;
    bench-eval)
        # BENCH_EVAL_ARGS adds options (--sandbox-cost-only, --sandbox-rounds N) when a call's
        # time is short; the file is written after each part. BENCH_EVAL_PART names a partial
        # run's file so that it does not replace the full run's.
        # shellcheck disable=SC2086
        "$python" "$here/bench/eval_bench.py" --dice "$dice" ${BENCH_EVAL_ARGS:-} \
            --output "bench-eval${BENCH_EVAL_PART:+-$BENCH_EVAL_PART}-$device.json" || status=1
        ;;
    kernelbench-import | kernelbench-agreement | bench-reward-kernelbench)
        # Result files record relative paths only.
        kb="$(kernelbench_dir)"
        if [[ ! -d "$kb/level1" ]]; then
            echo "gpu-check: $step needs the KernelBench problems (set KERNELBENCH_DIR)" >&2
            status=1
            continue
        fi
        # Links in the output folder keep the recorded commands free of this machine's paths.
        ln -sfn "$(cd "$kb" && pwd)" kernelbench-problems
        ln -sfn "$here/bench/kernelbench_solutions" kernelbench-solutions
        if [[ "$step" == bench-reward-kernelbench ]]; then
            # 64 answers made from the solutions, built in parallel, against one build at a time.
            "$dice" bench reward --kernelbench kernelbench-solutions \
                --problems kernelbench-problems --candidates "${KB_REWARD_ANSWERS:-64}" \
                --build-threads "$(nproc)" --output "bench-reward-kernelbench-$device.json" ||
                status=1
        elif [[ "$step" == kernelbench-import ]]; then
            # Every converted reference against the original Model at the bench sizes, levels 1 to
            # 3 (KB_LEVELS picks some).
            for level in ${KB_LEVELS:-1 2 3}; do
                "$dice" import kernelbench --verify-bench --fast-init --device cuda \
                    --python "$python" --report "kernelbench-import-level$level-$device.json" \
                    "kernelbench-problems/level$level" || status=1
            done
        else
            # KB_AGREEMENT_LEVEL takes one level's solutions, when a call's time is short.
            agreement=(--output "kernelbench-agreement-$device.json")
            if [[ -n "${KB_AGREEMENT_LEVEL:-}" ]]; then
                agreement=(--level "$KB_AGREEMENT_LEVEL"
                    --output "kernelbench-agreement-level$KB_AGREEMENT_LEVEL-$device.json")
            fi
            "$dice" kernelbench agreement --python "$python" --work kernelbench-work \
                --solutions kernelbench-solutions --problems kernelbench-problems \
                "${agreement[@]}" || status=1
        fi
        ;;
    bench-rl)
        # One BiC-RL step at the 1.7B shape with random weights: 64 tasks x 16 rollouts of up to
        # 1,024 tokens by default; BENCH_RL_TASKS asks fewer tasks (a part of the step, when a
        # call's time is short).
        "$dice" bench rl --shape 1.7b --tasks "${BENCH_RL_TASKS:-64}" \
            --output "bench-rl-1.7b-$device.json" || status=1
        ;;
    rl-ranks)
        # Data-parallel BiC-RL (docs/distributed.md): the same two steps of the embedded model in
        # one process, as one NCCL rank, and, with several GPUs, as one rank per GPU; the result
        # file holds each run's metrics and whether the rollouts and weights agree. Judged at the
        # small preset: the bench preset of the largest built-in tasks does not fit beside the
        # trainer on an 80 GB GPU, and a run whose every reward is equal updates nothing. At
        # temperature 1 the embedded model answers these four tasks the same way every time, and
        # their answers run 376-413 tokens: 1.8 and 448 give groups that differ.
        work="$out/rl-ranks"
        rm -rf "$work"
        mkdir -p "$work"
        gpus="$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)"
        "$python" - "$work/rl.json" <<'PY'
import json, sys
json.dump({"model": "embedded", "device": "cuda", "seed": 3,
           "phases": [{"kind": "end_to_end", "steps": 2,
                       "data": {"tasks": "builtin", "names": ["relu", "silu", "gelu", "tanh"]}}],
           "tasks_per_step": 4, "rollouts_per_task": 8,
           "rollout": {"max_tokens": 448, "batch": 32, "temperature": 1.8},
           "reward": {"mode": "correctness", "preset": "small"},
           "judge": {"devices": [0, 0], "compile_threads": 4},
           "optimizer": {"learning_rate": 1e-5, "micro_batch": 1, "accumulation": 2},
           "eval": {"every": 0}, "save_every": 1}, open(sys.argv[1], "w"), indent=1)
PY
        runs=("one" "nccl-1")
        (cd "$work" && "$dice" train rl --config rl.json --output one) || status=1
        (cd "$work" && WORLD_SIZE=1 RANK=0 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29517 \
            "$dice" train rl --config rl.json --output nccl-1) || status=1
        if ((gpus >= 2)); then
            runs+=("nccl-$gpus")
            (cd "$work" && "$dice" train rl --config rl.json --output "nccl-$gpus" \
                --nproc "$gpus") || status=1
        fi
        "$dice" info --json >"$work/info.json"
        "$python" "$here/bench/rl_ranks_report.py" "$work" "rl-ranks-$device.json" "${runs[@]}" ||
            status=1
        ;;
    bench-rl-ranks)
        # The RL step's scaling over this host's GPUs (docs/distributed.md): the bench-rl step at
        # 1, 2, 4 ... ranks up to every GPU, one result file per count.
        gpus="$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)"
        for ((n = 1; n <= gpus; n *= 2)); do
            "$dice" bench rl --shape "${BENCH_RL_SHAPE:-1.7b}" --tasks "${BENCH_RL_TASKS:-64}" \
                --nproc "$n" --output "bench-rl-${BENCH_RL_SHAPE:-1.7b}-${n}gpu-$device.json" ||
                status=1
        done
        ;;
    bench-rollout)
        # RL's sampling workload at the 4B shape: rollouts of uneven prompts (200-2,000 tokens)
        # and answers (256-4,096), fixed batches of 128 against a continuous pool of 128 rows.
        # BENCH_ROLLOUTS asks fewer than the step's 1,024 when a call's time is short;
        # BENCH_ROLLOUT_ARGS adds options of `dice bench rollout` (--only continuous,
        # --fused-sampling, --answer-tokens A:B, --page-tokens N --cache-tokens N) and
        # BENCH_ROLLOUT_PART names the file of such a run. 128 contiguous rows of 6,096 positions
        # take 115 GB of cache at 4B: on an 80 GB card only a paged cache of fewer positions fits.
        # shellcheck disable=SC2206
        more=(${BENCH_ROLLOUT_ARGS:-})
        part="${BENCH_ROLLOUT_PART:+-$BENCH_ROLLOUT_PART}"
        "$dice" bench rollout --shape 4b --rollouts "${BENCH_ROLLOUTS:-1024}" --batch 128 \
            "${more[@]}" --output "bench-rollout-4b$part-$device.json" || status=1
        ;;
    bench-model)
        # Random weights in the 1.7B, 4B and 8B shapes, bf16, batch 1 and 16, beside
        # transformers' Qwen3 (bench/hf_qwen3_bench.py) and the weight-streaming bound.
        "$dice" bench model --output "bench-model-$device.json" || status=1
        ;;
    bench-model-*)
        # One shape per result file: bench-model-8b, bench-model-4b, bench-model-1.7b.
        shape="${step#bench-model-}"
        "$dice" bench model --shapes "$shape" --output "bench-model-$shape-$device.json" ||
            status=1
        ;;
    sass-fixtures)
        # The golden files of the PTX line map and the SASS parser: NVRTC's PTX of kern.cu and
        # what nvdisasm and cuobjdump print for its cubins, to be copied over the committed ones
        # (tests/fixtures/kernel-listings/README.md).
        PYTHON="$python" "$here/scripts/kernel-listings.sh" "$dice" kernel-listings || status=1
        ;;
    build)
        # Only the build above: for a command that runs the programs itself.
        ;;
    rl-nano)
        # BiC-RL of the embedded model on its own corpus (bench/rl-nano.json): both phases on the
        # training split, held-out variants evaluated every 5 steps. RL_NANO_SECONDS ends the run
        # after the step in progress at that many seconds (a STOP file, as the Fine-tune area
        # stops a run). The result file holds the command, the machine, the configuration, every
        # step's metrics and every evaluation; the run folder comes back without its weights.
        work="$here/build/nano"
        mkdir -p "$work"
        (
            cd "$work"
            synth_corpus
            rm -rf rl-nano
            cp "$here/bench/rl-nano.json" rl-nano.json
            mkdir -p rl-nano
            timer=""
            if [[ -n "${RL_NANO_SECONDS:-}" ]]; then
                (sleep "$RL_NANO_SECONDS" && touch rl-nano/STOP) &
                timer=$!
            fi
            command=(dice train rl --config rl-nano.json --output rl-nano)
            rc=0
            "$dice" "${command[@]:1}" 2>&1 | tee rl-nano/trainer.log || rc=1
            [[ -z "$timer" ]] || kill "$timer" 2>/dev/null || true
            "$dice" info --json >info.json
            "$python" - "$out/rl-nano-$device.json" "${command[*]}" <<'PY'
import json, sys
def lines(path):
    try:
        return [json.loads(l) for l in open(path) if l.strip()]
    except FileNotFoundError:
        return []
report = {
    "kind": "rl-nano",
    "command": sys.argv[2],
    "system": json.load(open("info.json")),
    "config": json.load(open("rl-nano/config.json")),
    "status": json.load(open("rl-nano/status.json")),
    "metrics": lines("rl-nano/metrics.jsonl"),
    "eval": lines("rl-nano/eval.jsonl"),
}
report["status"].pop("pid", None)
report["status"].pop("host", None)
json.dump(report, open(sys.argv[1], "w"), indent=1)
PY
            tar -czf "$out/rl-nano-run-$device.tar.gz" --exclude='*.safetensors' \
                --exclude='rl-nano/model' rl-nano
            exit $rc
        ) || status=1
        ;;
    nano-curate | nano-train | nano-eval)
        # The embedded model (docs/dice-nano.md): its corpus and the curation of it, its training,
        # and its evaluation. Corpora, runs and answers stay in build/nano; the result files go to
        # OUTDIR.
        work="$here/build/nano"
        mkdir -p "$work"
        ln -sfn "$here/resources/models/dice-nano" "$work/dice-nano"
        ln -sfn "$here/bench/nano_eval.py" "$work/nano_eval.py"
        # The subshell's status is tested, so errexit does not hold in it: each command that
        # must not fail says so.
        (
            cd "$work" || exit 1
            # The evaluation of the built-in tasks and of KernelBench's problems alone needs no
            # corpus, whose synthesis takes most of a minute.
            corpus_sets="${NANO_EVAL_SETS:-heldout-variant}"
            corpus_sets="${corpus_sets//builtin-infill/}"
            corpus_sets="${corpus_sets//builtin/}"
            corpus_sets="${corpus_sets//kernelbench-level1/}"
            if [[ "$step" != nano-eval || -n "${corpus_sets//[[:space:]]/}" ]]; then
                synth_corpus || exit 1
            fi
            case "$step" in
            nano-curate)
                # The threshold: kernels at least as fast as eager PyTorch within the timing's
                # noise (docs/dice-nano.md says why not the paper's 2x). NANO_MEASUREMENTS names
                # an earlier report of this corpus whose measurements are taken again. The
                # correctness pass runs on NANO_CHECK_WORKERS workers; the timings on one.
                rm -rf curated
                report="nano-curation$corpus_label-$device.json"
                from=()
                if [[ -n "${NANO_MEASUREMENTS:-}" ]]; then
                    cp "$NANO_MEASUREMENTS" measurements.json
                    from=(--from measurements.json)
                    report="nano-curation-rethreshold$corpus_label-$device.json"
                fi
                "$dice" data curate --corpus corpus --output curated \
                    --threshold "${NANO_THRESHOLD:-0.9}" --devices 0 \
                    --check-workers "${NANO_CHECK_WORKERS:-4}" "${from[@]}" \
                    --report "$report" || exit 1
                cp "$report" "$out/"
                cp "$report" curation.json
                ;;
            nano-train)
                # The curated corpus and the built-in tasks' own examples (the demo a teacher
                # tries first; docs/dice-nano.md), the latter NANO_BUILTIN_REPEAT times: 115
                # examples among some 2,100 were seen too seldom to be written back whole. The
                # tokenizer is trained on both (NANO_TOKENIZER=shipped keeps the embedded one):
                # the built-in solutions' words cost about a third more tokens in the corpus's
                # vocabulary. 4,096 tokens, the model's context, keep all but the longest
                # built-in examples. At 4,096 the 3,000 steps may take more than one call:
                # NANO_RESUME=1 goes on from the run's last checkpoint (one every 500 steps).
                # NANO_INIT=shipped trains on from the embedded model's weights, with its
                # tokenizer (NANO_LR, 1e-3 by default, is then better lower), instead of from
                # random weights: more passes over the data for the same device time.
                [[ "${NANO_RESUME:-0}" == 1 ]] || rm -rf run
                "$dice" data builtin --output builtin.jsonl --text builtin-text.txt || exit 1
                tokenizer="dice-nano/tokenizer.json"
                shape=(--size "${NANO_SIZE:-nano}")
                if [[ "${NANO_INIT:-}" == shipped ]]; then
                    shape=(--init dice-nano)
                elif [[ "${NANO_TOKENIZER:-train}" == train ]]; then
                    tokenizer=tokenizer.json
                    if [[ "${NANO_RESUME:-0}" != 1 ]]; then
                        "$dice" tokenizer train --corpus corpus/tokenizer-text.txt builtin-text.txt \
                            --vocab-size 4096 --output "$tokenizer" || exit 1
                    fi
                fi
                cp curated/corpus.jsonl train.jsonl
                for ((copy = 0; copy < ${NANO_BUILTIN_REPEAT:-8}; ++copy)); do
                    cat builtin.jsonl >>train.jsonl
                done
                "$dice" train sft --corpus train.jsonl --tokenizer "$tokenizer" \
                    --output run "${shape[@]}" --steps "${NANO_STEPS:-3000}" --batch 32 \
                    --max-length "${NANO_MAX_LENGTH:-4096}" --block 4 \
                    --lr "${NANO_LR:-1e-3}" --warmup 150 --eval-every 250 --save-every 500 \
                    --device cuda ||
                    exit 1
                cp run/metrics.jsonl "$out/dice-nano-train-metrics$corpus_label-$device.jsonl"
                tar -czf "$out/dice-nano-model.tar.gz" -C run model
                ;;
            nano-eval)
                # The curation of this session, else the committed one the embedded model was
                # trained on (the re-thresholded one where there is one); the model just trained
                # (NANO_MODEL=run/model), else the embedded one. NANO_EVAL_LABEL goes into the
                # result files' names, so that two models' evaluations on one machine both stay.
                if [[ ! -f curation.json ]]; then
                    committed="$here/bench/results/nano-curation-rethreshold$corpus_label-$device.json"
                    [[ -f "$committed" ]] ||
                        committed="$here/bench/results/nano-curation$corpus_label-$device.json"
                    cp "$committed" curation.json
                fi
                model="${NANO_MODEL:-dice-nano}"
                label="${NANO_EVAL_LABEL:+-$NANO_EVAL_LABEL}"
                # This run's result files, named by set; only they are copied out, so that an
                # earlier run's, with another label, stay here. NANO_EVAL_SETS picks some sets,
                # for a call whose time is short.
                all_sets="builtin builtin-infill heldout-variant heldout-composition
                    heldout-primitive heldout-family infill-heldout-variant
                    kernelbench-style-heldout-variant kernelbench-level1"
                read -r -d '' -a sets <<<"${NANO_EVAL_SETS:-$all_sets}" || true
                named() { echo "nano-eval-$1$label-$device.json"; }
                # One evaluation that fails does not stop the others; the step fails.
                failed=0
                evaluate() {
                    local set="$1"
                    shift
                    rm -rf "eval-$set"
                    rm -f "$(named "$set")"
                    "$python" nano_eval.py --dice "$dice" --model "$model" --work "eval-$set" \
                        --output "$(named "$set")" "$@" || failed=1
                    [[ ! -f "$(named "$set")" ]] || cp "$(named "$set")" "$out/"
                }
                for one in "${sets[@]}"; do
                    case "$one" in
                    builtin)
                        # The product's own 46 tasks, which a teacher tries first.
                        evaluate "$one" --tasks "$here/resources/tasks" --limit 100
                        ;;
                    builtin-infill)
                        evaluate "$one" --tasks "$here/resources/tasks" --kind infill --limit 100
                        ;;
                    heldout-variant)
                        evaluate "$one" --corpus corpus --curation curation.json \
                            --split heldout_variant --limit 24
                        ;;
                    heldout-composition | heldout-primitive)
                        # The expression trees held out by composition and by primitive.
                        evaluate "$one" --corpus corpus --split "${one//-/_}" --limit 24
                        ;;
                    heldout-family)
                        evaluate "$one" --corpus corpus --split heldout_family --limit 10
                        ;;
                    infill-heldout-variant)
                        evaluate "$one" --corpus corpus --curation curation.json \
                            --split heldout_variant --kind infill --limit 24 --max-tokens 512
                        ;;
                    kernelbench-style-heldout-variant)
                        # The same held-out variants asked as imported KernelBench problems,
                        # where the corpus has them (dice data synth --kernelbench-style).
                        if grep -q '"style":"kernelbench"' corpus/corpus.jsonl; then
                            evaluate "$one" --corpus corpus --split heldout_variant \
                                --style kernelbench --limit 24
                        fi
                        ;;
                    kernelbench-level1)
                        kb="$(kernelbench_dir)"
                        [[ -d "$kb/level1" ]] || continue
                        rm -rf kernelbench-covered kernelbench-level1
                        mkdir -p kernelbench-covered
                        grep -v '^#' "$here/bench/nano_kernelbench_level1.txt" |
                            while read -r _ problem; do
                                ln -sfn "$(cd "$kb/level1" && pwd)/$problem" \
                                    "kernelbench-covered/$problem"
                            done
                        "$dice" import kernelbench kernelbench-covered --level 1 \
                            --python "$python" --output kernelbench-level1 || failed=1
                        evaluate "$one" --tasks kernelbench-level1 --limit 100
                        ;;
                    *)
                        echo "gpu-check: unknown nano-eval set '$one'" >&2
                        failed=1
                        ;;
                    esac
                done
                exit "$failed"
                ;;
            esac
        ) || status=1
        ;;
    *)
        echo "gpu-check: unknown step '$step'" >&2
        status=2
        ;;
    esac
done
exit $status
