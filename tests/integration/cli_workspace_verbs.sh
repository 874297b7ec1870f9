#!/usr/bin/env bash
# lathe-cli verbs that need the workspace: project create/info and the headless demo.
set -uo pipefail
CLI="$1"
source "$(dirname "$0")/assert.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export XDG_DATA_HOME="$TMP/data" XDG_CONFIG_HOME="$TMP/config"

out=$("$CLI" --json project create "$TMP/p" --name Flowers) || fail "project create"
expect_eq "$(json_get 'd["name"]' <<<"$out")" "Flowers" "project name"
[ -d "$TMP/p/datasets" ] && [ -d "$TMP/p/runs" ] && [ -d "$TMP/p/exports" ] || fail "sub-folders"
expect_eq "$(sqlite3 "$TMP/p/project.sqlite" 'PRAGMA journal_mode')" "wal" "WAL mode"
out=$("$CLI" --json project info "$TMP/p") || fail "project info"
expect_eq "$(json_get 'd["schema_version"]' <<<"$out")" "6" "schema version"

mkdir "$TMP/junk" && echo "junk" > "$TMP/junk/project.sqlite"
err=$("$CLI" project info "$TMP/junk" 2>&1 >/dev/null) && fail "junk project must fail"
expect_contains "$err" "$TMP/junk/project.sqlite" "junk file named"
expect_eq "$(cat "$TMP/junk/project.sqlite")" "junk" "junk file untouched"

# The README's headless demo, into its default folder (here under XDG_DATA_HOME).
out=$("$CLI" --json demo --per-class 5 --val-per-class 3 --test-per-class 2) || fail "demo"
expect_eq "$(json_get 'd["train_images"]' <<<"$out")" "50" "demo train images"
expect_eq "$(json_get 'd["val_images"]' <<<"$out")" "30" "demo validation images"
proj=$(json_get 'd["project"]' <<<"$out")
expect_contains "$proj" "$TMP/data/" "demo under XDG_DATA_HOME"
"$CLI" project info "$proj" >/dev/null || fail "demo project opens"
expect_eq "$(json_get 'd["import"]["ok"]' <<<"$out")" "100" "demo images imported into the catalog"
expect_eq "$(sqlite3 "$proj/project.sqlite" "SELECT count(*) FROM images WHERE status='ok'")" "100" "catalog rows"
expect_eq "$(sqlite3 "$proj/project.sqlite" "SELECT count(*) FROM images WHERE split='val'")" "30" "val rows"
# The first command the demo suggests converts it with its validation split.
convert=$(json_get 'd["next"][0]' <<<"$out")
expect_contains "$convert" "lathe-cli convert" "demo suggests the conversion"
out2=$("$CLI" --json ${convert#lathe-cli }) || fail "the demo's convert command"
expect_eq "$(json_get 'sum(d["counts"]["val"].values())' <<<"$out2")" "30" "converted val split"
text=$("$CLI" demo) || fail "second demo"
expect_contains "$text" "already there" "second demo reuses the images"
expect_contains "$text" "100 unchanged" "second demo re-imports incrementally"

# import: a folder with a bad file among good ones; the exit status is 0, the reason stored.
images=$(json_get 'd["images"]' <<<"$out")
cp -r "$images" "$TMP/mine"
: > "$TMP/mine/train/Bag/empty.png"
out=$("$CLI" --json import "$TMP/p" "$TMP/mine" --name mine) || fail "import"
expect_eq "$(json_get 'd["ok"]' <<<"$out")" "100" "import ok"
expect_eq "$(json_get 'd["rejected"]' <<<"$out")" "1" "import rejected"
expect_eq "$(sqlite3 "$TMP/p/project.sqlite" "SELECT reason FROM images WHERE rel_path='train/Bag/empty.png'")" \
  "empty file (0 bytes)" "reason stored"
"$CLI" import "$TMP/p" "$TMP/nope" >/dev/null 2>&1 && fail "import of a missing folder must fail"
echo "cli workspace verbs: all passed"
