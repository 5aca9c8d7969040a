"""Fit and predict time of every algorithm of the book against scikit-learn, measured side by side.

    .venv/bin/python benchmarks/fit_predict.py            # the full run (a few minutes)
    .venv/bin/python benchmarks/fit_predict.py --quick    # smaller data, to check the script works

Each time is the best of `--repeats` runs (one run for fits slower than 10 s); ratios are to scikit-learn's time measured in the same
run on the same data. Our predict splits large inputs among threads (one per core); scikit-learn's uses
one core, so the table also gives the walk on one thread (without input validation) for comparison. The targets (issue 7): the default algorithm's fit within 1.25x of
scikit-learn's on 100k x 10 full depth, and predict within 1.25x. Results also go to
benchmarks/results/fit_predict.json (not committed).
"""
import argparse, json, platform, sys, time
from pathlib import Path
import numpy as np
import sklearn
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

import climbing_trees
from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.bench import gaussian_problem, time_call
from climbing_trees.inference import apply

DEFAULT = DecisionTreeClassifier().algorithm


def regression_problem(n, d=10, seed=0):
    "Gaussian features, a continuous target with an interaction and noise."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)


def measure(make, X, y, repeats):
    "Best fit and best predict time of a fresh estimator from `make()` on (X, y)."
    fitted = {}
    def fit(): fitted["model"] = make().fit(X, y)
    fit_time = time_call(fit, repeats, budget=10.0)       # the slow searches get one run, not three
    predict_time = time_call(lambda: fitted["model"].predict(X), repeats)
    return fit_time.best, predict_time.best, fitted["model"]


def run_case(title, X, y, task, algorithms, max_depth, repeats):
    ours = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    theirs = SkClassifier if task == "classification" else SkRegressor
    print(f"\n## {title}: N = {len(y):,}, D = {X.shape[1]}, max_depth = {max_depth}, best of {repeats}", flush=True)
    sk_fit, sk_predict, sk_model = measure(lambda: theirs(max_depth=max_depth, random_state=0), X, y, repeats)
    rows = [("scikit-learn " + sklearn.__version__, sk_fit, sk_predict, None, sk_model.get_n_leaves())]
    for algorithm in algorithms:
        t0 = time.perf_counter()
        fit, predict, model = measure(lambda: ours(max_depth=max_depth, algorithm=algorithm), X, y, repeats)
        one_thread = time_call(lambda: apply(model.tree_, X, n_threads=1), repeats).best
        label = algorithm + (" (default)" if algorithm == DEFAULT else "")
        rows.append((label, fit, predict, one_thread, model.get_n_leaves()))
        print(f"   measured {label} in {time.perf_counter() - t0:.1f} s", flush=True)
    print()
    print("| algorithm | fit s | fit / scikit-learn | predict s | predict / scikit-learn | walk on 1 thread / scikit-learn predict | leaves |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, fit, predict, one_thread, leaves in rows:
        single = "" if one_thread is None else f"{one_thread / sk_predict:.2f}"
        print(f"| {label} | {fit:.3f} | {fit / sk_fit:.2f} | {predict:.4f} | {predict / sk_predict:.2f} | {single} | {leaves} |")
    return [{"case": title, "algorithm": label, "fit_s": fit, "fit_ratio": fit / sk_fit, "predict_s": predict,
             "predict_ratio": predict / sk_predict, "walk_one_thread_s": one_thread, "leaves": int(leaves)}
            for label, fit, predict, one_thread, leaves in rows]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10x smaller data, one repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    n, small, repeats = (10_000, 300, 1) if args.quick else (100_000, 1_000, args.repeats)
    print(f"climbing_trees {climbing_trees.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}, default algorithm {DEFAULT!r}")
    fast = [DEFAULT] + [a for a in ("vectorized",) if a != DEFAULT]
    X, y = gaussian_problem(n, 10)
    Xr, yr = regression_problem(n, 10)
    Xs, ys = gaussian_problem(small, 10)
    results = []
    results += run_case("binary classification, full depth", X, y, "classification", fast, None, repeats)
    results += run_case("regression, full depth", Xr, yr, "regression", fast, None, repeats)
    results += run_case("binary classification, max_depth=8", X, y, "classification", fast, 8, repeats)
    results += run_case("every algorithm of the book, small data", Xs, ys, "classification",
                        [DEFAULT, "vectorized", "incremental", "naive"], None, 1 if args.quick else 2)
    target = next(r for r in results if r["case"].startswith("binary classification, full") and "(default)" in r["algorithm"])
    print(f"\nDefault algorithm on the headline case: fit {target['fit_ratio']:.2f}x scikit-learn "
          f"(target <= 1.25), predict {target['predict_ratio']:.2f}x (target <= 1.25)")
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "fit_predict.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
