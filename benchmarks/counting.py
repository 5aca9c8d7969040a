"""Issue 37's target table with today's code: few-valued columns, ours against scikit-learn, side by side in one run.

    .venv/bin/python benchmarks/counting.py            # best of 3 for the forests, best of 10 for single trees (a few minutes)
    .venv/bin/python benchmarks/counting.py --quick    # 10 trees, best of 1 and 3 (well under a minute)
    .venv/bin/python benchmarks/counting.py --large    # also full-depth trees on 1M x 20 continuous (minutes, ~2 GB)

Cases (issue 37's "Targets"):
- random forest of 100 trees on scikit-learn's digits (1,797 x 64, pixels 0-16, 10 classes): our `RandomForestClassifier`
  against scikit-learn's, n_jobs=1, random_state=0 (target: ratio at most 1.0);
- a single `DecisionTreeClassifier` grown to purity on digits (target 0.5);
- a single tree grown to purity on 100,000 x 10 uniform features each rounded to 100 values (0.00, 0.01, ..., 0.99):
  a regressor (squared error, a smooth target plus noise) and a classifier (two classes from a noisy linear score)
  (target 0.5);
- R's `solder` (rpart's data: 900 rows, five factors, the count `skips` as a regression target), read through `Rscript`
  if R and rpart are installed (else the rows say so): our `RandomForestRegressor` (100 trees), `DecisionTreeRegressor`
  and `ExtraTreesRegressor` with the five factors as native categorical columns, against scikit-learn's on the ordinal
  codes (target 1.0);
- with --large: a full-depth `DecisionTreeClassifier` on 1,000,000 x 20 continuous features (`make_classification`,
  10 informative), best of 1, and each tree's accuracy on 200,000 held-out rows: ours exact, and ours with
  `max_bins=255` (chapter 12's bins), each against scikit-learn's exact tree; the target (0.5) is for the binned
  tree, within 0.005 of the exact tree's accuracy. Then the added peak memory of the same fits on the same 1,000,000
  training rows, each in a fresh process that reads the table from a file (`peak_memory_mb`, Linux): scikit-learn's
  exact tree, ours exact, and ours with `max_bins=255` (target: at most 1.0x scikit-learn's exact tree).
One core: the process pins itself to one processor (the last allowed, or --cpu) and sets the BLAS thread variables to 1
before numpy loads. Every time is the best of `repeats` runs, ours and scikit-learn's alternating in each round (a
machine whose speed drifts slows both alike). Ratio = ours / scikit-learn's. The node counts are printed beside the
times: the same count says both grew trees of the same size (scikit-learn's ties between features may pick others).
"""
import argparse, os, shutil, subprocess, sys, tempfile

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import time
import numpy as np
import pandas as pd
import sklearn
from sklearn.datasets import load_digits
from sklearn.ensemble import (ExtraTreesRegressor as SkExtraRegressor, RandomForestClassifier as SkForest,
                              RandomForestRegressor as SkForestRegressor)
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

import climbing_trees
from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesRegressor, RandomForestClassifier,
                            RandomForestRegressor)
from small_floor import best_of                                      # the same interleaved best-of as the other benchmarks

TARGETS = {"forest": 1.0, "tree": 0.5}


def rounded_data(n=100_000, d=10, values=100, seed=0):
    "X (n, d) uniform on [0, 1) rounded down to `values` levels, a regression target and a two-class target from it."
    rng = np.random.default_rng(seed)
    X = np.floor(rng.random((n, d)) * values) / values
    signal = np.sin(6 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3]
    y_regression = signal + 0.3 * rng.standard_normal(n)
    y_class = (X[:, :5] @ np.array([1.0, -1.0, 0.5, 0.5, -0.5]) + 0.3 * rng.standard_normal(n) > 0.25).astype(int)
    return X, y_regression, y_class


def load_solder():
    "R's `solder` from rpart, by `Rscript`: (X (900, 5) ordinal codes of the five factors, levels in R's order, y = skips), or None without R and rpart."
    if shutil.which("Rscript") is None: return None
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "solder.csv")
        done = subprocess.run(["Rscript", "-e", f"library(rpart); write.csv(solder, '{path}', row.names = FALSE)"],
                              capture_output=True, text=True)
        if done.returncode != 0: return None
        table = pd.read_csv(path)
    factors = ["Opening", "Solder", "Mask", "PadType", "Panel"]
    X = np.column_stack([pd.factorize(table[c], sort=True)[0] for c in factors]).astype(float)
    return X, table["skips"].to_numpy(dtype=float)


def node_count(model):
    "Nodes of a fitted tree, or the total over a forest's trees (ours and scikit-learn's expose `tree_.node_count`)."
    if hasattr(model, "estimators_"): return sum(e.tree_.node_count for e in model.estimators_)
    return model.tree_.node_count


def large_cases():
    "The 1M x 20 continuous row (--large), with held-out accuracies."
    from sklearn.datasets import make_classification
    X, y = make_classification(1_200_000, 20, n_informative=10, random_state=0)
    X_train, y_train, X_test, y_test = X[:1_000_000], y[:1_000_000], X[1_000_000:], y[1_000_000:]
    def fitted(model):
        model.fit(X_train, y_train)
        model.accuracy = float((model.predict(X_test) == y_test).mean())
        return model
    return [("single tree, 1M x 20 continuous (exact)", "tree", lambda: fitted(DecisionTreeClassifier()),
             lambda: fitted(SkClassifier(random_state=0)), 1),
            ("single tree, 1M x 20, max_bins=255 (theirs exact)", "tree",
             lambda: fitted(DecisionTreeClassifier(max_bins=255, random_state=0)), lambda: fitted(SkClassifier(random_state=0)), 1)]


def large_memory():
    "The added peak memory (MB) of the 1M x 20 fits, each in a fresh process that reads the table from a file."
    from sklearn.datasets import make_classification
    from climbing_trees.bench import peak_memory_mb
    X, y = make_classification(1_200_000, 20, n_informative=10, random_state=0)
    with tempfile.TemporaryDirectory() as folder:
        stored = os.path.join(folder, "table.npz")
        np.savez(stored, X=X[:1_000_000], y=y[:1_000_000])
        del X, y
        setup = (f"import numpy as np; from sklearn.tree import DecisionTreeClassifier as Theirs; "
                 f"from climbing_trees import DecisionTreeClassifier; table = np.load({stored!r}); "
                 f"X, y = table['X'], table['y']")
        return {name: peak_memory_mb(setup, fit) for name, fit in (
            ("scikit-learn, exact", "Theirs(random_state=0).fit(X, y)"),
            ("ours, exact", "DecisionTreeClassifier(random_state=0).fit(X, y)"),
            ("ours, max_bins=255", "DecisionTreeClassifier(max_bins=255, random_state=0).fit(X, y)"))}


def cases(quick):
    "(label, target kind, ours(), scikit-learn's(), repeats) of each row of the table; each call returns a fitted model."
    X_digits, y_digits = load_digits(return_X_y=True)
    X, y_regression, y_class = rounded_data()
    trees = 10 if quick else 100
    return [
        (f"random forest, {trees} trees, digits", "forest",
         lambda: RandomForestClassifier(n_estimators=trees, random_state=0, n_jobs=1).fit(X_digits, y_digits),
         lambda: SkForest(n_estimators=trees, random_state=0, n_jobs=1).fit(X_digits, y_digits), 1 if quick else 3),
        ("single tree, digits", "tree",
         lambda: DecisionTreeClassifier().fit(X_digits, y_digits),
         lambda: SkClassifier(random_state=0).fit(X_digits, y_digits), 3 if quick else 20),
        ("single tree regressor, 100k x 10 (100 values)", "tree",
         lambda: DecisionTreeRegressor().fit(X, y_regression),
         lambda: SkRegressor(random_state=0).fit(X, y_regression), 1 if quick else 5),
        ("single tree classifier, 100k x 10 (100 values)", "tree",
         lambda: DecisionTreeClassifier().fit(X, y_class),
         lambda: SkClassifier(random_state=0).fit(X, y_class), 1 if quick else 5),
    ] + solder_cases(quick)


def solder_cases(quick):
    "The rows of R's solder (native categorical columns here, ordinal codes in scikit-learn), or a row saying it was skipped."
    solder = load_solder()
    if solder is None: return [("solder: skipped (no Rscript with rpart)", "forest", None, None, 0)]
    X, y = solder
    categorical, trees = list(range(X.shape[1])), 10 if quick else 100
    return [
        (f"random forest, {trees} trees, solder (categorical)", "forest",
         lambda: RandomForestRegressor(n_estimators=trees, random_state=0, n_jobs=1, categorical_features=categorical).fit(X, y),
         lambda: SkForestRegressor(n_estimators=trees, random_state=0, n_jobs=1).fit(X, y), 1 if quick else 2),
        ("single tree, solder (categorical)", "forest",
         lambda: DecisionTreeRegressor(categorical_features=categorical).fit(X, y),
         lambda: SkRegressor(random_state=0).fit(X, y), 3 if quick else 10),
        (f"extra trees, {trees} trees, solder (categorical)", "forest",
         lambda: ExtraTreesRegressor(n_estimators=trees, random_state=0, n_jobs=1, categorical_features=categorical).fit(X, y),
         lambda: SkExtraRegressor(n_estimators=trees, random_state=0, n_jobs=1).fit(X, y), 1 if quick else 2),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 trees in the forest and fewer repeats, for CI")
    parser.add_argument("--cpu", type=int, default=None, help="the processor to pin to (default: the last one allowed)")
    parser.add_argument("--large", action="store_true", help="also the full-depth trees on 1M x 20 continuous, exact and with max_bins=255 (minutes)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))})
    print(f"one core, seconds (best of the repeats); ratio = climbing-trees {climbing_trees.__version__} / scikit-learn "
          f"{sklearn.__version__} (targets: forest {TARGETS['forest']}, single tree {TARGETS['tree']})", flush=True)
    print(f"{'case':48s} {'repeats':>7s} {'sklearn':>9s} {'ours':>9s} {'ratio':>7s} {'target':>6s}  nodes (sklearn / ours)")
    for label, kind, ours, theirs, repeats in cases(args.quick) + (large_cases() if args.large else []):
        if ours is None:
            print(label, flush=True)
            continue
        models = {}
        sk_time, our_time = best_of([lambda: models.__setitem__("sk", theirs()), lambda: models.__setitem__("ours", ours())], repeats)
        nodes = f"{node_count(models['sk'])} / {node_count(models['ours'])}"
        if hasattr(models["ours"], "accuracy"):
            nodes += f"; held-out accuracy {models['sk'].accuracy:.4f} / {models['ours'].accuracy:.4f}"
        ratio = our_time / sk_time
        print(f"{label:48s} {repeats:7d} {sk_time:9.3f} {our_time:9.3f} {ratio:7.2f} {TARGETS[kind]:6.2f}  {nodes}", flush=True)
    if args.large:
        added = large_memory()
        theirs = added["scikit-learn, exact"]
        print("added peak memory, 1M x 20 training rows, each fit in a fresh process (target for max_bins=255: 1.0)")
        for name, mb in added.items():
            print(f"  {name:28s} {mb:8.1f} MB  {mb / theirs:5.2f}x scikit-learn's exact tree", flush=True)


if __name__ == "__main__":
    main()
