"""Missing values in categorical columns (chapter 6): the missing rows of a node are one more level.

The oracle is a brute force over every assignment of the node's levels *and of its missing rows* to two sides, scored
from the samples by chapter 1's `split_impurity`. The ordered search must reach it for two classes and for squared error
(Breiman's and Fisher's theorem, with the missing rows as one more level); every search must return what it returns when
the missing rows carry a fresh code after every real one, the fresh code's side becoming `default_left`; without missing
values (or with missing rows of zero weight only) nothing changes. The encoder codes NaN/None/NA as NaN and unseen levels
as -1, and chapter 4's grower routes the NaN rows of a categorical node to the split's `default_left` side."""
import itertools
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import pytest
from strategies import sample_weights
from hypothesis import HealthCheck, given, settings, strategies as st

from climbing_trees.impurity import node_impurity, split_impurity
from climbing_trees.tree import LEAF, tree_differences
from climbing_trees.naive import best_split, naive_column_split
from climbing_trees.growth import grow_tree
from climbing_trees.categorical import (
    MISSING_LEVEL, CategoricalSplit, categorical_column_split,
    exhaustive_categorical_split, level_codes, level_statistics, one_vs_rest_split, ordered_categorical_split,
    principal_component_split)
from climbing_trees.categorical_growth import CategoryEncoder, column_searches

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEARCHES = [exhaustive_categorical_split, ordered_categorical_split, one_vs_rest_split, principal_component_split,
            categorical_column_split]


def searches_for(n_classes):
    "The searches that apply: the ordered one needs at most two classes, the principal-component one class proportions."
    return [s for s in SEARCHES if not (s is ordered_categorical_split and n_classes == 3)
            and not (s is principal_component_split and n_classes is None)]


@st.composite
def nodes_with_missing(draw, task):
    "A random node with one categorical column of 1..8 levels, some rows NaN, weights with zeros, and a criterion for `task`."
    k = draw(st.integers(1, 8))
    n = draw(st.integers(2, 6 * k + 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.integers(0, k, n).astype(float)
    x[rng.random(n) < draw(st.sampled_from([0.05, 0.2, 0.5]))] = np.nan
    if draw(st.booleans()) and np.isnan(x).any():                         # the missing rows: a response of their own
        shift = draw(st.sampled_from([-3.0, 3.0]))
    else: shift = 0.0
    if task == "regression":
        criterion, n_classes = "squared_error", None
        y = np.round(rng.normal(size=n) + shift * np.isnan(x), draw(st.sampled_from([0, 1, 8]))) * draw(st.sampled_from([0.01, 1.0, 1e3]))
    else:
        n_classes = 2 if task == "binary" else 3
        criterion = draw(st.sampled_from(["gini", "entropy"]))
        y = rng.integers(0, n_classes, n)
        if shift: y[np.isnan(x)] = 0 if shift < 0 else n_classes - 1
    return x, y, sample_weights(draw, rng, n, zero_share=0.25), criterion, n_classes


def brute_force_with_missing(x, y, w, criterion, n_classes=None):
    "The smallest i(s) over every partition of the node's positive-weight levels and its missing rows (group -1), or inf."
    group = np.where(np.isnan(x), -1.0, x)
    present = np.unique(group[w > 0])
    best = np.inf
    for sides in itertools.product((True, False), repeat=len(present) - 1):
        if all(sides): continue
        best = min(best, split_impurity(y, np.isin(group, present[np.r_[True, sides]]), criterion, n_classes, w))
    return best


def routed(split):
    "The split with feature 0, so that goes_left can be applied to a one-column matrix."
    return replace(split, feature=0)


def tolerance(y, w, criterion, n_classes):
    "Rounding allowed when comparing i(s) values: relative to the node's impurity, with a floor for pure nodes."
    return 1e-9 * node_impurity(y, criterion, n_classes, w) + 1e-12


# -- the missing level against brute force ----------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(["binary", "regression"]).flatmap(nodes_with_missing))
def test_ordered_search_reaches_the_brute_force_optimum_with_missing_values(node):
    """Gini/entropy on two classes and squared error: sorting the levels and the missing level by mean response and
    sweeping the prefixes finds the best partition of levels + missing rows."""
    x, y, w, criterion, n_classes = node
    found = ordered_categorical_split(x, y, w, criterion, n_classes)
    oracle = brute_force_with_missing(x, y, w, criterion, n_classes)
    if found is None:
        assert not np.isfinite(oracle)
        return
    assert found.impurity == pytest.approx(oracle, rel=0, abs=tolerance(y, w, criterion, n_classes))
    assert found == categorical_column_split(x, y, w, criterion, n_classes)      # the grower's search: the same split


@SETTINGS
@given(st.sampled_from(["binary", "regression", "multiclass"]).flatmap(nodes_with_missing))
def test_the_split_routes_missing_rows_to_default_left_and_reports_their_impurity(node):
    """Every search: the missing rows go to `default_left` (by `goes_left`), the level sets hold only real, disjoint
    levels, and i(s) recomputed from the samples routed by `goes_left` is the reported one."""
    x, y, w, criterion, n_classes = node
    for search in searches_for(n_classes):
        split = search(x, y, w, criterion, n_classes)
        if split is None: continue
        assert MISSING_LEVEL not in split.left_levels | split.right_levels and not split.left_levels & split.right_levels
        left = routed(split).goes_left(x[:, None])
        assert (left[np.isnan(x)] == split.default_left).all()
        assert split.impurity == pytest.approx(split_impurity(y, left, criterion, n_classes, w), rel=0,
                                               abs=tolerance(y, w, criterion, n_classes))
    if n_classes == 3:                                        # within the exhaustive limit the column search is exact
        found, oracle = categorical_column_split(x, y, w, criterion, n_classes), brute_force_with_missing(x, y, w, criterion, n_classes)
        assert (found is None) == (not np.isfinite(oracle))
        if found is not None: assert found.impurity == pytest.approx(oracle, rel=0, abs=tolerance(y, w, criterion, n_classes))


@SETTINGS
@given(st.sampled_from(["binary", "regression", "multiclass"]).flatmap(nodes_with_missing), st.integers(1, 3),
       st.sampled_from([0.0, 0.25]))
def test_missing_rows_are_exactly_one_more_level(node, min_samples_leaf, weight_share):
    """Every search returns the split it returns when the NaN rows carry a fresh code after every real one: the same
    i(s), the same real level sets, and `default_left` = the side of the fresh code (when the missing rows weigh anything;
    otherwise they are set aside like any weightless level and `default_left` is the heavier side). One difference is
    wanted: the rows of weightless levels follow `default_left`, which is the missing side with NaN and the heavier side
    with the fresh code, so with min_samples_leaf > 1 and such rows the two may count sides differently."""
    x, y, w, criterion, n_classes = node
    fresh = np.nanmax(x) + 1 if not np.isnan(x).all() else 0.0
    coded = np.where(np.isnan(x), fresh, x)
    missing_weighs = w[np.isnan(x)].sum() > 0
    if missing_weighs and level_statistics(x, y, w, criterion, n_classes).n_weightless: min_samples_leaf = 1
    rules = dict(min_samples_leaf=min_samples_leaf, min_weight_leaf=weight_share * w.sum())
    for search in searches_for(n_classes):
        with_nan, with_code = search(x, y, w, criterion, n_classes, **rules), search(coded, y, w, criterion, n_classes, **rules)
        assert (with_nan is None) == (with_code is None)
        if with_nan is None: continue
        assert with_nan.impurity == with_code.impurity
        assert with_nan.left_levels == with_code.left_levels - {fresh} and with_nan.right_levels == with_code.right_levels - {fresh}
        expected = (fresh in with_code.left_levels) if missing_weighs else with_code.default_left
        assert with_nan.default_left == expected


# -- without missing values: nothing changes ---------------------------------------------------------------------------

def test_no_missing_values_keep_the_heavier_side_and_known_results():
    "Hand-checked splits of the chapter without NaN, and the heavier-side rule on random nodes."
    x_e, y_e = np.array([0., 1., 2., 2.]), np.array([0, 1, 0, 0])
    assert exhaustive_categorical_split(x_e, y_e, np.ones(4), "gini", 2) == CategoricalSplit(None, frozenset({0, 2}), frozenset({1}), 0.0, True)
    assert exhaustive_categorical_split(x_e, y_e, np.r_[1., 0, 1, 1], "gini", 2) == CategoricalSplit(None, frozenset({0}), frozenset({2}), 0.0, False)
    x_o, y_o = np.array([0., 0, 1, 1, 2, 2, 3, 3]), np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert ordered_categorical_split(x_o, y_o, None, "gini", 2) == CategoricalSplit(None, frozenset({0, 1}), frozenset({2, 3}), 0.0, True)
    rng = np.random.default_rng(5)
    for _ in range(300):
        k, n = int(rng.integers(2, 9)), int(rng.integers(4, 40))
        x, y, w = rng.integers(0, k, n).astype(float), np.round(rng.normal(size=n), 1), rng.integers(0, 3, n).astype(float)
        if w.sum() == 0: continue
        for search in searches_for(None):
            split = search(x, y, w, "squared_error")
            if split is None: continue
            left = routed(split).goes_left(x[:, None])
            assert min(split.left_levels) < min(split.right_levels)           # the side of the smallest code is the left one
            assert split.default_left == (w[left].sum() >= w[~left].sum())    # integer weights: a tie is exact, and goes left


@pytest.mark.parametrize("search", SEARCHES)
def test_missing_rows_of_zero_weight_change_nothing(search):
    "NaN rows that weigh nothing are set aside like a weightless level: the split is the one without them."
    rng = np.random.default_rng(6)
    for _ in range(100):
        k, n = int(rng.integers(2, 8)), int(rng.integers(4, 30))
        x, y, w = rng.integers(0, k, n).astype(float), rng.integers(0, 2, n), rng.integers(1, 3, n).astype(float)
        m = int(rng.integers(1, 4))
        x_nan, y_nan, w_nan = np.r_[x, [np.nan] * m], np.r_[y, rng.integers(0, 2, m)], np.r_[w, np.zeros(m)]
        assert search(x_nan, y_nan, w_nan, "gini", 2) == search(x, y, w, "gini", 2)


def test_level_statistics_of_the_missing_level():
    x = np.array([1., np.nan, 1., np.nan, 4.])
    assert level_codes(x).tolist() == [1, MISSING_LEVEL, 1, MISSING_LEVEL, 4]
    levels = level_statistics(x, np.array([2., 5., 4., 7., 0.]), np.r_[1., 1., 1., 3., 1.], "squared_error")
    assert levels.codes.tolist() == [1, 4, MISSING_LEVEL] and levels.counts.tolist() == [2, 1, 2]
    assert levels.criterion.value(levels.S)[-1] == pytest.approx((5 + 21) / 4)          # the missing rows' weighted mean
    for bad in (np.inf, -1.0, 0.5):
        with pytest.raises(ValueError, match="level codes"): level_codes([0., bad])
    assert categorical_column_split(np.full(4, np.nan), np.arange(4.), None, "squared_error") is None   # all missing
    only = categorical_column_split(np.array([0., 0., np.nan, np.nan]), np.array([0, 0, 1, 1]), None, "gini", 2)
    assert only == CategoricalSplit(None, frozenset({0}), frozenset(), 0.0, False)       # "known | missing": missing right


def test_goes_left_sends_nan_and_unseen_codes_to_default_left():
    for default_left in (True, False):
        split = CategoricalSplit(0, frozenset({0, 2}), frozenset({1}), 0.1, default_left)
        X = np.array([[0.], [1.], [2.], [-1.], [7.], [np.nan]])
        assert split.goes_left(X).tolist() == [True, False, True, default_left, default_left, default_left]


# -- the encoder ---------------------------------------------------------------------------------------------------------

def test_encoder_round_trip_with_missing_and_unseen_values():
    """NaN, None and pandas' NA in a categorical column are coded NaN and are no level; an unseen level is -1; numeric
    columns keep their NaN; decoding the codes with `levels_` gives back every known value."""
    table = pd.DataFrame({
        "size": pd.Categorical(["small", None, "large", "small"], categories=["small", "medium", "large"]),
        "colour": np.array(["red", None, np.nan, "blue"], dtype=object),
        "city": pd.array(["Oslo", pd.NA, "Lima", "Oslo"], dtype="string"),
        "weight": [1.5, np.nan, 0.5, 2.0]})
    enc = CategoryEncoder().fit(table)
    assert enc.categorical_ == [0, 1, 2]
    assert enc.levels_[1].tolist() == ["blue", "red"] and enc.levels_[2].tolist() == ["Lima", "Oslo"]
    codes = enc.transform(table)
    np.testing.assert_array_equal(codes, [[0, 1, 1, 1.5], [np.nan] * 4, [2, np.nan, 0, 0.5], [0, 0, 1, 2.0]])
    for j in enc.categorical_:
        known = ~np.isnan(codes[:, j])
        original = np.asarray(table.iloc[:, j], dtype=object)
        assert enc.levels_[j][codes[known, j].astype(int)].tolist() == original[known].tolist()
        assert pd.isna(original[~known]).all()
    new = pd.DataFrame({"size": pd.Categorical(["medium", None], categories=["small", "medium", "large"]),
                        "colour": np.array(["green", None], dtype=object), "city": pd.array([pd.NA, "Rome"], dtype="string"),
                        "weight": [np.nan, 3.0]})
    np.testing.assert_array_equal(enc.transform(new), [[1, -1, np.nan, np.nan], [np.nan, np.nan, -1, 3.0]])


def test_encoder_numpy_object_arrays_with_missing_values():
    X = np.array([["a", 1.0], [None, None], [np.nan, 2.5], ["b", np.nan]], dtype=object)
    enc = CategoryEncoder().fit(X)
    assert enc.categorical_ == [0] and enc.levels_[0].tolist() == ["a", "b"]     # a number column with holes stays numeric
    np.testing.assert_array_equal(enc.transform(X), [[0, 1.0], [np.nan, np.nan], [np.nan, 2.5], [1, np.nan]])
    assert CategoryEncoder().fit(np.array([[None], [None]], dtype=object)).categorical_ == []        # nothing but holes


# -- growing -------------------------------------------------------------------------------------------------------------

def mixed_data_with_holes(n=600, seed=0, task="classification"):
    "Two numeric and two categorical features (8 and 3 levels), NaN in all four; the rows missing the shop act like shops 1, 4 and 6."
    rng = np.random.default_rng(seed)
    shop, colour = rng.integers(0, 8, n).astype(float), rng.integers(0, 3, n).astype(float)
    x0, x1 = rng.random(n), rng.random(n)
    missing_shop = rng.random(n) < 0.2
    signal = (np.isin(shop, [1, 4, 6]) | missing_shop) + (x0 > 0.5) + 0.5 * (colour == 2)   # missing shops act like 1, 4, 6
    y = (signal + rng.normal(0, 0.5, n) > 1.2).astype(int) if task == "classification" else signal + rng.normal(0, 0.3, n)
    shop[missing_shop] = np.nan
    colour[rng.random(n) < 0.1] = np.nan
    x0[rng.random(n) < 0.1] = np.nan
    x1[rng.random(n) < 0.1] = np.nan
    return np.column_stack([x0, shop, x1, colour]), y, rng.integers(1, 3, n).astype(float)


def node_rows(tree, X):
    "The training rows reaching each node, routed with the stored split (NaN and unseen codes: `default_left`)."
    rows, stack = {}, [(0, np.arange(len(X)))]
    while stack:
        t, r = stack.pop()
        rows[t] = r
        if tree.children_left[t] == LEAF: continue
        f, x = tree.feature[t], X[r, tree.feature[t]]
        if tree.categorical[t]:
            code = np.where(np.isnan(x) | (x < 0), 0, x).astype(int)
            known = ~np.isnan(x) & (x >= 0) & (tree.left_levels[t, code] | tree.right_levels[t, code])
            left = np.where(known, tree.left_levels[t, code], tree.default_left[t])
        else: left = np.where(np.isnan(x), tree.default_left[t], x <= tree.threshold[t])
        stack += [(tree.children_left[t], r[left]), (tree.children_right[t], r[~left])]
    return rows


@pytest.mark.parametrize("task, criterion, n_classes", [("classification", "gini", 2), ("regression", "squared_error", None)])
def test_grow_tree_with_missing_categorical_values(task, criterion, n_classes):
    """Chapter 4's grower with chapter 6's searches on mixed data with NaN: the tree splits on the categorical columns,
    every node holds the rows that the stored splits route there (NaN rows by `default_left`), each categorical node's
    split is `categorical_column_split` on its rows, and at a node where the column had missing rows of positive weight
    `default_left` is their side."""
    X, y, w = mixed_data_with_holes(task=task)
    find = partial(best_split, column_search=column_searches(4, [1, 3], naive_column_split))   # the naive search handles NaN
    tree = grow_tree(X, y, criterion, w, n_classes, find_split=find, max_depth=5, min_samples_leaf=3)
    inner = ~tree.is_leaf
    assert (inner & tree.categorical).any() and (inner & ~tree.categorical).any()
    rows = node_rows(tree, X)
    with_missing = 0
    for t in range(tree.node_count):
        assert len(rows[t]) == tree.n_node_samples[t]
        assert w[rows[t]].sum() == pytest.approx(tree.weighted_n_node_samples[t])
        if not (inner[t] and tree.categorical[t]): continue
        r, f = rows[t], tree.feature[t]
        split = categorical_column_split(X[r, f], y[r], w[r], criterion, n_classes, 3)
        assert split.left_levels == frozenset(np.flatnonzero(tree.left_levels[t]).tolist())
        assert split.right_levels == frozenset(np.flatnonzero(tree.right_levels[t]).tolist())
        assert split.default_left == bool(tree.default_left[t])
        missing = np.isnan(X[r, f])
        if (w[r][missing] > 0).any():
            with_missing += 1
            went_left = np.isin(rows[tree.children_left[t]], r[missing])
            assert went_left.sum() == (missing.sum() if tree.default_left[t] else 0)
    assert with_missing > 0


def test_missing_shop_rows_behave_like_a_group_of_levels():
    """Regression with one categorical column whose missing rows have the mean of levels {1, 4, 6}: the root groups them
    with those levels, and the ordered and the exhaustive searches grow the same tree."""
    X, y, w = mixed_data_with_holes(task="regression", seed=1)
    X = X[:, [1]]
    searches = {name: partial(best_split, column_search=[search]) for name, search in
                (("column", categorical_column_split), ("exhaustive", exhaustive_categorical_split))}
    trees = {name: grow_tree(X, y, "squared_error", w, find_split=find, max_depth=3) for name, find in searches.items()}
    assert tree_differences(trees["column"], trees["exhaustive"]) == []
    tree = trees["column"]
    high = np.flatnonzero(tree.left_levels[0]) if tree.default_left[0] else np.flatnonzero(tree.right_levels[0])
    assert set(high.tolist()) == {1, 4, 6}
