"""Issue 38's targets for histogram boosting, ours (chapter 22's `HistBoosting`) beside scikit-learn's HistGradientBoosting*
in one run, one core.

    .venv/bin/python benchmarks/hist_boosting.py            # 200k x 20 binary and regression (best of 3), 1M x 20 binary (1), predict 1M
    .venv/bin/python benchmarks/hist_boosting.py --quick    # 20,000 rows, 10 iterations: a smoke test for `make test`

Fit: 100 iterations of 31 leaves, 255 bins, min_samples_leaf 20, early stopping off, best of the repeats with the two
libraries alternating in each round. Added peak memory: tracemalloc's peak during a 10-iteration fit (numpy registers its
buffers with tracemalloc, so every array either library allocates is counted; X, made before, is not). Targets: fit at
most 2.0x scikit-learn's, added peak at most 2x, predict 1M rows at most 1.0x. Each row also says whether the raw
predictions on 5,000 rows are bit for bit scikit-learn's (the data are continuous: binning is not exact, but both
libraries bin alike). If LightGBM is installed (`pip install lightgbm`: a reference only, not a dependency of the
package), its fit with the same trees (31 leaves, 255 bins, min_child_samples 20, one thread) is timed beside them.
"""
import argparse, os, sys, time, tracemalloc

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from climbing_trees.hist_growth import HistBoosting

TARGETS = {"fit": 2.0, "memory": 2.0, "predict": 1.0}


def data(n, task, seed=0):
    "n x 20 normal columns; a two-class target or a regression target from the same score."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    score = X[:, :5].sum(axis=1) + np.sin(3 * X[:, 5])
    return X, ((score + rng.logistic(size=n) > 0).astype(int) if task == "binary" else score + rng.normal(size=n))


def models(task, iterations):
    "scikit-learn's estimator and ours with the same settings."
    theirs = HistGradientBoostingClassifier if task == "binary" else HistGradientBoostingRegressor
    return (theirs(max_iter=iterations, early_stopping=False, random_state=0),
            HistBoosting(loss="log_loss" if task == "binary" else "squared_error", max_iter=iterations, random_state=0))


def lightgbm_model(task, iterations):
    "LightGBM's estimator with the same settings, or None if it is not installed."
    try: import lightgbm
    except ImportError: return None
    kind = lightgbm.LGBMClassifier if task == "binary" else lightgbm.LGBMRegressor
    return kind(n_estimators=iterations, num_leaves=31, min_child_samples=20, max_bin=255, learning_rate=0.1, n_jobs=1,
                verbose=-1)


def timed(f):
    start = time.perf_counter(); out = f(); return time.perf_counter() - start, out


def best_fits(task, n, repeats, iterations):
    "Best fit time of each library (alternating) and the fitted models."
    X, y = data(n, task)
    times, fitted = [[], []], [None, None]
    for _ in range(repeats):
        for i, model in enumerate(models(task, iterations)):
            t, fitted[i] = timed(lambda: model.fit(X, y))
            times[i].append(t)
    return min(times[0]), min(times[1]), fitted, X


def peak_memory(task, n, iterations):
    "Added peak memory (MB) of each library's fit."
    X, y = data(n, task)
    out = []
    for model in models(task, iterations):
        tracemalloc.start(); model.fit(X, y)
        out.append(tracemalloc.get_traced_memory()[1] / 1e6); tracemalloc.stop()
    return out


def row(name, theirs, ours, target, unit="s"):
    ratio = ours / theirs
    print(f"{name:40s} scikit-learn {theirs:8.2f} {unit}   ours {ours:8.2f} {unit}   ratio {ratio:5.2f}   target {target:.1f}"
          + ("" if ratio <= target else "  (above the target)"), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 rows, 10 iterations, no 1M case")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=None, help="the processor to pin to (default: the last one allowed)")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1] if args.cpu is None else args.cpu
    os.sched_setaffinity(0, {cpu})
    iterations = 10 if args.quick else 100
    cases = [("binary", 20_000, 1), ("regression", 20_000, 1)] if args.quick else \
            [("binary", 200_000, args.repeats), ("regression", 200_000, args.repeats), ("binary", 1_000_000, 1)]
    print(f"one core (cpu {cpu}); {iterations} iterations of 31 leaves; ratio = ours / scikit-learn's")
    for task, n, repeats in cases:
        t_sk, t_ours, (sk, ours), X = best_fits(task, n, repeats, iterations)
        row(f"fit {n:,} x 20 {task} (best of {repeats})", t_sk, t_ours, TARGETS["fit"])
        m_sk, m_ours = peak_memory(task, n, min(iterations, 10))
        row("  added peak memory", m_sk, m_ours, TARGETS["memory"], "MB")
        same = np.array_equal(ours.raw_predict(X[:5000]), sk._raw_predict(X[:5000]))
        print(f"  raw predictions bit for bit scikit-learn's on 5,000 rows: {same}", flush=True)
        lgbm = lightgbm_model(task, iterations)
        if lgbm is None: print("  LightGBM: not installed (pip install lightgbm to time it beside)")
        else:
            X_l, y_l = data(n, task)
            t_lgbm = min(timed(lambda: lgbm.fit(X_l, y_l))[0] for _ in range(repeats))
            print(f"  LightGBM {t_lgbm:.2f} s: ours / LightGBM {t_ours / t_lgbm:.2f}, scikit-learn / LightGBM {t_sk / t_lgbm:.2f}",
                  flush=True)
    X_new = data(20_000 if args.quick else 1_000_000, "binary", seed=1)[0]
    t_sk = min(timed(lambda: sk.predict(X_new))[0] for _ in range(2))
    t_ours = min(timed(lambda: ours.predict(X_new))[0] for _ in range(2))
    row(f"predict {len(X_new):,} rows (binary)", t_sk, t_ours, TARGETS["predict"])


if __name__ == "__main__":
    main()
