"""Time the numpy TreeSHAP prototype against shap's C++ TreeExplainer: a 100-tree random forest of depth 10 on 1,000 rows x 10
features, ours (`forest_shap`) against shap on scikit-learn's forest grown with the same parameters and random_state.

Run: cd /work/shap && PYTHONPATH=/work/shap /work/main/.venv/bin/python proto/bench_treeshap.py [repeats]"""
import sys, time, warnings
import numpy as np
from sklearn.ensemble import RandomForestRegressor as SkForest
from climbing_trees import RandomForestRegressor
import proto.treeshap as ts

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import shap


def best_time(f, repeats):
    "The fastest of `repeats` runs of `f` (the machine is shared: the least disturbed run), and its result."
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter(); result = f(); best = min(best, time.perf_counter() - start)
    return best, result


def main(repeats=2, n=1000, d=10, trees=100, depth=10):
    rng = np.random.default_rng(0)
    X = rng.random((n, d)).astype(np.float32).astype(np.float64)
    y = X[:, 0] + X[:, 1] * X[:, 2] + np.sin(6 * X[:, 3]) + 0.3 * rng.normal(size=n)
    params = dict(n_estimators=trees, max_depth=depth, max_features=None, bootstrap=True, random_state=0)
    ours, theirs = RandomForestRegressor(**params).fit(X, y), SkForest(**params).fit(X, y)
    same = sum(np.array_equal(a.tree_.children_left, b.tree_.children_left) and np.array_equal(a.tree_.feature, b.tree_.feature)
               for a, b in zip(ours.estimators_, theirs.estimators_))
    nodes = np.mean([e.tree_.node_count for e in ours.estimators_])
    their_nodes = np.mean([e.tree_.node_count for e in theirs.estimators_])
    Q = np.mean([ts.tree_structure(e.tree_)["Q"] for e in ours.estimators_])
    print(f"{trees} trees of depth <= {depth}: {nodes:.0f} nodes on average (scikit-learn's: {their_nodes:.0f}), "
          f"{Q:.1f} quadrature points; {same} of {trees} trees node for node the same as scikit-learn's (ties in tiny bootstrap nodes)")

    explainer = shap.TreeExplainer(theirs)
    t_shap, phi_shap = best_time(lambda: explainer.shap_values(X), repeats)
    t_ours, (phi, expected) = best_time(lambda: ts.forest_shap(ours, X), repeats)
    print(f"shap (C++) on scikit-learn's forest: {t_shap:.2f} s")
    print(f"ours (numpy) on our forest:          {t_ours:.2f} s")
    print(f"ratio ours / shap: {t_ours / t_shap:.2f}")
    same_model = shap.TreeExplainer(ours.to_shap())      # shap's C++ on exactly our trees, through the dictionary door
    t_dict, phi_dict = best_time(lambda: same_model.shap_values(X), repeats)
    print(f"shap (C++) on our own forest (to_shap()): {t_dict:.2f} s; ratio ours / that: {t_ours / t_dict:.2f}; "
          f"largest difference from its values: {np.abs(phi - phi_dict).max():.1e}")
    print(f"additivity: largest |expected + row sum - predict| = {np.abs(expected + phi.sum(axis=1) - ours.predict(X)).max():.1e}")
    print(f"largest difference from shap's values of scikit-learn's forest (the trees that differ differ): {np.abs(phi - phi_shap).max():.1e}")

    # where the time goes, on 10 trees: the rows' routing (edge codes) and the arithmetic over (nodes, rows, points)
    route = arithmetic = 0.0
    Xc = ours._validate_X_predict(X)
    for e in ours.estimators_[:10]:
        tree = e.tree_
        s = ts.tree_structure(tree)
        start = time.perf_counter(); index = ts.edge_codes(tree, s, Xc); route += time.perf_counter() - start
        T = tree.node_count
        block = min(n, max(1, ts.BLOCK_ELEMENTS // (T * s["Q"])))
        buffers = [np.empty(T * block * s["Q"]) for _ in range(2)]
        s["onehot"] = np.zeros((d, T)); s["onehot"][s["edge_feature"][1:], np.arange(1, T)] = 1
        start = time.perf_counter()
        for b in range(0, n, block): ts._tree_shap_block(s, index[:, b:b + block], d, buffers)
        arithmetic += time.perf_counter() - start
    print(f"per tree: routing {1000 * route / 10:.1f} ms, arithmetic {1000 * arithmetic / 10:.1f} ms "
          f"({block} rows per cache block)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
