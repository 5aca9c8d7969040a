"""Property tests: every split search of the book chooses the same split and grows the same tree.

The naive search of chapter 02 is the oracle; chapter 03's incremental and vectorized searches
must agree with it on random data with ties, integer and float weights (zeros included),
2 to 5 classes or regression targets, and every stopping rule."""
import numpy as np
from hypothesis import assume, given, settings, strategies as st, HealthCheck

from climbing_trees.impurity import node_impurity
from climbing_trees.naive import PURE, best_split, grow_tree, tree_differences, naive_column_split
from climbing_trees.criteria import SPLIT_SEARCHES, incremental_column_split, vectorized_column_split
from strategies import problems

COLUMN_SEARCHES = [naive_column_split, incremental_column_split, vectorized_column_split]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(1, 4))
def test_all_searches_choose_the_same_split(problem, min_samples_leaf):
    X, y, w, criterion, n_classes = problem
    # the growers never search a pure node: there every split is worth 0 and rounding noise would pick one
    scale = node_impurity(y, criterion, n_classes, w)
    assume(scale > PURE)
    splits = [best_split(X, y, w, criterion, n_classes, min_samples_leaf, column_search=s) for s in COLUMN_SEARCHES]
    oracle = splits[0]
    for found in splits[1:]:
        if oracle is None:
            assert found is None
            continue
        assert found is not None
        assert (found.feature, found.threshold) == (oracle.feature, oracle.threshold)
        # within 1e-9 on the node's scale: its own impurity i(t), which bounds every i(s)
        np.testing.assert_allclose(found.impurity, oracle.impurity, rtol=1e-9, atol=1e-9 * scale)
        # same partition of the samples
        np.testing.assert_array_equal(found.goes_left(X), oracle.goes_left(X))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40),
       st.one_of(st.none(), st.integers(1, 5)),          # max_depth
       st.integers(2, 6),                                # min_samples_split
       st.integers(1, 3),                                # min_samples_leaf
       st.sampled_from([0.0, 0.0, 0.01, 0.05]))          # min_impurity_decrease
def test_all_searches_grow_the_same_tree(problem, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease):
    X, y, w, criterion, n_classes = problem
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_impurity_decrease=min_impurity_decrease)
    trees = {name: grow_tree(X, y, criterion, w, n_classes, find_split=search, **rules) for name, search in SPLIT_SEARCHES.items()}
    for name in ("incremental", "vectorized"):
        assert tree_differences(trees["naive"], trees[name], rtol=1e-9) == [], name


def test_large_offsets_do_not_break_squared_error():
    "Targets near 1e9: the shifted statistics must still pick the naive search's splits."
    rng = np.random.default_rng(3)
    X = rng.integers(0, 20, size=(200, 3)).astype(float)
    y = 1e9 + rng.normal(size=200)
    w = np.ones(200)
    trees = {name: grow_tree(X, y, "squared_error", w, find_split=s, max_depth=4) for name, s in SPLIT_SEARCHES.items()}
    assert tree_differences(trees["naive"], trees["incremental"]) == []
    assert tree_differences(trees["naive"], trees["vectorized"]) == []
