#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Prepares, on a Debian 12 machine with network, the build dependencies that a GPU machine without
# network may lack (PCRE2, SQLite and nlohmann-json headers and libraries), unpacked into one
# prefix that scripts/gpu-check.sh takes through DICE_DEPS_PREFIX.
#
#   scripts/gpu-deps-bundle.sh DIR
set -euo pipefail
out="${1:?usage: gpu-deps-bundle.sh DIR}"
mkdir -p "$out/debs"
out="$(cd "$out" && pwd)"
packages=(libpcre2-dev libpcre2-8-0 libpcre2-16-0 libpcre2-32-0 libpcre2-posix3
          libsqlite3-dev libsqlite3-0 nlohmann-json3-dev)
cd "$out/debs"
apt-get download "${packages[@]}"
for deb in *.deb; do
    dpkg -x "$deb" "$out/prefix"
done
rm -rf "$out/debs"
# Static archives, documentation and tools are not needed to build and run: keep the bundle small.
find "$out/prefix" -name '*.a' -delete
rm -rf "$out/prefix/usr/share/doc" "$out/prefix/usr/share/man" "$out/prefix/usr/bin"
# Links become copies: the copy of the working tree that reaches a GPU machine keeps no links.
find "$out/prefix" -type l | while read -r link; do
    target="$(readlink -f "$link")"
    rm "$link"
    if [[ -f "$target" ]]; then
        cp "$target" "$link"
    fi
done
echo "bundle: $out/prefix"
