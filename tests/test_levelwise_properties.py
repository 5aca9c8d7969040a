"""Property tests: the level-wise grower of chapter 05 grows the same `Tree` as chapter 03's searches (chapter 02's grower),
on random data with ties, weights (zeros included), 2 to 5 classes, regression, categorical columns and every stopping rule."""
from functools import partial

import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from climbing_trees.naive import Tree, best_split, grow_tree, tree_differences
from climbing_trees.criteria import SPLIT_SEARCHES, vectorized_column_split
from climbing_trees.categorical import column_searches
from climbing_trees.levelwise import grow_levelwise
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
    "`categorical` columns (level codes) grow the tree chapter 02's grower grows with chapter 04's `column_searches`."
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
