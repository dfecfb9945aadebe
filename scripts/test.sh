#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up what is needed, builds and runs the tests in stages; exits non-zero on any failure. CI
# runs exactly this (.ci/run).
#
#   scripts/test.sh [CTEST_ARGS...]
#
# The stages, in order (DICE_TEST_STAGES picks some, for example DICE_TEST_STAGES=dev):
#   dev   the dev preset: everything built, the whole suite run with ctest. CTEST_ARGS go to this
#         stage (for example -L core, or -LE gpu).
#   asan  the asan-core preset (AddressSanitizer and UndefinedBehaviorSanitizer, no GUI): the core
#         suites again, but those that only drive Python (their C++ is exercised by the others).
#         Leaks are not reported: the sandboxed worker may not ptrace, which LeakSanitizer needs
#         at exit, and LibTorch keeps its singletons to the end.
#   fuzz  every libFuzzer target (the fuzz preset, clang) for DICE_FUZZ_SECONDS seconds (60) from
#         its seeds (scripts/fuzz.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
stages="${DICE_TEST_STAGES:-dev asan fuzz}"

run_dev() {
    scripts/setup.sh dev
    ctest --preset dev --parallel 2 "$@"
}

run_asan() {
    scripts/setup.sh asan-core
    ctest --preset asan-core --parallel 2 -L core \
        -E '^(tst_kernelbench_import|tst_kernelbench_sandbox|tst_suite_modules|tst_corpus_kernelbench)$'
}

run_fuzz() {
    scripts/fuzz.sh "${DICE_FUZZ_SECONDS:-60}"
}

for s in $stages; do
    case "$s" in
    dev | asan | fuzz) ;;
    *)
        echo "test: unknown stage '$s' (dev, asan, fuzz)" >&2
        exit 2
        ;;
    esac
done
timings=()
for s in $stages; do
    echo "test: stage $s"
    started=$SECONDS
    "run_$s" "$@"
    timings+=("$s $((SECONDS - started)) s")
done
printf 'test: stage %s\n' "${timings[@]}"
