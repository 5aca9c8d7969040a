"""Many trees at once (chapter 18's `grow_trees`, with chapter 10's `FAST` paths): each tree equals the tree `grow_levelwise` grows alone from its rows and
seed, for every criterion, weights, ties, categorical columns, missing values, drawn features and drawn thresholds; and the
growth without sorted orders (random thresholds) equals the growth with them."""
import itertools

import numpy as np
import pytest

from dataclasses import replace

from climbing_trees.levelwise import PLAIN, presort
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.fast import FAST, dense_ranks
from climbing_trees.forests import grow_trees, trees_orders
from climbing_trees.tree import tree_differences
from climbing_trees.growth import GrowthPlan

CASES = [("gini", 2), ("entropy", 3), ("gini", 6), ("squared_error", None), ("poisson", None), ("absolute_error", None)]


def data(seed, n=160, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 1] = rng.integers(0, 4, n)                                  # ties
    return rng, X


def target(rng, X, criterion, k):
    if k is not None: return rng.integers(0, k, len(X))
    if criterion == "poisson": return rng.poisson(np.exp(X[:, 0] / 2)).astype(float)
    return X[:, 0] + rng.normal(size=len(X))


def bootstrap_weights(rng, n, B, weighted):
    W = np.array([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(B)], dtype=float)
    if weighted: W *= rng.integers(1, 3, n)                            # sample weights on top of the counts
    return W


@pytest.mark.parametrize("case, columns, splitter, max_features, weighted",
                         [p for p in itertools.product(CASES, ["numeric", "categorical", "missing"], ["best", "random"], [None, 2],
                                                       [False, True])
                          if not (p[0][0] == "absolute_error" and p[2] == "random")])   # absolute error: no random thresholds
def test_each_tree_equals_the_tree_grown_alone(case, columns, splitter, max_features, weighted):
    criterion, k = case
    rng, X = data(hash((columns, splitter, max_features, weighted, criterion)) % 2 ** 32)
    categorical = ()
    if columns == "categorical":
        X[:, 4], categorical = rng.integers(0, 5, len(X)), (4,)
    y = target(rng, X, criterion, k)                                  # from the complete values
    if columns == "missing": X[rng.random(X.shape) < 0.15] = np.nan
    W = bootstrap_weights(rng, len(X), 4, weighted)
    seeds = [11, 12, 13, 14]
    for rules in (dict(), dict(min_samples_leaf=3, max_depth=5), dict(min_impurity_decrease=0.02), dict(min_weight_leaf=3.0)):
        trees = grow_trees(X, y, criterion, W, k, random_states=seeds, categorical=categorical, max_features=max_features,
                           splitter=splitter, tuning=FAST, **rules)
        for tree, w, seed in zip(trees, W, seeds):
            rows = w > 0
            alone = grow_levelwise(X[rows], y[rows], criterion, w[rows], k, categorical=categorical, max_features=max_features,
                                   splitter=splitter, random_state=seed, **rules)
            assert tree_differences(tree, alone) == []


def test_batches_best_first_and_rules_that_differ_per_tree():
    rng, X = data(7)
    y = rng.integers(0, 2, len(X))
    W = bootstrap_weights(rng, len(X), 5, False)
    alone = [grow_levelwise(X[w > 0], y[w > 0], "gini", w[w > 0], 2, max_features=3, random_state=s) for s, w in enumerate(W)]
    for tree, reference in zip(grow_trees(X, y, "gini", W, 2, random_states=range(5), max_features=3, presorted=presort(X),
                                          tuning=FAST, batch_elements=2 * len(X) * X.shape[1]), alone):   # about two trees a batch
        assert tree_differences(tree, reference) == []
    budget = grow_trees(X, y, "gini", W, 2, random_states=range(5), max_leaf_nodes=6)              # best first: one at a time
    assert [t.n_leaves for t in budget] == [6] * 5
    per_tree = grow_trees(X, y, "gini", W, 2, random_states=range(5), min_weight_leaf=[2.0, 3.0, 4.0, 5.0, 6.0])
    for tree, w, m in zip(per_tree, W, [2.0, 3.0, 4.0, 5.0, 6.0]):
        assert tree_differences(tree, grow_levelwise(X[w > 0], y[w > 0], "gini", w[w > 0], 2, min_weight_leaf=m)) == []


@pytest.mark.parametrize("seed", range(12))
def test_random_thresholds_without_orders_equal_those_with_orders(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(20, 300)), int(rng.integers(1, 7))
    X = rng.normal(size=(n, d))
    if seed % 3 == 0: X = np.round(X, 1)                            # ties and constant features in small nodes
    criterion, k = CASES[seed % 5]
    y = target(rng, X, criterion, k)
    w = rng.integers(0, 3, n).astype(float) if seed % 2 else None
    options = dict(max_features=int(rng.integers(1, d + 1)), splitter="random", random_state=seed, min_samples_leaf=int(rng.integers(1, 4)))
    without = grow_levelwise(X, y, criterion, w, k, tuning=FAST, **options)                 # FAST: no orders where none are needed
    assert tree_differences(without, grow_levelwise(X, y, criterion, w, k, tuning=PLAIN, **options)) == []


def test_bad_tables_are_refused():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="one seed per tree"):
        grow_trees(X, y, "gini", np.ones((3, 4)), 2, random_states=[1, 2])
    with pytest.raises(ValueError, match="one weight per row of X"):
        grow_trees(X, y, "gini", np.ones((2, 5)), 2, random_states=[1, 2])


def test_trees_orders_are_those_the_growth_reads():
    rng, X = data(3)
    np.testing.assert_array_equal(trees_orders(GrowthPlan("gini", 2), X), presort(X))
    assert trees_orders(GrowthPlan("squared_error", splitter="random", tuning=FAST), X) is None   # drawn thresholds, numeric: no orders
    np.testing.assert_array_equal(trees_orders(GrowthPlan("squared_error", splitter="random"), X), presort(X))   # PLAIN: always orders
    for reason in (dict(categorical=(1,)), dict(criterion="absolute_error")):              # node-searched columns read orders
        options = dict(criterion="squared_error", splitter="random", tuning=FAST) | reason
        np.testing.assert_array_equal(trees_orders(GrowthPlan(**options), X), presort(X))
    X[0, 2] = np.nan                                                                       # missing values: the sorted search
    np.testing.assert_array_equal(trees_orders(GrowthPlan("gini", 2, splitter="random", tuning=FAST), X), presort(X))
    given = presort(X)
    assert trees_orders(GrowthPlan("gini", 2), X, presorted=given) is given


@pytest.mark.parametrize("case", CASES)
def test_trees_grown_together_read_the_ranks_of_X(case):
    # Every tree's rows are rows of X, so one table of X's ranks answers every comparison a tree's sweep makes.
    criterion, k = case
    rng, X = data(21)
    y = target(rng, X, criterion, k)
    W = bootstrap_weights(rng, len(X), 4, True)
    made = []
    def recorded_ranks(X_r, orders): made.append(X_r.shape); return dense_ranks(X_r, orders)
    as_if_large = replace(FAST, ranks=recorded_ranks, ranks_from_bytes=0)   # as if X were larger than a cache: ranks are read
    trees = grow_trees(X, y, criterion, W, k, random_states=range(4), max_features=3, tuning=as_if_large)
    assert made == [X.shape]                                              # once, from X, not from the stacked rows
    for tree, w, seed in zip(trees, W, range(4)):
        rows = w > 0
        alone = grow_levelwise(X[rows], y[rows], criterion, w[rows], k, max_features=3, random_state=seed)
        assert tree_differences(tree, alone) == []


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_drawn_pairs_with_class_sums_grow_the_full_sweeps_trees(criterion):
    "Many classes (chapter 10's own-class sums) and max_features: sweeping only the drawn (feature, node) pairs grows the trees of sweeping every feature and discarding the undrawn pairs."
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(1)
    W = np.array([np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) for _ in range(6)], dtype=float)
    grown = [grow_trees(X, y, criterion, W, n_classes=10, max_features=8, random_states=list(range(6)), tuning=t)
             for t in (replace(FAST, drawn_pairs=None), FAST)]
    assert all(tree_differences(a, b) == [] for a, b in zip(*grown))
