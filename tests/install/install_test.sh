#!/usr/bin/env bash
# Builds the DEB, installs it with apt-get (so its Depends resolve), runs lathe-cli, the
# headless demo and the model-zoo lookup from the installed files, starts the installed lathe
# under Xvfb and waits for its window, then purges the package and checks that none of its
# files is left.
# Needs root (it installs a package); exits 77 (skipped) otherwise.
set -uo pipefail
BUILD="$1"
source "$(dirname "$0")/../integration/assert.sh"
[ "$(id -u)" -eq 0 ] || { echo "install test: needs root, skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export DEBIAN_FRONTEND=noninteractive

(cd "$BUILD" && cpack -G DEB --config CPackConfig.cmake -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1) || { cat "$TMP/cpack.log"; fail "cpack"; }
deb=$(ls "$TMP"/pkg/lathe_*.deb) || fail "no DEB was made"
# grep -q on a variable, not a pipe: with pipefail, a writer killed by SIGPIPE fails the pipeline.
info=$(dpkg-deb -I "$deb") || fail "dpkg-deb -I"
grep -q "Depends: .*libtorch" <<<"$info" || fail "Depends computed from the libraries is missing"
dpkg -s lathe >/dev/null 2>&1 && apt-get purge -y lathe >/dev/null 2>&1 # a leftover of an interrupted run
apt-get install -y "$deb" >"$TMP/apt.log" 2>&1 || { cat "$TMP/apt.log"; fail "apt-get install"; }

expect_contains "$(/usr/bin/lathe-cli --version)" "lathe-cli 0." "installed lathe-cli --version"
[ -f /usr/share/man/man1/lathe-cli.1 ] || fail "man page"
[ -f /usr/share/applications/lathe.desktop ] || fail "desktop entry"
[ -f /usr/share/icons/hicolor/48x48/apps/lathe.png ] || fail "icon"
[ -f /usr/share/doc/lathe/docs/troubleshooting.md ] || fail "documentation"
out=$(XDG_DATA_HOME="$TMP/data" /usr/bin/lathe-cli --json demo --dir "$TMP/demo" --per-class 3 --val-per-class 1 \
  --test-per-class 1) || fail "headless demo from the installed files"
expect_eq "$(json_get 'd["import"]["ok"]' <<<"$out")" "50" "installed demo imported its images"

# The model-zoo catalog: installed by the package where the engine looks for it (share/lathe
# above the executable), so the installed lathe-cli resolves zoo weights by it. Without a
# download the answer is "not downloaded" naming the catalog's file, not "model_zoo.json not found".
grep -qx /usr/share/lathe/model_zoo.json <<<"$(dpkg -L lathe)" || fail "model_zoo.json is not in the package"
models=$(/usr/bin/lathe-cli --json models) || fail "installed lathe-cli models"
expect_eq "$(json_get '"resnet18" in [m["name"] for m in d]' <<<"$models")" "True" "installed lathe-cli models"
/usr/bin/lathe-cli convert "$TMP/demo/fashion-mnist" "$TMP/shards" >/dev/null || fail "installed lathe-cli convert"
zoo=$(XDG_CACHE_HOME="$TMP/cache" LATHE_WEIGHTS_CACHE= LATHE_MODEL_ZOO= /usr/bin/lathe-cli train --data "$TMP/shards" \
  --out "$TMP/zoo-run" --arch resnet18 --weights zoo --epochs 1 2>&1) && fail "training with zoo weights that were never downloaded"
expect_contains "$zoo" "resnet18-f37072fd.pth) are not downloaded" "installed lathe-cli read the installed model zoo"

mkdir -m 700 "$TMP/run"
XDG_RUNTIME_DIR="$TMP/run" XDG_CONFIG_HOME="$TMP/config" QT_QPA_PLATFORM= xvfb-run -a -s '-screen 0 1280x800x24' bash -c '
  /usr/bin/lathe "$1" >"$2/gui.log" 2>&1 &
  pid=$!
  for i in $(seq 1 120); do
    if xwininfo -root -tree | grep "— Lathe\"" >/dev/null; then kill $pid; wait $pid; exit 0; fi
    kill -0 $pid 2>/dev/null || exit 1
    sleep 0.5
  done
  exit 1' _ "$TMP/demo/project" "$TMP" || { cat "$TMP/gui.log"; fail "the installed lathe showed no window"; }

files=$(dpkg -L lathe | while read -r f; do [ -f "$f" ] && echo "$f"; done)
apt-get purge -y lathe >"$TMP/purge.log" 2>&1 || { cat "$TMP/purge.log"; fail "apt-get purge"; }
dpkg -s lathe >/dev/null 2>&1 && fail "the package is still installed"
for f in $files; do
  [ ! -e "$f" ] || fail "$f is left after purge"
done
echo "install test: installed, ran the CLI demo and the GUI, purged; $(wc -w <<<"$files") files removed"
