"""Categorical splits (chapter 6) against the exhaustive oracle, the traps a first implementation falls into, and the encoder.

The exhaustive search over all 2^(k-1)-1 partitions is the oracle. The search the grower uses,
`categorical_column_split`, must reach its optimum on random nodes with 2 to 10 levels and weights
with zeros: always for regression and two classes (min_samples_leaf=1, the Fisher/Breiman theorem),
and for three or more classes within the exhaustive limit (any min_samples_leaf or min_weight_leaf). The level-wise
grower (chapter 8) grows the depth-first grower's tree on categorical columns."""
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import pytest
from strategies import sample_weights
from hypothesis import HealthCheck, given, settings, strategies as st

from climbing_trees.impurity import node_impurity, node_value, play_tennis, split_impurity
from climbing_trees.tree import LEAF, Split, tree_differences
from climbing_trees.naive import best_split
from climbing_trees.growth import grow_tree
from climbing_trees.criteria import vectorized_column_split
from climbing_trees.inference import apply
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.categorical import (
    MULTICLASS_EXHAUSTIVE_LEVELS, CategoricalSplit, best_prefix_split, categorical_column_split,
    exhaustive_categorical_split, level_statistics, one_vs_rest_split, ordered_categorical_split,
    prefix_split_curve, response_order)
from climbing_trees.categorical_growth import CategoryEncoder, column_searches

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def nodes(draw, task):
    "A random node with one categorical column of 2..10 levels, weights with zeros, and a criterion for `task`."
    k = draw(st.integers(2, 10))
    n = draw(st.integers(2, 8 * k))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.integers(0, k, n).astype(float)
    if draw(st.booleans()): x = rng.permutation(np.r_[np.arange(k), rng.integers(0, k, max(n - k, 0))])[:n].astype(float)
    if task == "regression":
        criterion, n_classes = "squared_error", None
        y = np.round(rng.normal(size=n) * draw(st.sampled_from([0.01, 1.0, 1e3])), draw(st.sampled_from([0, 2, 8])))
    else:
        n_classes = 2 if task == "binary" else draw(st.integers(3, 5))
        criterion = draw(st.sampled_from(["gini", "entropy"] + (["misclassification"] if task == "binary" else [])))
        y = rng.integers(0, n_classes, n)
    return x, y, sample_weights(draw, rng, n, zero_share=0.25), criterion, n_classes


def scale_of(y, w, criterion, n_classes):
    "The node's impurity, the scale of chapter 3's tie rule (floored: a pure node's children differ from 0 by rounding only)."
    return max(node_impurity(y, criterion, n_classes, w), 1e-6)


def check_split_is_consistent(split, x, y, w, criterion, n_classes, min_samples_leaf):
    """The split's stored fields agree with the samples it routes: levels, sizes, default side, and i(s) recomputed
    from scratch by chapter 1 (a stats update that forgot a sum would disagree here)."""
    left = split.goes_left(x[:, None].astype(float))
    assert split.left_levels and split.right_levels and not split.left_levels & split.right_levels
    assert min(split.left_levels) < min(split.right_levels)                       # canonical: smallest code left
    assert left.sum() >= min_samples_leaf and (~left).sum() >= min_samples_leaf
    assert w[left].sum() > 0 and w[~left].sum() > 0
    assert split.default_left == (w[left].sum() >= w[~left].sum())
    recomputed = split_impurity(y, left, criterion, n_classes, w)
    assert split.impurity == pytest.approx(recomputed, rel=1e-9, abs=1e-9 * scale_of(y, w, criterion, n_classes))


def routed(split):
    "The split with feature 0, so that goes_left can be applied to a one-column matrix."
    return CategoricalSplit(0, split.left_levels, split.right_levels, split.impurity, split.default_left)


# -- the oracle --------------------------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(["binary", "regression", "multiclass"]).flatmap(nodes), st.integers(1, 4))
def test_exhaustive_oracle_is_consistent(node, min_samples_leaf):
    x, y, w, criterion, n_classes = node
    split = exhaustive_categorical_split(x, y, w, criterion, n_classes, min_samples_leaf)
    if split is not None:
        check_split_is_consistent(routed(split), x, y, w, criterion, n_classes, min_samples_leaf)


def test_exhaustive_oracle_against_itertools():
    "The oracle's optimum equals a plain loop over every assignment of levels to sides, impurities from chapter 1."
    rng = np.random.default_rng(11)
    for _ in range(60):
        k, n = rng.integers(2, 6), rng.integers(4, 25)
        x = rng.integers(0, k, n).astype(float)
        y, w = rng.integers(0, 3, n), rng.integers(1, 3, n).astype(float)
        levels = np.unique(x)
        best = np.inf
        for bits in range(1, 2 ** len(levels) - 1):
            left = np.isin(x, levels[[(bits >> j) & 1 == 1 for j in range(len(levels))]])
            best = min(best, split_impurity(y, left, "gini", 3, w))
        found = exhaustive_categorical_split(x, y, w, "gini", 3)
        assert (found is None) == (len(levels) < 2)
        if found is not None: assert found.impurity == pytest.approx(best, abs=1e-12)


def brute_force_with_min_weight(x, y, w, criterion, n_classes, min_weight_leaf):
    "The best i(s) over every assignment of the levels to two sides that leaves each side min_weight_leaf of weight, or None."
    levels, best = np.unique(x), None
    for bits in range(1, 2 ** len(levels) - 1):
        left = np.isin(x, levels[[(bits >> j) & 1 == 1 for j in range(len(levels))]])
        if min(w[left].sum(), w[~left].sum()) < min_weight_leaf or not (w[left] > 0).any() or not (w[~left] > 0).any():
            continue
        value = split_impurity(y, left, criterion, n_classes, w)
        best = value if best is None else min(best, value)
    return best


def test_min_weight_leaf_against_brute_force():
    """Every search of chapter 6 with min_weight_leaf: the exhaustive one (and the column search within its limit for three
    classes) reaches the brute-force optimum over the partitions that leave that much weight on each side; the ordered
    search never beats it, and every split found holds the weight."""
    rng = np.random.default_rng(17)
    checked = 0
    for _ in range(150):
        k, n = int(rng.integers(2, 7)), int(rng.integers(4, 30))
        x = rng.integers(0, k, n).astype(float)
        w = rng.uniform(0.2, 3.0, n) * (rng.random(n) > 0.15)
        if w.sum() == 0: w[0] = 1.0
        min_weight = rng.uniform(0.05, 0.5) * w.sum()
        for criterion, n_classes, y in (("gini", 3, rng.integers(0, 3, n)), ("entropy", 2, rng.integers(0, 2, n)),
                                        ("squared_error", None, np.round(rng.normal(size=n), 1))):
            best = brute_force_with_min_weight(x, y, w, criterion, n_classes, min_weight)
            oracle = exhaustive_categorical_split(x, y, w, criterion, n_classes, 1, min_weight)
            assert (oracle is None) == (best is None), (x, y, w, min_weight)
            if best is None: continue
            checked += 1
            scale = scale_of(y, w, criterion, n_classes)
            assert oracle.impurity == pytest.approx(best, abs=1e-9 * scale)
            searches = [categorical_column_split, one_vs_rest_split] + ([ordered_categorical_split] if n_classes != 3 else [])
            for search in searches:
                found = search(x, y, w, criterion, n_classes, 1, min_weight)
                if found is None: continue
                left = routed(found).goes_left(x[:, None])
                assert min(w[left].sum(), w[~left].sum()) >= min_weight
                assert found.impurity >= best - 1e-9 * scale
            if n_classes == 3 and len(np.unique(y[w > 0])) == 3:      # three classes within the limit: exhaustive, exact
                assert categorical_column_split(x, y, w, criterion, n_classes, 1, min_weight).impurity == pytest.approx(
                    best, abs=1e-9 * scale)
    assert checked > 150


def test_min_weight_leaf_grows_trees_whose_leaves_hold_the_weight():
    "Chapter 4's grower with categorical column searches and min_weight_leaf: every leaf holds the weight."
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 8, 300), rng.random(300)]).astype(float)
    y = (np.isin(X[:, 0], [1, 3, 6]) ^ (X[:, 1] > 0.6)).astype(int)
    w = rng.uniform(0.5, 2.0, 300)
    find = partial(best_split, column_search=column_searches(2, [0], vectorized_column_split))
    for fraction in (0.02, 0.1, 0.25):
        tree = grow_tree(X, y, "gini", w, 2, find_split=find, min_weight_leaf=fraction * w.sum())
        assert tree.weighted_n_node_samples[tree.is_leaf].min() >= fraction * w.sum()
        assert tree.categorical[~tree.is_leaf].any()


# -- the searches reach the optimum ------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(["binary", "regression"]).flatmap(nodes))
def test_binary_and_regression_reach_the_optimum(node):
    x, y, w, criterion, n_classes = node
    oracle = exhaustive_categorical_split(x, y, w, criterion, n_classes)
    for search in (categorical_column_split, ordered_categorical_split):
        found = search(x, y, w, criterion, n_classes)
        assert (found is None) == (oracle is None)
        if oracle is None: continue
        assert abs(found.impurity - oracle.impurity) <= 1e-9 * scale_of(y, w, criterion, n_classes)
        check_split_is_consistent(routed(found), x, y, w, criterion, n_classes, 1)


@SETTINGS
@given(nodes("multiclass"), st.integers(1, 4))
def test_multiclass_within_the_limit_reaches_the_optimum(node, min_samples_leaf):
    x, y, w, criterion, n_classes = node
    assert len(np.unique(x)) <= MULTICLASS_EXHAUSTIVE_LEVELS
    present = np.unique(y[w > 0])
    if len(present) <= 2 and min_samples_leaf > 1: min_samples_leaf = 1   # a two-class node: the theorem's search, exact at 1
    oracle = exhaustive_categorical_split(x, y, w, criterion, n_classes, min_samples_leaf)
    found = categorical_column_split(x, y, w, criterion, n_classes, min_samples_leaf)
    assert (found is None) == (oracle is None)
    if oracle is not None:
        assert abs(found.impurity - oracle.impurity) <= 1e-9 * scale_of(y, w, criterion, n_classes)
        check_split_is_consistent(routed(found), x, y, w, criterion, n_classes, min_samples_leaf)


@SETTINGS
@given(st.sampled_from(["binary", "regression"]).flatmap(nodes), st.integers(2, 5))
def test_with_a_leaf_size_the_ordered_search_is_the_best_admissible_prefix(node, min_samples_leaf):
    "With min_samples_leaf > 1 the theorem does not apply: the search returns the best admissible prefix, never beats the oracle."
    x, y, w, criterion, n_classes = node
    found = categorical_column_split(x, y, w, criterion, n_classes, min_samples_leaf)
    oracle = exhaustive_categorical_split(x, y, w, criterion, n_classes, min_samples_leaf)
    levels = level_statistics(x, y, w, criterion, n_classes)
    order = response_order(levels) if len(levels.codes) >= 2 else None
    prefixes = prefix_split_curve(levels, order, min_samples_leaf)[1] if order is not None else []
    if len(prefixes) == 0:
        assert found is None
        return
    scale = scale_of(y, w, criterion, n_classes)
    assert abs(found.impurity - min(prefixes)) <= 1e-9 * scale
    assert found.impurity >= oracle.impurity - 1e-9 * scale
    check_split_is_consistent(routed(found), x, y, w, criterion, n_classes, min_samples_leaf)


@SETTINGS
@given(st.sampled_from(["binary", "regression", "multiclass"]).flatmap(nodes), st.integers(1, 3))
def test_one_vs_rest_is_the_best_single_level_split(node, min_samples_leaf):
    x, y, w, criterion, n_classes = node
    found = one_vs_rest_split(x, y, w, criterion, n_classes, min_samples_leaf)
    candidates = []
    weighted_levels = [v for v in np.unique(x) if w[x == v].sum() > 0]
    for level in np.unique(x[w > 0]):
        alone = x == level
        w_alone, w_rest = w[alone].sum(), w[~alone].sum()
        # equal weights: the weightless levels join the side that holds the smallest (weighted) level code
        tie = abs(w_alone - w_rest) <= 1e-12 * (w_alone + w_rest)
        heavier_left = (level == min(weighted_levels)) if tie else w_alone > w_rest
        zero = np.isin(x, np.unique(x)[[w[x == v].sum() == 0 for v in np.unique(x)]])  # weightless levels follow the heavier side
        left = alone | (zero & heavier_left)
        if left.sum() >= min_samples_leaf and (~left).sum() >= min_samples_leaf and w[~alone].sum() > 0:
            candidates.append(split_impurity(y, left, criterion, n_classes, w))
    if not candidates or len(np.unique(x[w > 0])) < 2:
        assert found is None
        return
    assert abs(found.impurity - min(candidates)) <= 1e-9 * scale_of(y, w, criterion, n_classes)


def test_ties_are_deterministic():
    "Equal means are ordered by code, and the first best prefix wins: the same input gives the same split."
    x = np.array([3., 1., 2., 0., 3., 1., 2., 0.])
    y = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    a = categorical_column_split(x, y, None, "gini", 2)
    assert a == categorical_column_split(x[::-1].copy(), y[::-1].copy(), None, "gini", 2)
    assert a == CategoricalSplit(None, frozenset({0, 2}), frozenset({1, 3}), 0.0, True)
    tied = categorical_column_split(np.array([0., 1., 2.]), np.array([1, 1, 1]), None, "gini", 2)
    assert tied.left_levels == frozenset({0}) and tied.impurity == 0.0


# -- the traps of a first implementation -------------------------------------------------------------------------

def test_trap_a_squared_error_keeps_each_levels_within_variance():
    """A level must move with its sum of squares. Here each level of the categorical column has a large spread
    around its mean; a numeric column explains more. Moving levels by their means alone would report an i(s)
    without the within-level variance and pick the categorical column."""
    rng = np.random.default_rng(0)
    n = 400
    cat = rng.integers(0, 6, n).astype(float)
    num = rng.random(n)
    y = 2.0 * cat + rng.normal(0, 6, n) + 8.0 * (num > 0.5)
    w = rng.integers(1, 3, n).astype(float)
    split = categorical_column_split(cat, y, w, "squared_error")
    left = np.isin(cat, list(split.left_levels))
    assert split.impurity == pytest.approx(split_impurity(y, left, "squared_error", sample_weight=w), rel=1e-12)
    # what the trap computes: each level collapsed to one sample at its weighted mean, with the level's weight
    levels = np.unique(cat)
    W = np.array([w[cat == v].sum() for v in levels])
    means = np.array([np.average(y[cat == v], weights=w[cat == v]) for v in levels])
    collapsed = level_statistics(levels, means, W, "squared_error")
    mean_only = min(prefix_split_curve(collapsed, response_order(collapsed))[1])
    numeric = vectorized_column_split(num, y, w, "squared_error")
    assert mean_only < numeric.impurity < split.impurity          # the trap would choose the categorical column
    chosen = best_split(np.column_stack([cat, num]), y, w, "squared_error",
                        column_search=[categorical_column_split, vectorized_column_split])
    assert chosen.feature == 1


def test_trap_b_min_samples_leaf_counts_the_whole_side():
    "Six levels of two samples each: no single level reaches min_samples_leaf=3, but sides made of several levels do."
    x = np.repeat(np.arange(6.), 2)
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    for criterion, yy, n_classes in (("gini", y, 2), ("squared_error", y.astype(float), None), ("entropy", y % 3, 3)):
        for search in (categorical_column_split, exhaustive_categorical_split):
            split = search(x, yy, None, criterion, n_classes, 3)
            assert split is not None and split.impurity == 0.0
            left = np.isin(x, list(split.left_levels))
            assert left.sum() >= 3 and (~left).sum() >= 3
    # a side counts zero-weight samples too, and the weightless levels on the heavier side
    w = np.r_[np.ones(10), 0.0, 0.0]                                         # level 5 weighs nothing
    split = categorical_column_split(x, y, w, "gini", 2, min_samples_leaf=4)
    assert split == exhaustive_categorical_split(x, y, w, "gini", 2, min_samples_leaf=4)
    assert split.left_levels == frozenset({0, 1, 2}) and split.default_left               # left weighs 6, right 4
    assert 5 not in split.left_levels | split.right_levels                   # set aside, follows the heavier child
    routed_left = routed(split).goes_left(x[:, None])
    assert routed_left.sum() == 8 and (~routed_left).sum() == 4
    for search in (categorical_column_split, exhaustive_categorical_split):   # sides of 5: only 6 + 2 against 4 exists
        assert search(x, y, w, "gini", 2, 5) is None
    assert categorical_column_split(x, y, None, "gini", 2, min_samples_leaf=7) is None
    # the weightless samples are what lets the heavier side reach the minimum here: 3 + 2 against 4
    x2 = np.array([0., 0., 0., 1., 1., 1., 1., 2., 2.])
    y2 = np.array([0, 0, 0, 1, 1, 1, 1, 1, 0])
    w2 = np.array([3., 3., 3., 1., 1., 1., 1., 0., 0.])
    for search in (categorical_column_split, exhaustive_categorical_split, one_vs_rest_split):
        split = search(x2, y2, w2, "gini", 2, 4)
        assert split == CategoricalSplit(None, frozenset({0}), frozenset({1}), 0.0, True)
        assert routed(split).goes_left(x2[:, None]).sum() == 5
        assert search(x2, y2, w2, "gini", 2, 5) is None


def test_trap_c_node_values_and_level_order_are_weighted():
    "Leaves hold weighted means, and levels are ordered by weighted means (the unweighted order would miss here)."
    x = np.array([0., 0., 1., 1., 2., 2.])
    y = np.array([0., 10., 4., 4., 6., 6.])
    w = np.array([9., 1., 1., 1., 1., 1.])
    split = categorical_column_split(x, y, w, "squared_error")
    assert split.left_levels == frozenset({0})
    assert split.impurity == pytest.approx(exhaustive_categorical_split(x, y, w, "squared_error").impurity)
    levels = level_statistics(x, y, w, "squared_error")
    assert best_prefix_split(levels, np.argsort([5., 4., 6.])).impurity > split.impurity + 0.5
    X = x[:, None]
    tree = grow_tree(X, y, "squared_error", w, find_split=partial(best_split, column_search=[categorical_column_split]),
                     max_depth=1)
    assert tree.node_count == 3 and bool(tree.categorical[0])
    assert tree.value[tree.children_left[0], 0] == pytest.approx(1.0) and tree.value[tree.children_right[0], 0] == pytest.approx(5.0)
    assert tree.value[0, 0] == pytest.approx(np.average(y, weights=w))
    repeated = categorical_column_split(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int)), None, "squared_error")
    assert repeated == split


@SETTINGS
@given(st.sampled_from(["binary", "regression", "multiclass"]).flatmap(nodes))
def test_trap_e_level_statistics_forget_no_sum(node):
    "Every statistic of every level, and of both sides of the chosen split, equals a sum over the samples."
    x, y, w, criterion, n_classes = node
    levels = level_statistics(x, y, w, criterion, n_classes)
    crit = levels.criterion
    per_sample = crit.stats(y, w)                   # same shift as inside level_statistics (the node's weighted mean)
    for code, S_j, count in zip(levels.codes, levels.S, levels.counts):
        assert np.allclose(S_j, per_sample[x == code].sum(axis=0), rtol=1e-12, atol=1e-12 * np.abs(per_sample).sum())
        assert count == (x == code).sum()
    assert levels.n_weightless == np.isin(x, [v for v in np.unique(x) if w[x == v].sum() == 0]).sum()
    split = categorical_column_split(x, y, w, criterion, n_classes)
    if split is None: return
    left = routed(split).goes_left(x[:, None])
    for side in (left, ~left):
        value = node_value(y[side], n_classes, w[side])
        assert np.allclose(crit.value(per_sample[side].sum(axis=0)), value, rtol=1e-9, atol=1e-9 * (1 + np.abs(y).max()))
        assert crit.impurity(per_sample[side].sum(axis=0)) == pytest.approx(
            node_impurity(y[side], criterion, n_classes, w[side]), rel=1e-7, abs=1e-9 * scale_of(y, w, criterion, n_classes))


# -- the split, the grower, unseen levels ----------------------------------------------------------------------------

def tennis_tree():
    table = play_tennis()
    X, y = table.drop(columns="Play"), (table.Play == "Yes").to_numpy().astype(int)
    enc = CategoryEncoder().fit(X)
    codes = enc.transform(X)
    searches = column_searches(codes.shape[1], enc.categorical_, vectorized_column_split)
    return enc, codes, y, grow_tree(codes, y, "gini", n_classes=2, find_split=partial(best_split, column_search=searches))


def split_of(tree, t):
    "The split object of internal node `t` of a Tree, rebuilt from its arrays (so that its own goes_left routes)."
    if not tree.categorical[t]: return Split(int(tree.feature[t]), float(tree.threshold[t]), np.nan, bool(tree.default_left[t]))
    return CategoricalSplit(int(tree.feature[t]), frozenset(np.flatnonzero(tree.left_levels[t]).tolist()),
                            frozenset(np.flatnonzero(tree.right_levels[t]).tolist()), np.nan, bool(tree.default_left[t]))


def leaf_of(tree, row):
    t = 0
    while tree.children_left[t] != LEAF:
        t = tree.children_left[t] if split_of(tree, t).goes_left(row[None, :])[0] else tree.children_right[t]
    return t


def test_unseen_level_goes_to_the_heavier_child():
    enc, codes, y, tree = tennis_tree()
    new = pd.DataFrame({"Outlook": ["Fog"], "Temperature": ["Freezing"], "Humidity": ["Damp"], "Wind": ["Gale"]})
    row = enc.transform(new)[0]
    assert (row == -1).all()
    t = 0
    while tree.children_left[t] != LEAF:          # every split on the way sends the unknown levels to its heavier child
        left, right = tree.children_left[t], tree.children_right[t]
        heavier = left if tree.weighted_n_node_samples[left] >= tree.weighted_n_node_samples[right] else right
        assert bool(tree.default_left[t]) == (heavier == left)
        t = left if split_of(tree, t).goes_left(row[None, :])[0] else right
        assert t == heavier
    assert leaf_of(tree, row) == t


def test_tree_differences_compare_categorical_splits():
    enc, codes, y, tree = tennis_tree()
    oracle = grow_tree(codes, y, "gini", n_classes=2,
                       find_split=partial(best_split, column_search=[exhaustive_categorical_split] * codes.shape[1]))
    assert tree_differences(tree, oracle) == []
    other = grow_tree(codes, y, "gini", n_classes=2, max_depth=1,
                      find_split=partial(best_split, column_search=[exhaustive_categorical_split] * codes.shape[1]))
    assert other.node_count == 3 and bool(other.categorical[0])
    left_levels, right_levels = other.left_levels.copy(), other.right_levels.copy()
    moved = np.flatnonzero(right_levels[0])[0]                      # one level of the right side moves left
    left_levels[0, moved], right_levels[0, moved] = True, False
    flipped = replace(other, left_levels=left_levels, right_levels=right_levels)
    assert tree_differences(other, flipped) != []


def test_mixed_numeric_and_categorical_tree():
    "One grower, one search per column; the categorical split's routing agrees with the stored level sets."
    rng = np.random.default_rng(3)
    n = 300
    cat = rng.integers(0, 15, n)
    num = rng.random(n)
    y = ((np.isin(cat, [1, 4, 7, 9, 11]) ^ (num > 0.7))).astype(int)
    X = np.column_stack([num, cat.astype(float)])
    tree = grow_tree(X, y, "entropy", n_classes=2, find_split=partial(best_split, column_search=column_searches(
        2, [1], vectorized_column_split)))
    inner = ~tree.is_leaf
    assert set(tree.categorical[inner].tolist()) == {False, True}                  # numeric and categorical splits
    assert np.isnan(tree.threshold[inner & tree.categorical]).all() and (tree.feature[inner & tree.categorical] == 1).all()
    assert (tree.impurity[tree.is_leaf] == 0).all()
    assert tree.n_leaves <= 6   # 4 would do; greedy growth takes a detour
    for t in np.flatnonzero(inner & tree.categorical):                            # stored level sets route the training rows
        assert not (tree.left_levels[t] & tree.right_levels[t]).any()
    leaves = np.array([leaf_of(tree, row) for row in X])
    assert (tree.value[leaves].argmax(axis=1) == y).all()


@pytest.mark.parametrize("criterion, n_classes", [("gini", 2), ("entropy", 3), ("squared_error", None), ("poisson", None)])
def test_levelwise_grows_the_depth_first_tree_with_categorical_columns(criterion, n_classes):
    """Chapter 8's grower with `categorical=` grows chapter 4's tree with chapter 6's column searches, node for node,
    and both send new rows, levels unseen in training (-1) included, to the same leaves."""
    rng = np.random.default_rng(9)
    n = 400
    shop, colour = rng.integers(0, 14, n), rng.integers(0, 3, n)          # 14 levels: beyond the exhaustive limit
    x0, x1 = np.round(rng.random(n), 2), rng.random(n)                    # x0 with ties
    signal = np.isin(shop, [2, 5, 7, 11]) + (x0 > 0.5) + 0.5 * (colour == 1)
    if n_classes is None: y = rng.poisson(1.0 + signal).astype(float) if criterion == "poisson" else signal + rng.normal(0, 0.5, n)
    else: y = np.minimum((signal + rng.normal(0, 0.6, n)).round().astype(int), n_classes - 1).clip(0)
    X = np.column_stack([x0, shop, x1, colour]).astype(float)
    w = rng.integers(0, 3, n).astype(float)
    categorical = [1, 3]
    find = partial(best_split, column_search=column_searches(4, categorical, vectorized_column_split))
    for rules in (dict(), dict(max_depth=3, min_samples_leaf=5)):
        depth_first = grow_tree(X, y, criterion, w, n_classes, find_split=find, **rules)
        levelwise = grow_levelwise(X, y, criterion, w, n_classes, categorical=categorical, **rules)
        assert tree_differences(levelwise, depth_first) == []
        assert levelwise.categorical.any() and (~levelwise.categorical & ~levelwise.is_leaf).any()
        X_new = np.column_stack([rng.random(200), rng.integers(-1, 16, 200), rng.random(200), rng.integers(-1, 4, 200)]).astype(float)
        X_new[X_new[:, 1] >= 14, 1] = -1; X_new[X_new[:, 3] >= 3, 3] = -1                  # unseen levels are coded -1
        assert (apply(levelwise, X_new) == apply(depth_first, X_new)).all()
        assert (apply(levelwise, X_new) == [leaf_of(depth_first, row) for row in X_new]).all()


def test_column_searches_and_split_rules():
    assert column_searches(3, [2], vectorized_column_split) == [vectorized_column_split] * 2 + [categorical_column_split]
    with pytest.raises(ValueError, match="out of range"): column_searches(3, [3], vectorized_column_split)
    split = CategoricalSplit(0, frozenset({0, 2}), frozenset({1}), 0.1, default_left=True)
    X = np.array([[0.], [1.], [2.], [-1.], [7.], [np.nan]])
    assert split.goes_left(X).tolist() == [True, False, True, True, True, True]
    with pytest.raises(ValueError, match="level codes"):
        categorical_column_split(np.array([0., 1.5, 2.]), np.array([0, 1, 0]), None, "gini", 2)


# -- the encoder -------------------------------------------------------------------------------------------------------

def mixed_table():
    return pd.DataFrame({
        "size": pd.Categorical(["small", "large", "small", "medium"], categories=["small", "medium", "large"]),
        "colour": np.array(["red", "blue", "red", "green"], dtype=object),
        "city": pd.array(["Oslo", "Lima", "Pune", "Oslo"], dtype="string"),
        "flag": [True, False, True, True],
        "weight": [1.5, 2.0, 0.5, 1.0],
        "count": [3, 1, 2, 5]})


def test_encoder_detects_category_object_string_and_bool():
    table = mixed_table()
    enc = CategoryEncoder().fit(table)
    assert enc.categorical_ == [0, 1, 2, 3]
    assert enc.levels_[0].tolist() == ["small", "medium", "large"]
    assert enc.levels_[1].tolist() == ["blue", "green", "red"]
    assert enc.levels_[3].tolist() == [False, True]
    assert list(enc.feature_names_in_) == list(table.columns) and enc.n_features_in_ == 6
    codes = enc.transform(table)
    assert codes.dtype == float and codes.shape == (4, 6)
    assert codes[:, 0].tolist() == [0, 2, 0, 1] and codes[:, 3].tolist() == [1, 0, 1, 1]
    assert codes[:, 4].tolist() == [1.5, 2.0, 0.5, 1.0]
    numeric = CategoryEncoder().fit(np.arange(6.).reshape(3, 2))
    assert numeric.categorical_ == [] and numeric.feature_names_in_ is None
    objects = CategoryEncoder().fit(np.array([["a", 1.0], ["b", 2.5]], dtype=object))
    assert objects.categorical_ == [0] and objects.transform(np.array([["b", 3], ["c", 4]], dtype=object)).tolist() == [[1, 3], [-1, 4]]
    assert CategoryEncoder(None).fit(table[["weight", "count"]]).categorical_ == []
    assert CategoryEncoder(["size", "colour", 2, "flag", "count"]).fit(table).categorical_ == [0, 1, 2, 3, 5]


def test_encoder_unseen_levels_are_minus_one():
    enc = CategoryEncoder().fit(mixed_table())
    new = mixed_table().assign(colour=["purple", "red", "blue", "red"], city=pd.array(["Rome"] * 4, dtype="string"))
    codes = enc.transform(new)
    assert codes[:, 1].tolist() == [-1, 2, 0, 2] and (codes[:, 2] == -1).all()


def test_encoder_codes_missing_values_as_nan():
    "NaN, None and pandas' NA in a categorical column are coded NaN (chapter 6's searches treat them as one more level), never a level."
    enc = CategoryEncoder().fit(mixed_table())
    assert CategoryEncoder().fit(mixed_table().assign(colour=["red", None, "blue", "red"])).levels_[1].tolist() == ["blue", "red"]
    codes = enc.transform(mixed_table().assign(city=pd.array(["Oslo", pd.NA, "Lima", "Oslo"], dtype="string")))
    assert np.isnan(codes[1, 2]) and codes[[0, 2, 3], 2].tolist() == [1, 0, 1]
    objects = CategoryEncoder().fit(np.array([["a", 1.0], [np.nan, 2.0]], dtype=object))
    assert objects.categorical_ == [0] and objects.levels_[0].tolist() == ["a"]
    assert np.isnan(objects.transform(np.array([[np.nan, 2.0]], dtype=object))[0, 0])

def test_encoder_bad_columns_are_clear_errors():
    table = mixed_table()
    with pytest.raises(ValueError, match="'shape' is not a column"): CategoryEncoder(["colour", "shape"]).fit(table)
    with pytest.raises(ValueError, match="index 9 is out of range"): CategoryEncoder([9]).fit(table)
    with pytest.raises(ValueError, match="'colour' is treated as numeric.*categorical_features"):
        CategoryEncoder(["size", "city", "flag"]).fit(table)
    with pytest.raises(ValueError, match="no column names"): CategoryEncoder(["a"]).fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"\['colour'\]"): CategoryEncoder("colour").fit(table)
    with pytest.raises(ValueError, match=r"boolean mask needs one entry per column of X \(6\), got 1"):
        CategoryEncoder([True]).fit(table)
    with pytest.raises(TypeError, match="mixes booleans"): CategoryEncoder([True, "colour"]).fit(table)
    with pytest.raises(TypeError, match="or a boolean mask, got 3"): CategoryEncoder(3).fit(table)
    with pytest.raises(ValueError, match="not fitted"): CategoryEncoder().transform(table)
    enc = CategoryEncoder().fit(table)
    with pytest.raises(ValueError, match="fitted on 6"): enc.transform(table.iloc[:, :2])
    with pytest.raises(ValueError, match="differ"): enc.transform(table.rename(columns={"count": "n"}))
    with pytest.raises(ValueError, match="2-D"): CategoryEncoder().fit(np.ones(3))


def test_encoder_accepts_a_boolean_mask():
    "A boolean mask with one entry per column chooses the same columns as their indices, in a list or a numpy array."
    table = mixed_table().assign(city=1.0)                      # the string column made numeric: the mask leaves it out
    mask = [True, True, False, True, False, False]
    assert CategoryEncoder(mask).fit(table).categorical_ == [0, 1, 3]
    assert CategoryEncoder(np.array(mask)).fit(table).categorical_ == [0, 1, 3]
    np.testing.assert_array_equal(CategoryEncoder(mask).fit_transform(table), CategoryEncoder([0, 1, 3]).fit_transform(table))
    assert CategoryEncoder([False] * 2).fit(np.ones((3, 2))).categorical_ == []


def test_numeric_columns_are_coded_as_their_objects_are():
    "A categorical column of numbers is coded without objects (`np.unique`, `np.searchsorted`): the same levels, kinds and codes as the same values given as objects (the general path), with NaN, negatives, -0.0, integers, values unseen at transform, integers past 2**53 (the general path) and a categorical dtype whose numeric categories are not sorted."
    import warnings
    from climbing_trees.categorical_growth import CategoryEncoder
    rng = np.random.default_rng(2)
    floats = rng.choice([-2.5, -0.0, 0.0, 1.0, 7.25, np.nan], 200)
    ints = rng.integers(-3, 9, 200)
    huge = 2 ** 60 + 2 * rng.integers(0, 4, 200)                    # past 2**53: floats would merge them
    X = np.column_stack([floats, ints]).astype(float)
    for fit_X, new_X in ((X, X + np.where(rng.random(X.shape) < 0.1, 0.5, 0.0)),   # some values unseen at transform
                         (ints[:, None], ints[:, None] + 1), (huge[:, None], huge[:, None])):
        fast, general = CategoryEncoder([0]).fit(fit_X), CategoryEncoder([0]).fit(fit_X.astype(object))
        assert [list(fast.levels_[0])] == [list(general.levels_[0])] and fast.kinds_ == general.kinds_
        assert [type(v) for v in fast.levels_[0]] == [type(v) for v in general.levels_[0]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                          # the unseen values' warning, alike
            a, b = fast.transform(new_X), general.transform(new_X.astype(object))
        assert np.array_equal(a, b, equal_nan=True)
    assert len(CategoryEncoder([0]).fit(huge[:, None]).levels_[0]) == 4
    frame = pd.DataFrame({"c": pd.Categorical(ints, categories=[8, 3, -3, 0, 1, 2, 4, 5, 6, 7, -1, -2])})
    encoder = CategoryEncoder(["c"]).fit(frame)
    assert np.array_equal(encoder.transform(frame)[:, 0], [list(encoder.levels_[0]).index(v) for v in ints])
