"""Chapter 13's walks against each other and against scikit-learn: `apply` (vectorized, few-row path, threads) equals the
one-sample walk `apply_one` on random trees, and `decision_path` equals scikit-learn's node indicator."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

from climbing_trees.inference import (FEW_ROWS, PARALLEL_ROWS, _apply_rows, apply, apply_one, build_routes, compaction_steps,
                                      decision_path, heap_top, routes)
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.tree import LEAF, UNDEFINED, Tree
from strategies import random_tree

N_LEVELS = 4


@st.composite
def random_trees(draw, max_nodes=80):
    "A random tree written with the TreeBuilder (numeric and categorical splits, leaves at any depth) and rows to send down it."
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    D = draw(st.integers(1, 3))
    categorical = set(np.flatnonzero(rng.random(D) < draw(st.sampled_from([0.0, 0.5]))).tolist())
    stop = draw(st.sampled_from([0.1, 0.3, 0.6]))
    limit = draw(st.integers(1, max_nodes))
    tree = random_tree(rng, D, categorical, stop, limit, N_LEVELS)
    n = draw(st.sampled_from([0, 1, 3, FEW_ROWS, FEW_ROWS + 1, 50, 300]))
    X = rng.integers(-2, 12, size=(n, D)) / 2                                    # codes -1 and 4, 5: outside the level table
    if draw(st.booleans()) and n: X[rng.random(X.shape) < 0.1] = np.nan           # NaN follows each node's default_left
    return tree, X


@settings(max_examples=150, deadline=None)
@given(random_trees())
def test_apply_equals_one_sample_walk(case):
    tree, X = case
    expected = [apply_one(tree, x) for x in X]
    np.testing.assert_array_equal(apply(tree, X), expected)
    X = np.ascontiguousarray(X)
    np.testing.assert_array_equal(_apply_rows(tree, routes(tree), X), expected)           # the numpy walk, any number of rows
    for heap_depth in (0, 1, 3):                                                          # the heap's exit at any depth
        np.testing.assert_array_equal(_apply_rows(tree, build_routes(tree, heap_depth), X), expected)
    assert tree.is_leaf[apply(tree, X)].all()


@settings(max_examples=60, deadline=None)
@given(random_trees())
def test_decision_path_is_the_walk(case):
    tree, X = case
    path = decision_path(tree, X)
    assert path.shape == (len(X), tree.node_count)
    leaves = apply(tree, X)
    depth = tree.node_depth
    np.testing.assert_array_equal(np.diff(path.indptr), depth[leaves] + 1)
    np.testing.assert_array_equal(path.indices[path.indptr[1:] - 1], leaves)      # each row ends at apply's leaf
    for i in range(min(len(X), 5)):                                              # and goes there through parent -> child
        nodes = path.indices[path.indptr[i]:path.indptr[i + 1]]
        assert nodes[0] == 0
        for parent, child in zip(nodes[:-1], nodes[1:]):
            assert child in (tree.children_left[parent], tree.children_right[parent])


def tree_from_sklearn(fitted):
    "scikit-learn's fitted tree_ as chapter 2's Tree (its nodes are numbered depth first, left first, as ours)."
    t = fitted.tree_
    T, leaf = t.node_count, t.children_left == -1
    return Tree(t.children_left.astype(np.intp), t.children_right.astype(np.intp),
                np.where(leaf, UNDEFINED, t.feature).astype(np.intp), np.where(leaf, float(UNDEFINED), t.threshold),
                np.zeros(T, bool), np.zeros((T, 0), bool), np.zeros((T, 0), bool), np.zeros(T, bool),
                t.value[:, 0, :].copy(), t.impurity.copy(), t.n_node_samples.astype(np.intp), t.weighted_n_node_samples.copy())


@pytest.mark.parametrize("estimator, max_depth", [(SkClassifier, None), (SkClassifier, 4), (SkRegressor, None)])
def test_decision_path_equals_sklearn(estimator, max_depth):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 4)).astype(np.float32).astype(float)              # float32-exact: scikit-learn compares in float32
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=2000)
    fitted = estimator(max_depth=max_depth, random_state=0).fit(X, y > 0 if estimator is SkClassifier else y)
    tree = tree_from_sklearn(fitted)
    X_new = rng.normal(size=(3000, 4)).astype(np.float32).astype(float)
    np.testing.assert_array_equal(apply(tree, X_new), fitted.apply(X_new))
    ours, theirs = decision_path(tree, X_new), fitted.decision_path(X_new)
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)                  # the same nodes, in the same (root-first) order
    np.testing.assert_array_equal(ours.toarray(), theirs.toarray())


def test_threads_equal_one_thread():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 6))
    tree = grow_levelwise(X, (X[:, 0] + rng.normal(size=4000) > 0).astype(int), "gini", n_classes=2)
    X_new = rng.normal(size=(2 * PARALLEL_ROWS + 7, 6))
    single = apply(tree, X_new, n_threads=1)
    for n_threads in (2, 3, 4):
        np.testing.assert_array_equal(apply(tree, X_new, n_threads=n_threads), single)
    np.testing.assert_array_equal(single[:500], [apply_one(tree, x) for x in X_new[:500]])


def test_few_rows_path_equals_numpy_walk():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 5))
    tree = grow_levelwise(X, X[:, 0] * X[:, 1] + rng.normal(size=3000), "squared_error", min_samples_leaf=3)
    for n in (1, 2, FEW_ROWS, FEW_ROWS + 1):
        np.testing.assert_array_equal(apply(tree, X[:n]), _apply_rows(tree, routes(tree), X[:n]))


def test_routes_cached_per_tree():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 3))
    a = grow_levelwise(X, (X[:, 0] > 0).astype(int), "gini", n_classes=2)
    b = grow_levelwise(X, (X[:, 1] > 0.5).astype(int), "gini", n_classes=2)
    assert routes(a) is routes(a) and routes(a) is not routes(b)
    np.testing.assert_array_equal(apply(a, X, n_threads=1), [apply_one(a, x) for x in X])
    np.testing.assert_array_equal(apply(b, X, n_threads=1), [apply_one(b, x) for x in X])   # b's own tables, not a's


@settings(max_examples=60, deadline=None)
@given(random_trees(), st.integers(0, 5))
def test_heap_exit_is_the_node_at_that_depth(case, K):
    "Each bottom slot of the heap leads to the node reached by the slot's path (the path's bits: 1 = left), or to the leaf above it."
    tree, _ = case
    _, top_exit = heap_top(tree, K)
    for slot in range(2 ** K, 2 ** (K + 1)):
        t = 0
        for bit in format(slot, "b")[1:]:                                               # the path from the root, first step first
            if tree.children_left[t] != LEAF: t = tree.children_left[t] if bit == "1" else tree.children_right[t]
        assert top_exit[slot] == t


def test_compaction_schedule_is_least_work():
    "The dynamic program's schedule costs no more than every other set of drop steps, by brute force."
    rng = np.random.default_rng(4)
    for _ in range(30):
        rows_done = rng.integers(0, 5, size=rng.integers(2, 8)).astype(float)
        rows_done[0] = 0
        cost = float(rng.choice([0.5, 2, 4, 10]))
        last = len(rows_done) - 1
        moving = rows_done.sum() - np.cumsum(rows_done)
        def work(steps):
            total, previous = 0.0, 0
            for s in sorted(steps | {last}):
                total += (s - previous + cost) * moving[previous]; previous = s
            return total
        best = min(work({s for s in range(1, last) if mask >> s & 1}) for mask in range(2 ** last))
        assert work(set(compaction_steps(rows_done, cost))) == pytest.approx(best)


def test_bad_input():
    tree = grow_levelwise(np.arange(8.)[:, None], np.arange(8) % 2, "gini", n_classes=2)
    with pytest.raises(ValueError, match="reshape"): apply(tree, np.arange(3.))
    assert apply(tree, np.zeros((0, 1))).shape == (0,)
    assert decision_path(tree, np.zeros((0, 1))).shape == (0, tree.node_count)
    assert LEAF == -1


def test_blocks_equal_one_piece():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 4))
    tree = grow_levelwise(X, (X[:, 0] * X[:, 1] > 0).astype(int), "gini", n_classes=2)
    X_new = rng.normal(size=(10_001, 4))
    whole = apply(tree, X_new, n_threads=1, block_rows=len(X_new))
    for block_rows in (9, 1000, 4096, None):
        np.testing.assert_array_equal(apply(tree, X_new, n_threads=1, block_rows=block_rows), whole)
    np.testing.assert_array_equal(apply(tree, np.tile(X_new, (3, 1)), n_threads=3, block_rows=1000), np.tile(whole, 3))
