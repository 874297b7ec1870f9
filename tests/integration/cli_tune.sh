#!/usr/bin/env bash
# lathe-cli tune end to end on Fashion-MNIST demo shards: a TPE+ASHA study of 4 trials over 2
# rungs finishes, every trial is a run folder, the best trial exports; a study killed with
# SIGKILL in the middle of a trial resumes with every recorded trial and epoch kept; Ctrl+C
# stops with a checkpoint (exit 130); bad spaces are refused naming the field.
# Usage: cli_tune.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

"$CLI" demo-data "$WORK/images" --per-class 12 --test-per-class 4 >/dev/null
"$CLI" convert "$WORK/images" "$WORK/shards" >/dev/null
cat >"$WORK/run.json" <<'JSON'
{"data": {"image_size": 32, "augment": [], "workers": 1, "val_split": "test"},
 "model": {"arch": "resnet18", "in_channels": 1},
 "optimizer": {"batch_size": 16, "epochs": 2}, "feature_cache": {"mode": "off"},
 "checkpoints": {"every_steps": 2}}
JSON
cat >"$WORK/space.json" <<'JSON'
{"version": 1,
 "params": {
   "optimizer.lr": {"type": "log_uniform", "low": 1e-4, "high": 3e-2},
   "optimizer.name": {"type": "choice", "values": ["sgd", "adamw"]},
   "optimizer.momentum": {"type": "uniform", "low": 0.5, "high": 0.95, "when": {"optimizer.name": "sgd"}}},
 "budget": {"trials": 4, "epochs": 3},
 "metric": "val_top1", "direction": "maximize"}
JSON

# A TPE+ASHA study: min_resource 1, reduction factor 3, 3 epochs -> rungs at epochs 1 and 3.
out=$("$CLI" --json tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/space.json" \
      --out "$WORK/study" --strategy tpe+asha --seed 3 2>"$WORK/tune.err") || { cat "$WORK/tune.err"; fail "tune failed"; }
summary=$(tail -n 1 <<<"$out")
expect_eq "$(json_get '(d["type"], d["status"], d["trials"])' <<<"$summary")" "('summary', 'finished', 4)" "study summary"
study="$WORK/study/study.json"
expect_eq "$(json_get 'sorted(set(t["state"] for t in d["trials"]) - {"completed", "pruned"})' <"$study")" "[]" \
    "every trial completed or pruned"
expect_eq "$(json_get 'd["strategy"]["pruner_options"]["max_resource"]' <"$study")" 3 "ASHA's maximum from budget.epochs"
expect_eq "$(json_get 'all(("optimizer.momentum" in t["params"]) == (t["params"]["optimizer.name"] == "sgd") for t in d["trials"])' <"$study")" \
    True "momentum only with sgd"
# Completed trials trained all 3 epochs; pruned ones stopped at a rung before that.
expect_eq "$(json_get 'all(len(t["intermediate"]) == 3 for t in d["trials"] if t["state"] == "completed")' <"$study")" \
    True "completed trials train 3 epochs"
expect_eq "$(json_get 'all(len(t["intermediate"]) < 3 and t["rung"] >= 0 for t in d["trials"] if t["state"] == "pruned")' <"$study")" \
    True "pruned trials stop at a rung"
expect_eq "$(json_get 'all(t["value"] == max(t["intermediate"].values()) for t in d["trials"] if t["state"] == "completed")' <"$study")" \
    True "a trial's value is its best epoch"
for t in 0 1 2 3; do
  run="$WORK/study/trial-000$t"
  [ -f "$run/config.json" ] && [ -f "$run/metrics.jsonl" ] || fail "trial $t is no run folder"
done
expect_eq "$(json_get 'd["optimizer"]["epochs"]' <"$WORK/study/trial-0000/config.json")" 3 "trial epochs"
grep -q '"type":"trial_epoch"' <<<"$out" || fail "no trial_epoch events"
grep -q '"type":"study_ended"' <<<"$out" || fail "no study_ended event"
best=$(json_get 'd["best_trial"]' <<<"$summary")
table=$("$CLI" study "$WORK/study")
expect_contains "$table" "completed" "study table"
expect_eq "$(sed -n 2p <<<"$table" | awk '{print $1}')" "$best" "the table starts with the best trial"
"$CLI" export --run "$WORK/study/trial-000$best" --format onnx --out "$WORK/export" >/dev/null ||
    fail "the best trial does not export"
ls "$WORK/export"/*.onnx >/dev/null || fail "no ONNX file from the best trial"

# kill -9 in the middle of trial 1 (after its first epoch is in study.json), then --resume.
cat >"$WORK/space2.json" <<'JSON'
{"version": 1,
 "params": {"optimizer.lr": {"type": "log_uniform", "low": 1e-3, "high": 1e-1}},
 "budget": {"trials": 3, "epochs": 3}, "metric": "val_loss"}
JSON
"$CLI" tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/space2.json" --out "$WORK/killed" \
    --strategy random --seed 5 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  if [ -f "$WORK/killed/study.json" ] &&
     [ "$(json_get 'len(d["trials"]) > 1 and len(d["trials"][1]["intermediate"]) >= 1' <"$WORK/killed/study.json" 2>/dev/null)" = True ]; then
    break
  fi
  sleep 0.2
done
kill -9 $pid
wait $pid 2>/dev/null || true
before=$(cat "$WORK/killed/study.json")
expect_eq "$(json_get '(d["trials"][0]["state"], d["trials"][1]["state"])' <<<"$before")" "('completed', 'running')" \
    "state at the kill"
"$CLI" --json tune --out "$WORK/killed" --resume >"$WORK/resume.out" 2>"$WORK/resume.err" ||
    { cat "$WORK/resume.err"; fail "resume failed"; }
after=$(cat "$WORK/killed/study.json")
expect_eq "$(json_get '[t["state"] for t in d["trials"]]' <<<"$after")" "['completed', 'completed', 'completed']" "after resume"
expect_eq "$(json_get 'd["trials"][0]' <<<"$after")" "$(json_get 'd["trials"][0]' <<<"$before")" "trial 0 kept as it was"
expect_eq "$(json_get '[d["trials"][1]["params"], d["trials"][1]["intermediate"]["1"]]' <<<"$after")" \
    "$(json_get '[d["trials"][1]["params"], d["trials"][1]["intermediate"]["1"]]' <<<"$before")" "trial 1's params and epoch 1 kept"
expect_eq "$(json_get 'd["strategy"]' <<<"$after")" "$(json_get 'd["strategy"]' <<<"$before")" "strategy state kept"
expect_eq "$(json_get 'd["space"]["direction"]' <<<"$after")" minimize \
    "val_loss is minimized"
grep -q '"resumed":true' "$WORK/resume.out" || fail "trial 1 was not resumed"
# A resumed study with every trial ended does nothing more.
out=$("$CLI" --json tune --out "$WORK/killed" --resume 2>/dev/null)
expect_eq "$(json_get '(d["status"], d["trials"])' <<<"$(tail -n 1 <<<"$out")")" "('finished', 3)" "nothing left"

# Ctrl+C: the running trial stops with a checkpoint and stays running; exit 130.
"$CLI" tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/space2.json" --out "$WORK/stopped" \
    --strategy random --epochs 50 >/dev/null 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$WORK/stopped/trial-0000/metrics.jsonl" ] && grep -q '"type":"checkpoint"' "$WORK/stopped/trial-0000/metrics.jsonl" && break
  sleep 0.2
done
kill -INT $pid
rc=0; wait $pid || rc=$?
expect_eq "$rc" 130 "tune after SIGINT"
expect_eq "$(json_get 'd["trials"][0]["state"]' <"$WORK/stopped/study.json")" running "stopped trial stays running"

# Bad input: named errors, nothing created.
cat >"$WORK/bad.json" <<'JSON'
{"version": 1, "params": {"optimizer.learnig_rate": {"type": "uniform", "low": 0, "high": 1}}}
JSON
err=$("$CLI" tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/bad.json" --out "$WORK/bad" 2>&1) &&
    fail "a misspelt field must be refused"
expect_contains "$err" "optimizer.lr" "suggestion for the misspelt field"
[ ! -e "$WORK/bad/study.json" ] || fail "a refused space leaves no study"
err=$("$CLI" tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/space.json" --out "$WORK/study" 2>&1) &&
    fail "a second study in one folder must be refused"
expect_contains "$err" "a study exists here already" "existing study"
err=$("$CLI" tune --data "$WORK/shards" --config "$WORK/run.json" --space "$WORK/space.json" --out "$WORK/random" \
    --strategy random --startup-trials 3 2>&1) && fail "--startup-trials without TPE must be refused"
expect_contains "$err" "--startup-trials is TPE's setting" "startup trials need TPE"
[ ! -e "$WORK/random/study.json" ] || fail "a refused strategy leaves no study"
err=$("$CLI" tune --out "$WORK/nothing" --resume 2>&1) && fail "resuming no study must fail"
expect_contains "$err" "study.json" "missing study named"
echo "cli tune: all passed"
