"""A single tree on small data against scikit-learn: fit and one-row predict, the ratio table of issue 36's small-data target.

    .venv/bin/python benchmarks/small_data.py                      # best of 200 (about a minute)
    .venv/bin/python benchmarks/small_data.py --quick              # best of 5, for CI (a few seconds)
    .venv/bin/python benchmarks/small_data.py --baseline DIR       # also time the package in DIR/climbing_trees (an older
                                                                   # checkout, e.g. from `git archive`), interleaved with ours

Iris and breast cancer with `DecisionTreeClassifier`, diabetes with `DecisionTreeRegressor`, each at max_depth=3 and full
depth: the fit on the whole data set, and predict on its first row (through the estimator's input validation). One core
(the process pins itself to one processor, as `taskset -c 1` does, and sets the BLAS thread variables to 1); every
measurement is the best of `repeats` runs, ours and scikit-learn's (and the baseline's, if given) alternating in each round,
so that a machine whose speed drifts slows them alike. Ratios are ours / scikit-learn's; the targets are at most 2.0 for the
fit and 1.5 for one-row predict.
"""
import argparse, importlib.util, os, sys
from pathlib import Path

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

import climbing_trees
from small_floor import best_of                                      # the same interleaved best-of as the floor

TARGETS = {"fit": 2.0, "predict": 1.5}
CASES = (("iris", load_iris, "DecisionTreeClassifier", SkClassifier),
         ("breast cancer", load_breast_cancer, "DecisionTreeClassifier", SkClassifier),
         ("diabetes", load_diabetes, "DecisionTreeRegressor", SkRegressor))


def load_package(directory, name="climbing_trees_baseline"):
    "The package `climbing_trees` found in `directory`, imported under another `name` beside ours (its imports are relative)."
    init = Path(directory) / "climbing_trees" / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 5 instead of 200, for CI")
    parser.add_argument("--repeats", type=int, default=None, help="best of this many runs (default 200, --quick 5)")
    parser.add_argument("--baseline", default=None, help="a directory holding another climbing_trees/ to time beside ours")
    parser.add_argument("--cpu", type=int, default=None, help="the processor to pin to (default: the last one allowed)")
    args = parser.parse_args()
    repeats = args.repeats or (5 if args.quick else 200)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))})
    packages = [("ours", climbing_trees)] + ([("baseline", load_package(args.baseline))] if args.baseline else [])
    print(f"one core, best of {repeats}, ms; ratio = library / scikit-learn {sklearn.__version__} "
          f"(targets: fit {TARGETS['fit']}, one-row predict {TARGETS['predict']})")
    header = f"{'case':40s} {'sklearn':>8s}" + "".join(f" {name:>8s} {'ratio':>6s}" for name, _ in packages)
    print(header)
    worst = {"fit": 0.0, "predict": 0.0}
    for data, load, estimator, Sk in CASES:
        X, y = load(return_X_y=True)
        for depth in (3, None):
            fitted = [getattr(package, estimator)(max_depth=depth).fit(X, y) for _, package in packages]
            sk = Sk(max_depth=depth, random_state=0).fit(X, y)
            for fitted_tree in fitted:       # the same tree, or the times compare different work
                assert fitted_tree.tree_.node_count == sk.tree_.node_count, (data, depth, fitted_tree.tree_.node_count)
            fits = best_of([lambda: Sk(max_depth=depth, random_state=0).fit(X, y)]
                           + [lambda package=package: getattr(package, estimator)(max_depth=depth).fit(X, y)
                              for _, package in packages], repeats)
            row = X[:1]
            predicts = best_of([lambda: sk.predict(row)] + [lambda tree=tree: tree.predict(row) for tree in fitted], repeats)
            for kind, times in (("fit", fits), ("predict", predicts)):
                label = f"{data}, {'depth 3' if depth else 'full depth'}, {kind if kind == 'fit' else 'predict 1 row'}"
                ratios = [t / times[0] for t in times[1:]]
                worst[kind] = max(worst[kind], ratios[0])
                print(f"{label:40s} {times[0] * 1e3:8.3f}" + "".join(f" {t * 1e3:8.3f} {r:6.2f}" for t, r in zip(times[1:], ratios)))
    print(f"largest ratio (ours): fit {worst['fit']:.2f}, one-row predict {worst['predict']:.2f}")


if __name__ == "__main__":
    main()
