#!/usr/bin/env bash
# Regenerates the screenshots in docs/ from the real program under Xvfb.
# Usage: scripts/screenshots.sh [NAME...]   (no NAME: every shot; e.g. "runs evaluate-cell")
# The steps the shots depend on (the demo, its conversion and training runs) always run. With
# LATHE_SCREENSHOTS_WORK=DIR they run in DIR and are kept, and a later call reuses what is
# there (the demo, the shards, finished runs): quick when retaking a few shots.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LATHE_BUILD_DIR:-$ROOT/build}"
WANTED=("$@")
if [ -n "${LATHE_SCREENSHOTS_WORK:-}" ]; then
  TMP="$LATHE_SCREENSHOTS_WORK"
  mkdir -p "$TMP"
else
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
fi
mkdir -p -m 700 "$TMP/run"
rm -rf "$TMP"/config-*
export XDG_RUNTIME_DIR="$TMP/run" XDG_DATA_HOME="$TMP/data"

# wanted NAME: whether this run takes that screenshot.
wanted() {
  [ ${#WANTED[@]} -eq 0 ] && return 0
  local w
  for w in "${WANTED[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

# shot NAME THEME LANGUAGE ACTIONS ARGS...: one screenshot of lathe started with ARGS, after
# the xdotool ACTIONS (e.g. "mousemove 309 168 click 1" on a tab; "-" for none). Skipped
# unless wanted.
shot() {
  local name="$1" theme="$2" language="$3" click="$4"
  shift 4
  wanted "$name" || return 0
  mkdir -p "$TMP/config-$name/Lathe"
  printf '[ui]\ntheme=%s\nlanguage=%s\n' "$theme" "$language" > "$TMP/config-$name/Lathe/lathe.ini"
  XDG_CONFIG_HOME="$TMP/config-$name" xvfb-run -a -s '-screen 0 1280x800x24' bash -c '
    "$0" "$@" >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 1 60); do
      xwininfo -root -tree | grep "Lathe\"" >/dev/null && break
      sleep 0.5
    done
    sleep 3
    if [ "'"$click"'" != "-" ]; then xdotool '"$click"'; sleep 2; fi
    import -window root "'"$ROOT/docs/$name.png"'"
    kill $pid' "$BUILD/app/lathe" "$@"
  echo "docs/$name.png"
}

# The demo: training, validation and test images of Fashion-MNIST in a project's catalog.
[ -d "$TMP/demo/project" ] ||
  "$BUILD/app/lathe-cli" demo --dir "$TMP/demo" --per-class 100 --val-per-class 20 --test-per-class 20 >/dev/null
shot welcome light "" -
# Help ▸ About: the LibTorch the build links (with CUDA or CPU only) and the devices found.
shot about light "" "mousemove 165 8 click 1 sleep 1 mousemove 212 30 click 1 sleep 2"
shot main-window light "" - --demo-dir "$TMP/demo"
shot main-window-dark dark "" - "$TMP/demo/project"
shot main-window-zh_CN light zh_CN - "$TMP/demo/project"
# Before any conversion or run: the next step each page offers; and the help viewer (F1).
shot evaluate-next-step light "" "mousemove 40 235 click 1 sleep 4" "$TMP/demo/project"
shot help-viewer light "" "key F1 sleep 4" "$TMP/demo/project"
# A few bad files among the demo images, so the rejected list has something to show.
images="$TMP/demo/fashion-mnist/train"
if [ ! -f "$images/Sandal/copy.png" ]; then
  : > "$images/Bag/empty.png"
  echo "meeting notes" > "$images/Coat/notes.png"
  head -c 200 "$(ls "$images"/Dress/*.png | head -1)" > "$images/Dress/cut-short.png"
  cp "$(ls "$images"/Sandal/*.png | head -1)" "$images/Sandal/copy.png"
fi
"$BUILD/app/lathe-cli" import "$TMP/demo/project" "$TMP/demo/fashion-mnist" --name fashion-mnist >/dev/null
shot data-class-balance light "" "mousemove 309 168 click 1" "$TMP/demo/project"
shot data-rejected-files light "" "mousemove 420 168 click 1" "$TMP/demo/project"
# Convert to Shards… with the dialog's defaults; the page then shows the shards. Without that
# shot, lathe-cli converts into the same folder the dialog would have chosen.
shot data-shards light "" "mousemove 687 88 click 1 sleep 2 mousemove 772 497 click 1 sleep 8" "$TMP/demo/project"
[ -f "$TMP/demo/project/datasets/fashion-mnist/dataset.json" ] ||
  "$BUILD/app/lathe-cli" convert "$TMP/demo/fashion-mnist" "$TMP/demo/project/datasets/fashion-mnist" >/dev/null
# The model, training, runs and evaluation pages on the converted demo shards, after short
# training runs from lathe-cli into the project's runs folder (the run folder is the contract).
shot model light "" "mousemove 40 83 click 1 sleep 4" "$TMP/demo/project"
# Lathe's defaults offline: no pretrained weights (from scratch offered) and a long run (the
# quick CPU recipe offered); then the Train page with that recipe taken.
shot train-next-step light "" "mousemove 40 121 click 1 sleep 10" "$TMP/demo/project"
shot train light "" "mousemove 40 121 click 1 sleep 10 mousemove 850 325 click 1 sleep 8 mousemove 1246 400 click --repeat 20 4 sleep 1" "$TMP/demo/project"
# train NAME ARGS...: a run of the demo shards into runs/NAME, unless it finished before.
train() {
  local out="$TMP/demo/project/runs/$1"
  shift
  grep -qs '"type":"finished"' "$out/metrics.jsonl" && return 0
  rm -rf "$out"
  "$BUILD/app/lathe-cli" train --data "$TMP/demo/project/datasets/fashion-mnist" --out "$out" \
    --epochs 3 --batch 32 "$@" >/dev/null 2>&1
}
train demo-mobilenet --arch mobilenet_v3_small --lr 0.05 --schedule cosine --image-size 32
train demo-resnet18 --arch resnet18 --lr 0.05 --schedule constant --image-size 96
# Both runs selected (click, shift+click): their validation curves overlaid.
shot runs light "" "mousemove 40 197 click 1 sleep 4 mousemove 400 153 click 1 keydown shift mousemove 400 183 click 1 keyup shift sleep 4" "$TMP/demo/project"
shot evaluate light "" "mousemove 40 235 click 1 sleep 4" "$TMP/demo/project"
# The resnet18 run (second in the Run list) evaluated on the validation split; a click on the
# confusion-matrix cell true Pullover / predicted Coat lists exactly those images, and a click on
# the first of them opens it with its Grad-CAM heat map.
evaluate_resnet="mousemove 40 235 click 1 sleep 4 mousemove 770 50 click 1 sleep 1 key Down key Return sleep 3 \
  mousemove 547 85 click 1 sleep 40 mousemove 372 431 click 1 sleep 3"
shot evaluate-cell light "" "$evaluate_resnet" "$TMP/demo/project"
shot evaluate-gradcam light "" "$evaluate_resnet mousemove 907 238 click 1 sleep 15" "$TMP/demo/project"
# The Export page: the resnet18 run (second in the Run list) in all eight formats, INT8 with
# percentile calibration, exported and verified; the report scrolled to the TFLite rows.
shot export light "" "mousemove 40 273 click 1 sleep 3 mousemove 670 50 click 1 sleep 1 key Down key Return sleep 2 \
  mousemove 213 139 click 1 mousemove 213 165 click 1 mousemove 213 191 click 1 mousemove 213 217 click 1 \
  mousemove 213 243 click 1 mousemove 213 269 click 1 mousemove 213 295 click 1 \
  mousemove 890 166 click 1 sleep 1 key Down key Return sleep 1 mousemove 724 362 click 1 sleep 150 \
  mousemove 700 480 click 5 sleep 1" "$TMP/demo/project"
# The learning-rate finder on the quick CPU recipe's settings: a real range test (nothing is
# written), its curve with the valley and steepest-descent suggestions beside the schedule's.
shot train-lr-finder light "" "mousemove 40 121 click 1 sleep 10 mousemove 850 325 click 1 sleep 8 \
  mousemove 1246 400 click --repeat 3 5 sleep 1 mousemove 792 495 click 1 sleep 90 \
  mousemove 1246 400 click --repeat 3 5 sleep 1 mousemove 640 790" "$TMP/demo/project"
# A TPE+ASHA study of the learning rate, the optimiser and label smoothing (9 trials of
# ResNet-18 for at most 3 epochs at 32 pixels) from lathe-cli into the project's runs folder,
# then the Tune page with it picked: the trial table, the best-so-far curve and the other charts.
study="$TMP/demo/project/runs/study-demo"
if [ ! -f "$study/study.json" ] || "$BUILD/app/lathe-cli" --json study "$study" | grep '"state": *"running"' >/dev/null; then
  rm -rf "$study"
  cat > "$TMP/space.json" <<'SPACE'
{"version": 1,
 "params": {"optimizer.lr": {"type": "log_uniform", "low": 0.0003, "high": 0.03},
            "optimizer.name": {"type": "choice", "values": ["sgd", "adamw"]},
            "loss.label_smoothing": {"type": "uniform", "low": 0, "high": 0.2}},
 "metric": "val_top1"}
SPACE
  "$BUILD/app/lathe-cli" tune --data "$TMP/demo/project/datasets/fashion-mnist" --out "$study" --space "$TMP/space.json" \
    --strategy tpe+asha --startup-trials 4 --trials 9 --epochs 3 --seed 1 --set model.arch=resnet18 \
    --set data.image_size=32 --set optimizer.batch_size=32 --set schedule.name=cosine >/dev/null 2>&1
fi
shot tune-page light "" "mousemove 40 159 click 1 sleep 3 mousemove 406 67 click 1 sleep 1 key Down key Return sleep 4" "$TMP/demo/project"
# The flipped-label experiment as a project of its own (tests/integration/label_issues_flips.sh
# does it without the GUI): demo images, every 20th moved into the next class folder, imported,
# converted, four folds trained by lathe-cli into the project's runs folder; then the Data page's
# Suspected Label Errors tab finding them (the moved images' names start with "flipped_"), and
# the Runs page listing the four folds (all selected: their validation curves overlaid).
if wanted data-label-issues || wanted runs-folds; then
  flips="$TMP/flips"
  if [ ! -f "$flips/project/runs/flips/folds.json" ]; then
    rm -rf "$flips"
    "$BUILD/app/lathe-cli" demo-data "$flips/images" --per-class 60 --test-per-class 0 >/dev/null
    /usr/bin/python3 - "$flips/images/train" <<'FLIP'
import os, sys
base = sys.argv[1]
classes = sorted(os.listdir(base))
files = sorted((c, f) for c in classes for f in os.listdir(os.path.join(base, c)))
for i, (c, f) in enumerate(files):
    if i % 20 == 7:
        to = classes[(classes.index(c) + 1) % len(classes)]
        os.rename(os.path.join(base, c, f), os.path.join(base, to, "flipped_" + f))
FLIP
    "$BUILD/app/lathe-cli" project create "$flips/project" --name flips >/dev/null
    "$BUILD/app/lathe-cli" import "$flips/project" "$flips/images" --name fashion-mnist-flipped --val 0 --test 0 >/dev/null
    "$BUILD/app/lathe-cli" convert "$flips/images" "$flips/project/datasets/fashion-mnist-flipped" --val 0 --test 0 >/dev/null
    "$BUILD/app/lathe-cli" train --folds 4 --out "$flips/project/runs/flips" \
      --data "$flips/project/datasets/fashion-mnist-flipped" --arch resnet18 --image-size 28 --epochs 8 --batch 32 \
      --lr 0.05 --seed 3 --set model.in_channels=1 --set 'data.augment=[]' --set feature_cache.mode=off \
      --set checkpoints.every_epochs=0 >/dev/null 2>&1
  fi
  shot data-label-issues light "" "mousemove 805 172 click 1 sleep 2 mousemove 743 205 click 1 sleep 6" "$flips/project"
  shot runs-folds light "" "mousemove 40 197 click 1 sleep 4 mousemove 400 153 click 1 keydown shift \
    mousemove 400 243 click 1 keyup shift sleep 4" "$flips/project"
fi
# Last, as it adds a run to the project: the quick CPU recipe taken on the Train page and
# started there, its curves arriving live.
shot train-live light "" "mousemove 40 121 click 1 sleep 10 mousemove 850 325 click 1 sleep 8 mousemove 838 50 click 1 \
  sleep 25" "$TMP/demo/project"
# After it, as it adds a cross-validation folder: the quick recipe cross-validated in 2 folds,
# the second fold's curves arriving live.
shot train-cross-validation light "" "mousemove 40 121 click 1 sleep 10 mousemove 850 325 click 1 sleep 8 \
  mousemove 965 56 click --repeat 3 --delay 300 1 sleep 1 mousemove 1025 50 click 1 sleep 42" "$TMP/demo/project"
