"""The peer of test_engine_label_issues: cleanlab 2.9's confident learning on the test's cases.

Usage: cleanlab_issues.py CASES.json
CASES.json is a list of {"task": "single_label" | "multi_label", "rank_by": "self_confidence" |
"normalized_margin", "labels": [int] or [[int]], "probs": [[float]], "confident_joint": Lathe's}.
Prints a JSON list, one object per case: cleanlab's own confident joint and thresholds
(single-label: K x K and K; multi-label: K x 2 x 2 and K x 2); "ambiguous", whether rounding the
calibrated joint met a tie that numpy's unstable argsort decides (then Lathe's joint may differ
by one in the tied entries); "issues", find_label_issues' ranked indices with its defaults given
Lathe's confident joint (the same as without it when the joints agree); and "scores", every
example's label quality by the method the ranking sorts by.
"""
import json
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")

import cleanlab.count  # noqa: E402
import cleanlab.filter  # noqa: E402
import cleanlab.internal.multilabel_scorer as ml_scorer  # noqa: E402
import cleanlab.multilabel_classification.filter  # noqa: E402
import cleanlab.rank  # noqa: E402
from cleanlab.internal.multilabel_utils import get_onehot_num_classes  # noqa: E402


def rounding_ambiguous(labels, probs):
    """Whether cleanlab's calibrate_confident_joint rounds with a tie at the cut of a row."""
    joint = cleanlab.count.compute_confident_joint(labels, probs, calibrate=False)
    counts = np.bincount(labels, minlength=probs.shape[1])
    cal = (joint.T / np.clip(joint.sum(axis=1), 1e-100, None) * counts).T
    cal = cal / np.clip(np.sum(cal), 1e-100, None) * sum(counts)
    for floats in cal:
        ints = floats.round()
        target = np.sum(floats).round()
        total = np.sum(ints).round()
        while abs(total - target) > 1e-6:
            diff = np.round(target - total)
            increment = -1 if diff < 0 else 1
            changes = min(int(abs(diff)), len(floats))
            remainders = np.sort(floats - ints)[::-increment]
            if changes < len(floats) and remainders[changes - 1] == remainders[changes]:
                return True
            for i in np.argsort(floats - ints)[::-increment][:changes]:
                ints[i] += increment
            total = np.sum(ints).round()
    return False


def single_label(case):
    labels = np.asarray(case["labels"], dtype=np.int64)
    # The test's probabilities are float32 values; float64 arithmetic on them, as the C++ side.
    probs = np.asarray(case["probs"], dtype=np.float32).astype(np.float64)
    issues = cleanlab.filter.find_label_issues(
        labels,
        probs,
        return_indices_ranked_by=case["rank_by"],
        confident_joint=np.asarray(case["confident_joint"], dtype=np.int64),
        n_jobs=1,
    )
    scores = cleanlab.rank.get_label_quality_scores(labels, probs, method=case["rank_by"])
    joint = cleanlab.count.compute_confident_joint(labels, probs)
    thresholds = cleanlab.count.get_confident_thresholds(labels, probs)
    return issues, scores, joint, thresholds, rounding_ambiguous(labels, probs)


def multi_label(case):
    labels = [list(s) for s in case["labels"]]
    probs = np.asarray(case["probs"], dtype=np.float32).astype(np.float64)
    issues = cleanlab.multilabel_classification.filter.find_label_issues(
        labels,
        probs,
        return_indices_ranked_by=case["rank_by"],
        confident_joint=np.asarray(case["confident_joint"], dtype=np.int64),
        n_jobs=1,
    )
    # The score the filter ranks by (cleanlab.filter._find_label_issues_multilabel).
    y_one, _ = get_onehot_num_classes(labels, probs)
    scores = ml_scorer.get_label_quality_scores(
        labels=y_one,
        pred_probs=probs,
        method=ml_scorer.MultilabelScorer(
            base_scorer=ml_scorer.ClassLabelScorer.from_str(case["rank_by"])
        ),
    )
    joint = cleanlab.count.compute_confident_joint(labels, probs, multi_label=True)
    thresholds = cleanlab.count.get_confident_thresholds(labels, probs, multi_label=True)
    # Two columns: numpy's argsort of two values is stable, as Lathe's order.
    return issues, scores, joint, thresholds, False


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    out = []
    for case in cases:
        run = single_label if case["task"] == "single_label" else multi_label
        issues, scores, joint, thresholds, ambiguous = run(case)
        out.append(
            {
                "issues": [int(i) for i in issues],
                "scores": [float(s) for s in scores],
                "confident_joint": np.asarray(joint).tolist(),
                "thresholds": np.asarray(thresholds).tolist(),
                "ambiguous": ambiguous,
            }
        )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
