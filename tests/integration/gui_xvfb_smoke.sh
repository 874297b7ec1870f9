#!/usr/bin/env bash
# Starts the real lathe binary under Xvfb on a project, waits for its main window to be
# mapped, takes a screenshot, and checks that the window title names the project.
set -uo pipefail
LATHE="$1"
CLI="$2"
source "$(dirname "$0")/assert.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset QT_QPA_PLATFORM # a real X server here, not the offscreen platform
export XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" XDG_RUNTIME_DIR="$TMP/run"
mkdir -m 700 "$TMP/run"
"$CLI" project create "$TMP/Smoke" >/dev/null || fail "project create"

cat > "$TMP/inside.sh" <<INNER
"$LATHE" "$TMP/Smoke" > "$TMP/lathe.log" 2>&1 &
PID=\$!
for i in \$(seq 1 120); do
  if xwininfo -root -tree | grep '"Smoke — Lathe"' >/dev/null; then
    sleep 1
    import -window root "$TMP/shot.png"
    kill \$PID
    wait \$PID
    exit 0
  fi
  kill -0 \$PID 2>/dev/null || { echo "lathe exited early"; cat "$TMP/lathe.log"; exit 1; }
  sleep 0.5
done
echo "no main window appeared"; cat "$TMP/lathe.log"; exit 1
INNER
xvfb-run -a -s '-screen 0 1600x1000x24' bash "$TMP/inside.sh" || fail "lathe under Xvfb"
[ -s "$TMP/shot.png" ] || fail "no screenshot"
# The screenshot is not a blank screen: the window brings many colours.
colours=$(identify -format '%k' "$TMP/shot.png")
[ "$colours" -gt 16 ] || fail "screenshot has only $colours colours"
echo "lathe under Xvfb: main window shown ($colours colours in the screenshot)"
