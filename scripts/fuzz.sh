#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets (the fuzz preset, clang) and runs each for a while from its seeds
# (tests/fuzz/CMakeLists.txt says where they are), with tests/fuzz/NAME.dict where there is one.
# New inputs go to build/fuzz/corpus/NAME, so the committed seeds stay as they are. A crash, a
# leak, an input slower than 10 s or one that takes more than 2 GiB is written to
# build/fuzz/artifacts/ and fails the run. Prints the executions of each target.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]     (default: 60 seconds, every target)
#
# DICE_FUZZ_JOBS targets run at once (default: one per core).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
"$here/scripts/setup.sh" fuzz
cd "$here"

targets=("$@")
if ((${#targets[@]} == 0)); then
    for binary in build/fuzz/bin/fuzz_*; do
        targets+=("$(basename "$binary")")
    done
fi

mkdir -p build/fuzz/artifacts
rm -f build/fuzz/*.status
# One target per core at a time: libFuzzer runs on one thread.
jobs="${DICE_FUZZ_JOBS:-$(nproc)}"
fuzz_one() {
    local target="$1" name="${1#fuzz_}"
    local seeds="tests/fuzz/corpus/$name"
    if [[ $name == sass_listing ]]; then
        seeds="tests/fixtures/kernel-listings"
    elif [[ $name == ncu_report ]]; then
        seeds="tests/fixtures/ncu"
    fi
    local work="build/fuzz/corpus/$name"
    mkdir -p "$work"
    local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$target-")
    if [[ -f tests/fuzz/$name.dict ]]; then
        options+=(-dict="tests/fuzz/$name.dict")
    fi
    echo "fuzz: $target for $seconds s"
    local status=0
    "build/fuzz/bin/$target" "${options[@]}" "$work" "$seeds" >"build/fuzz/$target.log" 2>&1 ||
        status=$?
    echo "$status" >"build/fuzz/$target.status"
}
running=0
for target in "${targets[@]}"; do
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
done
wait || true

failed=()
summary=()
for target in "${targets[@]}"; do
    log="build/fuzz/$target.log"
    status="$(cat "build/fuzz/$target.status" 2>/dev/null || echo "?")"
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    if [[ $status != 0 ]]; then
        tail -n 40 "$log" >&2
        failed+=("$target")
        summary+=("$target: FAILED (status $status) after ${runs:-?} executions, see $log")
    else
        summary+=("$target: ${runs:-?} executions, no crash")
    fi
done
printf 'fuzz: %s\n' "${summary[@]}"
if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
