#!/usr/bin/env python3
"""The references of Lathe's multi-label losses and metrics.

  multilabel_reference.py loss     PyTorch: binary_cross_entropy_with_logits, and the asymmetric
                                   loss (Ridnik et al., ICCV 2021) written from the paper's
                                   formulas, with their gradients; for 0/1 targets also in the
                                   form of the authors' AsymmetricLoss (one focusing weight
                                   (1 - p_t)^gamma_t per element, p_t the probability of the
                                   element's own class).
                                   (tests/unit/engine/training/test_multilabel_loss.cpp)
  multilabel_reference.py metrics  scikit-learn: average_precision_score, precision_recall_curve,
                                   precision_recall_fscore_support(zero_division=0), threshold
                                   tuning by brute force over f1_score, and the false-positive
                                   confusion by a matrix product.
                                   (tests/unit/engine/inference/test_multilabel_metrics.cpp)

The data are generated here from fixed seeds and printed with the results as one JSON document
(floats print as their shortest round-trip form, so the C++ side reads the very same values).
Scores are float32 values, as Lathe's are; NaN never appears (JSON has none): an undefined value
is null.
"""
import json
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")


# ---------------------------------------------------------------- losses

def smoothed(t, e):
    return t * (1 - e) + e / 2 if e > 0 else t


def asl_paper(x, y, gamma_neg, gamma_pos, clip, eps, pos_weight, detach):
    """-[w y (1-p)^g+ log p + (1-y) p_m^g- log(1-p_m)], p_m = max(p - m, 0), summed / (N*K)."""
    import torch
    p = torch.sigmoid(x)
    p_m = (p - clip).clamp(min=0) if clip > 0 else p
    pos = y * torch.log(p.clamp(min=eps))
    neg = (1 - y) * torch.log((1 - p_m).clamp(min=eps))
    if pos_weight is not None:
        pos = pos * pos_weight
    if gamma_pos > 0:
        f = (1 - p) ** gamma_pos
        pos = pos * (f.detach() if detach else f)
    if gamma_neg > 0:
        f = p_m ** gamma_neg
        neg = neg * (f.detach() if detach else f)
    return -(pos + neg).sum() / x.numel()


def asl_one_weight(x, y, gamma_neg, gamma_pos, clip, eps):
    """For 0/1 targets: the log-likelihood of each element's own class times (1 - p_t)^gamma_t,
    with p_t = p for a positive and 1 - p_m for a negative (the authors' formulation)."""
    import torch
    p = torch.sigmoid(x)
    q = (1 - p + clip).clamp(max=1) if clip > 0 else 1 - p
    ll = y * torch.log(p.clamp(min=eps)) + (1 - y) * torch.log(q.clamp(min=eps))
    p_t = p * y + q * (1 - y)
    gamma = gamma_pos * y + gamma_neg * (1 - y)
    with torch.no_grad():
        w = torch.pow(1 - p_t, gamma)
    return -(ll * w).sum() / x.numel()


LOSS_CASES = [
    # id, loss, n, k, soft targets, smoothing, positive weights, extra options, logit scale
    ("bce_hard", "bce", 7, 5, False, 0.0, False, {}, 3.0),
    ("bce_soft_smooth", "bce", 9, 4, True, 0.1, False, {}, 3.0),
    ("bce_weights", "bce", 8, 6, False, 0.0, True, {}, 3.0),
    ("bce_soft_weights_smooth", "bce", 6, 3, True, 0.2, True, {}, 2.0),
    ("bce_extreme", "bce", 5, 4, False, 0.05, True, {}, 40.0),
    ("asl_default", "asymmetric", 8, 5, False, 0.0, False, {}, 3.0),
    ("asl_gamma_pos1", "asymmetric", 7, 6, False, 0.0, True, {"gamma_pos": 1}, 3.0),
    ("asl_soft_all", "asymmetric", 9, 4, True, 0.1, True,
     {"gamma_pos": 1, "gamma_neg": 2, "clip": 0.1}, 3.0),
    ("asl_no_clip", "asymmetric", 6, 5, False, 0.0, False, {"gamma_neg": 3, "clip": 0.0}, 3.0),
    ("asl_full_gradient", "asymmetric", 8, 5, True, 0.05, True,
     {"gamma_pos": 1, "gamma_neg": 4, "detach": False}, 3.0),
    ("asl_extreme", "asymmetric", 5, 4, False, 0.0, False, {"gamma_pos": 1}, 40.0),
]


def loss_reference():
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(1)
    cases = []
    for seed, (cid, name, n, k, soft, smoothing, weighted, extra, scale) in enumerate(LOSS_CASES):
        g = torch.Generator().manual_seed(1000 + seed)
        logits = (torch.randn(n, k, generator=g) * scale).float()
        if soft:
            targets = torch.rand(n, k, generator=g).float()
            targets[0, 0] = 0.0
            targets[0, 1] = 1.0
        else:
            targets = (torch.rand(n, k, generator=g) < 0.4).float()
        pos_weight = (torch.rand(k, generator=g) * 4 + 0.25).float() if weighted else None
        opts = {"gamma_neg": 4.0, "gamma_pos": 0.0, "clip": 0.05, "eps": 1e-8, "detach": True}
        opts.update(extra)
        x = logits.clone().requires_grad_()
        y = smoothed(targets, smoothing)
        if name == "bce":
            loss = F.binary_cross_entropy_with_logits(x, y, pos_weight=pos_weight)
        else:
            loss = asl_paper(x, y, opts["gamma_neg"], opts["gamma_pos"], opts["clip"], opts["eps"], pos_weight,
                             opts["detach"])
        loss.backward()
        case = {
            "id": cid, "name": name, "label_smoothing": smoothing,
            "gamma_neg": opts["gamma_neg"], "gamma_pos": opts["gamma_pos"], "clip": opts["clip"],
            "eps": opts["eps"], "detach": opts["detach"],
            "logits": logits.tolist(), "targets": targets.tolist(),
            "positive_weights": pos_weight.tolist() if weighted else None,
            "loss": loss.item(), "grad": x.grad.tolist(),
        }
        if name == "asymmetric" and not soft and not weighted and opts["detach"]:
            xa = logits.clone().requires_grad_()
            la = asl_one_weight(xa, targets, opts["gamma_neg"], opts["gamma_pos"], opts["clip"], opts["eps"])
            la.backward()
            case["loss_one_weight"] = la.item()
            case["grad_one_weight"] = xa.grad.tolist()
        cases.append(case)
    return {"torch": torch.__version__, "cases": cases}


# ---------------------------------------------------------------- metrics

METRIC_CASES = [
    # id, seed, n, k, score levels (0: continuous float32; L: multiples of 1/L, many ties), prevalence
    ("tiny", 1, 6, 3, 4, 0.5),
    ("ties_small", 2, 25, 4, 5, 0.35),
    ("ties_medium", 3, 120, 6, 20, 0.3),
    ("continuous", 4, 200, 5, 0, 0.25),
    ("rare_labels", 5, 300, 8, 50, 0.04),
    ("one_label", 6, 40, 1, 10, 0.5),
    ("missing_and_full", 7, 60, 5, 10, 0.3),  # label 1 has no positives, label 3 all but the two unlabelled images
    ("many_ties_zero", 8, 80, 4, 2, 0.4),
]


def metric_reference():
    import sklearn
    from sklearn.metrics import (average_precision_score, f1_score, precision_recall_curve,
                                 precision_recall_fscore_support)

    def f(v):
        return None if v is None or np.isnan(v) else float(v)

    cases = []
    for cid, seed, n, k, levels, prevalence in METRIC_CASES:
        rng = np.random.default_rng(seed)
        raw = rng.random((n, k))
        if levels:
            raw = np.round(raw * levels) / levels
        scores = raw.astype(np.float32).astype(np.float64)  # the float32 values, exactly
        # Targets correlated with the scores, so that the metrics are not all near chance.
        targets = (rng.random((n, k)) < np.clip(prevalence + 0.5 * (scores - 0.5), 0.01, 0.99)).astype(np.int64)
        if cid == "missing_and_full":
            targets[:, 1] = 0
            targets[:, 3] = 1
            targets[n - 1, :] = 0  # images without any label
            targets[n - 2, :] = 0
        # Thresholds: some equal to a score of the label (>= must include it), some in between.
        thresholds = []
        for j in range(k):
            if j % 2 == 0:
                thresholds.append(float(scores[rng.integers(n), j]))
            else:
                thresholds.append(float(rng.random()))

        has_pos = targets.sum(axis=0) > 0
        per_label = []
        curves = []
        for j in range(k):
            if has_pos[j]:
                per_label.append(f(average_precision_score(targets[:, j], scores[:, j])))
                p, r, t = precision_recall_curve(targets[:, j], scores[:, j])
                curves.append({"precision": p[:-1].tolist(), "recall": r[:-1].tolist(), "threshold": t.tolist()})
            else:
                per_label.append(None)
                curves.append(None)
        macro = float(np.mean([per_label[j] for j in range(k) if has_pos[j]])) if has_pos.any() else None
        sklearn_macro = None
        if has_pos.all() and k >= 2:
            sklearn_macro = f(average_precision_score(targets, scores, average="macro"))
        if k >= 2:
            micro = average_precision_score(targets, scores, average="micro")
        else:
            micro = average_precision_score(targets.ravel(), scores.ravel())

        pred = (scores >= np.asarray(thresholds)[None, :]).astype(np.int64)
        if k >= 2:
            p, r, f1, support = precision_recall_fscore_support(targets, pred, average=None, zero_division=0)
            micro_prf = precision_recall_fscore_support(targets, pred, average="micro", zero_division=0)[:3]
            macro_prf = precision_recall_fscore_support(targets, pred, average="macro", zero_division=0)[:3]
        else:
            # One column is binary to scikit-learn (classes 0 and 1), not multi-label: label 1 only.
            p, r, f1, support = precision_recall_fscore_support(targets[:, 0], pred[:, 0], labels=[1], average=None,
                                                                zero_division=0)
            micro_prf = macro_prf = (p[0], r[0], f1[0])

        # Threshold tuning by brute force: every distinct score from the highest down, F1 by
        # scikit-learn, the first maximum kept.
        tuned, tuned_f1 = [], []
        for j in range(k):
            if not has_pos[j]:
                tuned.append(0.5)
                tuned_f1.append(0.0)
                continue
            best_t, best_f = None, -1.0
            for t in sorted(set(scores[:, j].tolist()), reverse=True):
                v = f1_score(targets[:, j], (scores[:, j] >= t).astype(np.int64), zero_division=0)
                if v > best_f:
                    best_t, best_f = t, v
            tuned.append(best_t)
            tuned_f1.append(float(best_f))

        false_pos = pred * (1 - targets)
        confusion = targets.T @ false_pos
        without = false_pos[targets.sum(axis=1) == 0].sum(axis=0)

        cases.append({
            "id": cid, "scores": scores.tolist(), "targets": targets.tolist(), "thresholds": thresholds,
            "ap": per_label, "macro_ap": macro, "sklearn_macro_ap": sklearn_macro, "micro_ap": f(micro),
            "curves": curves,
            "precision": p.tolist(), "recall": r.tolist(), "f1": f1.tolist(), "support": support.tolist(),
            "micro_prf": [float(v) for v in micro_prf], "macro_prf": [float(v) for v in macro_prf],
            "tuned_thresholds": tuned, "tuned_f1": tuned_f1,
            "fp_confusion": confusion.tolist(), "fp_without_labels": without.tolist(),
        })
    return {"sklearn": sklearn.__version__, "cases": cases}


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "loss":
        print(json.dumps(loss_reference()))
    elif mode == "metrics":
        print(json.dumps(metric_reference()))
    else:
        sys.exit("usage: multilabel_reference.py loss|metrics")
