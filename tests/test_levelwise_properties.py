"""Property tests: the level-wise grower of chapter 8 grows the same `Tree` as chapter 5's searches (chapter 4's grower),
on random data with ties, weights (zeros included), 2 to 5 classes, regression, categorical columns and every stopping rule."""
from functools import partial

import numpy as np
from hypothesis import assume, given, settings, strategies as st, HealthCheck

from climbing_trees.tree import Tree, tree_differences
from climbing_trees.naive import best_split
from climbing_trees.growth import grow_tree
from climbing_trees.criteria import SPLIT_SEARCHES, median_column_split, vectorized_column_split
from climbing_trees.categorical_growth import column_searches
from dataclasses import replace

from climbing_trees.levelwise import PLAIN, Tuning, presort
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.fast import FAST, stable_argsort
from strategies import problems

RULES = (st.one_of(st.none(), st.integers(1, 6)),     # max_depth
         st.integers(2, 8),                           # min_samples_split
         st.integers(1, 4),                           # min_samples_leaf
         st.sampled_from([0.0, 0.0, 0.005, 0.02]))    # min_impurity_decrease


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60), *RULES)
def test_levelwise_grows_the_vectorized_tree(problem, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease):
    X, y, w, criterion, n_classes = problem
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_impurity_decrease=min_impurity_decrease)
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["vectorized"], **rules)
    grown = grow_levelwise(X, y, criterion, w, n_classes, **rules)
    assert isinstance(grown, Tree)
    assert tree_differences(grown, expected) == []
    assert tree_differences(grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["incremental"], **rules), expected) == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40), st.integers(1, 3))
def test_node_searched_columns_give_the_same_tree(problem, min_samples_leaf):
    "Columns searched node by node (as categorical columns are) with the same search give the same tree."
    X, y, w, criterion, n_classes = problem
    node_searches = {j: vectorized_column_split for j in range(0, X.shape[1], 2)}
    a = grow_levelwise(X, y, criterion, w, n_classes, node_searches=node_searches, min_samples_leaf=min_samples_leaf)
    b = grow_levelwise(X, y, criterion, w, n_classes, min_samples_leaf=min_samples_leaf)
    assert tree_differences(a, b) == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40), st.integers(1, 3), st.one_of(st.none(), st.integers(1, 4)))
def test_categorical_columns_grow_the_depth_first_tree(problem, min_samples_leaf, max_depth):
    "`categorical` columns (level codes) grow the tree chapter 4's grower grows with chapter 6's `column_searches`."
    X, y, w, criterion, n_classes = problem
    categorical = list(range(0, X.shape[1], 2))
    X = X.copy()
    X[:, categorical] = np.unique(X[:, categorical], return_inverse=True)[1].reshape(len(X), -1)   # codes 0..L-1
    find = partial(best_split, column_search=column_searches(X.shape[1], categorical, vectorized_column_split))
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=find, min_samples_leaf=min_samples_leaf, max_depth=max_depth)
    grown = grow_levelwise(X, y, criterion, w, n_classes, categorical=categorical, min_samples_leaf=min_samples_leaf,
                           max_depth=max_depth)
    assert tree_differences(grown, expected) == []


def test_levelwise_on_a_larger_problem_with_offset_targets():
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(3000, 5)), 2)           # ties
    y = 1e6 + rng.normal(size=3000)
    w = rng.integers(0, 3, 3000).astype(float)
    a = grow_levelwise(X, y, "squared_error", w, min_samples_leaf=3)
    b = grow_tree(X, y, "squared_error", w, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=3)
    assert tree_differences(a, b) == []


def test_bad_categorical_indices_are_refused():
    import pytest
    with pytest.raises(ValueError, match="out of range"):
        grow_levelwise(np.ones((4, 2)), np.array([0, 1, 0, 1]), "gini", n_classes=2, categorical=[2])


def same_splits_along_paths(part, full):
    "Every split of `part` is the split of `full` at the node reached by the same path from the root."
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        if part.is_leaf[a]: continue
        if full.is_leaf[b] or (part.feature[a], part.threshold[a]) != (full.feature[b], full.threshold[b]): return False
        stack += [(part.children_left[a], full.children_left[b]), (part.children_right[a], full.children_right[b])]
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60), st.integers(2, 12), *RULES)
def test_best_first_grows_part_of_the_levelwise_tree(problem, max_leaf_nodes, max_depth, min_samples_split, min_samples_leaf,
                                                      min_impurity_decrease):
    "With a budget of leaves, best-first growth makes min(budget, all) leaves, each split the level-wise tree's; without one, the same tree."
    X, y, w, criterion, n_classes = problem
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_impurity_decrease=min_impurity_decrease)
    full = grow_levelwise(X, y, criterion, w, n_classes, **rules)
    part = grow_levelwise(X, y, criterion, w, n_classes, max_leaf_nodes=max_leaf_nodes, **rules)
    assert part.n_leaves == min(max_leaf_nodes, full.n_leaves)
    assert same_splits_along_paths(part, full)
    assert tree_differences(grow_levelwise(X, y, criterion, w, n_classes, max_leaf_nodes=len(y) + 1, **rules), full) == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 1.0, 2.5, 6.0]))
def test_options_that_draw_nothing_leave_the_tree_alone(problem, seed, min_weight_leaf):
    "max_features = D is the deterministic tree, whatever random_state; min_weight_leaf holds in every child."
    X, y, w, criterion, n_classes = problem
    base = grow_levelwise(X, y, criterion, w, n_classes, min_weight_leaf=min_weight_leaf)
    drawn = grow_levelwise(X, y, criterion, w, n_classes, min_weight_leaf=min_weight_leaf, max_features=X.shape[1], random_state=seed)
    assert tree_differences(drawn, base) == []
    children = base.children_left[~base.is_leaf].tolist() + base.children_right[~base.is_leaf].tolist()
    assert (base.weighted_n_node_samples[children] >= min_weight_leaf).all()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 3.0, 5.0]), st.one_of(st.none(), st.integers(2, 8)))
def test_min_weight_leaf_with_integer_weights_is_repeated_rows(problem, seed, min_weight_leaf, max_leaf_nodes):
    "An integer weight is the row repeated, for the weight rule too (min_samples_leaf 1: counts do not matter)."
    X, y, _, criterion, n_classes = problem
    w = np.random.default_rng(seed).integers(1, 4, len(y))
    options = dict(min_weight_leaf=min_weight_leaf, max_leaf_nodes=max_leaf_nodes)
    weighted = grow_levelwise(X, y, criterion, w.astype(float), n_classes, **options)
    repeated = grow_levelwise(np.repeat(X, w, axis=0), np.repeat(y, w), criterion, None, n_classes, **options)
    if max_leaf_nodes is None or weighted.n_leaves < max_leaf_nodes:    # a budget may stop between equal decreases
        assert tree_differences(weighted, repeated, compare_counts=False) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=50), st.sampled_from(["log_loss", "poisson", "absolute_error"]), st.integers(1, 3),
       st.one_of(st.none(), st.integers(2, 10)))
def test_levelwise_grows_the_depth_first_tree_for_the_other_criteria(problem, criterion, min_samples_leaf, max_leaf_nodes):
    "log_loss, Poisson (centred nowhere, no child of zero mean) and absolute error (searched node by node): the depth-first tree; best first too."
    X, y, w, task, n_classes = problem
    if criterion == "log_loss":
        if n_classes is None: y, n_classes = (y > np.median(y)).astype(int), 2
    else:
        y, n_classes = (np.abs(np.round(y)) if criterion == "poisson" else y.astype(float)), None
        assume(w @ y > 0)
    search = partial(best_split, column_search=median_column_split) if criterion == "absolute_error" else SPLIT_SEARCHES["vectorized"]
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=search, min_samples_leaf=min_samples_leaf)
    grown = grow_levelwise(X, y, criterion, w, n_classes, min_samples_leaf=min_samples_leaf)
    assert tree_differences(grown, expected) == []
    if max_leaf_nodes is not None:
        part = grow_levelwise(X, y, criterion, w, n_classes, min_samples_leaf=min_samples_leaf, max_leaf_nodes=max_leaf_nodes)
        assert part.n_leaves == min(max_leaf_nodes, grown.n_leaves) and same_splits_along_paths(part, grown)


SEARCH_SETTINGS = {                                    # the search's size-dependent choices, forced on small problems
    "one feature per block": dict(block_elements=1),
    "only the admissible cuts": dict(sparse_cuts=1.0, sparse_min_positions=0),
    "every position": dict(sparse_cuts=0.0),
    "class sums from 2 classes": dict(class_sums_from=2),
    "K columns always": dict(class_sums_from=10 ** 9),
    "ranks, even for a small X": dict(ranks_from_bytes=0),
    "the default sort repaired, even for a small X": dict(sort=stable_argsort),
    "the plain grower": {},
}


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60), st.sampled_from(sorted(SEARCH_SETTINGS)), st.integers(1, 3), st.sampled_from([0.0, 0.0, 2.5]))
def test_every_search_path_grows_the_vectorized_tree(problem, setting, min_samples_leaf, min_weight_leaf):
    "Blocks, compressed cuts, class sums, ranks and the sort are chosen by size; forced on small data (a `Tuning`), each grows chapter 5's tree."
    X, y, w, criterion, n_classes = problem
    rules = dict(min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["vectorized"], **rules)
    grown = grow_levelwise(X, y, criterion, w, n_classes, tuning=replace(FAST, **SEARCH_SETTINGS[setting]) if SEARCH_SETTINGS[setting] else PLAIN, **rules)
    assert tree_differences(grown, expected) == []


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 50), st.integers(1, 4), st.integers(1, 6), st.sampled_from([0.0, 0.1, 0.5]),
       st.sampled_from([0, 512]))
def test_presort_is_the_stable_sort(seed, n, d, n_values, nan_share, below):
    "`presort` with chapter 10's sort, numpy's default sort with its ties repaired (or the stable sort below `STABLE_SORT_BELOW`), is numpy's stable argsort: columns with few values, NaN, both zeros and infinities."
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array([-np.inf, -1.5, -0.0, 0.0, 0.25, 3.0, np.inf])[:n_values + 1], size=(n, d))
    X[rng.random((n, d)) < nan_share] = np.nan
    if d > 1: X[:, -1] = rng.normal(size=n)                                       # distinct values
    got = presort(X, replace(FAST, sort=stable_argsort) if below == 0 else FAST)
    assert got.dtype == np.int32 and np.array_equal(got, np.argsort(X, axis=0, kind="stable").T)


def _partition_by_hand(orders, goes_left, counts, split):
    "Every order as the splitting nodes' left samples, node by node, then their right ones, each in the order met; leaves dropped."
    segments = [[s for s, kept in zip(np.split(order, np.cumsum(counts)[:-1]), split) if kept] for order in orders]
    return np.array([np.concatenate([s[goes_left[s]] for s in row] + [s[~goes_left[s]] for s in row] + [[]])
                     for row in segments], dtype=orders.dtype)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 4), st.sampled_from([None, 1, 2, 3]), st.booleans())
def test_every_partition_of_the_orders_is_the_stable_one(seed, n_nodes, n_features, block, in_place):
    "The partition by sample and by position both give each child its samples in their order, left children first; a leaf's sides do not matter."
    from climbing_trees.frontier import partition_orders
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 9, n_nodes)
    members = np.split(rng.permutation(counts.sum()), np.cumsum(counts)[:-1])     # the same segments in every order
    orders = np.stack([np.concatenate([rng.permutation(m) for m in members]) for _ in range(n_features)]).astype(np.int32)
    goes_left, split = rng.random(counts.sum()) < 0.5, rng.random(n_nodes) < 0.7
    expected = _partition_by_hand(orders, goes_left, counts, split)
    got, child_counts = partition_orders(orders.copy(), goes_left, counts, split, block, in_place)
    assert np.array_equal(got, expected)
    lefts = [np.count_nonzero(goes_left[s]) for s, kept in zip(np.split(orders[0], np.cumsum(counts)[:-1]), split) if kept]
    assert np.array_equal(child_counts, np.r_[lefts, counts[split] - lefts])
    got, _ = partition_orders(orders[:1].copy(), goes_left[orders[0]], counts, split, in_place=in_place, by_position=True)
    assert np.array_equal(got, expected[:1])
