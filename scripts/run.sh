#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up and builds what is needed, then starts the workbench. Arguments go to the program
# (for example --lang ja).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh" dev
exec "$here/build/dev/bin/dice-workbench" "$@"
