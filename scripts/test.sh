#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up and builds what is needed, then runs the whole test suite with ctest. Exits non-zero
# on any failure. Extra arguments go to ctest (for example -L core, or -LE gpu).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh" dev
cd "$here"
exec ctest --preset dev --parallel 2 "$@"
