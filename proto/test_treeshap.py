"""Tests of the numpy TreeSHAP prototype: the fast algorithm against the definition (all subsets), against shap's C++ on
scikit-learn's identical models, and additivity (expected value + row sum = the prediction) for trees, forests and boosting.

Run: cd /work/shap && PYTHONPATH=/work/shap /work/main/.venv/bin/python -m pytest -q proto/test_treeshap.py"""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble as sk_ensemble, tree as sk_tree

from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier, GradientBoostingRegressor,
                            RandomForestClassifier, RandomForestRegressor, ExtraTreesRegressor)
from climbing_trees.inference import apply as apply_tree
from climbing_trees.tree import flat_values
from proto.treeshap import (brute_force_shap, boosting_shap, forest_shap, tree_shap, tree_structure, tree_value_function)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import shap

EXACT, AGREE, ADD_UP = 1e-9, 1e-6, 1e-9
LARGEST = {}                                     # the largest difference each test saw (printed with -s)


def record(name, gap):
    LARGEST[name] = max(LARGEST.get(name, 0.0), float(gap))
    return gap


def numeric_problem(seed, n=200, d=6, holes=0.0, task="regression", float32=False):
    "Rows of `d` uniform features (NaN in a fraction `holes`), a target, and 40 new rows with the same holes."
    rng = np.random.default_rng(seed)
    X = rng.random((n + 40, d))
    if float32: X = X.astype(np.float32).astype(np.float64)
    s = X[:, 0] + 2 * X[:, 1] * X[:, 2] - X[:, 3 % d] + 0.3 * rng.normal(size=len(X))
    y = {"regression": s, "binary": (s > np.median(s)).astype(int),
         "multiclass": np.digitize(s, np.quantile(s, [1 / 3, 2 / 3]))}[task]
    if holes: X = np.where(rng.random(X.shape) < holes, np.nan, X)
    return X[:n], y[:n], X[n:]


def assert_against_definition(tree, X, name):
    "tree_shap equals the Shapley values by all subsets, row by row; the full set reaches `apply`'s leaf; returns the largest gap."
    phi, expected = tree_shap(tree, X)
    leaves = apply_tree(tree, X)
    gap = 0.0
    for x, p, leaf in zip(X, phi, leaves):
        exact, empty = brute_force_shap(tree, x)
        gap = max(gap, np.abs(p - exact).max(), np.abs(np.asarray(expected) - empty).max())
        np.testing.assert_allclose(tree_value_function(tree, x, range(len(x))), flat_values(tree)[leaf], rtol=0, atol=1e-12)
    assert gap < EXACT, gap
    np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), flat_values(tree)[leaves].squeeze(), rtol=0, atol=ADD_UP)
    return record(name, gap)


# -- the definition: all subsets
@pytest.mark.parametrize("seed", range(6))
def test_numeric_trees_with_holes_equal_the_definition(seed):
    d = 4 + seed % 5                                     # 4 to 8 features
    X, y, X_new = numeric_problem(seed, d=d, holes=0.15)
    for model in (DecisionTreeRegressor(max_depth=3 + seed % 4, min_samples_leaf=3, random_state=seed),
                  DecisionTreeRegressor(max_depth=8, max_features=0.6, random_state=seed),      # deep, features repeated on paths
                  DecisionTreeClassifier(max_depth=5, random_state=seed)):
        target = y if isinstance(model, DecisionTreeRegressor) else (y > np.median(y)).astype(int) + (y > 1.5)
        model.fit(X, target)
        assert_against_definition(model.tree_, X_new[:8], "numeric vs all subsets")


def categorical_frame(seed, n=300):
    "A data frame with two categorical columns (one with 8 levels), three numeric ones, holes in both kinds, and a target."
    rng = np.random.default_rng(seed)
    colour = rng.choice(list("abcdefgh"), size=n)
    size = rng.choice(["S", "M", "L"], size=n)
    X = pd.DataFrame({"colour": pd.Categorical(colour), "u": rng.random(n), "size": pd.Categorical(size),
                      "v": rng.random(n), "w": rng.random(n)})
    effect = dict(zip("abcdefgh", rng.normal(size=8)))
    y = np.array([effect[c] for c in colour]) + (size == "L") * X["u"] + X["v"] + 0.2 * rng.normal(size=n)
    X.loc[rng.random(n) < 0.1, "colour"] = np.nan
    X.loc[rng.random(n) < 0.1, "u"] = np.nan
    return X, y


@pytest.mark.parametrize("seed", range(4))
def test_categorical_trees_equal_the_definition(seed):
    X, y = categorical_frame(seed)
    for model in (DecisionTreeRegressor(max_depth=6, min_samples_leaf=4, categorical_features="auto", handle_unknown="ignore"),
                  DecisionTreeClassifier(max_depth=5, min_samples_leaf=4, categorical_features="auto", handle_unknown="ignore")):
        model.fit(X, y if isinstance(model, DecisionTreeRegressor) else (y > np.median(y)).astype(int))
        assert model.tree_.categorical.any()
        new, _ = categorical_frame(seed + 100, n=12)
        new["colour"] = new["colour"].cat.add_categories(["z"])
        new.loc[0, "colour"] = "z"                       # a level never seen in fit: coded -1, sent to default_left
        coded = model._validate_X_predict(new)
        assert_against_definition(model.tree_, coded, "categorical vs all subsets")
        phi, expected = tree_shap(model, new)            # the estimator itself: X coded as predict codes it
        predicted = model.predict(new) if isinstance(model, DecisionTreeRegressor) else model.predict_proba(new)
        np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), predicted, rtol=0, atol=ADD_UP)


def test_a_lone_leaf_has_no_shapley_values():
    X, y, X_new = numeric_problem(0)
    model = DecisionTreeRegressor(max_depth=1, min_impurity_decrease=1e9).fit(X, y)
    assert model.tree_.node_count == 1
    phi, expected = tree_shap(model, X_new)
    assert np.all(phi == 0) and expected == pytest.approx(y.mean())


def test_the_quadrature_is_exact_for_deep_paths():
    "12 features, depth 14: paths with up to 12 distinct features (7 quadrature points), checked against shap's C++."
    X, y, X_new = numeric_problem(3, n=2000, d=12, holes=0.05)
    model = DecisionTreeRegressor(max_depth=14, max_features=0.5, random_state=0).fit(X, y)
    assert tree_structure(model.tree_)["Q"] >= 6
    phi, expected = tree_shap(model, X_new)
    explainer = shap.TreeExplainer(model.to_shap())      # NaN to each split's default side, as ours
    gap = max(np.abs(phi - explainer.shap_values(X_new)).max(), abs(expected - explainer.expected_value))
    assert record("deep tree vs shap", gap) < AGREE
    np.testing.assert_allclose(expected + phi.sum(axis=1), model.predict(X_new), rtol=0, atol=ADD_UP)


# -- shap's C++ on scikit-learn's identical models
def same_tree(a, b):
    inner = a.children_left != -1
    return (np.array_equal(a.children_left, b.children_left) and np.array_equal(a.children_right, b.children_right)
            and np.array_equal(a.feature[inner], b.feature[inner]) and np.array_equal(a.threshold[inner], b.threshold[inner]))


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_a_tree_equals_shap_on_sklearns_tree(task):
    ours_class, theirs_class = ((DecisionTreeRegressor, sk_tree.DecisionTreeRegressor) if task == "regression"
                                else (DecisionTreeClassifier, sk_tree.DecisionTreeClassifier))
    params = dict(max_depth=7, min_samples_leaf=5) if task == "regression" else dict(max_depth=5, min_samples_leaf=10)
    for seed in range(20):
        X, y, X_new = numeric_problem(seed, n=400, d=6, task=task, float32=True)
        ours, theirs = ours_class(**params).fit(X, y), theirs_class(**params, random_state=0).fit(X, y)
        if same_tree(ours.tree_, theirs.tree_): break
    else: pytest.fail("no tie-free data in 20 seeds")
    assert np.array_equal(ours.apply(X_new), theirs.apply(X_new.astype(np.float32)))   # the same leaves
    phi, expected = tree_shap(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    theirs_phi = explainer.shap_values(X_new)
    gap = max(np.abs(phi - theirs_phi).max(), np.abs(expected - explainer.expected_value).max())
    assert record(f"tree vs shap ({task})", gap) < AGREE
    predicted = ours.predict(X_new) if task == "regression" else ours.predict_proba(X_new)
    np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), predicted, rtol=0, atol=ADD_UP)


def test_a_forest_equals_shap_on_sklearns_forest():
    params = dict(n_estimators=10, max_features=None, bootstrap=True, min_samples_leaf=5, max_depth=8, random_state=0)
    for seed in range(20):
        X, y, X_new = numeric_problem(seed, n=300, d=6, float32=True)
        ours, theirs = RandomForestRegressor(**params).fit(X, y), sk_ensemble.RandomForestRegressor(**params).fit(X, y)
        if all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_, theirs.estimators_)): break
    else: pytest.fail("no data in 20 seeds on which the forests are the same")
    phi, expected = forest_shap(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    gap = max(np.abs(phi - explainer.shap_values(X_new)).max(), abs(expected - float(np.ravel(explainer.expected_value)[0])))
    assert record("forest vs shap", gap) < AGREE
    np.testing.assert_allclose(expected + phi.sum(axis=1), ours.predict(X_new), rtol=0, atol=ADD_UP)


def test_boosting_equals_shap_on_sklearns_boosting():
    X, y, X_new = numeric_problem(0, n=400, d=6, float32=True)
    params = dict(n_estimators=30, max_depth=4, min_samples_leaf=10, learning_rate=0.2, random_state=0)
    ours, theirs = GradientBoostingRegressor(**params).fit(X, y), sk_ensemble.GradientBoostingRegressor(**params).fit(X, y)
    assert all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_.ravel(), theirs.estimators_.ravel()))
    phi, expected = boosting_shap(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    gap = max(np.abs(phi - explainer.shap_values(X_new)).max(), abs(expected - float(np.ravel(explainer.expected_value)[0])))
    assert record("boosting vs shap", gap) < AGREE
    via_dict = shap.TreeExplainer(ours.to_shap())        # shap reading our model through its dictionary door
    assert np.abs(phi - via_dict.shap_values(X_new)).max() < AGREE
    np.testing.assert_allclose(expected + phi.sum(axis=1), ours.predict(X_new), rtol=0, atol=ADD_UP)


# -- additivity: expected value + row sum = the prediction
def test_forests_add_up():
    X, y, X_new = numeric_problem(1, n=300, d=7, holes=0.1, task="multiclass")
    forest = RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y)
    phi, expected = forest_shap(forest, X_new)
    assert phi.shape == (len(X_new), 7, 3)
    np.testing.assert_allclose(expected + phi.sum(axis=1), forest.predict_proba(X_new), rtol=0, atol=ADD_UP)
    Xc, yc = categorical_frame(2)
    forest = ExtraTreesRegressor(n_estimators=6, max_depth=7, random_state=0, categorical_features="auto").fit(Xc, yc)
    phi, expected = forest_shap(forest, Xc[:50])
    np.testing.assert_allclose(expected + phi.sum(axis=1), forest.predict(Xc[:50]), rtol=0, atol=ADD_UP)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_boosting_adds_up(task):
    X, y, X_new = numeric_problem(2, n=300, d=6, holes=0.1, task=task)
    model_class = GradientBoostingRegressor if task == "regression" else GradientBoostingClassifier
    model = model_class(n_estimators=15, max_depth=3, random_state=0).fit(X, y)
    phi, expected = boosting_shap(model, X_new)
    raw = model.predict(X_new) if task == "regression" else model.decision_function(X_new)
    np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), raw, rtol=0, atol=ADD_UP)
    Xc, yc = categorical_frame(3)
    if task == "regression":
        model = GradientBoostingRegressor(n_estimators=10, max_depth=4, random_state=0, categorical_features="auto").fit(Xc, yc)
        phi, expected = boosting_shap(model, Xc[:50])
        np.testing.assert_allclose(expected + phi.sum(axis=1), model.predict(Xc[:50]), rtol=0, atol=ADD_UP)


def test_blocks_and_chunks_do_not_change_the_values():
    import proto.treeshap as ts
    X, y, X_new = numeric_problem(4, n=500, d=8, holes=0.1)
    model = DecisionTreeRegressor(max_depth=9, random_state=0).fit(X, y)
    phi, _ = tree_shap(model, X_new)
    small, routes = tree_shap(model, X_new, block_elements=1)[0], ts.ROUTE_ROWS
    try:
        ts.ROUTE_ROWS = 7
        chunked = tree_shap(model, X_new)[0]
    finally: ts.ROUTE_ROWS = routes
    assert np.abs(phi - small).max() < 1e-12 and np.abs(phi - chunked).max() < 1e-12


def test_report_largest_differences():
    "Runs last: prints the largest difference each comparison saw (pytest -s shows it)."
    for name, gap in sorted(LARGEST.items()): print(f"\n{name}: largest difference {gap:.2e}")
