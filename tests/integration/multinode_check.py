"""Checks for cli_multinode.sh, in the project venv.

  same A.safetensors B.safetensors ATOL RTOL   every tensor of A within tolerance of B's (same names)
  records LOG_DIR SHARD_DIR GLOBAL_BATCH EPOCHS  each epoch's records, over every rank's log, are
                                                 distinct train records, as many as the steps took
"""
import glob
import json
import os
import sys

import torch
from safetensors.torch import load_file


def same(a, b, atol, rtol):
    ta, tb = load_file(a), load_file(b)
    if sorted(ta) != sorted(tb):
        sys.exit(f"different tensors: {sorted(set(ta) ^ set(tb))[:5]}")
    worst = max(((ta[k].double() - tb[k].double()).abs().max().item(), k) for k in ta if ta[k].numel())
    for k in ta:
        if not torch.allclose(ta[k].double(), tb[k].double(), atol=float(atol), rtol=float(rtol)):
            sys.exit(f"{k} differs (largest difference {worst[0]:.3g} in {worst[1]})")
    print(f"same within atol {atol} rtol {rtol}: {len(ta)} tensors, largest difference {worst[0]:.3g}")


def records(log_dir, shard_dir, global_batch, epochs):
    manifest = json.load(open(os.path.join(shard_dir, "dataset.json")))
    train = set()
    for shard in manifest["shards"]:
        if shard["split"] != "train":
            continue
        for line in open(os.path.join(shard_dir, shard["index"])):
            offset = line.split()[0]
            train.add((shard["file"], offset))
    logs = sorted(glob.glob(os.path.join(log_dir, "records-rank-*.txt")))
    if len(logs) < 2:
        sys.exit(f"expected a record log per rank in {log_dir}, found {logs}")
    per_epoch = {}
    for log in logs:
        for line in open(log):
            epoch, shard, offset = line.split()
            per_epoch.setdefault(int(epoch), []).append((shard, offset))
    global_batch = int(global_batch)
    expected = (len(train) // global_batch) * global_batch
    if sorted(per_epoch) != list(range(int(epochs))):
        sys.exit(f"epochs in the logs: {sorted(per_epoch)}")
    for epoch, seen in per_epoch.items():
        if len(seen) != len(set(seen)):
            sys.exit(f"epoch {epoch}: {len(seen) - len(set(seen))} records taken twice")
        if not set(seen) <= train:
            sys.exit(f"epoch {epoch}: records that are not training records: {sorted(set(seen) - train)[:3]}")
        if len(seen) != expected:
            sys.exit(f"epoch {epoch}: {len(seen)} records, expected {expected} of {len(train)}")
    print(f"{len(logs)} ranks, {len(per_epoch)} epochs: each record once per epoch ({expected} of {len(train)})")


if __name__ == "__main__":
    {"same": same, "records": records}[sys.argv[1]](*sys.argv[2:])
