"""Property tests: every split search of the book chooses the same split and grows the same tree.

The naive search of chapter 3 is the oracle; chapter 5's incremental and vectorized searches
must agree with it on random data with ties, integer and float weights (zeros included),
2 to 5 classes or regression targets, and every stopping rule; and on regression targets that are
shifted, scaled and stepped far from 0 (`problems(extreme=True)`). The vectorized tree must not
change when the targets are shifted by 1e8 or scaled by 1e-6 to 1e150."""
import numpy as np
from hypothesis import assume, given, settings, strategies as st, HealthCheck

from climbing_trees.impurity import node_impurity
from dataclasses import replace

from climbing_trees.tree import tree_differences
from climbing_trees.naive import FEATURE_THRESHOLD, best_split, naive_column_split
from climbing_trees.growth import grow_tree
from climbing_trees.criteria import SPLIT_SEARCHES, incremental_column_split, vectorized_column_split
from strategies import offset_to_spread, problems

COLUMN_SEARCHES = [naive_column_split, incremental_column_split, vectorized_column_split]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(1, 4))
def test_all_searches_choose_the_same_split(problem, min_samples_leaf):
    X, y, w, criterion, n_classes = problem
    # the growers never search a pure node: there every split is worth 0 and rounding noise would pick one
    scale = node_impurity(y, criterion, n_classes, w)
    assume(scale > 0)
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



def same_splits(a, b):
    "Same shape, split features and thresholds (values and impurities scale and move with the targets)."
    return (a.node_count == b.node_count and (a.children_left == b.children_left).all()
            and (a.feature == b.feature).all() and np.array_equal(a.threshold, b.threshold))


def decrease_floor(y, w):
    """A min_impurity_decrease of 1e-9 of the root's impurity, in the targets' units. With the default 0, whether a split
    that gains nothing (or a node whose variance is rounding noise) is split is decided by rounding, not by the search;
    the floor keeps these tests about the searches."""
    return 1e-9 * node_impurity(y, "squared_error", None, w)


RULES = (st.one_of(st.none(), st.integers(1, 5)), st.integers(2, 6), st.integers(1, 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_n=40, extreme=True), *RULES)
def test_all_searches_grow_the_same_tree_on_extreme_targets(problem, max_depth, min_samples_split, min_samples_leaf):
    "y * scale + shift + step * group, scale 1e-6 to 1e150, shift and step 0 or 1e8: the three searches grow the same tree."
    X, y, w, criterion, n_classes = problem
    # scale 1e-6 beside an offset of 1e8 leaves y a few bits beyond 1e8, and chapter 1's two-pass variance (the naive
    # search's) is then off by more than the tie tolerance (its mean's rounding error, squared): not an oracle there
    assume(offset_to_spread(X, y) < 1e10)
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_impurity_decrease=decrease_floor(y, w))
    trees = {name: grow_tree(X, y, criterion, w, n_classes, find_split=search, **rules) for name, search in SPLIT_SEARCHES.items()}
    for name in ("incremental", "vectorized"):
        assert tree_differences(trees["naive"], trees[name], rtol=1e-9) == [], name
    assert np.isfinite(trees["vectorized"].impurity).all() and np.isfinite(trees["vectorized"].value).all()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(problems(max_n=40).filter(lambda p: p[3] == "squared_error"), *RULES)
def test_shift_and_scale_do_not_change_the_vectorized_tree(problem, max_depth, min_samples_split, min_samples_leaf):
    "A shift of 1e8 and scales from 1e-6 to 1e150 leave the splits of the vectorized search's tree where they were."
    X, y, w, criterion, n_classes = problem
    y = np.round(y * 8) / 8                      # eighths: y + 1e8 is exact, so the shifted targets hold the same data
    rules = dict(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf)
    grow = lambda targets: grow_tree(X, targets, criterion, w, find_split=SPLIT_SEARCHES["vectorized"],
                                     min_impurity_decrease=decrease_floor(targets, w), **rules)
    base = grow(y)
    shifted = grow(y + 1e8)
    assert same_splits(base, shifted)
    np.testing.assert_allclose(shifted.value - 1e8, base.value, rtol=0, atol=1e-6 * max(1.0, np.abs(y).max()))
    for scale in (1e-6, 1e3, 1e150):
        scaled = grow(y * scale)
        assert same_splits(base, scaled), scale
        np.testing.assert_allclose(scaled.value / scale, base.value, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(y).max()))
        np.testing.assert_allclose(scaled.impurity / scale / scale, base.impurity, rtol=1e-7, atol=1e-9 * (base.impurity[0] + 1.0))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**32 - 1))
def test_a_subset_of_features_is_the_search_of_those_columns(problem, seed):
    "best_split over `features` is best_split of those columns alone; a column of range within FEATURE_THRESHOLD is never chosen."
    X, y, w, criterion, n_classes = problem
    assume(node_impurity(y, criterion, n_classes, w) > 0)
    rng = np.random.default_rng(seed)
    features = np.flatnonzero(rng.random(X.shape[1]) < 0.6)
    assume(len(features))
    found = best_split(X, y, w, criterion, n_classes, features=features, column_search=vectorized_column_split)
    alone = best_split(X[:, features], y, w, criterion, n_classes, column_search=vectorized_column_split)
    assert (found is None) == (alone is None)
    if found is not None: assert found == replace(alone, feature=int(features[alone.feature]))
    nearly_constant = np.column_stack([X, FEATURE_THRESHOLD * rng.random(len(y))])    # a range below 1e-7: constant
    assert best_split(nearly_constant, y, w, criterion, n_classes, column_search=vectorized_column_split) == \
        best_split(X, y, w, criterion, n_classes, column_search=vectorized_column_split)
