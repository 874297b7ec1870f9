#!/usr/bin/env python3
"""PyTorch's optimizers and F.cross_entropy on fixed tiny problems: the reference for Lathe's
optimizer_factory and loss_functions (tests/unit/engine/test_training_parts.cpp runs this with
the project venv's python and compares). Prints one JSON document on stdout.

Optimizers: three parameters with fixed values in two param groups (w1, w2 with weight decay
and lr multiplier 1; the bias b1 without weight decay and lr multiplier 0.5), a fixed quadratic
loss, N steps with the learning rate lowered linearly (lr * (1 - k / 50) at step k), the
single-tensor (foreach=False) implementations. Losses: fixed logits and targets through
F.cross_entropy (hard and soft targets, label smoothing, class weights), and the focal loss as
loss_functions.h documents it.
"""
import json

import torch
import torch.nn.functional as F

torch.set_num_threads(1)

STEPS = 25


def initial_parameters():
    w1 = torch.tensor([[0.5, -1.2, 0.3], [0.8, 0.1, -0.7]], requires_grad=True)
    b1 = torch.tensor([0.2, -0.4], requires_grad=True)
    w2 = torch.tensor([1.5, -0.25, 0.75, -1.0], requires_grad=True)
    return w1, b1, w2


def quadratic_loss(w1, b1, w2):
    a1 = torch.tensor([[1.0, 2.0, 0.5], [3.0, 1.5, 0.25]])
    t1 = torch.tensor([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]])
    tb = torch.tensor([-0.3, 0.9])
    a2 = torch.tensor([0.7, 1.3, 2.1, 0.4])
    t2 = torch.tensor([0.0, 1.0, -1.0, 0.5])
    cross = (w1.sum(1) * b1).sum()
    return 0.5 * (a1 * (w1 - t1) ** 2).sum() + 0.5 * ((b1 - tb) ** 2).sum() + 0.5 * (a2 * (w2 - t2) ** 2).sum() \
        + 0.3 * cross


OPTIMIZERS = [
    {"id": "sgd", "name": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": False, "weight_decay": 0.01},
    {"id": "sgd_nesterov", "name": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
    {"id": "sgd_plain", "name": "sgd", "lr": 0.05, "momentum": 0.0, "nesterov": False, "weight_decay": 0.0},
    {"id": "adamw", "name": "adamw", "lr": 0.02, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.05},
    {"id": "adamw_betas", "name": "adamw", "lr": 0.05, "betas": [0.8, 0.95], "eps": 1e-6, "weight_decay": 0.1},
    {"id": "rmsprop", "name": "rmsprop", "lr": 0.01, "alpha": 0.99, "eps": 1e-8, "momentum": 0.9,
     "weight_decay": 0.001},
    {"id": "rmsprop_no_momentum", "name": "rmsprop", "lr": 0.01, "alpha": 0.9, "eps": 1e-8, "momentum": 0.0,
     "weight_decay": 0.0},
]
MULTIPLIERS = [1.0, 0.5]


def make_optimizer(case, w1, b1, w2):
    groups = [{"params": [w1, w2], "lr": case["lr"] * MULTIPLIERS[0]},
              {"params": [b1], "lr": case["lr"] * MULTIPLIERS[1], "weight_decay": 0.0}]
    if case["name"] == "sgd":
        return torch.optim.SGD(groups, lr=case["lr"], momentum=case["momentum"], nesterov=case["nesterov"],
                               weight_decay=case["weight_decay"], foreach=False)
    if case["name"] == "adamw":
        return torch.optim.AdamW(groups, lr=case["lr"], betas=tuple(case["betas"]), eps=case["eps"],
                                 weight_decay=case["weight_decay"], foreach=False)
    return torch.optim.RMSprop(groups, lr=case["lr"], alpha=case["alpha"], eps=case["eps"],
                               momentum=case["momentum"], weight_decay=case["weight_decay"], foreach=False)


def run_optimizer(case):
    w1, b1, w2 = initial_parameters()
    opt = make_optimizer(case, w1, b1, w2)
    for k in range(STEPS):
        for group, multiplier in zip(opt.param_groups, MULTIPLIERS):
            group["lr"] = case["lr"] * (1 - k / 50) * multiplier
        opt.zero_grad()
        quadratic_loss(w1, b1, w2).backward()
        opt.step()
    return {"w1": w1.detach().flatten().tolist(), "b1": b1.detach().tolist(), "w2": w2.detach().tolist()}


LOGITS = [[2.0, -1.0, 0.5, 0.0], [0.1, 0.2, 0.3, -0.4], [-1.5, 3.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0],
          [5.0, -2.0, 1.0, -3.0]]
TARGETS = [0, 2, 1, 3, 3]
SOFT = [[0.7, 0.3, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 1.0],
        [0.25, 0.25, 0.25, 0.25]]
WEIGHTS = [1.0, 2.0, 0.5, 1.5]


def focal(logits, targets, gamma, smoothing, weight):
    k = logits.shape[1]
    logp = F.log_softmax(logits, 1)
    terms = -((1 - logp.exp()).clamp(min=0) ** gamma) * logp
    w = weight if weight is not None else torch.ones(k)
    if targets.dtype.is_floating_point:
        q = targets * (1 - smoothing) + smoothing / k
        return (q * w * terms).sum() / logits.shape[0]
    tw = w[targets]
    main = (terms.gather(1, targets[:, None])[:, 0] * tw).sum() / tw.sum()
    smooth = (terms * w).sum() / tw.sum()
    return (1 - smoothing) * main + smoothing / k * smooth


def losses():
    x = torch.tensor(LOGITS)
    y = torch.tensor(TARGETS)
    soft = torch.tensor(SOFT)
    w = torch.tensor(WEIGHTS)
    out = []
    for smoothing in (0.0, 0.1, 0.3):
        for weighted in (False, True):
            weight = w if weighted else None
            out.append({"kind": "hard", "loss": "cross_entropy", "label_smoothing": smoothing, "weighted": weighted,
                        "value": F.cross_entropy(x, y, weight=weight, label_smoothing=smoothing).item()})
            out.append({"kind": "soft", "loss": "cross_entropy", "label_smoothing": smoothing, "weighted": weighted,
                        "value": F.cross_entropy(x, soft, weight=weight, label_smoothing=smoothing).item()})
            for gamma in (0.0, 2.0, 0.5):
                out.append({"kind": "hard", "loss": "focal", "gamma": gamma, "label_smoothing": smoothing,
                            "weighted": weighted, "value": focal(x, y, gamma, smoothing, weight).item()})
                out.append({"kind": "soft", "loss": "focal", "gamma": gamma, "label_smoothing": smoothing,
                            "weighted": weighted, "value": focal(x, soft, gamma, smoothing, weight).item()})
    return out


def main():
    optimizers = []
    for case in OPTIMIZERS:
        result = dict(case)
        result["parameters"] = run_optimizer(case)
        optimizers.append(result)
    print(json.dumps({"torch": torch.__version__, "steps": STEPS, "multipliers": MULTIPLIERS,
                      "optimizers": optimizers, "logits": LOGITS, "targets": TARGETS, "soft_targets": SOFT,
                      "class_weights": WEIGHTS, "losses": losses()}))


if __name__ == "__main__":
    main()
