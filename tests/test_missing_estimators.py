"""Missing values through the estimators (chapter 16): scikit-learn 1.9 as the oracle for missing="direction".

On float32-exact data without ties and with holes (NaN) in X, our estimators and scikit-learn's grow the same tree
node for node, send missing values the same way at every node (`tree_.missing_go_to_left` against our
`default_left`), and predict the same on new rows with holes; also when the holes appear only at predict time, with
sample weights, under pruning, and for the pruning path. missing="error" refuses NaN with a message that names the
remedy; missing="surrogate" grows chapter 15's rpart tree (its oracle test is tests/test_missing_rpart.py)."""
import numpy as np
import pandas as pd
import pytest
from sklearn import tree as sktree

from climbing_trees.estimators import ParameterError
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from test_sklearn_oracle import SEEDS, assert_same_tree, ours_tree, preorder, problem, same_structure, sklearn_tree

CRITERIA = ("gini", "entropy", "squared_error", "poisson")


def with_holes(X, fraction, rng):
    "A copy of X with a `fraction` of its entries made NaN at random (missing completely at random)."
    X = X.copy()
    X[rng.random(X.shape) < fraction] = np.nan
    return X


def seed_free_holey_problem(criterion, weighted, params, first_seed, fraction=0.15, holes_at_fit=True):
    "The first problem from `first_seed` on, with holes, on which scikit-learn grows one tree for every random_state."
    for seed in range(first_seed, first_seed + 80):
        drawn = problem(criterion, seed, weighted, n=400, d=4)
        if drawn is None: continue
        X, y, w, X_new = drawn
        rng = np.random.default_rng(seed)
        if holes_at_fit: X = with_holes(X, fraction, rng)
        X_new = with_holes(X_new, 2 * fraction, rng)
        trees = [sklearn_tree(criterion, s, **params).fit(X, y, sample_weight=w) for s in SEEDS]
        if all(same_structure(t.tree_, trees[0].tree_) for t in trees[1:]) and all(
                np.array_equal(t.tree_.missing_go_to_left, trees[0].tree_.missing_go_to_left) for t in trees[1:]):
            return X, y, w, X_new, trees[0]
    pytest.fail(f"no tie-free problem among 80 seeds for {criterion}, weighted={weighted}, {params}")


def assert_same_missing_sides(ours, theirs):
    "At every internal node, missing values go to the same side."
    sk, mine, order = theirs.tree_, ours.tree_, preorder(theirs.tree_)
    internal = sk.children_left[order] != -1
    np.testing.assert_array_equal(mine.default_left[internal], sk.missing_go_to_left[order][internal].astype(bool))


CASES = [(c, weighted, params) for c in CRITERIA for weighted in (False, True)
         for params in (dict(max_depth=4, min_samples_leaf=5), dict(min_samples_leaf=12))]


@pytest.mark.parametrize("criterion, weighted, params", CASES,
                         ids=[f"{c}-{'weighted' if w else 'unweighted'}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for c, w, p in CASES])
def test_same_tree_as_sklearn_with_holes(criterion, weighted, params):
    X, y, w, X_new, theirs = seed_free_holey_problem(criterion, weighted, params, first_seed=50 + 3 * len(str(params)))
    ours = ours_tree(criterion, **params).fit(X, y, sample_weight=w)
    assert_same_tree(ours, theirs, X_new)
    assert_same_missing_sides(ours, theirs)
    assert np.isnan(X).any() and np.isnan(X_new).any()


@pytest.mark.parametrize("criterion", ("gini", "squared_error"))
def test_holes_only_at_predict_go_to_the_child_with_more_samples(criterion):
    params = dict(max_depth=5, min_samples_leaf=5)      # no leaf of one or two rows, where rounding can decide near-ties
    X, y, w, X_new, theirs = seed_free_holey_problem(criterion, False, params, first_seed=7, holes_at_fit=False)
    ours = ours_tree(criterion, **params).fit(X, y)
    assert_same_tree(ours, theirs, X_new)
    assert_same_missing_sides(ours, theirs)
    t = ours.tree_
    internal = t.children_left != -1
    more_left = t.n_node_samples[t.children_left[internal]] > t.n_node_samples[t.children_right[internal]]
    np.testing.assert_array_equal(t.default_left[internal], more_left)


def test_pruning_path_with_holes_is_sklearns():
    X, y, w, X_new, theirs = seed_free_holey_problem("gini", True, dict(min_samples_leaf=5), first_seed=11)
    ours = DecisionTreeClassifier(min_samples_leaf=5)
    path, their_path = ours.cost_complexity_pruning_path(X, y, w), theirs.cost_complexity_pruning_path(X, y, w)
    np.testing.assert_allclose(path.ccp_alphas, their_path.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(path.impurities, their_path.impurities, rtol=1e-9, atol=1e-15)
    alpha = float(path.ccp_alphas[len(path.ccp_alphas) // 2])
    pruned = DecisionTreeClassifier(min_samples_leaf=5, ccp_alpha=alpha).fit(X, y, w)
    their_pruned = sktree.DecisionTreeClassifier(min_samples_leaf=5, ccp_alpha=alpha, random_state=0).fit(X, y, w)
    np.testing.assert_allclose(pruned.predict_proba(X_new), their_pruned.predict_proba(X_new), rtol=1e-9, atol=1e-12)


def test_missing_error_refuses_nan_and_names_the_remedy():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, np.nan], [4.0, 5.0]])
    for estimator in (DecisionTreeClassifier(missing="error"), DecisionTreeRegressor(missing="error")):
        with pytest.raises(ValueError, match=r"2 missing values.*missing='direction'"):
            estimator.fit(X, [0, 1, 0, 1])
    fitted = DecisionTreeClassifier(missing="error").fit(np.nan_to_num(X), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="missing values"):
        fitted.predict(X)


def test_infinity_is_still_refused():
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(np.array([[0.0], [np.inf], [1.0]]), [0, 1, 0])


@pytest.mark.parametrize("params, culprit", [(dict(missing="impute"), "missing"), (dict(missing=None), "missing"),
                                             (dict(max_surrogates=-1), "max_surrogates"), (dict(max_surrogates=2.5), "max_surrogates")])
def test_bad_missing_parameters_are_named(params, culprit):
    with pytest.raises(ParameterError, match=culprit):
        DecisionTreeClassifier(**params).fit([[0.0], [1.0]], [0, 1])


def test_a_categorical_column_with_holes():
    "NaN in a categorical column is one more level at fit; at predict NaN and unseen levels follow the split's missing side."
    rng = np.random.default_rng(3)
    colour = rng.choice(["red", "green", "blue", None], size=300, p=[0.3, 0.3, 0.25, 0.15])
    size = rng.random(300)
    y = np.where(pd.isna(colour), 1, np.where(colour == "red", 0, (size > 0.5).astype(int)))
    frame = pd.DataFrame({"colour": colour, "size": size})
    model = DecisionTreeClassifier(max_depth=3).fit(frame, y)
    assert model.score(frame, y) == 1.0                           # the missing level is learned like any level
    new = pd.DataFrame({"colour": [None, "purple"], "size": [0.2, 0.9]})
    np.testing.assert_array_equal(model.predict(new)[:1], [1])   # NaN goes where the missing rows went
    assert model.predict(new).shape == (2,)


@pytest.mark.parametrize("missing", ("direction", "surrogate"))
def test_cv_alpha_table_and_pruning_with_holes(missing):
    "Chapter 16's cross-validated pruning table works on data with holes, for both strategies, and its chosen alpha prunes."
    from climbing_trees.selection import cv_alpha_table, one_standard_error_alpha
    rng = np.random.default_rng(4)
    X = rng.random((300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.2 * rng.normal(size=300) > 0.8).astype(int)
    X = with_holes(X, 0.2, rng)
    table = cv_alpha_table(DecisionTreeClassifier(missing=missing, min_samples_leaf=3), X, y, cv=5)
    assert np.isfinite(table.cv_error).all() and (table.n_leaves >= 1).all() and len(table) > 3
    alpha = one_standard_error_alpha(table)
    pruned = DecisionTreeClassifier(missing=missing, min_samples_leaf=3, ccp_alpha=alpha).fit(X, y)
    full = DecisionTreeClassifier(missing=missing, min_samples_leaf=3).fit(X, y)
    assert pruned.get_n_leaves() < full.get_n_leaves()
    if missing == "surrogate":          # pruning keeps the surrogates of the splits it keeps
        kept = pruned.tree_
        assert kept.surrogates is not None and len(kept.surrogates.start) == kept.node_count + 1
