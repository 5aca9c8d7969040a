"""scikit-learn 1.9 as the oracle for the growth options of chapters 4 and 07.

Exact agreement where the options are deterministic: best-first growth (`max_leaf_nodes`) and the weight rule
(`min_weight_leaf`, scikit-learn's `min_weight_fraction_leaf` times the total weight) grow scikit-learn's tree on
float32-exact data without ties, node for node once both trees are numbered in pre-order (scikit-learn's best-first
builder numbers nodes in the order it creates them). Statistical agreement where they are random: `max_features` draws
features as scikit-learn does (constant features count as drawn, but at least one non-constant one is searched), and
forests of `max_features` or `splitter="random"` trees are as accurate on held-out data as scikit-learn's."""
from functools import partial

import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees.tree import Tree, tree_differences
from climbing_trees.tree_builder import preorder_numbers
from climbing_trees.naive import best_split, naive_column_split
from climbing_trees.growth import grow_tree
from climbing_trees.categorical_growth import column_searches
from climbing_trees.criteria import SPLIT_SEARCHES
from climbing_trees.levelwise_trees import grow_best_first, grow_levelwise
from strategies import float32_exact

SEEDS = range(3)            # scikit-learn's random_states that must all grow the same tree (no tie between features)


def problem(criterion, seed, weighted, n=400, d=4):
    "X (float32-exact, distinct values per column), a target for `criterion`, weights or None; None if a value repeats."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, d))
    if any(len(np.unique(X[:, j])) < n for j in range(d)): return None
    signal = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2
    if criterion in REGRESSORS: y = signal + 0.2 * rng.normal(size=n)
    if criterion == "poisson": y = np.exp(y)                               # positive rates
    if criterion not in REGRESSORS: y = np.digitize(signal + 0.3 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))   # three classes
    w = rng.uniform(0.5, 3.0, n) if weighted else None
    return X, y, w


REGRESSORS = ("squared_error", "absolute_error", "poisson")


def sklearn_tree(criterion, random_state, **params):
    cls = sktree.DecisionTreeRegressor if criterion in REGRESSORS else sktree.DecisionTreeClassifier
    return cls(criterion=criterion, random_state=random_state, **params)


def in_preorder(sk):
    "scikit-learn's fitted `tree_` as chapter 2's `Tree`, renumbered in pre-order (a best-first tree is numbered by creation)."
    number = preorder_numbers(sk.children_left, sk.children_right)
    order = np.argsort(number)
    renumber = lambda c: np.where(c == -1, -1, number[np.maximum(c, 0)])[order]
    T, leaf = sk.node_count, sk.children_left[order] == -1
    return Tree(renumber(sk.children_left), renumber(sk.children_right), np.where(leaf, -2, sk.feature[order]),
                np.where(leaf, -2.0, sk.threshold[order]), np.zeros(T, bool), np.zeros((T, 0), bool), np.zeros((T, 0), bool),
                np.zeros(T, bool), sk.value[order, 0, :], sk.impurity[order], sk.n_node_samples[order],
                sk.weighted_n_node_samples[order])


def seed_free(criterion, weighted, params, first_seed):
    "The first problem from `first_seed` on where scikit-learn grows the same tree for every random_state in SEEDS, and that tree."
    for seed in range(first_seed, first_seed + 40):
        drawn = problem(criterion, seed, weighted)
        if drawn is None: continue
        X, y, w = drawn
        trees = [in_preorder(sklearn_tree(criterion, s, **params).fit(X, y, sample_weight=w).tree_) for s in SEEDS]
        if all(tree_differences(t, trees[0]) == [] for t in trees[1:]): return X, y, w, trees[0]
    pytest.fail(f"no tie-free problem among 40 seeds for {criterion}, weighted={weighted}, {params}")


def grow(X, y, w, criterion, **options):
    n_classes = None if criterion in REGRESSORS else int(y.max()) + 1
    return grow_levelwise(X, y, criterion, w, n_classes, **options)


def assert_same_tree(ours, theirs):
    assert ours.node_count == theirs.node_count and ours.n_leaves == theirs.n_leaves
    np.testing.assert_array_equal(ours.children_left, theirs.children_left)
    np.testing.assert_array_equal(ours.children_right, theirs.children_right)
    inner = ~theirs.is_leaf
    np.testing.assert_array_equal(ours.feature[inner], theirs.feature[inner])
    np.testing.assert_array_equal(ours.threshold[inner], theirs.threshold[inner])      # bit for bit
    np.testing.assert_array_equal(ours.n_node_samples, theirs.n_node_samples)
    np.testing.assert_allclose(ours.weighted_n_node_samples, theirs.weighted_n_node_samples, rtol=1e-12)
    np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.impurity, theirs.impurity, rtol=1e-9, atol=1e-12 * max(1.0, theirs.impurity[0]))


CRITERIA = ("gini", "entropy", "squared_error")
LEAF_CASES = ([(c, weighted, leaves) for c in CRITERIA for weighted in (False, True) for leaves in (2, 5, 17, 40)]
              + [(c, weighted, leaves) for c in ("log_loss", "absolute_error", "poisson") for weighted in (False, True) for leaves in (5, 17)])


@pytest.mark.parametrize("criterion, weighted, max_leaf_nodes", LEAF_CASES)
def test_max_leaf_nodes_grows_sklearns_best_first_tree(criterion, weighted, max_leaf_nodes):
    params = dict(max_leaf_nodes=max_leaf_nodes, min_samples_leaf=3)
    X, y, w, theirs = seed_free(criterion, weighted, params, first_seed=7 * max_leaf_nodes)
    ours = grow(X, y, w, criterion, **params)
    assert ours.n_leaves == max_leaf_nodes
    assert_same_tree(ours, theirs)


WEIGHT_CASES = ([(c, weighted, fraction, leaves) for c in CRITERIA for weighted in (False, True)
                 for fraction, leaves in ((0.02, None), (0.1, None), (0.05, 12))]
                + [(c, weighted, 0.05, leaves) for c in ("poisson", "absolute_error") for weighted in (False, True)
                   for leaves in (None, 12)])


@pytest.mark.parametrize("criterion, weighted, fraction, max_leaf_nodes", WEIGHT_CASES)
def test_min_weight_leaf_is_sklearns_min_weight_fraction_leaf(criterion, weighted, fraction, max_leaf_nodes):
    params = dict(min_weight_fraction_leaf=fraction, max_leaf_nodes=max_leaf_nodes)
    X, y, w, theirs = seed_free(criterion, weighted, params, first_seed=300 + int(100 * fraction))
    total = len(y) if w is None else w.sum()
    ours = grow(X, y, w, criterion, min_weight_leaf=fraction * total, max_leaf_nodes=max_leaf_nodes)
    assert_same_tree(ours, theirs)
    assert ours.weighted_n_node_samples.min() >= fraction * total


def test_best_first_without_a_binding_budget_is_the_levelwise_tree():
    X, y, w = problem("gini", 1, True)
    full = grow(X, y, w, "gini")
    assert tree_differences(grow_best_first(X, y, "gini", w, 3), full) == []
    assert tree_differences(grow(X, y, w, "gini", max_leaf_nodes=full.n_leaves), full) == []


def test_random_state_decides_the_random_trees():
    X, y, _ = problem("gini", 2, False, d=6)
    for options in (dict(max_features=2), dict(splitter="random"), dict(max_features=3, splitter="random")):
        a, b = grow(X, y, None, "gini", random_state=0, **options), grow(X, y, None, "gini", random_state=0, **options)
        assert tree_differences(a, b) == []
        rng = np.random.default_rng(0)
        assert tree_differences(grow(X, y, None, "gini", random_state=rng, **options), a) == []      # a Generator is used as it is
        assert any(tree_differences(grow(X, y, None, "gini", random_state=s, **options), a) for s in (1, 2, 3))
    deterministic = grow(X, y, None, "gini")
    for seed in (0, 1):                   # without max_features or splitter="random", random_state is ignored
        assert tree_differences(grow(X, y, None, "gini", random_state=seed), deterministic) == []
        assert tree_differences(grow(X, y, None, "gini", random_state=seed, max_features=6), deterministic) == []


def test_random_thresholds_lie_inside_each_nodes_range():
    X, y, _ = problem("squared_error", 3, False)
    t = grow(X, y, None, "squared_error", splitter="random", random_state=0, max_depth=6)
    leaf_of = np.zeros(len(y), dtype=int)                 # route every sample, checking each split against its node's range
    for node in range(t.node_count):
        rows = leaf_of == node
        if t.is_leaf[node]: continue
        x = X[rows, t.feature[node]]
        assert x.min() <= t.threshold[node] < x.max()
        leaf_of[rows] = np.where(x <= t.threshold[node], t.children_left[node], t.children_right[node])
    assert not np.isin(t.threshold[~t.is_leaf], (X[:-1] / 2 + X[1:] / 2).ravel()).all()   # not midpoints


def test_constant_features_count_as_drawn_as_in_sklearn():
    "Features 0 and 2 constant, max_features=2: the useful feature 1 is searched at the root with probability 7/12."
    rng = np.random.default_rng(0)
    n = 200
    strong, weak = rng.normal(size=n), rng.normal(size=n)
    y = (strong + 0.3 * rng.normal(size=n) > 0).astype(int)
    X = np.column_stack([np.zeros(n), strong, np.ones(n), weak])
    runs = 400
    theirs = np.mean([sktree.DecisionTreeClassifier(max_depth=1, max_features=2, random_state=s).fit(X, y).tree_.feature[0] == 1
                      for s in range(runs)])
    ours = np.mean([grow(X, y, None, "gini", max_depth=1, max_features=2, random_state=s).feature[0] == 1 for s in range(runs)])
    ours_depth_first = np.mean([grow_tree(X, y, "gini", n_classes=2, find_split=SPLIT_SEARCHES["vectorized"], max_depth=1,
                                          max_features=2, random_state=s).feature[0] == 1 for s in range(runs)])
    for share in (theirs, ours, ours_depth_first):     # 4 standard errors of a proportion near 0.58 over 400 runs: 0.1
        assert abs(share - 7 / 12) < 0.1, (theirs, ours, ours_depth_first)


def forest_problem(n=1500, d=16, seed=0):
    "A synthetic classification problem, split into training and held-out halves."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    logits = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + X[:, 3] - 0.5 * X[:, 4] ** 2 + 0.5 * X[:, 5:8].sum(axis=1)
    y = (logits + 0.5 * rng.normal(size=n) > np.median(logits)).astype(int)
    half = n // 2
    return X[:half], y[:half], X[half:], y[half:]


def predict(tree, X):
    node = np.zeros(len(X), dtype=int)
    while True:
        inner = ~tree.is_leaf[node]
        if not inner.any(): return tree.value[node]
        t = node[inner]
        node[inner] = np.where(X[inner, tree.feature[t]] <= tree.threshold[t], tree.children_left[t], tree.children_right[t])


@pytest.mark.parametrize("options", [dict(max_features=4), dict(splitter="random"), dict(splitter="random", max_features=4)])
def test_random_trees_are_as_accurate_as_sklearns(options):
    "Held-out accuracy of 30 random trees each, ours and scikit-learn's with the same options: means within 0.02."
    X, y, X_test, y_test = forest_problem()
    accuracy = lambda proba: float(np.mean(proba.argmax(axis=1) == y_test))
    ours = [accuracy(predict(grow(X, y, None, "gini", random_state=s, **options), X_test)) for s in range(30)]
    theirs = [accuracy(sktree.DecisionTreeClassifier(random_state=s, **options).fit(X, y).predict_proba(X_test)) for s in range(30)]
    deterministic = accuracy(predict(grow(X, y, None, "gini"), X_test))
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.02, (np.mean(ours), np.mean(theirs), deterministic)
    assert np.std(ours) > 0                               # the trees do differ


def test_random_regression_trees_are_as_accurate_as_sklearns():
    X, labels, X_test, _ = forest_problem(seed=1)
    rng = np.random.default_rng(1)
    target = lambda X: X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + X[:, 3]
    y, y_test = target(X) + 0.3 * rng.normal(size=len(X)), target(X_test)
    mse = lambda pred: float(np.mean((pred.ravel() - y_test) ** 2))
    for options in (dict(max_features=4), dict(splitter="random")):
        ours = np.mean([mse(predict(grow(X, y, None, "squared_error", random_state=s, min_samples_leaf=5, **options), X_test))
                        for s in range(20)])
        theirs = np.mean([mse(sktree.DecisionTreeRegressor(random_state=s, min_samples_leaf=5, **options).fit(X, y).predict(X_test))
                          for s in range(20)])
        assert abs(ours / theirs - 1) < 0.1, (options, ours, theirs)


def test_options_are_checked():
    X, y, _ = problem("gini", 2, False)
    for bad, message in ((dict(max_features=0), "between 1 and"), (dict(max_features=5), "between 1 and"),
                         (dict(max_features="sqrt"), "integer"), (dict(splitter="worst"), "splitter"),
                         (dict(max_leaf_nodes=1), "max_leaf_nodes"), (dict(min_weight_leaf=-1.0), "min_weight_leaf")):
        with pytest.raises((ValueError, TypeError), match=message):
            grow(X, y, None, "gini", **bad)
    with pytest.raises(ValueError, match="algorithm='levelwise'"):            # chapter 4's loop grows best first, not at random
        grow_tree(X, y, "gini", n_classes=3, splitter="random")
    older = lambda x, y, w, criterion, n_classes=None, min_samples_leaf=1: None          # a search without the keyword: Python
    with pytest.raises(TypeError, match="min_weight_leaf"):                                # names it (every search takes it)
        grow_levelwise(X, y, "gini", n_classes=3, node_searches={1: older}, min_weight_leaf=2.0)


@pytest.mark.parametrize("criterion, weighted", [(c, weighted) for c in ("gini", "entropy", "squared_error", "absolute_error")
                                                 for weighted in (False, True)])
def test_min_weight_leaf_with_categorical_columns_is_the_brute_force_tree(criterion, weighted):
    "Categorical columns (searched node by node) obey the weight rule: the depth-first tree of the brute-force searches."
    rng = np.random.default_rng(11)
    n = 120
    X = np.column_stack([rng.integers(0, 5, n), rng.normal(size=n).round(1), rng.integers(0, 3, n)]).astype(float)
    signal = np.array([0., 2, -1, 1, 3])[X[:, 0].astype(int)] + X[:, 1] - X[:, 2]
    y = signal + rng.normal(size=n) if criterion in REGRESSORS else (signal + rng.normal(size=n) > 0.5).astype(int)
    w = rng.uniform(0.5, 3.0, n) if weighted else np.ones(n)
    n_classes = None if criterion in REGRESSORS else 2
    categorical, min_weight_leaf = [0, 2], 0.08 * w.sum()
    find = partial(best_split, column_search=column_searches(3, categorical, naive_column_split))
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=find, min_weight_leaf=min_weight_leaf)
    grown = grow_levelwise(X, y, criterion, w, n_classes, categorical=categorical, min_weight_leaf=min_weight_leaf)
    assert tree_differences(grown, expected) == []
    assert grown.weighted_n_node_samples.min() >= min_weight_leaf and grown.categorical.any()
