"""Trees of several outputs against scikit-learn's: fit time, ours and scikit-learn's side by side in one run, and the ratio.

    .venv/bin/python benchmarks/multi_output.py            # 20,000 x 10 with 3 outputs, 100,000 x 10 with 2; best of 3 (a minute)
    .venv/bin/python benchmarks/multi_output.py --quick    # 5,000 x 10 with 3 outputs, best of 1 (seconds), for the test suite

A target of several columns grows one tree for all its outputs (chapter 5's `MultiOutput` criterion in chapter 8's grower,
chapter 16's estimators). The regression outputs are smooth functions of different columns plus noise, the classification
outputs the same targets cut at their medians; the single-output rows are the first output alone, for scale. One core (the
process pins itself to one processor and sets the BLAS thread variables to 1); ours and scikit-learn's alternate in every
round, so that a machine whose speed drifts slows them alike. Ratio = ours / scikit-learn's (below 1: ours is faster).
"""
import os, sys, time

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
import sklearn
from sklearn import tree as sktree

from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor
from small_floor import best_of                                      # the same interleaved best-of as the floor


def data(n, d, k, seed=0):
    "X (n, d) uniform; k regression outputs, each a smooth function of two columns plus noise; and the same cut at their medians."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    Y = np.column_stack([np.sin(3 * X[:, j]) + X[:, j + 1] + 0.1 * rng.normal(size=n) for j in range(k)])
    return X, Y, (Y > np.median(Y, axis=0)).astype(int)


def main():
    quick = "--quick" in sys.argv[1:]
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sizes, repeats = ([(5_000, 10, 3)], 1) if quick else ([(20_000, 10, 3), (100_000, 10, 2)], 3)
    print(f"one core, best of {repeats}, seconds; ratio = ours / scikit-learn {sklearn.__version__}'s")
    print(f"{'case':62s} {'sklearn':>8s} {'ours':>8s} {'ratio':>6s}")
    for n, d, k in sizes:
        X, Y, Y_classes = data(n, d, k)
        for task, ours, theirs, y in (("regression", DecisionTreeRegressor, sktree.DecisionTreeRegressor, Y),
                                      ("classification", DecisionTreeClassifier, sktree.DecisionTreeClassifier, Y_classes),
                                      ("regression, the first output alone", DecisionTreeRegressor, sktree.DecisionTreeRegressor, Y[:, 0])):
            mine, sk = best_of([lambda: ours().fit(X, y), lambda: theirs(random_state=0).fit(X, y)], repeats)
            outputs = 1 if y.ndim == 1 else y.shape[1]
            print(f"{f'{n:,} x {d}, {outputs} output(s), {task}':62s} {sk:8.3f} {mine:8.3f} {mine / sk:6.2f}")


if __name__ == "__main__":
    main()
