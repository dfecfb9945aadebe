#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The golden files of tests/fixtures/kernel-listings (README.md there): the PTX that NVRTC makes of
# kern.cu and, where the CUDA toolkit's nvdisasm and cuobjdump are found, what they print for its
# cubins.
#
#   scripts/kernel-listings.sh DICE OUTDIR
#
# DICE is the dice program to compile with. NVRTC puts its working folder in front of the file
# name in the line tables, so the compiles run from / under the name kern.cu: the listings then
# name /kern.cu on every machine. The tools are looked for on the PATH, in $CUDA_HOME/bin or
# /usr/local/cuda/bin, and in the copy Triton bundles.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (($# != 2)); then
    echo "usage: scripts/kernel-listings.sh DICE OUTDIR" >&2
    exit 2
fi
dice="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
source="$here/tests/fixtures/kernel-listings/kern.cu"
[[ "$out/kern.cu" -ef "$source" ]] || cp "$source" "$out/kern.cu"

compile() {
    (cd / && "$dice" compile "$out/kern.cu" --name kern.cu --arch sm_90 "$@")
}
compile --write-ptx "$out/kern.ptx" --write-cubin "$out/kern-lineinfo.cubin" >/dev/null
compile --no-line-info --write-cubin "$out/kern-plain.cubin" >/dev/null
trap 'rm -f "$out/kern-lineinfo.cubin" "$out/kern-plain.cubin"' EXIT

folders=("${CUDA_HOME:-/usr/local/cuda}/bin")
if command -v nvdisasm >/dev/null; then
    folders=("$(dirname "$(command -v nvdisasm)")" "${folders[@]}")
fi
folders+=("$("${PYTHON:-python3}" -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin"))' 2>/dev/null || true)")
tools=""
for dir in "${folders[@]}"; do
    if [[ -n "$dir" && -x "$dir/nvdisasm" && -x "$dir/cuobjdump" ]]; then
        tools="$(cd "$dir" && pwd)"
        break
    fi
done
if [[ -z "$tools" ]]; then
    echo "kernel-listings: no nvdisasm and cuobjdump were found; only kern.ptx was written" >&2
    exit 1
fi
export PATH="$tools:$PATH"
cd "$out"
{
    nvdisasm --version
    cuobjdump --version
    compile --json | "${PYTHON:-python3}" -c 'import json, sys; print("NVRTC", json.load(sys.stdin)["nvrtc"])'
} >versions.txt
nvdisasm -c -g kern-lineinfo.cubin >nvdisasm-c-g.txt
nvdisasm -c -gi kern-lineinfo.cubin >nvdisasm-c-gi.txt
nvdisasm -c kern-plain.cubin >nvdisasm-c-plain.txt
nvdisasm -c -g -hex kern-lineinfo.cubin >nvdisasm-c-g-hex.txt
cuobjdump --dump-sass kern-lineinfo.cubin >cuobjdump-sass.txt
# The workbench's own way through the same tools, for the log.
compile --sass
