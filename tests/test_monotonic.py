"""Monotonic constraints (chapter 8's bounds, chapter 16's `monotonic_cst`): scikit-learn 1.9's trees as the oracle, node for
node on data without ties (the problems and comparisons of test_sklearn_oracle.py), every criterion scikit-learn constrains,
weights, stopping rules, best-first growth and missing values; monotone predictions along every constrained feature for trees
and forests, whatever the splitter; scikit-learn's errors; and no change at all without constraints."""
import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                            RandomForestClassifier, RandomForestRegressor)
from climbing_trees.levelwise import monotone_column_split
from climbing_trees.levelwise_trees import grow_levelwise
from strategies import float32_exact
from test_sklearn_oracle import SEEDS, assert_same_tree, same_structure

CST = [1, -1, 0, 1, 0]


def problem(criterion, seed, weighted, holes, n=500, d=5):
    "Float32-exact X (distinct values per column, some NaN if `holes`), a target for `criterion` that rises with x0 and falls with x1."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, d))
    if any(len(np.unique(X[:, j])) < n for j in range(d)): return None
    signal = 2 * X[:, 0] - 1.5 * X[:, 1] + np.sin(5 * X[:, 2]) + 0.5 * X[:, 3]
    if criterion == "poisson": y = np.exp(signal + 0.4 * rng.normal(size=n))
    elif criterion in ("squared_error", "absolute_error"): y = signal + 0.4 * rng.normal(size=n)
    else: y = (signal + 0.4 * rng.normal(size=n) > np.median(signal)).astype(int)
    if holes: X[rng.random(X.shape) < holes] = np.nan
    return X, y, (rng.uniform(0.5, 3.0, n) if weighted else None), float32_exact(rng, (1000, d))


def seed_free(criterion, weighted, holes, params, first_seed):
    "The first problem on which scikit-learn's constrained tree does not depend on its random_state (no tie between features)."
    cls = sktree.DecisionTreeRegressor if criterion in ("squared_error", "absolute_error", "poisson") else sktree.DecisionTreeClassifier
    for seed in range(first_seed, first_seed + 40):
        drawn = problem(criterion, seed, weighted, holes)
        if drawn is None: continue
        X, y, w, X_new = drawn
        trees = [cls(criterion=criterion, monotonic_cst=CST, random_state=s, **params).fit(X, y, sample_weight=w) for s in SEEDS]
        if all(same_structure(t.tree_, trees[0].tree_) for t in trees[1:]): return X, y, w, X_new, trees[0]
    pytest.fail(f"no tie-free problem for {criterion} {params}")


REGRESSION_PARAMS = (dict(min_samples_leaf=5), dict(max_depth=4, min_samples_leaf=3), dict(max_leaf_nodes=15, min_samples_leaf=4))
CLASSIFICATION_PARAMS = (dict(max_depth=4, min_samples_leaf=10), dict(max_depth=6, min_samples_leaf=15), dict(max_leaf_nodes=10, min_samples_leaf=10))
CASES = [(criterion, weighted, holes, params)
         for criterion in ("squared_error", "poisson", "gini", "entropy")
         for weighted, holes in ((False, 0.0), (True, 0.0), (False, 0.05))
         for params in (REGRESSION_PARAMS if criterion in ("squared_error", "poisson") else CLASSIFICATION_PARAMS)]
CASES += [("absolute_error", False, 0.0, dict(max_depth=3, min_samples_leaf=10)), ("absolute_error", True, 0.0, dict(max_leaf_nodes=8, min_samples_leaf=10)),
          ("squared_error", False, 0.0, dict(min_weight_fraction_leaf=0.02)), ("gini", True, 0.0, dict(max_depth=5, min_samples_leaf=5, min_impurity_decrease=0.002))]


@pytest.mark.parametrize("criterion, weighted, holes, params", CASES,
                         ids=[f"{c}-{'w' if w else 'u'}-{h}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for c, w, h, p in CASES])
def test_same_tree_as_sklearn(criterion, weighted, holes, params):
    X, y, w, X_new, theirs = seed_free(criterion, weighted, holes, params, first_seed=50 * CASES.index((criterion, weighted, holes, params)))
    cls = DecisionTreeClassifier if criterion in ("gini", "entropy") else DecisionTreeRegressor
    ours = cls(criterion=criterion, monotonic_cst=CST, **params).fit(X, y, sample_weight=w)
    if holes: X_new[np.random.default_rng(0).random(X_new.shape) < holes] = np.nan
    assert_same_tree(ours, theirs, X_new, min_leaves=3, ties_allowed=criterion == "absolute_error")


def monotone_along(predict, X, j, sign, n_rows=30, n_steps=120):
    "Whether `predict` never moves against `sign` along feature j, from each of `n_rows` rows of X, on a grid past its range."
    grid = np.linspace(np.nanmin(X[:, j]) - 0.5, np.nanmax(X[:, j]) + 0.5, n_steps)
    rows = np.repeat(np.nan_to_num(X[:n_rows], nan=0.5), n_steps, axis=0)
    rows[:, j] = np.tile(grid, n_rows)
    return bool((sign * np.diff(predict(rows).reshape(n_rows, n_steps), axis=1) >= 0).all())


@pytest.mark.parametrize("model", [DecisionTreeRegressor(), DecisionTreeRegressor(splitter="random", random_state=1),
                                   DecisionTreeRegressor(criterion="absolute_error", max_depth=5), DecisionTreeRegressor(max_leaf_nodes=20),
                                   DecisionTreeRegressor(criterion="poisson"), DecisionTreeRegressor(max_features=2, random_state=3),
                                   RandomForestRegressor(n_estimators=8, random_state=0), ExtraTreesRegressor(n_estimators=8, random_state=0)],
                         ids=lambda m: type(m).__name__ + str(sorted(m.get_params(deep=False).items())[:0]))
@pytest.mark.parametrize("holes", [0.0, 0.1])
def test_regression_predictions_are_monotone(model, holes):
    rng = np.random.default_rng(5)
    X = rng.random((400, 5))
    y = np.exp(np.sin(6 * X[:, 0]) + np.cos(5 * X[:, 1]) + X[:, 2] + 0.3 * rng.normal(size=400))   # neither monotone, positive
    if holes: X[rng.random(X.shape) < holes] = np.nan
    model.set_params(monotonic_cst=CST).fit(X, y)
    for j, sign in enumerate(CST):
        if sign: assert monotone_along(model.predict, X, j, sign), j


@pytest.mark.parametrize("model", [DecisionTreeClassifier(), DecisionTreeClassifier(splitter="random", random_state=2),
                                   DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=12, class_weight="balanced"),
                                   RandomForestClassifier(n_estimators=8, random_state=0), ExtraTreesClassifier(n_estimators=8, random_state=0)],
                         ids=lambda m: type(m).__name__)
def test_classification_probabilities_are_monotone(model):
    rng = np.random.default_rng(6)
    X = rng.random((400, 5))
    y = np.where(np.sin(6 * X[:, 0]) + np.cos(5 * X[:, 1]) + 0.3 * rng.normal(size=400) > 0.3, "yes", "no")
    model.set_params(monotonic_cst=CST).fit(X, y)
    for j, sign in enumerate(CST):                      # on the second class's probability (classes_[1], "yes"), as scikit-learn
        if sign: assert monotone_along(lambda Z: model.predict_proba(Z)[:, 1], X, j, sign), j


def test_unconstrained_columns_and_zero_constraints_grow_the_plain_tree():
    rng = np.random.default_rng(7)
    X, y = rng.random((300, 4)), rng.random(300)
    plain = DecisionTreeRegressor(min_samples_leaf=3).fit(X, y).tree_
    zeros = DecisionTreeRegressor(min_samples_leaf=3, monotonic_cst=[0, 0, 0, 0]).fit(X, y).tree_
    assert same_structure(plain, zeros)
    np.testing.assert_allclose(zeros.value, plain.value, rtol=0, atol=1e-12)


def test_opposite_constraint_gives_one_leaf_at_the_mean():
    X = np.linspace(-2, 2, 10).reshape(-1, 1)
    for sign, y in ((-1, X.ravel()), (1, -X.ravel())):
        model = DecisionTreeRegressor(monotonic_cst=[sign]).fit(X, y)
        assert model.tree_.node_count == 1 and model.tree_.value[0, 0, 0] == 0.0


@pytest.mark.parametrize("make, cst, message", [
    (lambda: DecisionTreeClassifier(monotonic_cst=[1, 0, 0]), [1, 0, 0], "not supported with multiclass classification"),
    (lambda: DecisionTreeRegressor(monotonic_cst=[1, 0]), None, "monotonic_cst has shape 2 but the input data X has 3 features."),
    (lambda: DecisionTreeRegressor(monotonic_cst=[2, 0, -2]), None, r"-1, 0 or 1, but got [-2  0  2]"),
    (lambda: RandomForestRegressor(monotonic_cst=[1, 0.5, 0]), None, "-1, 0 or 1, but got"),
])
def test_sklearns_errors(make, cst, message):
    X = np.random.default_rng(0).random((30, 3))
    y = np.arange(30) % 3
    with pytest.raises(ValueError) as error: make().fit(X, y)
    assert message in str(error.value)


def test_growers_without_bounds_and_categorical_columns_are_refused():
    X = np.random.default_rng(0).random((30, 2)); y = X[:, 0]
    for params in (dict(algorithm="vectorized"), dict(missing="surrogate")):
        with pytest.raises(ValueError, match="monotonic_cst is grown by algorithm='levelwise'"):
            DecisionTreeRegressor(monotonic_cst=[1, 0], **params).fit(X, y)
    with pytest.raises(TypeError, match="monotonic_cst must be None or an array-like"):
        DecisionTreeRegressor(monotonic_cst="increasing").fit(X, y)
    import pandas as pd
    frame = pd.DataFrame({"size": X[:, 0], "colour": np.where(X[:, 1] > 0.5, "red", "blue")})
    with pytest.raises(ValueError, match="constrains the categorical columns"):
        DecisionTreeRegressor(monotonic_cst=[0, 1]).fit(frame, y)
    DecisionTreeRegressor(monotonic_cst=[1, 0]).fit(frame, y)          # a constraint on the numeric column only


def test_column_search_against_brute_force():
    "`monotone_column_split` picks the cut of least impurity among those a brute-force check of the rule admits."
    rng = np.random.default_rng(8)
    for trial in range(30):
        n = int(rng.integers(4, 30))
        x, y, w = rng.permutation(n).astype(float), rng.normal(size=n), rng.uniform(0.5, 2, n)
        sign, lower, upper = int(rng.choice([-1, 1])), rng.choice([-np.inf, -0.5]), rng.choice([np.inf, 0.5])
        found = monotone_column_split(x, y, w, "squared_error", None, sign, lower, upper)
        best = None
        for tau in np.arange(n - 1) + 0.5:
            left = x <= tau
            vl, vr = np.average(y[left], weights=w[left]), np.average(y[~left], weights=w[~left])
            if sign * (vl - vr) > 0 or min(vl, vr) < lower or max(vl, vr) > upper: continue
            loss = (w[left] @ (y[left] - vl) ** 2 + w[~left] @ (y[~left] - vr) ** 2) / w.sum()
            if best is None or loss < best[1] - 1e-12: best = (tau, loss, (vl + vr) / 2)
        if best is None: assert found is None
        else:
            assert found[0].threshold == best[0] and np.isclose(found[0].impurity, best[1]) and np.isclose(found[1], best[2])


def test_lower_level_grower_takes_the_constraint():
    X = np.random.default_rng(9).random((200, 2)); y = np.sin(6 * X[:, 0])
    tree = grow_levelwise(X, y, "squared_error", monotonic_cst=[1, 0], min_samples_leaf=5)
    internal = tree.children_left != -1
    left, right = tree.children_left[internal & (tree.feature == 0)], tree.children_right[internal & (tree.feature == 0)]
    assert (tree.value[left, 0] <= tree.value[right, 0]).all()
