"""`to_shap()`: every tree, forest and boosted model read by shap's `TreeExplainer` through its dictionary door.

The oracle is shap itself reading scikit-learn's identical model through shap's own door for it: on tie-free
float32-exact data our trees are scikit-learn's node for node, so shap's values must agree (to 1e-6; they agree to
rounding). Where shap does not read scikit-learn's model (three-class boosting) the oracle is shap's values of
scikit-learn's trees one by one, summed as the model sums them. Everywhere the values must add up: expected value
plus the row's values is the prediction (probability, mean or raw score) to 1e-9."""
import warnings
from dataclasses import fields

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble as sk_ensemble, tree as sk_tree

from climbing_trees.boosting_estimators import GradientBoostingClassifier, GradientBoostingRegressor
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.forest_estimators import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from climbing_trees.inference import apply as apply_tree
from climbing_trees.tree import Tree

with warnings.catch_warnings():
    warnings.simplefilter("ignore")               # shap's plotting module announces a deprecation of matplotlib's
    import shap

AGREE, ADD_UP = 1e-6, 1e-9


def problem(task, seed=0, n=500, d=5, holes=0.0):
    "Float32-exact normal features (NaN in a fraction `holes` of the entries), a target for `task`, and 1,000 new rows."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 1000, d)).astype(np.float32).astype(np.float64)
    s = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=len(X))
    y = {"regression": s, "binary": (s > 0).astype(int), "multiclass": np.digitize(s, np.quantile(s, [1 / 3, 2 / 3]))}[task]
    if holes: X = np.where(rng.random(X.shape) < holes, np.nan, X)
    return X[:n], y[:n], X[n:]


def same_tree(a, b):
    "Whether our tree `a` and scikit-learn's `b` have the same nodes, features, thresholds and missing sides."
    inner = a.children_left != -1
    return (np.array_equal(a.children_left, b.children_left) and np.array_equal(a.feature[inner], b.feature[inner])
            and np.array_equal(a.threshold[inner], b.threshold[inner])
            and np.array_equal(a.default_left[inner], b.missing_go_to_left[inner].astype(bool)))


def explain(model, X):
    "shap's expected value and values for `model` (ours through `to_shap()`, scikit-learn's as it is)."
    explainer = shap.TreeExplainer(model.to_shap() if hasattr(model, "to_shap") else model)
    return np.asarray(explainer.expected_value), explainer.shap_values(X)


def assert_agree(ours, theirs, X, predicted):
    "shap's values of `ours` equal those of `theirs` and add up to `predicted`; returns the largest difference."
    (e_ours, phi_ours), (e_theirs, phi_theirs) = explain(ours, X), explain(theirs, X)
    gap = max(np.abs(phi_ours - phi_theirs).max(), np.abs(e_ours - e_theirs).max())
    assert gap < AGREE, gap
    np.testing.assert_allclose(e_ours + phi_ours.sum(axis=1), predicted, rtol=0, atol=ADD_UP)
    return gap


# -- single trees
@pytest.mark.parametrize("holes", [0.0, 0.15], ids=["complete", "with-holes"])
@pytest.mark.parametrize("task, criterion", [("multiclass", "gini"), ("binary", "entropy"), ("regression", "squared_error"),
                                             ("regression", "absolute_error")])
def test_a_tree_explained_as_sklearns(task, criterion, holes):
    ours_class, theirs_class = ((DecisionTreeRegressor, sk_tree.DecisionTreeRegressor) if task == "regression"
                                else (DecisionTreeClassifier, sk_tree.DecisionTreeClassifier))
    params = dict(criterion=criterion, max_depth=5, min_samples_leaf=10)
    for seed in range(20):                       # the first data on which scikit-learn's tree is ours (no tie decided by its seed)
        X, y, X_new = problem(task, seed, holes=holes)
        ours, theirs = ours_class(**params).fit(X, y), theirs_class(**params, random_state=0).fit(X, y)
        if same_tree(ours.tree_, theirs.tree_): break
    else: pytest.fail("no tie-free data in 20 seeds")
    predicted = ours.predict(X_new) if task == "regression" else ours.predict_proba(X_new)
    assert_agree(ours, theirs, X_new, predicted)


def test_a_surrogate_tree_is_explained_along_its_majority_sides():
    X, y, X_new = problem("binary", 3, holes=0.2)
    ours = DecisionTreeClassifier(max_depth=4, missing="surrogate").fit(X, y)
    assert ours.tree_.surrogates is not None
    e, phi = explain(ours, X_new)
    without_surrogates = Tree(**{f.name: getattr(ours.tree_, f.name) for f in fields(Tree) if f.name != "surrogates"})
    along_default = without_surrogates.value[apply_tree(without_surrogates, X_new), 0]
    np.testing.assert_allclose(e + phi.sum(axis=1), along_default, rtol=0, atol=ADD_UP)
    complete = ~np.isnan(X_new).any(axis=1)          # rows without holes: the tree's own predictions
    np.testing.assert_allclose((e + phi.sum(axis=1))[complete], ours.predict_proba(X_new[complete]), rtol=0, atol=ADD_UP)


def test_the_dictionary_is_a_copy_and_a_frame_keeps_its_columns():
    X, y, X_new = problem("regression", 1)
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame_new = pd.DataFrame(X_new, columns=list("abcde"))
    ours = DecisionTreeRegressor(max_depth=4).fit(frame, y)
    before = ours.predict(frame_new)
    for tree in ours.to_shap()["trees"]:
        for array in tree.values(): array[...] = 0
    np.testing.assert_array_equal(ours.predict(frame_new), before)
    e, phi = explain(ours, frame_new)
    np.testing.assert_allclose(e + phi.sum(axis=1), before, rtol=0, atol=ADD_UP)


def test_categorical_splits_are_refused_with_the_remedy():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 300), "size": rng.random(300)})
    y = frame.colour.isin(["red", "blue"]).astype(int)
    for model in (DecisionTreeClassifier(max_depth=2), RandomForestClassifier(5, random_state=0),
                  GradientBoostingClassifier(n_estimators=3)):
        with pytest.raises(ValueError, match="splits column 'colour' into sets of levels.*categorical_features=None"):
            model.fit(frame, y).to_shap()
    codes = DecisionTreeClassifier(max_depth=2, categorical_features=None).fit(frame.assign(colour=frame.colour.astype("category").cat.codes), y)
    assert len(codes.to_shap()["trees"]) == 1


def test_an_unfitted_model_is_refused():
    for model in (DecisionTreeClassifier(), RandomForestRegressor(), GradientBoostingRegressor()):
        with pytest.raises(ValueError, match="not fitted"): model.to_shap()


# -- forests
def identical_forests(ours_class, theirs_class, task, **params):
    "Our forest and scikit-learn's on the first data (of 20) where every tree is the same."
    for seed in range(20):
        X, y, X_new = problem(task, seed, n=300)
        ours, theirs = ours_class(**params).fit(X, y), theirs_class(**params).fit(X, y)
        if all(same_tree(a.tree_, b.tree_) for a, b in zip(ours, theirs)): return ours, theirs, X_new
    pytest.fail("no data in 20 seeds on which the forests are the same")


@pytest.mark.parametrize("bootstrap", [True, False])
@pytest.mark.parametrize("task", ["regression", "multiclass"])
def test_a_forest_explained_as_sklearns(task, bootstrap):
    ours_class, theirs_class = ((RandomForestRegressor, sk_ensemble.RandomForestRegressor) if task == "regression"
                                else (RandomForestClassifier, sk_ensemble.RandomForestClassifier))
    ours, theirs, X_new = identical_forests(ours_class, theirs_class, task, n_estimators=8, max_features=None, min_samples_leaf=10,
                                            bootstrap=bootstrap, random_state=0)
    assert len(ours.to_shap()["trees"]) == 8
    assert_agree(ours, theirs, X_new, ours.predict(X_new) if task == "regression" else ours.predict_proba(X_new))


@pytest.mark.parametrize("forest_class", [ExtraTreesRegressor, ExtraTreesClassifier, RandomForestClassifier])
def test_random_forests_with_holes_add_up(forest_class):
    task = "regression" if forest_class is ExtraTreesRegressor else "multiclass"
    X, y, X_new = problem(task, 2, holes=0.1)
    forest = forest_class(n_estimators=12, max_depth=6, random_state=0).fit(X, y)
    e, phi = explain(forest, X_new)
    np.testing.assert_allclose(e + phi.sum(axis=1), forest.predict(X_new) if task == "regression" else forest.predict_proba(X_new),
                               rtol=0, atol=ADD_UP)


# -- boosting
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", ["regression", "binary"])
def test_boosting_explained_as_sklearns(task, weighted):
    ours_class, theirs_class = ((GradientBoostingRegressor, sk_ensemble.GradientBoostingRegressor) if task == "regression"
                                else (GradientBoostingClassifier, sk_ensemble.GradientBoostingClassifier))
    X, y, X_new = problem(task, 0, n=400)
    w = np.random.default_rng(1).random(len(y)) + 0.1 if weighted else None
    params = dict(n_estimators=30, min_samples_leaf=10, random_state=0)       # leaves of ten rows: no tie in a tiny node
    ours, theirs = ours_class(**params).fit(X, y, sample_weight=w), theirs_class(**params).fit(X, y, sample_weight=w)
    assert all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_.ravel(), theirs.estimators_.ravel()))
    assert_agree(ours, theirs, X_new, ours.predict(X_new) if task == "regression" else ours.decision_function(X_new))


def test_three_class_boosting_equals_the_sum_of_sklearns_trees():
    X, y, X_new = problem("multiclass", 0, n=400)
    params = dict(n_estimators=10, min_samples_leaf=10, random_state=0)
    ours, theirs = GradientBoostingClassifier(**params).fit(X, y), sk_ensemble.GradientBoostingClassifier(**params).fit(X, y)
    assert all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_.ravel(), theirs.estimators_.ravel()))
    e_ours, phi_ours = explain(ours, X_new)
    assert phi_ours.shape == (len(X_new), 5, 3)
    by_tree = [[explain(theirs.estimators_[i, k], X_new) for k in range(3)] for i in range(10)]   # shap reads each tree
    phi_theirs = np.stack([sum(by_tree[i][k][1] for i in range(10)) for k in range(3)], axis=-1) * theirs.learning_rate
    e_theirs = theirs._raw_predict_init(X_new[:1])[0] + theirs.learning_rate * np.array([sum(by_tree[i][k][0] for i in range(10))
                                                                                         for k in range(3)]).ravel()
    assert np.abs(phi_ours - phi_theirs).max() < AGREE and np.abs(e_ours - e_theirs).max() < AGREE
    np.testing.assert_allclose(e_ours + phi_ours.sum(axis=1), ours.decision_function(X_new), rtol=0, atol=ADD_UP)


@pytest.mark.parametrize("params", [dict(loss="exponential"), dict(init="zero"), dict(subsample=0.7, max_features=2),
                                    dict(missing="surrogate")], ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_boosting_variants_add_up(params):
    X, y, X_new = problem("binary", 4, n=400, holes=0.1)
    model = GradientBoostingClassifier(n_estimators=15, random_state=0, **params).fit(X, y)
    e, phi = explain(model, X_new)
    rows = ~np.isnan(X_new).any(axis=1) if params.get("missing") == "surrogate" else slice(None)   # surrogates: complete rows
    np.testing.assert_allclose((e + phi.sum(axis=1))[rows], model.decision_function(X_new)[rows], rtol=0, atol=ADD_UP)


def test_a_regression_loss_and_an_init_constant():
    X, y, X_new = problem("regression", 5, n=400, holes=0.1)
    model = GradientBoostingRegressor(loss="huber", n_estimators=15, random_state=0).fit(X, y)
    dictionary = model.to_shap()
    assert dictionary["base_offset"] == model.init_.constant_[0, 0] and len(dictionary["trees"]) == 15
    e, phi = explain(model, X_new)
    np.testing.assert_allclose(e + phi.sum(axis=1), model.predict(X_new), rtol=0, atol=ADD_UP)


def test_an_init_that_reads_the_rows_is_refused():
    X, y, _ = problem("regression", 0, n=200)
    model = GradientBoostingRegressor(n_estimators=3, init=sk_tree.DecisionTreeRegressor(max_depth=1)).fit(X, y)
    with pytest.raises(ValueError, match="init=None"): model.to_shap()
