"""Optuna's TPE sampler (the peer of Lathe's TpeSampler) on the synthetic objectives of
tests/unit/engine/tune/synthetic_objectives.h: the same ranges and trial budgets, seeds 0..29,
TPESampler's defaults (univariate, 10 random start-up trials, 24 EI candidates). Prints JSON:
{"optuna": version, "seeds": 30, "objectives": {name: {"trials": n, "median_best": v, "mean_best": v,
"bests": [...]}}}. Usage: optuna_tpe.py [SEEDS].

`optuna_tpe.py parzen` instead prints Optuna's Parzen estimator (TPE's density of one parameter,
optuna.samplers._tpe.parzen_estimator of the pinned version) on fixed observations: {"cases":
[{"type", "low", "high", "log", "choices", "observations", "points", "log_pdf"}]}, for the C++
test to rebuild each estimator and compare log densities point by point."""
import json
import math
import statistics
import sys

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)

HARTMANN_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
              [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
HARTMANN_P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
              [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
              [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
              [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
HARTMANN_ALPHA = [1.0, 1.2, 3.0, 3.2]


def quadratic(t):
    x = t.suggest_float("x0", -5, 5)
    y = t.suggest_float("x1", -5, 5)
    return (x - 1) ** 2 + (y + 2) ** 2


def branin(t):
    x1 = t.suggest_float("x0", -5, 10)
    x2 = t.suggest_float("x1", 0, 15)
    b, c = 5.1 / (4 * math.pi ** 2), 5 / math.pi
    return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


def hartmann6(t):
    x = [t.suggest_float(f"x{i}", 0, 1) for i in range(6)]
    total = 0.0
    for i in range(4):
        inner = sum(HARTMANN_A[i][j] * (x[j] - HARTMANN_P[i][j]) ** 2 for j in range(6))
        total += HARTMANN_ALPHA[i] * math.exp(-inner)
    return -total


# name -> (objective, trials): keep in step with synthetic_objectives.h.
OBJECTIVES = {"quadratic": (quadratic, 60), "branin": (branin, 80), "hartmann6": (hartmann6, 150)}


def parzen_cases():
    import numpy as np
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
    from optuna.samplers._tpe.parzen_estimator import _ParzenEstimator, _ParzenEstimatorParameters
    from optuna.samplers._tpe.sampler import default_weights

    parameters = _ParzenEstimatorParameters(prior_weight=1.0, consider_magic_clip=True, consider_endpoints=False,
                                            weights=default_weights, multivariate=False, categorical_distance_func={})
    rng = np.random.RandomState(0)
    cases = []
    # (type, distribution, observation count): counts 0, 1, 2 and beyond 25 (the weight ramp).
    specs = [("uniform", FloatDistribution(-5, 10), n) for n in (0, 1, 2, 7, 40)]
    specs += [("log_uniform", FloatDistribution(1e-4, 1e-1, log=True), n) for n in (1, 5, 30)]
    specs += [("int_uniform", IntDistribution(16, 128), n) for n in (1, 6, 33)]
    specs += [("int_uniform", IntDistribution(1, 1000, log=True), n) for n in (3, 28)]
    specs += [("choice", CategoricalDistribution(["sgd", "adamw", "rmsprop"]), n) for n in (0, 4, 50)]
    for kind, dist, n in specs:
        if kind == "choice":
            obs = rng.randint(0, len(dist.choices), size=n).astype(float)
            points = np.arange(len(dist.choices), dtype=float)
        elif kind == "int_uniform":
            sample = lambda size: np.round(np.exp(rng.uniform(np.log(dist.low), np.log(dist.high), size))) if dist.log \
                else rng.randint(dist.low, dist.high + 1, size=size)
            # Distinct values: Optuna orders equal observations by numpy's unstable argsort (whose
            # order depends on the platform's sort), Lathe by a stable sort; both are valid.
            obs = []
            while len(obs) < n:
                v = float(sample(1)[0])
                if v not in obs:
                    obs.append(v)
            obs = np.asarray(obs, dtype=float)
            points = np.asarray(sorted(set([float(dist.low), float(dist.high)] + list(np.asarray(sample(8), dtype=float)))))
        else:
            draw = (lambda size: np.exp(rng.uniform(np.log(dist.low), np.log(dist.high), size))) if dist.log \
                else (lambda size: rng.uniform(dist.low, dist.high, size))
            # Clustered observations, so that kernel widths differ.
            obs = draw(n)
            if n > 3:
                obs[: n // 2] = np.clip(obs[0] * (1 + 0.01 * rng.randn(n // 2)), dist.low, dist.high)
            points = np.concatenate([[dist.low, dist.high], draw(8)])
        pe = _ParzenEstimator({"x": obs}, {"x": dist}, parameters)
        case = {"type": kind, "observations": obs.tolist(), "points": points.tolist(),
                "log_pdf": pe.log_pdf({"x": points}).tolist()}
        if kind == "choice":
            case["choices"] = list(dist.choices)
        else:
            case.update({"low": dist.low, "high": dist.high, "log": dist.log})
        cases.append(case)
    return {"optuna": optuna.__version__, "cases": cases}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "parzen":
        print(json.dumps(parzen_cases()))
        return
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    out = {"optuna": optuna.__version__, "seeds": seeds, "objectives": {}}
    for name, (objective, trials) in OBJECTIVES.items():
        bests = []
        for seed in range(seeds):
            study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed))
            study.optimize(objective, n_trials=trials)
            bests.append(study.best_value)
        out["objectives"][name] = {"trials": trials, "median_best": statistics.median(bests),
                                   "mean_best": statistics.fmean(bests), "bests": bests}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
