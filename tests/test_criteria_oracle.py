"""scikit-learn 1.9 as the oracle for the criteria of chapters 1 and 5, at the grower level: "log_loss",
"absolute_error" and "poisson" (and, as controls, the criteria they sit beside), grown by chapter 4's
`grow_tree` with each column search of chapter 5, against `DecisionTree*(criterion=...).tree_`.

X is float32-exact (scikit-learn stores X as float32) with distinct values per column, and a problem is
kept only if scikit-learn grows the same tree for several `random_state`s: it visits the features in a
random order and keeps the first of equal splits, so a tie between features would show as a tree that
depends on the seed. The trees must then agree node for node: children, features, thresholds (bit for
bit), values (scikit-learn's `value` is (nodes, 1, K) of class proportions, or (nodes, 1, 1) of the
median or mean), impurities (rtol 1e-9), counts and weights. Absolute error alone may differ at a node
where two thresholds of one feature decrease the impurity exactly equally (it is piecewise linear) and
scikit-learn's rounding picks the later one; the test then checks that the first differing node is
such a tie, and stops there.

Poisson targets include zeros except under float weights. There scikit-learn's running sums leave
rounding residue: a side holding only zero targets gets `sum_total - sum_left` of about 1e-14 instead of
0, above its EPSILON, so its splitter can prefer the cut that isolates the zeros, and then, recomputing
the sums after partitioning, finds that child's sum to be 0, rejects the split and makes the node a
leaf. Our sweeps compute the right side as a suffix sum, which is exactly 0 there, and never prefer
such a cut (`test_poisson_never_makes_a_child_of_zeros`)."""
from functools import partial

import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees.criteria import SPLIT_SEARCHES, median_column_split
from climbing_trees.impurity import REGRESSION_CRITERIA, split_impurity
from climbing_trees.naive import TIE_TOLERANCE, best_split
from climbing_trees.growth import grow_tree

SEEDS = range(4)                    # scikit-learn random_states that must all grow the same tree
SEARCHES = {"incremental": SPLIT_SEARCHES["incremental"], "vectorized": SPLIT_SEARCHES["vectorized"],
            "median": partial(best_split, column_search=median_column_split)}


def problem(criterion, seed, weighted, n, d=3):
    "Float32-exact X with distinct values per column, a target for `criterion`, and weights or None; None if a value repeats."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32).astype(np.float64)
    if any(len(np.unique(X[:, j])) < n for j in range(d)): return None
    signal = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2]
    if criterion == "poisson":                  # counts, zeros included; with float weights, positive (see above)
        y = rng.poisson(np.exp(signal + 0.5)).astype(float) + (weighted == "float")
    elif criterion in REGRESSION_CRITERIA: y = signal + 0.3 * rng.normal(size=n)
    else: y = np.digitize(signal + 0.3 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))   # three classes
    w = rng.uniform(0.5, 3.0, n) if weighted == "float" else rng.integers(1, 4, n).astype(float) if weighted == "integer" else None
    return X, y, w


def sklearn_tree(criterion, random_state, X, y, w, **params):
    cls = sktree.DecisionTreeRegressor if criterion in REGRESSION_CRITERIA else sktree.DecisionTreeClassifier
    return cls(criterion=criterion, random_state=random_state, **params).fit(X, y, sample_weight=w).tree_


def same_structure(a, b):
    return (np.array_equal(a.children_left, b.children_left) and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold))


def seed_free_problem(criterion, weighted, n, params):
    "The first problem on which scikit-learn grows one tree whatever its random_state, and that tree."
    for seed in range(60):
        drawn = problem(criterion, seed, weighted, n)
        if drawn is None: continue
        trees = [sklearn_tree(criterion, s, *drawn, **params) for s in SEEDS]
        if all(same_structure(t, trees[0]) for t in trees[1:]): return drawn, trees[0]
    pytest.fail(f"no tie-free problem among 60 seeds for {criterion}, weighted={weighted}")


def rows_at(tree, X, node):
    "Rows of X that reach `node` of our tree."
    rows, t = np.arange(len(X)), 0
    path = []
    while t != node:                                    # find node's ancestors by walking the pre-order numbers
        left, right = tree.children_left[t], tree.children_right[t]
        go_left = node < right
        path.append((t, go_left)); t = left if go_left else right
    for t, go_left in path:
        below = X[rows, tree.feature[t]] <= tree.threshold[t]
        rows = rows[below if go_left else ~below]
    return rows


def differences(ours, theirs):
    "Where our tree and scikit-learn's differ, node by node (empty if the same)."
    if ours.node_count != theirs.node_count or not np.array_equal(ours.children_left, theirs.children_left):
        first = int(np.flatnonzero(np.r_[ours.children_left[:theirs.node_count] != theirs.children_left[:ours.node_count], True])[0])
        return [f"shape: {ours.node_count} vs {theirs.node_count} nodes, first difference at node {first}"]
    diffs = []
    inner = ours.children_left != -1
    for t in np.flatnonzero(inner & ((ours.feature != theirs.feature) | (ours.threshold != theirs.threshold))):
        diffs.append(f"node {t}: split ({ours.feature[t]}, {ours.threshold[t]}) vs ({theirs.feature[t]}, {theirs.threshold[t]})")
    value = theirs.value[:, 0, :]
    if not np.allclose(ours.value, value, rtol=1e-9, atol=1e-12): diffs.append("values")
    scale = max(abs(theirs.impurity[0]), 1e-300)
    if not np.allclose(ours.impurity, theirs.impurity, rtol=1e-9, atol=1e-12 * scale): diffs.append("impurities")
    if not np.array_equal(ours.n_node_samples, theirs.n_node_samples): diffs.append("counts")
    if not np.allclose(ours.weighted_n_node_samples, theirs.weighted_n_node_samples, rtol=1e-12): diffs.append("weights")
    return diffs


def first_divergence(ours, theirs):
    "The first node, in pre-order, whose leafness or split differs."
    n = min(ours.node_count, theirs.node_count)
    differs = ((ours.children_left[:n] == -1) != (theirs.children_left[:n] == -1)) | (
        (ours.children_left[:n] != -1) & ((ours.feature[:n] != theirs.feature[:n]) | (ours.threshold[:n] != theirs.threshold[:n])))
    return int(np.flatnonzero(differs)[0]) if differs.any() else None


def assert_same_tree(ours, theirs, X, y, w, criterion):
    diffs = differences(ours, theirs)
    if not diffs: return
    node = first_divergence(ours, theirs)
    assert criterion == "absolute_error" and node is not None, diffs
    # the only difference allowed: at the first node where the splits differ, an exact tie of absolute error
    assert not (ours.children_left[node] == -1) and not (theirs.children_left[node] == -1), diffs
    before = slice(0, node + 1)                         # the nodes up to it are the same nodes in both trees
    assert np.allclose(ours.value[before], theirs.value[before, 0, :], rtol=1e-9, atol=1e-12), diffs
    assert np.allclose(ours.impurity[before], theirs.impurity[before], rtol=1e-9, atol=1e-12 * abs(theirs.impurity[0])), diffs
    assert np.array_equal(ours.n_node_samples[before], theirs.n_node_samples[before]), diffs
    rows = rows_at(ours, X, node)
    weights = np.ones(len(y)) if w is None else w
    score = lambda f, tau: split_impurity(y[rows], X[rows, f] <= tau, criterion, None, weights[rows])
    ours_s, theirs_s = score(ours.feature[node], ours.threshold[node]), score(theirs.feature[node], theirs.threshold[node])
    assert abs(ours_s - theirs_s) <= TIE_TOLERANCE * abs(ours.impurity[node]), (diffs, ours_s, theirs_s)


@pytest.mark.parametrize("criterion, search", [(c, s) for c in ("log_loss", "absolute_error", "poisson") for s in SEARCHES
                                               if s != "median" or c == "absolute_error"])   # the median sweep: absolute error only
@pytest.mark.parametrize("weighted", [None, "float", "integer"])
def test_grown_tree_matches_sklearn(criterion, weighted, search):
    n_classes = None if criterion in REGRESSION_CRITERIA else 3
    rules = {"min_samples_split": 10}           # small nodes tie between features too often for a seed-free tree
    (X, y, w), theirs = seed_free_problem(criterion, weighted, 100, rules)
    ours = grow_tree(X, y, criterion, w, n_classes, find_split=SEARCHES[search], **rules)
    assert_same_tree(ours, theirs, X, y, w, criterion)


@pytest.mark.parametrize("criterion", ["log_loss", "absolute_error", "poisson"])
def test_naive_search_matches_sklearn(criterion):
    "Chapter 4's brute force, through chapter 1's impurity functions, grows scikit-learn's tree too (small data: it is slow)."
    n_classes = None if criterion in REGRESSION_CRITERIA else 3
    rules = {"max_depth": 3, "min_samples_split": 8}
    (X, y, w), theirs = seed_free_problem(criterion, "integer", 40, rules)
    ours = grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["naive"], **rules)
    assert_same_tree(ours, theirs, X, y, w, criterion)


@pytest.mark.parametrize("criterion", ["absolute_error", "poisson"])
def test_stopping_rules_match_sklearn(criterion):
    "min_samples_leaf and max_depth cut the same trees for the new regression criteria."
    (X, y, w), theirs = seed_free_problem(criterion, "float", 120, {"min_samples_leaf": 5, "max_depth": 5})
    ours = grow_tree(X, y, criterion, w, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=5, max_depth=5)
    assert_same_tree(ours, theirs, X, y, w, criterion)


def test_log_loss_is_entropy():
    X, y, w = problem("log_loss", 3, "float", 100)
    for search in ("incremental", "vectorized"):
        a = grow_tree(X, y, "log_loss", w, 3, find_split=SPLIT_SEARCHES[search])
        b = grow_tree(X, y, "entropy", w, 3, find_split=SPLIT_SEARCHES[search])
        assert same_structure(a, b) and np.array_equal(a.impurity, b.impurity) and np.array_equal(a.value, b.value)


def test_poisson_refuses_what_sklearn_refuses():
    X = np.random.default_rng(0).random((4, 1))
    for y in (np.array([1., -1., 2., 0.]), np.zeros(4)):
        with pytest.raises(ValueError):
            sktree.DecisionTreeRegressor(criterion="poisson").fit(X, y)
        with pytest.raises(ValueError, match="poisson"):
            grow_tree(X, y, "poisson", find_split=SPLIT_SEARCHES["vectorized"])


def test_poisson_never_makes_a_child_of_zeros():
    "A child whose targets sum to zero is not admissible: the only cut that separates the zeros is refused, as in scikit-learn."
    X = np.arange(6.)[:, None]
    y = np.array([0., 0., 0., 3., 1., 2.])
    theirs = sktree.DecisionTreeRegressor(criterion="poisson").fit(X, y).tree_
    for search in ("naive", "incremental", "vectorized"):
        ours = grow_tree(X, y, "poisson", find_split=SPLIT_SEARCHES[search])
        assert same_structure(ours, theirs), search
        assert (ours.value[:, 0] > 0).all()                          # no leaf predicts a rate of 0
