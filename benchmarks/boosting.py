"""Fit time of the boosting chapter's GradientBoosting* against scikit-learn's, side by side, in one run.

    .venv/bin/python benchmarks/boosting.py            # 2k, 20k, 100k rows x 10 features (a few minutes)
    .venv/bin/python benchmarks/boosting.py --quick    # the same table on small data, for CI (seconds)

What it measures: the wall-clock time of `fit` with the defaults both libraries share (100 stages of depth 3,
learning rate 0.1, no subsampling), on the latent-interaction data of benchmarks/fit_predict.py (binary: the sign
of x0 + x1 x2 + noise; regression: the value), ours and scikit-learn's alternately, best of a few runs.
How: the script re-executes itself with one BLAS/OpenMP thread and pins itself to one core (both libraries fit on
one thread; our `apply` would otherwise start threads for large inputs), so the ratio compares the algorithms,
not the number of cores. Ratio = ours / scikit-learn's, measured in the same run on the same data; the target is
at most 1.0.

What it does not show: prediction time, memory, other losses or tree shapes, the histogram-based
HistGradientBoosting* (the chapter compares it), and a quiet machine: on a shared machine the absolute times
move by tens of percent between runs; alternating the two libraries keeps the ratio fairer than the times.
"""
import argparse, os, platform, sys, time

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
import sklearn
from sklearn.ensemble import GradientBoostingClassifier as SkClassifier, GradientBoostingRegressor as SkRegressor

from climbing_trees.boosting_estimators import GradientBoostingClassifier, GradientBoostingRegressor

FULL_SIZES, QUICK_SIZES = (2_000, 20_000, 100_000), (1_000, 4_000)
TARGET = 1.0


def data(n, task, d=10, seed=0):
    "Gaussian features; the target x0 + x1 x2 + noise (regression) or its sign (binary)."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    return X, (s > 0).astype(int) if task == "binary" else s


def best_fit_seconds(make_ours, make_theirs, X, y, repeats):
    "Best wall-clock fit time of each, the two fitted alternately."
    best = [np.inf, np.inf]
    for _ in range(repeats):
        for k, make in enumerate((make_ours, make_theirs)):
            model = make()
            start = time.perf_counter()
            model.fit(X, y)
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small data and fewer stages: a smoke test")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    sizes, n_estimators = (QUICK_SIZES, 20) if args.quick else (FULL_SIZES, 100)
    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, Python {platform.python_version()}, one core; "
          f"{n_estimators} stages of depth 3, 10 features{' (--quick)' if args.quick else ''}")
    print(f"{'case':<12} {'rows':>8} {'ours (s)':>10} {'sklearn (s)':>12} {'ratio':>7}")
    ratios = []
    for task in ("binary", "regression"):
        ours_class, theirs_class = ((GradientBoostingClassifier, SkClassifier) if task == "binary"
                                    else (GradientBoostingRegressor, SkRegressor))
        for n in sizes:
            X, y = data(n, task)
            repeats = 1 if n >= 50_000 else 3
            ours_class(n_estimators=2).fit(X[:200], y[:200])                 # first-use costs (imports, caches) not timed
            ours, theirs = best_fit_seconds(lambda: ours_class(n_estimators=n_estimators, random_state=0),
                                            lambda: theirs_class(n_estimators=n_estimators, random_state=0), X, y, repeats)
            ratios.append(ours / theirs)
            flag = "" if ours / theirs <= TARGET else "  (above the target)"
            print(f"{task:<12} {n:>8} {ours:>10.3f} {theirs:>12.3f} {ours / theirs:>7.2f}{flag}", flush=True)
    print(f"ratio = ours / scikit-learn's fit time; target <= {TARGET}; geometric mean of the ratios "
          f"{np.exp(np.mean(np.log(ratios))):.2f}")


if __name__ == "__main__":
    main()
