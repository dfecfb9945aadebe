#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the screenshots in docs/screenshots/ by running the workbench in a real window on a
# virtual X server (Xvfb). Needs a build (scripts/setup.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$here/build/dev/bin/dice-workbench"
out="$here/docs/screenshots"
mkdir -p "$out"
# A settings folder of its own, so the pictures do not depend on earlier runs.
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
shoot() {
    local name="$1"
    shift
    xvfb-run -a -s "-screen 0 1600x1000x24" "$bin" --screenshot "$out/$name.png" "$@"
    echo "screenshots: $out/$name.png"
}
shoot main-window --lang en --task layer_norm --area generate
shoot main-window-ja --lang ja --task layer_norm --area generate
shoot profile-compile --lang en --task softmax --area profile
