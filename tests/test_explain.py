"""Chapter 21's explanations against two oracles: the definition (Shapley values by all subsets of the tree's value
function, on trees with level sets, NaN, unseen levels and surrogate splits), and shap's compiled TreeExplainer on
scikit-learn's identical tree, forest and boosting; additivity (expected value + row sum = the model's output) for every
family; partial dependence by recursion against the average of ICE curves; bad input."""
import contextlib, io, warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble as sk_ensemble, tree as sk_tree

from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesRegressor, GradientBoostingClassifier,
                            GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor, partial_dependence,
                            shap_values)
from climbing_trees import explain
from climbing_trees.explain import (ShapleyValues, brute_force_shap, explainer_tables, ice_curves, raw_output, split_sides,
                                    tree_partial_dependence, tree_shap, tree_structure, tree_value_function)
from climbing_trees.tree import flat_values

with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import shap

EXACT, AGREE, ADD_UP = 1e-9, 1e-6, 1e-9


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


def categorical_frame(seed, n=300, holes=0.1):
    "Two categorical columns (one of 8 levels), three numeric ones, holes in both kinds, and a target."
    rng = np.random.default_rng(seed)
    colour, size = rng.choice(list("abcdefgh"), size=n), rng.choice(["S", "M", "L"], size=n)
    X = pd.DataFrame({"colour": pd.Categorical(colour), "u": rng.random(n), "size": pd.Categorical(size),
                      "v": rng.random(n), "w": rng.random(n)})
    effect = dict(zip("abcdefgh", rng.normal(size=8)))
    y = np.array([effect[c] for c in colour]) + (size == "L") * X["u"] + X["v"] + 0.2 * rng.normal(size=n)
    for column in ("colour", "u", "v"): X.loc[rng.random(n) < holes, column] = np.nan
    return X, y


def assert_against_definition(tree, X):
    "tree_shap equals the Shapley values by all subsets, row by row, and v(all features) is the leaf `apply` reaches."
    phi = tree_shap(tree, X)
    from climbing_trees.inference import apply
    leaves = apply(tree, X)
    for x, p, leaf in zip(X, phi, leaves):
        exact, empty = brute_force_shap(tree, x)
        assert np.abs(p - exact).max() < EXACT
        assert np.abs(explain.expected_value(tree) - empty).max() < EXACT
        np.testing.assert_allclose(tree_value_function(tree, x, range(len(x))), flat_values(tree)[leaf], rtol=0, atol=1e-12)
    np.testing.assert_allclose(explain.expected_value(tree) + phi.sum(axis=1), flat_values(tree)[leaves], rtol=0, atol=ADD_UP)


# -- the definition: all subsets
@pytest.mark.parametrize("seed", range(6))
def test_numeric_trees_with_holes_equal_the_definition(seed):
    d = 4 + seed % 5                                     # 4 to 8 features
    X, y, X_new = numeric_problem(seed, d=d, holes=0.15)
    for model in (DecisionTreeRegressor(max_depth=3 + seed % 4, min_samples_leaf=3, random_state=seed),
                  DecisionTreeRegressor(max_depth=8, max_features=0.6, random_state=seed),   # features repeated on paths
                  DecisionTreeClassifier(max_depth=5, random_state=seed)):
        target = y if isinstance(model, DecisionTreeRegressor) else (y > np.median(y)).astype(int) + (y > 1.5)
        model.fit(X, target)
        assert_against_definition(model.tree_, X_new[:8])


@pytest.mark.parametrize("missing", ["direction", "surrogate"])
@pytest.mark.parametrize("seed", range(4))
def test_categorical_trees_with_holes_and_surrogates_equal_the_definition(seed, missing):
    X, y = categorical_frame(seed, holes=0.15 if missing == "surrogate" else 0.1)
    for model in (DecisionTreeRegressor(max_depth=6, min_samples_leaf=4, missing=missing, handle_unknown="ignore"),
                  DecisionTreeClassifier(max_depth=5, min_samples_leaf=4, missing=missing, handle_unknown="ignore")):
        model.fit(X, y if isinstance(model, DecisionTreeRegressor) else (y > np.median(y)).astype(int))
        assert model.tree_.categorical.any()
        if missing == "surrogate": assert len(model.tree_.surrogates.feature) > 0
        new, _ = categorical_frame(seed + 100, n=12, holes=0.3)
        new["colour"] = new["colour"].cat.add_categories(["z"])
        new.loc[0, "colour"] = "z"                       # a level never seen in fit
        coded = model._validate_X_predict(new)
        assert_against_definition(model.tree_, coded)
        phi, expected = shap_values(model, new)
        np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), raw_output(model, new), rtol=0, atol=ADD_UP)
        predicted = model.predict(new) if isinstance(model, DecisionTreeRegressor) else model.predict_proba(new)
        np.testing.assert_allclose(raw_output(model, new), predicted, rtol=0, atol=1e-12)


def test_surrogates_decide_some_splits_and_the_routing_is_apply():
    X, y = categorical_frame(5, holes=0.3)
    model = DecisionTreeRegressor(max_depth=6, missing="surrogate").fit(X, y)
    coded = model._validate_X_predict(X)
    left, decider = split_sides(model.tree_, coded)
    inner = model.tree_.children_left != -1
    assert (decider[inner] != model.tree_.feature[inner, None]).any()     # some rows routed by a surrogate
    t = np.zeros(len(coded), dtype=int)
    for _ in range(model.tree_.max_depth):                                  # follow the routing down
        go = left[t, np.arange(len(t))]
        nxt = np.where(go, model.tree_.children_left[t], model.tree_.children_right[t])
        t = np.where(model.tree_.children_left[t] == -1, t, nxt)
    np.testing.assert_array_equal(t, model.apply(X))


def test_a_lone_leaf_has_no_shapley_values():
    X, y, X_new = numeric_problem(0)
    model = DecisionTreeRegressor(max_depth=1, min_impurity_decrease=1e9).fit(X, y)
    assert model.tree_.node_count == 1
    phi, expected = shap_values(model, X_new)
    assert np.all(phi == 0) and expected == pytest.approx(y.mean())


def test_sample_weights_set_the_cover():
    X, y, X_new = numeric_problem(1, holes=0.1)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    model = DecisionTreeRegressor(max_depth=5).fit(X, y, sample_weight=w)
    assert_against_definition(model.tree_, X_new[:6])
    assert shap_values(model, X_new).expected_value == pytest.approx(np.average(y, weights=w))


def test_the_quadrature_is_exact_for_deep_paths():
    "12 features, depth 14: paths with up to 12 distinct features (6 or more quadrature points), against shap's C++."
    X, y, X_new = numeric_problem(3, n=2000, d=12, holes=0.05)
    model = DecisionTreeRegressor(max_depth=14, max_features=0.5, random_state=0).fit(X, y)
    assert tree_structure(model.tree_)["Q"] >= 6
    phi, expected = shap_values(model, X_new)
    explainer = shap.TreeExplainer(model.to_shap())      # NaN to each split's default side, as ours
    assert np.abs(phi - explainer.shap_values(X_new)).max() < AGREE
    assert abs(expected - float(np.ravel(explainer.expected_value)[0])) < AGREE
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
    phi, expected = shap_values(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    theirs_phi = explainer.shap_values(X_new)
    assert np.shape(phi) == np.shape(theirs_phi)                # shap's shapes: (N, D) or (N, D, K)
    assert np.abs(phi - theirs_phi).max() < AGREE
    assert np.abs(np.asarray(expected) - np.squeeze(explainer.expected_value)).max() < AGREE


def test_a_forest_equals_shap_on_sklearns_forest():
    params = dict(n_estimators=10, max_features=None, bootstrap=True, min_samples_leaf=5, max_depth=8, random_state=0)
    for seed in range(20):
        X, y, X_new = numeric_problem(seed, n=300, d=6, float32=True)
        ours, theirs = RandomForestRegressor(**params).fit(X, y), sk_ensemble.RandomForestRegressor(**params).fit(X, y)
        if all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_, theirs.estimators_)): break
    else: pytest.fail("no data in 20 seeds on which the forests are the same")
    phi, expected = shap_values(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    assert np.abs(phi - explainer.shap_values(X_new)).max() < AGREE
    assert abs(expected - float(np.ravel(explainer.expected_value)[0])) < AGREE
    np.testing.assert_allclose(expected + phi.sum(axis=1), ours.predict(X_new), rtol=0, atol=ADD_UP)


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_boosting_equals_shap_on_sklearns_boosting(task):
    params = dict(n_estimators=30, max_depth=4, min_samples_leaf=10, learning_rate=0.2, random_state=0)
    ours_class, theirs_class = ((GradientBoostingRegressor, sk_ensemble.GradientBoostingRegressor) if task == "regression"
                                else (GradientBoostingClassifier, sk_ensemble.GradientBoostingClassifier))
    for seed in range(10):                               # a tie in a small node can pick another cut: skip such data
        X, y, X_new = numeric_problem(seed, n=400, d=6, float32=True, task=task)
        ours, theirs = ours_class(**params).fit(X, y), theirs_class(**params).fit(X, y)
        if all(same_tree(a.tree_, b.tree_) for a, b in zip(ours.estimators_.ravel(), theirs.estimators_.ravel())): break
    else: pytest.fail("no data in 10 seeds on which the boosted models are the same")
    phi, expected = shap_values(ours, X_new)
    explainer = shap.TreeExplainer(theirs)
    assert np.abs(phi - explainer.shap_values(X_new)).max() < AGREE
    assert abs(expected - float(np.ravel(explainer.expected_value)[0])) < AGREE
    raw = ours.predict(X_new) if task == "regression" else ours.decision_function(X_new)
    np.testing.assert_allclose(expected + phi.sum(axis=1), raw, rtol=0, atol=ADD_UP)


# -- additivity and shapes for every family
def test_forests_add_up():
    X, y, X_new = numeric_problem(1, n=300, d=7, holes=0.1, task="multiclass")
    forest = RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y)
    result = shap_values(forest, X_new)
    assert isinstance(result, ShapleyValues) and result.values.shape == (len(X_new), 7, 3)
    np.testing.assert_allclose(result.expected_value + result.values.sum(axis=1), forest.predict_proba(X_new),
                               rtol=0, atol=ADD_UP)
    Xc, yc = categorical_frame(2)
    forest = ExtraTreesRegressor(n_estimators=6, max_depth=7, random_state=0, categorical_features="auto").fit(Xc, yc)
    phi, expected = shap_values(forest, Xc[:50])
    np.testing.assert_allclose(expected + phi.sum(axis=1), forest.predict(Xc[:50]), rtol=0, atol=ADD_UP)
    forest = RandomForestRegressor(n_estimators=5, max_depth=5, missing="surrogate", random_state=0).fit(Xc, yc)
    phi, expected = shap_values(forest, Xc[:50])
    np.testing.assert_allclose(expected + phi.sum(axis=1), forest.predict(Xc[:50]), rtol=0, atol=ADD_UP)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_boosting_adds_up(task):
    X, y, X_new = numeric_problem(2, n=300, d=6, holes=0.1, task=task)
    model_class = GradientBoostingRegressor if task == "regression" else GradientBoostingClassifier
    model = model_class(n_estimators=15, max_depth=3, random_state=0).fit(X, y)
    phi, expected = shap_values(model, X_new)
    assert phi.shape == ((len(X_new), 6, 3) if task == "multiclass" else (len(X_new), 6))
    raw = model.predict(X_new) if task == "regression" else model.decision_function(X_new)
    np.testing.assert_allclose(np.asarray(expected) + phi.sum(axis=1), raw, rtol=0, atol=ADD_UP)
    np.testing.assert_allclose(raw_output(model, X_new), raw, rtol=0, atol=1e-12)


def test_several_outputs_have_their_own_axis():
    X, y, X_new = numeric_problem(3, holes=0.1)
    regressor = DecisionTreeRegressor(max_depth=5).fit(X, np.column_stack([y, -2 * y, y ** 2]))
    phi, expected = shap_values(regressor, X_new)
    assert phi.shape == (len(X_new), 6, 3) and expected.shape == (3,)
    np.testing.assert_allclose(expected + phi.sum(axis=1), regressor.predict(X_new), rtol=0, atol=ADD_UP)
    Y = np.column_stack([y > 0.5, np.digitize(y, [0, 1])]).astype(int)
    classifier = DecisionTreeClassifier(max_depth=5).fit(X, Y)
    phi, expected = shap_values(classifier, X_new)
    assert phi.shape == (len(X_new), 6, 2, 3) and expected.shape == (2, 3)
    total = expected + phi.sum(axis=1)                    # (N, outputs, the most classes): padded with zeros
    for k, probabilities in enumerate(classifier.predict_proba(X_new)):
        K = probabilities.shape[1]
        np.testing.assert_allclose(total[:, k, :K], probabilities, rtol=0, atol=ADD_UP)
        np.testing.assert_allclose(total[:, k, K:], 0, rtol=0, atol=ADD_UP)


def test_blocks_and_chunks_do_not_change_the_values():
    X, y, X_new = numeric_problem(4, n=500, d=8, holes=0.1)
    model = DecisionTreeRegressor(max_depth=9, random_state=0).fit(X, y)
    phi = tree_shap(model.tree_, X_new)
    assert np.abs(phi - tree_shap(model.tree_, X_new, block_elements=1, route_rows=7)).max() < 1e-12
    assert explainer_tables(model.tree_)["ratio"].shape == (3 * model.tree_.node_count, tree_structure(model.tree_)["Q"])


# -- partial dependence
def test_partial_dependence_is_the_average_of_ice_on_a_grid():
    X = np.array(np.meshgrid(*[np.arange(4.0)] * 3)).reshape(3, -1).T
    y = X[:, 0] * X[:, 1] - X[:, 2] + np.random.default_rng(0).normal(size=len(X))
    for model in (DecisionTreeRegressor(max_depth=6).fit(X, y),
                  GradientBoostingRegressor(n_estimators=10, max_depth=3, random_state=0).fit(X, y)):
        for j in range(3):
            grid, pd_ = partial_dependence(model, X, j)
            np.testing.assert_allclose(pd_, ice_curves(model, X, j, grid).mean(axis=0), rtol=0, atol=1e-9)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = DecisionTreeRegressor(max_depth=6).fit(frame, y)
    np.testing.assert_allclose(partial_dependence(model, frame, "b")[1], partial_dependence(model, frame, 1)[1])
    tree = model.tree_
    for value in (0.0, 2.0):
        x = X[5].copy(); x[1] = value
        assert tree_partial_dependence(tree, 1, [value], 3)[0, 0] == pytest.approx(tree_value_function(tree, x, [1])[0])


def test_partial_dependence_of_a_classifier_has_a_column_per_class():
    X, y, _ = numeric_problem(5, task="multiclass")
    model = DecisionTreeClassifier(max_depth=4).fit(X, y)
    grid, pd_ = partial_dependence(model, X, 0, grid=[0.1, 0.5, 0.9])
    assert pd_.shape == (3, 3)
    np.testing.assert_allclose(pd_.sum(axis=1), 1.0)
    assert ice_curves(model, X[:10], 0, grid).shape == (10, 3, 3)


# -- bad input
def test_a_categorical_column_is_drawn_at_every_level_whichever_tree_splits_it():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"u": rng.random(400), "c": pd.Categorical(rng.choice([f"L{i}" for i in range(30)], 400))})
    y = 3 * X["u"] + X["c"].cat.codes % 3 + 0.1 * rng.normal(size=400)
    forest = RandomForestRegressor(5, max_depth=1, max_features=1, random_state=1).fit(X, y)
    assert not (forest.estimators_[0].tree_.feature == 1).any()      # the first tree does not split on c
    grid, _ = partial_dependence(forest, X, "c")
    np.testing.assert_array_equal(grid, np.arange(30))                  # every level's code, not 20 quantiles


def test_bad_input_says_what_to_do():
    X, y, X_new = numeric_problem(0)
    with pytest.raises(ValueError, match="not fitted yet: call fit"): shap_values(DecisionTreeRegressor(), X)
    with pytest.raises(ValueError, match="not fitted yet"): shap_values(RandomForestClassifier(), X)
    model = DecisionTreeRegressor(max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="6 features"): shap_values(model, X[:, :4])
    with pytest.raises(TypeError, match="fitted climbing_trees model"): shap_values(object(), X)
    with pytest.raises(TypeError, match="shap.TreeExplainer"): shap_values(sk_tree.DecisionTreeRegressor().fit(X, y), X)
    with pytest.raises(ValueError, match="no feature named"): partial_dependence(model, X, "size")
    with pytest.raises(ValueError, match="out of range"): partial_dependence(model, X, 9)
    with pytest.raises(ValueError, match="too many"): brute_force_shap(model.tree_, np.zeros(13))
