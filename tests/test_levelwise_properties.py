"""Property tests: the level-wise grower of chapter 08 grows the same tree as chapter 03's searches,
on random data with ties, weights (zeros included), 2 to 5 classes, regression and every stopping rule."""
import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

from climbing_trees.naive import grow_tree, tree_differences
from climbing_trees.criteria import SPLIT_SEARCHES, vectorized_column_split
from climbing_trees.levelwise import grow_levelwise
from strategies import problems

RULES = (st.one_of(st.none(), st.integers(1, 6)),     # max_depth
         st.integers(2, 8),                           # min_samples_split
         st.integers(1, 4),                           # min_samples_leaf
         st.sampled_from([0.0, 0.0, 0.005, 0.02]))    # min_impurity_decrease


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=60), *RULES)
def test_levelwise_grows_the_vectorized_tree(problem, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease):
    X, y, w, criterion, n_classes = problem
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_impurity_decrease=min_impurity_decrease)
    expected = grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["vectorized"], **rules)
    assert tree_differences(grow_levelwise(X, y, criterion, w, n_classes, **rules), expected) == []
    assert tree_differences(grow_tree(X, y, criterion, w, n_classes, find_split=SPLIT_SEARCHES["incremental"], **rules), expected) == []


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40), st.integers(1, 3))
def test_node_searched_columns_give_the_same_tree(problem, min_samples_leaf):
    "Columns searched node by node (the categorical fallback) with the same search give the same tree."
    X, y, w, criterion, n_classes = problem
    node_searches = {j: vectorized_column_split for j in range(0, X.shape[1], 2)}
    a = grow_levelwise(X, y, criterion, w, n_classes, node_searches=node_searches, min_samples_leaf=min_samples_leaf)
    b = grow_levelwise(X, y, criterion, w, n_classes, min_samples_leaf=min_samples_leaf)
    assert tree_differences(a, b) == []


def test_levelwise_on_a_larger_problem_with_offset_targets():
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(3000, 5)), 2)           # ties
    y = 1e6 + rng.normal(size=3000)
    w = rng.integers(0, 3, 3000).astype(float)
    a = grow_levelwise(X, y, "squared_error", w, min_samples_leaf=3)
    b = grow_tree(X, y, "squared_error", w, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=3)
    assert tree_differences(a, b) == []
