"""Exact Shapley values of tree ensembles: ours (chapter 21, numpy) against shap's TreeExplainer (its C++ TreeSHAP) on
scikit-learn's forest or boosting grown with the same parameters and random_state, side by side in one run.

    .venv/bin/python benchmarks/explain.py            # 100 trees of depth <= 10 on 1,000 x 10 (issue 41's case) and more; best of 3
    .venv/bin/python benchmarks/explain.py --quick    # 10 trees of depth <= 6 on 200 rows, best of 1 (seconds), for the test suite

One core (the process pins itself to one processor and sets the BLAS thread variables to 1); ours and shap's alternate in
every round, so that a machine whose speed drifts slows them alike. Ratio = ours / shap's (below 1: ours is faster). The
models have the same parameters and, tree for tree, the same number of nodes, but not always the same nodes: in a node of
two or three rows several features often separate them equally well, and scikit-learn breaks such ties by its random
feature order where we take the first feature. The script prints how many trees are node for node the same, the largest
difference of the Shapley values of (up to 10 of) those trees, the mean nodes per tree of each, and ours' additivity.
"""
import contextlib, io, os, sys, time, warnings

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
from sklearn import ensemble as sk_ensemble

from climbing_trees import GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor, shap_values
from climbing_trees.explain import tree_shap
from small_floor import best_of                                      # the same interleaved best-of as the other scripts

with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import shap


def data(n, d, seed=0):
    "X (n, d) uniform in single precision (scikit-learn compares in float32: no threshold differs in its last bit); y smooth plus noise."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32).astype(np.float64)
    return X, X[:, 0] + X[:, 1] * X[:, 2] + np.sin(6 * X[:, 3]) + 0.3 * rng.normal(size=n)


def same(a, b):
    return np.array_equal(a.children_left, b.children_left) and np.array_equal(a.feature, b.feature)


def main():
    quick = "--quick" in sys.argv[1:]
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    n, d, trees, depth, repeats = (200, 10, 10, 6, 1) if quick else (1000, 10, 100, 10, 3)
    X, y = data(n, d)
    labels = (y > np.median(y)).astype(int)
    forest = dict(n_estimators=trees, max_depth=depth, max_features=None, random_state=0)
    cases = [(f"random forest, {trees} trees, depth <= {depth}, regression", RandomForestRegressor, sk_ensemble.RandomForestRegressor,
              forest, y),
             (f"the same, min_samples_leaf=5 (fewer tied cuts)", RandomForestRegressor, sk_ensemble.RandomForestRegressor,
              dict(forest, min_samples_leaf=5), y),
             (f"random forest, {trees} trees, depth <= {depth}, 2 classes", RandomForestClassifier,
              sk_ensemble.RandomForestClassifier, forest, labels),
             (f"gradient boosting, {trees} trees of depth 3, regression", GradientBoostingRegressor,
              sk_ensemble.GradientBoostingRegressor, dict(n_estimators=trees, max_depth=3, random_state=0), y)]
    print(f"{n:,} rows x {d} features; one core, best of {repeats}, seconds; ratio = ours / shap {shap.__version__}'s TreeExplainer")
    print(f"{'case':56s} {'nodes':>11s} {'shap':>7s} {'ours':>7s} {'ratio':>6s} {'same trees':>11s} {'max diff':>9s} "
          f"{'additivity':>10s}")
    for name, ours_class, theirs_class, params, target in cases:
        ours, theirs = ours_class(**params).fit(X, target), theirs_class(**params).fit(X, target)
        explainer = shap.TreeExplainer(theirs)
        t_ours, t_shap = best_of([lambda: shap_values(ours, X), lambda: explainer.shap_values(X)], repeats)
        phi, expected = shap_values(ours, X)
        raw = ours.predict(X) if ours_class is not RandomForestClassifier else ours.predict_proba(X)
        additivity = np.abs(expected + phi.sum(axis=1) - raw).max()
        pairs = list(zip(np.ravel(ours.estimators_), np.ravel(theirs.estimators_)))
        kept = [(a, b) for a, b in pairs if same(a.tree_, b.tree_)][:10]       # the first 10 identical trees, one by one
        gap = max((np.abs(tree_shap(a.tree_, X)[..., 0 if phi.ndim == 2 else slice(None)]
                          - np.asarray(shap.TreeExplainer(b).shap_values(X))).max() for a, b in kept), default=np.nan)
        nodes = [np.mean([e.tree_.node_count for e in np.ravel(m.estimators_)]) for m in (ours, theirs)]
        print(f"{name:56s} {nodes[0]:5.0f}/{nodes[1]:<5.0f} {t_shap:7.3f} {t_ours:7.3f} {t_ours / t_shap:6.2f} {len([1 for a, b in pairs if same(a.tree_, b.tree_)]):>5d} of {len(pairs):<3d}"
              f" {gap:9.1e} {additivity:10.1e}")


if __name__ == "__main__":
    main()
