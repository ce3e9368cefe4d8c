#!/usr/bin/env bash
# Install the Debian 12 packages tplan needs. Idempotent: installs only
# what is missing; waits for the apt/dpkg lock.
# Usage: scripts/setup.sh [--test]
#   (none)  what building and running tplan needs
#   --test  also the test-only tools (scripts/test.sh runs this itself)
set -euo pipefail

packages=(cmake gcc make pkg-config liblua5.4-dev libsqlite3-dev libcsv-dev libjansson-dev)
# cmocka: the unit tests; jq: JSON checks and the accuracy reports; clang
# and its runtime: the fuzz targets; LibreOffice Calc and python3: the
# spreadsheet test; man-db (groff), zsh: the install test's man page and
# completions; chromium: the headless-browser report test; emscripten:
# the browser page (cmake --build build --target web).
test_packages=(libcmocka-dev jq parallel clang libclang-rt-14-dev sqlite3
               python3 libreoffice-calc-nogui man-db zsh chromium
               emscripten)

[ $# -le 1 ] || { echo "setup: one option at most (usage: scripts/setup.sh [--test])" >&2; exit 2; }
case "${1:-}" in
    "") ;;
    --test) packages+=("${test_packages[@]}") ;;
    *) echo "setup: unknown option '$1' (usage: scripts/setup.sh [--test])" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present"
    exit 0
fi

sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
# DPkg::Lock::Timeout makes apt wait for another apt/dpkg to finish.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
    install -y -qq --no-install-recommends "${missing[@]}"
