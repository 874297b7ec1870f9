#!/usr/bin/env python3
"""Crash consistency under kill -9 (issue 21), one scenario per ctest:

  crash_kill.py convert LATHE_CLI
  crash_kill.py train   LATHE_CLI
  crash_kill.py export  LATHE_CLI
  crash_kill.py catalog LATHE_CLI CATALOG_WRITER

Each scenario kills a real process with SIGKILL at KILLS seeded random moments spread over the
window where it writes, and checks its invariant after every kill:

  convert  the output folder is absent, or complete: lathe-cli verify passes and it holds every
           record; after the kills a conversion into a killed one's folder succeeds.
  train    every checkpoint sidecar whose files have their recorded sizes (what the checkpoint
           list offers) names files with their recorded SHA-256 that load as safetensors; the
           newest complete checkpoint is at least as new as the last one the killed process
           reported and at most one interval behind the last step it reported; --resume starts
           from it; the run finally finishes with every step.
  export   report.json, when present, is whole and every file it lists has its recorded size and
           SHA-256 and loads; a model file under its final name is never cut short (re-exports
           of other checkpoints into the same folder, so a stale report would show).
  catalog  the project opens (lathe-cli project info), PRAGMA integrity_check is ok, and the
           catalog equals its state before or after the operation the writer was in.

LATHE_CRASH_SEED replays a run's kill delays (the seed is printed; timing still varies), and
LATHE_CRASH_KILLS sets the number of kills (default 30).
"""

import glob
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile

KILLS = int(os.environ.get("LATHE_CRASH_KILLS", "30"))
SEED = int(os.environ.get("LATHE_CRASH_SEED", "21"))


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(cmd, **kwargs):
    """A command that must succeed; its output."""
    p = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    check(p.returncode == 0, f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout


def spawn(cmd, log):
    out = open(log, "ab")
    return subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=out, stdin=subprocess.DEVNULL)


def kill_at(proc, deadline):
    """SIGKILL proc at time.monotonic() == deadline unless it ended before; True if killed."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        time.sleep(min(0.002, max(0.0, deadline - time.monotonic())))
    if proc.poll() is not None:
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return True


def wait_for(predicate, proc, limit=60.0):
    """Polls predicate every 2 ms until true (True), the process ended or limit passed (False)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
        if proc.poll() is not None:
            return predicate()
        time.sleep(0.002)
    return False


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def json_lines(path, start=0):
    """The whole JSON lines of path from byte offset start (a line cut short is skipped)."""
    out = []
    try:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read()
    except FileNotFoundError:
        return out
    for line in data.split(b"\n"):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def demo_images(cli, folder, per_class, test_per_class):
    run([cli, "demo-data", folder, "--per-class", per_class, "--test-per-class", test_per_class])


# ---------------------------------------------------------------------------------------------
# convert

def scenario_convert(cli, work, rng):
    images = os.path.join(work, "images")
    demo_images(cli, images, 30, 5)
    args = ["--threads", "1", "--shard-records", "8", "--max-side", "16", "--quality", "80"]
    # Reference: where the staging folder appears and how long the writing takes after it.
    ref = os.path.join(work, "ref")
    proc = spawn([cli, "convert", images, ref] + args, os.path.join(work, "ref.log"))
    started = time.monotonic()
    staged = wait_for(lambda: glob.glob(os.path.join(work, ".ref.partial-*")), proc)
    t_staged = time.monotonic()
    wait_for(lambda: os.path.exists(ref), proc)  # the staging folder renamed into place
    window = time.monotonic() - (t_staged if staged else started)
    check(proc.wait() == 0, "the reference conversion failed: " + open(os.path.join(work, "ref.log")).read()[-2000:])
    run([cli, "verify", ref])
    expected = json.load(open(os.path.join(ref, "dataset.json")))
    print(f"reference conversion: {len(expected['shards'])} shards, {window:.2f} s from the staging folder to its "
          f"rename ({time.monotonic() - started:.2f} s in all)")

    outcomes = {"absent": 0, "complete": 0}
    absent_example = None
    for k in range(KILLS):
        out = os.path.join(work, f"out-{k}")
        proc = spawn([cli, "convert", images, out] + args, os.path.join(work, f"out-{k}.log"))
        wait_for(lambda: glob.glob(os.path.join(work, f".out-{k}.partial-*")), proc)
        delay = rng.uniform(0, window * 1.15)
        killed = kill_at(proc, time.monotonic() + delay)
        if not killed:
            check(proc.returncode == 0, f"kill {k}: the conversion failed by itself")
        if not os.path.exists(out):
            outcomes["absent"] += 1
            absent_example = absent_example or out
            continue
        check(os.path.isdir(out), f"kill {k} after {delay:.3f} s: {out} exists and is not a folder")
        check(os.path.exists(os.path.join(out, "dataset.json")),
              f"kill {k} after {delay:.3f} s: {out} exists without dataset.json: {sorted(os.listdir(out))}")
        p = subprocess.run([cli, "verify", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(p.returncode == 0, f"kill {k} after {delay:.3f} s: {out} exists and does not verify:\n{p.stdout[-2000:]}")
        got = json.load(open(os.path.join(out, "dataset.json")))
        check(got["counts"] == expected["counts"] and len(got["shards"]) == len(expected["shards"]),
              f"kill {k}: {out} verifies but holds other counts than the reference")
        outcomes["complete"] += 1
        print(f"kill {k}: after {delay:.3f} s, {'killed' if killed else 'ended first'}: complete")
    leftovers = glob.glob(os.path.join(work, ".out-*.partial-*"))
    print(f"outcomes: {outcomes}; staging folders left by killed conversions: {len(leftovers)}")
    check(outcomes["absent"] > 0, "no kill landed inside a conversion (raise the window)")
    # A killed conversion's folder takes a new conversion, which also removes the staging folder
    # the killed one left (its process is gone).
    if absent_example:
        name = os.path.basename(absent_example)
        run([cli, "convert", images, absent_example] + args)
        run([cli, "verify", absent_example])
        left = glob.glob(os.path.join(work, f".{name}.partial-*"))
        check(not left, f"the new conversion of {absent_example} left the killed one's staging folder: {left}")


# ---------------------------------------------------------------------------------------------
# train

INTERVAL = 1  # checkpoints.every_steps: checkpoint writes take much of the time, so kills land in them


def train_args(shards):
    return ["--data", shards, "--arch", "mobilenet_v3_small", "--image-size", "32", "--batch", "16", "--seed", "1",
            "--set", "model.in_channels=1", "--set", "data.val_split=test", "--set", "data.augment=[]",
            "--set", "data.workers=1", "--set", "feature_cache.mode=off",
            "--set", f"checkpoints.every_steps={INTERVAL}"]


def checkpoint_state(run_dir, where):
    """Checks what the checkpoint list would offer; returns the newest complete step (-1: none)."""
    folder = os.path.join(run_dir, "checkpoints")
    newest = -1
    offered = 0
    for sidecar in sorted(glob.glob(os.path.join(folder, "*.json"))):
        name = os.path.basename(sidecar)
        if ".tmp-" in name:
            continue
        try:
            meta = json.load(open(sidecar))
        except ValueError as e:
            raise Failure(f"{where}: {sidecar} is not whole JSON ({e}): a torn sidecar under its final name")
        files = meta.get("files", {})
        complete = True
        for key in ("model", "state"):
            if key not in files:
                continue
            path = os.path.join(folder, files[key]["name"])
            if not os.path.exists(path) or os.path.getsize(path) != files[key]["bytes"]:
                complete = False
        if not complete:
            continue  # the list marks it with its problem, and loading skips it
        offered += 1
        for key in ("model", "state"):
            if key not in files:
                continue
            path = os.path.join(folder, files[key]["name"])
            check(sha256(path) == files[key]["sha256"],
                  f"{where}: {name} is offered (sizes match) but {files[key]['name']} is not the file it recorded "
                  f"(SHA-256 differs): a torn checkpoint")
            from safetensors import safe_open
            with safe_open(path, "pt") as f:
                check(len(list(f.keys())) > 0, f"{where}: {path} holds no tensors")
        if name.startswith("step-") or name == "last.json":
            newest = max(newest, meta["step"])
    return newest, offered


def checkpoint_in_progress(run_dir):
    """What a kill inside writeCheckpoint leaves (empty when none): temporary files, step files
    without their sidecar, or last.* not yet moved to the newest step."""
    folder = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(folder):
        return ""
    names = os.listdir(folder)
    if any(".tmp-" in n for n in names):
        return "temporary files"
    stems = {n.split(".")[0] for n in names if n.startswith("step-")}
    if any(f"{stem}.json" not in names for stem in stems):
        return "step files without their sidecar"
    steps = [int(stem[5:]) for stem in stems]
    if steps and "last.json" not in names:
        return "last.json not written yet"
    if steps and json.load(open(os.path.join(folder, "last.json")))["step"] < max(steps):
        return "last.* behind the newest step"
    return ""


def scenario_train(cli, work, rng):
    images = os.path.join(work, "images")
    shards = os.path.join(work, "shards")
    demo_images(cli, images, 8, 2)
    run([cli, "convert", images, shards])
    epochs = 6
    total = epochs * 5  # 80 training images, batch 16
    print(f"runs of {total} steps with a checkpoint every {INTERVAL}")

    kills = 0
    runs = 0
    in_checkpoint = 0
    while kills < KILLS:
        runs += 1
        run_dir = os.path.join(work, f"run-{runs}")
        previous = -1
        first = True
        while kills < KILLS:
            metrics = os.path.join(run_dir, "metrics.jsonl")
            offset = file_size(metrics)
            cmd = [cli, "train", "--out", run_dir, "--epochs", epochs] + train_args(shards)
            if not first:
                cmd = [cli, "train", "--out", run_dir, "--resume"]
            log = os.path.join(work, f"run-{runs}.log")
            before = sorted(os.listdir(os.path.join(run_dir, "checkpoints"))) if not first else []
            proc = spawn(cmd, log)
            # Most kills once the process has begun to train (its first line in metrics.jsonl:
            # startup takes a second or more), some during its start.
            if rng.random() < 0.15:
                delay = rng.uniform(0, 1.0)
            else:
                wait_for(lambda: file_size(metrics) > offset, proc)
                delay = rng.uniform(0, 1.2)
            killed = kill_at(proc, time.monotonic() + delay)
            where = f"run {runs}, kill {kills} after {delay:.3f} s"
            appended = json_lines(metrics, offset)
            resumed = [e for e in appended if e.get("type") == "resumed"]
            if previous >= 0 and resumed:
                check(resumed[0].get("step") == previous,
                      f"{where}: --resume started at step {resumed[0].get('step')}, the newest complete checkpoint "
                      f"was {previous}")
            if not killed:
                check(proc.returncode == 0, f"{where}: training failed by itself: {open(log).read()[-2000:]}")
                check(any(e.get("type") == "finished" for e in appended), f"{where}: ended without a finished event")
                break
            kills += 1
            first = False
            newest, offered = checkpoint_state(run_dir, where)
            reported = max([e["step"] for e in appended if e.get("type") == "checkpoint"], default=-1)
            reached = max([e["step"] for e in appended if e.get("type") == "step"], default=-1)
            check(newest >= reported, f"{where}: the process reported checkpoint {reported}, the newest complete one "
                                      f"is {newest}")
            check(newest >= previous, f"{where}: the newest complete checkpoint went back from {previous} to {newest}")
            check(reached < 0 or newest >= reached - INTERVAL,
                  f"{where}: reached step {reached}, the newest complete checkpoint is {newest}: more than one "
                  f"interval ({INTERVAL}) lost")
            after = sorted(os.listdir(os.path.join(run_dir, "checkpoints"))) if os.path.isdir(
                os.path.join(run_dir, "checkpoints")) else []
            writing = checkpoint_in_progress(run_dir) if after != before else ""  # not a leftover of the last kill
            in_checkpoint += bool(writing)
            print(f"{where}: reached {reached}, reported {reported}, newest complete {newest} "
                  f"({offered} sidecars offered{'; killed inside a checkpoint write: ' + writing if writing else ''})")
            previous = newest
            if newest < 0:
                # Killed before its first checkpoint: the folder cannot resume; start it again.
                shutil.rmtree(run_dir, ignore_errors=True)
                first = True
        # The run resumes to its end after the last kill.
        if kills >= KILLS and os.path.isdir(run_dir):
            metrics = os.path.join(run_dir, "metrics.jsonl")
            offset = file_size(metrics)
            run([cli, "train", "--out", run_dir, "--resume"])
            appended = json_lines(metrics, offset)
            check(any(e.get("type") == "finished" for e in appended), "the final --resume did not finish")
            resumed = [e for e in appended if e.get("type") == "resumed"]
            check(resumed and resumed[0].get("step") == previous,
                  f"the final --resume started at {resumed[0].get('step') if resumed else None}, not {previous}")
            last = json.load(open(os.path.join(run_dir, "checkpoints", "last.json")))
            check(last["step"] == total, f"the resumed run ended at step {last['step']}, the reference at {total}")
            checkpoint_state(run_dir, "after the final resume")
    print(f"{kills} kills over {runs} run folders; {in_checkpoint} landed inside a checkpoint write")


# ---------------------------------------------------------------------------------------------
# export

FORMATS = ["onnx", "onnx-fp16", "onnx-int8", "torchscript", "safetensors"]


def check_model_file(path, where):
    """A model file under its final name loads whole."""
    name = os.path.basename(path)
    try:
        if name.endswith(".onnx"):
            import onnx
            onnx.checker.check_model(onnx.load(path))
        elif name.endswith(".safetensors"):
            from safetensors import safe_open
            with safe_open(path, "pt") as f:
                check(len(list(f.keys())) > 0, f"{path} holds no tensors")
        elif name.endswith(".pt"):
            with zipfile.ZipFile(path) as z:
                bad = z.testzip()
                check(bad is None, f"{path}: entry {bad} fails its CRC")
        elif name.endswith(".json"):
            json.load(open(path))
    except Failure:
        raise
    except Exception as e:  # any reader's refusal
        raise Failure(f"{where}: {path} is under its final name but does not load: {e}")


def check_export(folder, where):
    if not os.path.isdir(folder):
        return "absent"
    for name in os.listdir(folder):
        if ".tmp-" in name or name.endswith(".failed"):
            continue
        check_model_file(os.path.join(folder, name), where)
    report_path = os.path.join(folder, "report.json")
    if not os.path.exists(report_path):
        return "no report"
    report = json.load(open(report_path))
    check(report.get("status") == "passed", f"{where}: report.json says {report.get('status')}")
    for a in report["artifacts"]:
        path = os.path.join(folder, a["file"])
        check(os.path.exists(path), f"{where}: report.json lists {a['file']}, which is missing")
        check(os.path.getsize(path) == a["bytes"],
              f"{where}: report.json records {a['bytes']} bytes for {a['file']}, it has {os.path.getsize(path)}")
        check("sha256" in a, f"{where}: report.json records no SHA-256 for {a['file']}")
        check(sha256(path) == a["sha256"],
              f"{where}: {a['file']} is not the file report.json describes (SHA-256 differs): a report of another export")
        if a["format"] == "safetensors":
            model_json = json.load(open(os.path.join(folder, "model.json")))
            check(model_json.get("checkpoint") == report["source"].get("checkpoint"),
                  f"{where}: model.json is of checkpoint {model_json.get('checkpoint')}, report.json of "
                  f"{report['source'].get('checkpoint')}")
    return "complete"


def scenario_export(cli, work, rng):
    images = os.path.join(work, "images")
    shards = os.path.join(work, "shards")
    demo_images(cli, images, 8, 2)
    run([cli, "convert", images, shards])
    run_dir = os.path.join(work, "run")
    run([cli, "train", "--out", run_dir, "--epochs", 2] + train_args(shards))
    steps = sorted(int(os.path.basename(p)[5:-5]) for p in glob.glob(os.path.join(run_dir, "checkpoints", "step-*.json")))
    checkpoints = ["best"] + [f"step-{s}" for s in steps]
    args = ["--run", run_dir, "--no-benchmark", "--accuracy-images", "0", "--verify-images", "2", "--calib-images", "8"]
    for f in FORMATS:
        args += ["--format", f]
    out = os.path.join(work, "export")
    started = time.monotonic()
    run([cli, "export", "--out", os.path.join(work, "ref"), "--checkpoint", "best"] + args)
    duration = time.monotonic() - started
    check(check_export(os.path.join(work, "ref"), "the reference export") == "complete", "reference export")
    print(f"reference export: {duration:.2f} s; checkpoints exported in turn: {checkpoints}")

    outcomes = {}
    for k in range(KILLS):
        checkpoint = checkpoints[k % len(checkpoints)]
        proc = spawn([cli, "export", "--out", out, "--checkpoint", checkpoint] + args, os.path.join(work, "export.log"))
        delay = rng.uniform(0.2, duration * 1.1)
        killed = kill_at(proc, time.monotonic() + delay)
        if not killed:
            check(proc.returncode == 0, f"kill {k}: the export failed by itself: "
                  + open(os.path.join(work, "export.log")).read()[-2000:])
        state = check_export(out, f"kill {k} after {delay:.3f} s ({checkpoint})")
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
        outcomes[state] = outcomes.get(state, 0) + 1
        print(f"kill {k}: {checkpoint} after {delay:.3f} s, {'killed' if killed else 'ended first'}: {state} {files}")
    print(f"outcomes: {outcomes}")
    check(outcomes.get("no report", 0) + outcomes.get("absent", 0) > 0, "no kill landed inside an export")
    run([cli, "export", "--out", out, "--checkpoint", "best"] + args)
    check(check_export(out, "the final export") == "complete", "the final export")


# ---------------------------------------------------------------------------------------------
# catalog

CYCLE = 8  # operations of the writer's cycle (catalog_writer.cpp)


def catalog_state(db):
    """A fingerprint of the catalog (names and paths, not ids or times) and integrity_check."""
    con = sqlite3.connect(db)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchall()
        rows = con.execute(
            "SELECT d.name, d.source_dir, i.rel_path, c.name, o.name, i.split, i.status, i.reason, i.excluded,"
            " i.size, i.sha256 FROM images i JOIN datasets d ON d.id = i.dataset_id"
            " LEFT JOIN classes c ON c.id = i.class_id LEFT JOIN classes o ON o.id = i.label_override_id"
            " ORDER BY d.name, i.rel_path").fetchall()
        classes = con.execute("SELECT d.name, c.name FROM classes c JOIN datasets d ON d.id = c.dataset_id"
                              " ORDER BY 1, 2").fetchall()
    finally:
        con.close()
    return integrity, hashlib.sha256(repr((rows, classes)).encode()).hexdigest()[:16], len(rows)


def scenario_catalog(cli, writer, work, rng):
    images_a = os.path.join(work, "A")
    images_b = os.path.join(work, "B")
    demo_images(cli, images_a, 30, 5)
    # B: A without some files, with some new ones and some changed.
    shutil.copytree(images_a, images_b)
    train = os.path.join(images_b, "train")
    classes = sorted(os.listdir(train))
    for i, c in enumerate(classes):
        files = sorted(os.listdir(os.path.join(train, c)))
        os.remove(os.path.join(train, c, files[-1]))
        shutil.copy(os.path.join(train, c, files[0]), os.path.join(train, c, "new-copy.png"))
        shutil.copy(os.path.join(train, classes[(i + 1) % len(classes)],
                                 sorted(os.listdir(os.path.join(train, classes[(i + 1) % len(classes)])))[1]),
                    os.path.join(train, c, files[2]))
    def rel(c, n):
        return f"train/{c}/{sorted(os.listdir(os.path.join(images_a, 'train', c)))[n]}"
    x1, x2, x3 = rel(classes[0], 3), rel(classes[1], 4), rel(classes[2], 5)
    targets = [x1, classes[5], x2, classes[6], x3]

    project = os.path.join(work, "project")
    run([cli, "project", "create", project, "--name", "crash"])
    db = os.path.join(project, "project.sqlite")

    def writer_cmd(log, first, last):
        return [writer, db, images_a, images_b, log, first, last] + targets

    # Reference: the operations one at a time and the catalog after each (states[j]: after j
    # operations), then one whole cycle in one process for its duration.
    states = [catalog_state(db)[1]]
    for i in range(CYCLE + 1):
        log = os.path.join(work, f"ref-{i}.log")
        run(writer_cmd(log, i, i + 1))
        integrity, state, rows = catalog_state(db)
        check(integrity == [("ok",)], f"integrity_check after operation {i}: {integrity}")
        states.append(state)
    check(states[CYCLE + 1] == states[1], "the writer's cycle does not return to its first state")
    check(len(set(states[1:CYCLE + 1])) == CYCLE, "two operations of the cycle leave the same catalog")
    log = os.path.join(work, "ref-cycle.log")
    proc = spawn(writer_cmd(log, CYCLE + 1, 2 * CYCLE + 1), os.path.join(work, "ref-writer.out"))
    wait_for(lambda: os.path.exists(log) and open(log).read().startswith("begin"), proc)
    began = time.monotonic()
    check(proc.wait() == 0, "the writer failed: " + open(os.path.join(work, "ref-writer.out")).read()[-2000:])
    window = time.monotonic() - began
    check(catalog_state(db)[1] == states[1], "the writer's second cycle does not return to its first state")
    print(f"reference: {rows} catalog rows; one cycle of {CYCLE} operations (3 imports) takes {window:.2f} s")

    def canonical(j):  # the state index after j operations, folded onto the reference's
        return j if j <= CYCLE else (j - 1) % CYCLE + 1

    # A fresh project for the kills.
    shutil.rmtree(project)
    run([cli, "project", "create", project, "--name", "crash"])
    position = 0  # operations the catalog holds
    outcomes = {}
    for k in range(KILLS):
        log = os.path.join(work, f"kill-{k}.log")
        proc = spawn(writer_cmd(log, position, position + 40 * CYCLE), os.path.join(work, "writer.out"))
        wait_for(lambda: os.path.exists(log) and open(log).read().startswith("begin"), proc)
        delay = rng.uniform(0, window * 1.1)
        killed = kill_at(proc, time.monotonic() + delay)
        check(killed, f"kill {k}: the writer ended before the kill (raise its operations)")
        lines = open(log).read().split()
        begun = [int(n) for w, n in zip(lines[::2], lines[1::2]) if w == "begin"]
        done = [int(n) for w, n in zip(lines[::2], lines[1::2]) if w == "done"]
        op = begun[-1] if begun else position
        in_op = not done or done[-1] != op
        where = f"kill {k} after {delay:.3f} s ({'in' if in_op else 'after'} operation {op})"
        p = subprocess.run([cli, "project", "info", project], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(p.returncode == 0, f"{where}: the project does not open:\n{p.stdout[-2000:]}")
        integrity, state, _ = catalog_state(db)
        check(integrity == [("ok",)], f"{where}: PRAGMA integrity_check: {integrity}")
        allowed = {op: "old", op + 1: "new"} if in_op else {op + 1: "new"}
        match = [j for j in allowed if states[canonical(j)] == state]
        kind = ("import" if op == 0 or (op - 1) % CYCLE in (2, 6) else "relabel/exclude") if in_op else "between"
        check(match, f"{where}: the catalog is neither the state before nor after that {kind} operation")
        position = match[-1]
        key = f"{kind}: {allowed[position]}"
        outcomes[key] = outcomes.get(key, 0) + 1
        print(f"{where}: {kind}, the catalog holds the {allowed[position]} state")
    print(f"outcomes: {outcomes}")
    check(any(k.startswith("import") for k in outcomes), "no kill landed inside an import")


def main():
    scenario, cli = sys.argv[1], os.path.abspath(sys.argv[2])
    print(f"crash_{scenario}: seed {SEED} (LATHE_CRASH_SEED={SEED} replays the kill delays), {KILLS} kills")
    rng = random.Random(f"{scenario}-{SEED}")
    work = tempfile.mkdtemp(prefix=f"lathe-crash-{scenario}-")
    started = time.monotonic()
    ok = False
    try:
        if scenario == "catalog":
            os.environ.setdefault("XDG_DATA_HOME", os.path.join(work, "data"))
            os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(work, "config"))
            scenario_catalog(cli, os.path.abspath(sys.argv[3]), work, rng)
        else:
            {"convert": scenario_convert, "train": scenario_train, "export": scenario_export}[scenario](cli, work, rng)
        ok = True
    except Failure as e:
        print(f"FAIL (seed {SEED}): {e}\nthe work folder is kept: {work}", file=sys.stderr)
        return 1
    finally:
        if ok:
            shutil.rmtree(work, ignore_errors=True)
    print(f"crash_{scenario}: all ok in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
