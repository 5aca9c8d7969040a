"""Chapter 13's readers of a tree on rows with missing values: `apply_one`, `apply` (the heap, the general walk, the
categorical lookup, blocks, threads, the widened X of a tree without surrogates and the side road of one with them) and
`decision_path` follow the routing rule of the missing-values design: the
node's split if its feature is known (at a categorical node: the code is in one of its two level sets); else the
node's surrogates in order, the first whose feature is known deciding (a categorical surrogate knows a code in one of
its sets; a numeric one may be reversed, `below_left` False); else `default_left`.

Oracles: a plain per-row Python walk of that rule, written here from the rule and nothing else, on random hand-built
trees (numeric and categorical splits and surrogates, NaN and unseen codes); scikit-learn 1.9's `apply` and
`decision_path` on its trees grown with NaN (`missing_go_to_left` is our `default_left`); and the surrogate grower of
chapter 15 when it is there."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

from climbing_trees.categorical import CategoricalSplit
from climbing_trees.inference import (FEW_ROWS, PARALLEL_ROWS, _apply_rows, apply, apply_one, build_routes, decision_path,
                                      filled_routes, routes)
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.tree import LEAF, UNDEFINED, Split, SurrogateSplit, Tree, tree_text
from climbing_trees.tree_builder import TreeBuilder
from climbing_trees.views import export_text
from strategies import random_tree

N_LEVELS = 4


def known_side(x, feature, threshold, categorical, left_levels, right_levels):
    "True (left), False (right) or None (missing: NaN, or a code in neither level set) for one rule and one row."
    v = x[feature]
    if np.isnan(v): return None
    if categorical:
        if v in left_levels: return True
        if v in right_levels: return False
        return None
    return bool(v <= threshold)


def reference_leaf(tree, x):
    "The routing rule, one row at a time, in the plainest Python."
    t = 0
    while tree.children_left[t] != LEAF:
        left = known_side(x, tree.feature[t], tree.threshold[t], tree.categorical[t],
                          set(np.flatnonzero(tree.left_levels[t])), set(np.flatnonzero(tree.right_levels[t])))
        if left is None and tree.surrogates is not None:
            for s in tree.surrogates.of(t):
                side = known_side(x, s.feature, s.threshold, s.categorical, set(s.left_levels), set(s.right_levels))
                if side is not None:
                    left = side if (s.categorical or s.below_left) else not side
                    break
        if left is None: left = bool(tree.default_left[t])
        t = tree.children_left[t] if left else tree.children_right[t]
    return int(t)


def random_surrogates(rng, D, categorical, primary):
    "Up to three surrogates on other features: numeric (maybe reversed) or categorical (level sets that may leave codes out)."
    out = []
    for _ in range(rng.integers(0, 4)):
        j = int(rng.integers(D))
        if j == primary: continue
        if j in categorical:
            levels = rng.permutation(N_LEVELS)
            k, m = int(rng.integers(1, N_LEVELS)), int(rng.integers(0, N_LEVELS))
            left, right = levels[:k].tolist(), levels[k:max(k + 1, m + 1)].tolist()
            out.append(SurrogateSplit(j, np.nan, True, left_levels=left, right_levels=right,
                                      agree=float(rng.random()), adj=float(rng.random())))
        else:
            out.append(SurrogateSplit(j, float(rng.integers(-2, 12)) / 2, bool(rng.random() < .5),
                                      agree=float(rng.random()), adj=float(rng.random())))
    return out


@st.composite
def trees_with_holes(draw, max_nodes=60):
    "A random tree with surrogates (written with the TreeBuilder), and rows with NaN and unseen codes to send down it."
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    D = draw(st.integers(1, 4))
    categorical = set(np.flatnonzero(rng.random(D) < draw(st.sampled_from([0.0, 0.4]))).tolist())
    with_surrogates = draw(st.booleans()) or draw(st.booleans())
    stop, limit = draw(st.sampled_from([0.1, 0.3, 0.6])), draw(st.integers(1, max_nodes))
    tree = random_tree(rng, D, categorical, stop, limit, N_LEVELS,
                       (lambda rng, j: random_surrogates(rng, D, categorical, j)) if with_surrogates else None)
    n = draw(st.sampled_from([1, 3, FEW_ROWS, FEW_ROWS + 1, 50, 300]))
    X = rng.integers(-2, 12, size=(n, D)) / 2
    for j in categorical: X[:, j] = rng.integers(-1, N_LEVELS + 2, n)         # codes -1, 4, 5: outside the level table
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.4, 0.9]))] = np.nan
    infinite = rng.random(X.shape) < 0.05                                     # infinities: a comparison, not a missing value
    X[infinite] = np.where(rng.random(X.shape) < .5, -np.inf, np.inf)[infinite]
    return tree, X


@settings(max_examples=200, deadline=None)
@given(trees_with_holes())
def test_every_walk_follows_the_routing_rule(case):
    tree, X = case
    expected = [reference_leaf(tree, x) for x in X]
    np.testing.assert_array_equal([apply_one(tree, x) for x in X], expected)
    np.testing.assert_array_equal(apply(tree, X), expected)
    for heap_depth in (0, 1, 3, 10):                                  # NaN in the heap, at its exit and below it
        route = build_routes(tree, heap_depth)
        np.testing.assert_array_equal(_apply_rows(tree, route, np.ascontiguousarray(X)), expected)
        assert (filled_routes(tree, route) is None) == (tree.surrogates is not None and len(tree.surrogates.feature) > 0)
        side_road = replace(route, derived={"filled": None})
        np.testing.assert_array_equal(_apply_rows(tree, side_road, np.ascontiguousarray(X)), expected)
    path = decision_path(tree, X)
    np.testing.assert_array_equal(path.indices[path.indptr[1:] - 1], expected)
    np.testing.assert_array_equal(np.diff(path.indptr), tree.node_depth[expected] + 1)


@settings(max_examples=25, deadline=None)
@given(trees_with_holes())
def test_threads_and_blocks_give_the_same_leaves(case):
    tree, X = case
    many = np.tile(X, (2 * PARALLEL_ROWS // len(X) + 1, 1))
    single = apply(tree, many, n_threads=1)
    np.testing.assert_array_equal(single[:len(X)], [reference_leaf(tree, x) for x in X])
    np.testing.assert_array_equal(apply(tree, many, n_threads=3), single)
    np.testing.assert_array_equal(apply(tree, many, n_threads=2, block_rows=777), single)


def hand_tree():
    "The chapter's tree: age <= 40 (surrogates income > 30, region in {north}; missing left), then income <= 55 (age <= 60; right)."
    b = TreeBuilder()
    root = b.add_node(-1, True, [.5, .5], .5, 100, 100.)
    b.split_node(root, Split(0, 40., .35, True))
    b.add_surrogates(root, [SurrogateSplit(1, 30., False, agree=.8, adj=.5),
                            SurrogateSplit(2, np.nan, True, left_levels=(0,), right_levels=(1, 2), agree=.7, adj=.25)])
    b.add_node(root, True, [.9, .1], .18, 55, 55.)
    older = b.add_node(root, False, [.2, .8], .32, 45, 45.)
    b.split_node(older, Split(1, 55., .2, False))
    b.add_surrogates(older, [SurrogateSplit(0, 60., True, agree=.75, adj=.4)])
    b.add_node(older, True, [.4, .6], .48, 20, 20.); b.add_node(older, False, [.05, .95], .095, 25, 25.)
    return b.build(3)


def test_hand_tree_by_hand():
    nan = np.nan
    rows = np.array([[35, 50, 1], [nan, 50, 1], [nan, 20, 0], [nan, nan, 0], [nan, nan, 2], [nan, nan, nan], [nan, nan, 5],
                     [nan, nan, -1], [50, nan, 0], [70, nan, nan], [41, 56, nan]])
    expected = [1, 1, 3, 1, 4, 1, 1, 1, 3, 4, 4]
    tree = hand_tree()
    assert [apply_one(tree, x) for x in rows] == expected
    np.testing.assert_array_equal(apply(tree, rows), expected)
    np.testing.assert_array_equal(apply(tree, np.tile(rows, (5, 1))), np.tile(expected, 5))   # the numpy walk


def test_a_categorical_node_sends_unseen_codes_to_its_surrogates():
    "At a categorical node NaN, -1 and codes the node never saw are missing: the surrogate decides, then default_left."
    b = TreeBuilder()
    root = b.add_node(-1, True, [.5, .5], .5, 10, 10.)
    b.split_node(root, CategoricalSplit(0, frozenset({0}), frozenset({1}), 0., False))
    b.add_surrogates(root, [SurrogateSplit(1, 2., False)])             # reversed: x1 > 2 goes left
    b.add_node(root, True, [1., 0.], 0., 5, 5.); b.add_node(root, False, [0., 1.], 0., 5, 5.)
    tree = b.build(4)
    rows = np.array([[0, 9], [1, 9], [2, 9], [2, 1], [-1, 9], [7, 1], [np.nan, 9], [np.nan, np.nan], [3, np.nan]])
    expected = [1, 2, 1, 2, 1, 2, 1, 2, 2]
    assert [apply_one(tree, x) for x in rows] == expected
    np.testing.assert_array_equal(apply(tree, np.tile(rows, (3, 1))), np.tile(expected, 3))


def tree_from_sklearn(fitted):
    "scikit-learn's fitted tree_ as chapter 2's Tree, its missing_go_to_left as default_left (nodes numbered as ours)."
    t = fitted.tree_
    T, leaf = t.node_count, t.children_left == -1
    return Tree(t.children_left.astype(np.intp), t.children_right.astype(np.intp),
                np.where(leaf, UNDEFINED, t.feature).astype(np.intp), np.where(leaf, float(UNDEFINED), t.threshold),
                np.zeros(T, bool), np.zeros((T, 0), bool), np.zeros((T, 0), bool), t.missing_go_to_left.astype(bool) & ~leaf,
                t.value[:, 0, :].copy(), t.impurity.copy(), t.n_node_samples.astype(np.intp), t.weighted_n_node_samples.copy())


def holes(X, fraction, rng):
    X = X.copy()
    X[rng.random(X.shape) < fraction] = np.nan
    return X


@pytest.mark.parametrize("estimator, max_depth, fraction", [(SkClassifier, None, .1), (SkClassifier, 5, .3), (SkRegressor, 8, .2),
                                                            (SkRegressor, None, .0)])
def test_apply_with_nan_equals_sklearn(estimator, max_depth, fraction):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3000, 5)).astype(np.float32).astype(float)   # float32-exact: scikit-learn compares in float32
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=3000)
    X_fit = holes(X, fraction, rng)
    fitted = estimator(max_depth=max_depth, random_state=0).fit(X_fit, y > 0 if estimator is SkClassifier else y)
    tree = tree_from_sklearn(fitted)
    X_new = holes(rng.normal(size=(20_000, 5)).astype(np.float32).astype(float), .25, rng)
    np.testing.assert_array_equal(apply(tree, X_new, n_threads=1), fitted.apply(X_new))
    np.testing.assert_array_equal(apply(tree, X_new, n_threads=3), fitted.apply(X_new))
    np.testing.assert_array_equal([apply_one(tree, x) for x in X_new[:300]], fitted.apply(X_new[:300]))
    ours, theirs = decision_path(tree, X_new[:2000]), fitted.decision_path(X_new[:2000])
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)


def test_grown_tree_with_nan_routes_as_sklearn():
    "The default grower (chapter 8) grows scikit-learn's tree on data with holes; apply then sends new holes the same way."
    rng = np.random.default_rng(7)
    X = rng.random((5000, 10)).astype(np.float32).astype(float)
    y = np.sin(4 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=5000)
    X_fit = holes(X, .1, rng)
    ours = grow_levelwise(X_fit, y, "squared_error", max_depth=7, min_samples_leaf=20)   # large leaves: no near-ties
    theirs = SkRegressor(max_depth=7, min_samples_leaf=20, random_state=0).fit(X_fit, y)
    inner = ours.children_left != LEAF
    np.testing.assert_array_equal(ours.feature[inner], theirs.tree_.feature[inner])          # the same tree (chapter 8's claim) ...
    np.testing.assert_array_equal(ours.default_left[inner], theirs.tree_.missing_go_to_left[inner].astype(bool))
    X_new = holes(rng.random((50_000, 10)).astype(np.float32).astype(float), .1, rng)
    np.testing.assert_array_equal(apply(ours, X_new), theirs.apply(X_new))


def test_surrogate_grower_trees_follow_the_rule():
    "Trees of chapter 15's rpart-style grower, with real surrogates: apply equals the per-row walk of the rule."
    missing = pytest.importorskip("climbing_trees.missing")
    if not hasattr(missing, "grow_surrogate"): pytest.skip("chapter 15's grow_surrogate is not there yet")
    rng = np.random.default_rng(3)
    Z = rng.random((600, 4))
    Z[:, 1] = .7 * Z[:, 0] + .3 * Z[:, 1]                                # correlated columns: surrogates exist
    Z[:, 3] = np.clip((Z[:, 0] + .2 * rng.normal(size=600)) * 4, 0, 3.999).astype(int)   # a categorical copy of column 0
    y = (Z[:, 0] + .3 * rng.normal(size=600) > .5).astype(int)
    tree = missing.grow_surrogate(holes(Z, .2, rng), y, "gini", n_classes=2, categorical=(3,), max_depth=5, min_samples_leaf=5)
    assert tree.surrogates is not None and len(tree.surrogates.feature) > 0
    Z_new = rng.random((3000, 4)); Z_new[:, 3] = rng.integers(-1, 6, 3000)
    Z_new = holes(Z_new, .4, rng)
    expected = [reference_leaf(tree, x) for x in Z_new]
    np.testing.assert_array_equal(apply(tree, Z_new), expected)
    np.testing.assert_array_equal(apply(tree, np.tile(Z_new, (8, 1)), n_threads=3), np.tile(expected, 8))


def test_export_text_lists_surrogates_and_the_missing_side():
    tree = hand_tree()
    lines = export_text(tree, ["age", "income", "region"]).splitlines()
    assert lines[:3] == ["|--- age <= 40.00 or missing", "|   |~~ surrogate: income > 30.00  (agree 0.80, adj 0.50)",
                         "|   |~~ surrogate: region in {0}  (agree 0.70, adj 0.25)"]
    assert "|   |   |~~ surrogate: age <= 60.00  (agree 0.75, adj 0.40)" in lines
    assert "|   |--- income > 55.00 or missing" in lines
    assert sum("|--- class" in line or "|--- value" in line for line in lines) == tree.n_leaves
    assert export_text(tree, show_missing=False) == tree_text(tree)             # without the marks: chapter 2's printer
    assert export_text(tree, max_depth=0, show_missing=True).count("surrogate") == 2   # the root's two; a cut branch lists nothing
    plain = grow_levelwise(np.arange(20.)[:, None], (np.arange(20) % 3 == 0).astype(int), "gini", n_classes=2, max_depth=2)
    assert export_text(plain) == tree_text(plain)                                # no surrogates: no marks by default
    assert "or missing" in export_text(plain, show_missing=True)
