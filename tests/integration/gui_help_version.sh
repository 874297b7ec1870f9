#!/usr/bin/env bash
# `lathe --help` and `lathe --version` answer in a terminal without a display (no X server, no
# Wayland, no QT_QPA_PLATFORM): they print and exit 0 before the GUI starts; an unknown option
# exits 1 with the reason.
set -uo pipefail
LATHE="$1"
VERSION="$2"
source "$(dirname "$0")/assert.sh"
headless() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$LATHE" "$@" 2>&1; }

out=$(headless --help); rc=$?
expect_eq "$rc" 0 "lathe --help exit status"
expect_contains "$out" "Usage:" "lathe --help"
expect_contains "$out" "--demo" "lathe --help"
expect_contains "$out" "--language <LOCALE>" "lathe --help"
expect_contains "$out" "project" "lathe --help"

out=$(headless --version); rc=$?
expect_eq "$rc" 0 "lathe --version exit status"
expect_contains "$out" "lathe $VERSION" "lathe --version"

out=$(headless --no-such-option); rc=$?
expect_eq "$rc" 1 "lathe --no-such-option exit status"
expect_contains "$out" "no-such-option" "lathe --no-such-option"
echo "ok"
