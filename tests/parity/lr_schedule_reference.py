#!/usr/bin/env python3
"""Learning-rate curves from PyTorch's own schedulers, the reference for Lathe's LrSchedule
(tests/unit/engine/test_lr_schedule.cpp runs this with the project venv's python and compares).

Each case is evaluated per optimizer step as LrSchedule defines it: a LinearLR warm-up on its
own optimizer for the first round(warmup_epochs * steps_per_epoch) steps, then the main
scheduler, fresh, over the remaining steps (what SequentialLR does). Schedulers that PyTorch
steps once per epoch are stepped once per step with their periods in steps (StepLR,
MultiStepLR) or gamma ** (1 / steps_per_epoch) (ExponentialLR); CosineAnnealingWarmRestarts is
stepped with fractional epochs, as its documentation shows. ReduceLROnPlateau is stepped once
per epoch with the case's metrics. Prints one JSON document on stdout.
"""
import json
import math
import warnings

import torch
from torch.optim import lr_scheduler as sched

torch.set_num_threads(1)
warnings.filterwarnings("ignore")

CASES = [
    {"id": "step", "steps_per_epoch": 7, "epochs": 12, "base_lr": 0.1,
     "config": {"name": "step", "step_size": 3, "gamma": 0.5}},
    {"id": "step_warmup", "steps_per_epoch": 7, "epochs": 12, "base_lr": 0.1,
     "config": {"name": "step", "step_size": 3, "gamma": 0.5, "warmup_epochs": 2, "warmup_start_factor": 0.1}},
    {"id": "multi_step_warmup", "steps_per_epoch": 5, "epochs": 12, "base_lr": 0.05,
     "config": {"name": "multi_step", "milestones": [2, 5, 9], "gamma": 0.1, "warmup_epochs": 1,
                "warmup_start_factor": 0.01}},
    {"id": "exponential", "steps_per_epoch": 4, "epochs": 10, "base_lr": 0.2,
     "config": {"name": "exponential", "gamma": 0.8}},
    {"id": "exponential_warmup", "steps_per_epoch": 4, "epochs": 10, "base_lr": 0.2,
     "config": {"name": "exponential", "gamma": 0.8, "warmup_epochs": 1.5, "warmup_start_factor": 0.25}},
    {"id": "cosine", "steps_per_epoch": 10, "epochs": 15, "base_lr": 0.1,
     "config": {"name": "cosine", "min_lr": 1e-4}},
    {"id": "cosine_warmup", "steps_per_epoch": 10, "epochs": 15, "base_lr": 0.1,
     "config": {"name": "cosine", "min_lr": 0.0, "warmup_epochs": 2, "warmup_start_factor": 0.01}},
    {"id": "cosine_restarts", "steps_per_epoch": 8, "epochs": 12, "base_lr": 0.1,
     "config": {"name": "cosine_restarts", "restart_epochs": 3, "restart_multiplier": 1, "min_lr": 0.0}},
    {"id": "cosine_restarts_mult", "steps_per_epoch": 5, "epochs": 16, "base_lr": 0.1,
     "config": {"name": "cosine_restarts", "restart_epochs": 2, "restart_multiplier": 2, "min_lr": 0.001,
                "warmup_epochs": 1, "warmup_start_factor": 0.1}},
    {"id": "cosine_restarts_mult3", "steps_per_epoch": 3, "epochs": 30, "base_lr": 0.1,
     "config": {"name": "cosine_restarts", "restart_epochs": 2, "restart_multiplier": 3, "min_lr": 0.0}},
    {"id": "one_cycle", "steps_per_epoch": 9, "epochs": 10, "base_lr": 0.1,
     "config": {"name": "one_cycle"}},
    {"id": "one_cycle_max_lr", "steps_per_epoch": 9, "epochs": 10, "base_lr": 0.1,
     "config": {"name": "one_cycle", "max_lr": 0.5, "pct_start": 0.25, "div_factor": 10, "final_div_factor": 100,
                "warmup_epochs": 3}},
    {"id": "constant_warmup", "steps_per_epoch": 6, "epochs": 4, "base_lr": 0.01,
     "config": {"name": "constant", "warmup_epochs": 0.5, "warmup_start_factor": 0.05}},
    {"id": "plateau_loss", "steps_per_epoch": 3, "epochs": 16, "base_lr": 0.1,
     "config": {"name": "plateau", "plateau_metric": "val_loss", "plateau_factor": 0.5, "plateau_patience": 2,
                "plateau_threshold": 1e-4},
     "metrics": [1.0, 0.8, 0.7, 0.7, 0.69995, 0.71, 0.72, 0.6, 0.61, 0.62, 0.63, 0.64, 0.5, 0.5, 0.5, 0.5]},
    {"id": "plateau_accuracy", "steps_per_epoch": 3, "epochs": 12, "base_lr": 0.1,
     "config": {"name": "plateau", "plateau_metric": "val_top1", "plateau_factor": 0.1, "plateau_patience": 1,
                "plateau_threshold": 0.01},
     "metrics": [0.2, 0.4, 0.45, 0.403, 0.404, 0.5, 0.504, 0.503, 0.6, 0.6, 0.6, 0.6]},
]


def optimizer(lr):
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)


def lr_of(opt):
    return opt.param_groups[0]["lr"]


def main_scheduler(cfg, opt, steps_per_epoch, main_steps):
    name = cfg["name"]
    if name == "step":
        return sched.StepLR(opt, step_size=cfg["step_size"] * steps_per_epoch, gamma=cfg["gamma"])
    if name == "multi_step":
        return sched.MultiStepLR(opt, milestones=[m * steps_per_epoch for m in cfg["milestones"]], gamma=cfg["gamma"])
    if name == "exponential":
        return sched.ExponentialLR(opt, gamma=cfg["gamma"] ** (1.0 / steps_per_epoch))
    if name == "cosine":
        return sched.CosineAnnealingLR(opt, T_max=main_steps, eta_min=cfg.get("min_lr", 0.0))
    if name == "constant":
        return None
    raise ValueError(name)


def run(case):
    cfg = case["config"]
    spe, epochs, base = case["steps_per_epoch"], case["epochs"], case["base_lr"]
    total = spe * epochs
    name = cfg["name"]
    if name == "plateau":
        opt = optimizer(base)
        mode = "min" if "loss" in cfg["plateau_metric"] else "max"
        s = sched.ReduceLROnPlateau(opt, mode=mode, factor=cfg["plateau_factor"], patience=cfg["plateau_patience"],
                                    threshold=cfg["plateau_threshold"], threshold_mode="rel")
        after = []
        for m in case["metrics"]:
            s.step(m)
            after.append(lr_of(opt))
        return {"lr_after_epoch": after}
    if name == "one_cycle":
        opt = optimizer(base)
        s = sched.OneCycleLR(opt, max_lr=cfg.get("max_lr", 0) or base, total_steps=total,
                             pct_start=cfg.get("pct_start", 0.3), div_factor=cfg.get("div_factor", 25.0),
                             final_div_factor=cfg.get("final_div_factor", 1e4), anneal_strategy="cos",
                             cycle_momentum=False, three_phase=False)
        lrs = []
        for i in range(total):
            lrs.append(lr_of(opt))
            if i + 1 < total:
                opt.step()
                s.step()
        return {"lrs": lrs}

    lrs = []
    warmup = 0
    if cfg.get("warmup_epochs", 0) > 0:
        warmup = min(max(int(math.floor(cfg["warmup_epochs"] * spe + 0.5)), 1), total)
        opt = optimizer(base)
        s = sched.LinearLR(opt, start_factor=cfg.get("warmup_start_factor", 0.01), end_factor=1.0,
                           total_iters=warmup)
        for _ in range(warmup):
            lrs.append(lr_of(opt))
            opt.step()
            s.step()
    main_steps = total - warmup
    opt = optimizer(base)
    if name == "cosine_restarts":
        s = sched.CosineAnnealingWarmRestarts(opt, T_0=cfg["restart_epochs"], T_mult=cfg["restart_multiplier"],
                                              eta_min=cfg.get("min_lr", 0.0))
        for i in range(main_steps):
            s.step(i / spe)
            lrs.append(lr_of(opt))
        return {"lrs": lrs}
    s = main_scheduler(cfg, opt, spe, main_steps)
    for _ in range(main_steps):
        lrs.append(lr_of(opt))
        opt.step()
        if s is not None:
            s.step()
    return {"lrs": lrs}


def main():
    out = []
    for case in CASES:
        result = dict(case)
        result.update(run(case))
        out.append(result)
    print(json.dumps({"torch": torch.__version__, "cases": out}))


if __name__ == "__main__":
    main()
