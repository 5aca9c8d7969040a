"""Surrogate trees beyond rpart's options (chapter 15), and best-first growth in chapter 4's loop.

rpart grows surrogate trees with Gini and squared error, depth first, with the best cut of every feature; its trees are
the oracle of tests/test_missing_rpart.py. Chapter 15's grower also takes every criterion of the book, random
thresholds (`splitter="random"`) and best-first growth (`max_leaf_nodes`), since the surrogates read only the sides of
the primary split and the weights. The claims checked here:
- chapter 4's `grow_tree` with `max_leaf_nodes` grows chapter 8's best-first tree, and scikit-learn's on tie-free data;
- without a hole, the surrogate tree (surrogates set aside) is chapter 8's tree, depth first and best first, for every
  criterion but the misclassification rate (whose zero-gain splits rpart's rule refuses: chapter 15 checks that case);
- with holes, a best-first surrogate tree has its budget of leaves and is the full surrogate tree cut back;
- random thresholds: the same `random_state` grows the same tree, every threshold lies within its node's known values,
  every node holds the rows its parent's split, surrogates and majority send it; randomized trees averaged do about
  as well as scikit-learn's extra trees on data without holes;
- `check_surrogate_options` refuses only a bad `max_surrogates`; the estimators grow surrogate trees with the options
  that were refused before."""
import numpy as np
import pytest
from dataclasses import replace
from sklearn import ensemble as skensemble

from climbing_trees.tree import LEFT, RIGHT, Split, tree_differences
from climbing_trees.criteria import SPLIT_SEARCHES
from climbing_trees.growth import grow_tree
from climbing_trees.levelwise_trees import grow_best_first, grow_levelwise
from climbing_trees.inference import apply
from climbing_trees.missing import check_surrogate_options, grow_surrogate, majority_side, node_surrogates, route
from test_growth_options import REGRESSORS, assert_same_tree, in_preorder, problem, seed_free

CRITERIA = ("gini", "entropy", "squared_error", "absolute_error", "poisson")


def n_classes_of(criterion, y):
    return None if criterion in REGRESSORS else int(y.max()) + 1


def holes(X, rate, rng):
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


def rows_at_nodes(tree, X, w):
    "The training rows at each node of a numeric surrogate tree, routed as growth routes them (split, surrogates, majority)."
    reached = {0: np.flatnonzero(~np.isnan(X).all(axis=1))}
    for t in np.flatnonzero(~tree.is_leaf):
        rows = reached[t]
        side = Split(int(tree.feature[t]), tree.threshold[t], 0.0).sides(X[rows])
        side = route(X[rows], side, tree.surrogates.of(t), majority_side(side, w[rows]))
        reached[tree.children_left[t]], reached[tree.children_right[t]] = rows[side == LEFT], rows[side == RIGHT]
    return reached


def is_top_of(small, full):
    "Whether `small` is `full` cut back: the same rows at each node of `small`, the same split and surrogates where it splits."
    pairs = [(0, 0)]
    while pairs:
        s, f = pairs.pop()
        if small.n_node_samples[s] != full.n_node_samples[f]: return False
        if small.is_leaf[s]: continue
        if (small.feature[s], small.threshold[s], small.surrogates.of(s)) != (full.feature[f], full.threshold[f], full.surrogates.of(f)):
            return False
        pairs += [(small.children_left[s], full.children_left[f]), (small.children_right[s], full.children_right[f])]
    return True


@pytest.mark.parametrize("criterion, weighted", [(c, weighted) for c in CRITERIA + ("misclassification",) for weighted in (False, True)])
def test_depth_first_loop_grows_best_first_as_chapter_08(criterion, weighted):
    X, y, w = problem("gini" if criterion == "misclassification" else criterion, 3, weighted, n=300)
    K = n_classes_of(criterion, y)
    for k in (2, 4, 9, 16):
        ours = grow_tree(X, y, criterion, w, K, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=3, max_leaf_nodes=k)
        assert ours.n_leaves == k
        assert tree_differences(ours, grow_best_first(X, y, criterion, w, K, min_samples_leaf=3, max_leaf_nodes=k)) == []


@pytest.mark.parametrize("criterion, weighted, max_leaf_nodes",
                         [(c, weighted, k) for c in ("gini", "entropy", "squared_error") for weighted in (False, True) for k in (5, 17)])
def test_depth_first_best_first_is_sklearns_tree(criterion, weighted, max_leaf_nodes):
    params = dict(max_leaf_nodes=max_leaf_nodes, min_samples_leaf=3)
    X, y, w, theirs = seed_free(criterion, weighted, params, first_seed=11 * max_leaf_nodes)
    ours = grow_tree(X, y, criterion, w, n_classes_of(criterion, y), find_split=SPLIT_SEARCHES["vectorized"], **params)
    assert_same_tree(ours, theirs)


def test_best_first_budget_never_reached_is_the_depth_first_tree():
    X, y, w = problem("entropy", 4, True, n=200)
    full = grow_tree(X, y, "entropy", w, 3, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=4)
    budget = grow_tree(X, y, "entropy", w, 3, find_split=SPLIT_SEARCHES["vectorized"], min_samples_leaf=4, max_leaf_nodes=full.n_leaves)
    assert tree_differences(budget, full) == []


@pytest.mark.parametrize("criterion", CRITERIA)
def test_surrogate_tree_without_holes_is_chapter_08s_tree(criterion):
    X, y, w = problem(criterion, 5, True, n=250)
    K = n_classes_of(criterion, y)
    rules = dict(min_samples_leaf=4, max_depth=5)
    assert tree_differences(replace(grow_surrogate(X, y, criterion, w, K, **rules), surrogates=None),
                            grow_levelwise(X, y, criterion, w, K, **rules)) == []
    for k in (3, 8):
        assert tree_differences(replace(grow_surrogate(X, y, criterion, w, K, max_leaf_nodes=k, **rules), surrogates=None),
                                grow_best_first(X, y, criterion, w, K, max_leaf_nodes=k, **rules)) == []


@pytest.mark.parametrize("criterion", CRITERIA + ("misclassification",))
def test_surrogate_trees_with_holes_follow_the_rules(criterion):
    X, y, w = problem("gini" if criterion == "misclassification" else criterion, 6, True, n=300, d=5)
    X = holes(X, 0.25, np.random.default_rng(0))
    K = n_classes_of(criterion, y)
    grow = lambda **more: grow_surrogate(X, y, criterion, w, K, min_samples_leaf=5, **more)
    full = grow()
    reached = rows_at_nodes(full, X, w)
    assert full.n_node_samples.tolist() == [len(reached[t]) for t in range(full.node_count)]
    for t in np.flatnonzero(~full.is_leaf):
        Xt, f = X[reached[t]], int(full.feature[t])
        assert full.surrogates.of(t) == node_surrogates(Xt, Split(f, full.threshold[t], 0.0).sides(Xt), w[reached[t]], f)
    for k in (2, 5, 11):
        cut_back = grow(max_leaf_nodes=k)
        assert cut_back.n_leaves == min(k, full.n_leaves) and is_top_of(cut_back, full)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_random_thresholds_with_surrogates(criterion):
    X, y, w = problem(criterion, 7, False, n=300, d=5)
    X = holes(X, 0.2, np.random.default_rng(1))
    K = n_classes_of(criterion, y)
    grow = lambda seed, **more: grow_surrogate(X, y, criterion, None, K, splitter="random", min_samples_leaf=3, random_state=seed, **more)
    assert tree_differences(grow(0), grow(0)) == [] and tree_differences(grow(0, max_features=2), grow(0, max_features=2)) == []
    assert tree_differences(grow(0), grow(1)) != []
    for tree in (grow(2), grow(3, max_features=2), grow(4, max_leaf_nodes=7)):
        reached = rows_at_nodes(tree, X, np.ones(len(y)))
        assert tree.n_node_samples.tolist() == [len(reached[t]) for t in range(tree.node_count)]
        for t in np.flatnonzero(~tree.is_leaf):
            known = X[reached[t], tree.feature[t]]
            assert np.nanmin(known) <= tree.threshold[t] < np.nanmax(known)
    assert grow(4, max_leaf_nodes=7).n_leaves == 7


def test_random_surrogate_trees_average_as_well_as_sklearns_extra_trees():
    "On data without holes, 20 randomized surrogate trees averaged are within 10% of scikit-learn's extra trees' held-out error."
    X, y, _ = problem("squared_error", 8, False, n=400)
    X_test, y_test = X[300:], y[300:]
    X, y = X[:300], y[:300]
    trees = [grow_surrogate(X, y, "squared_error", splitter="random", min_samples_leaf=3, random_state=s) for s in range(20)]
    ours = np.mean([tree.value[apply(tree, X_test), 0] for tree in trees], axis=0)
    theirs = skensemble.ExtraTreesRegressor(20, min_samples_leaf=3, max_features=None, random_state=0).fit(X, y).predict(X_test)
    mse = lambda p: float(np.mean((p - y_test) ** 2))
    assert abs(mse(ours) / mse(theirs) - 1) < 0.1, (mse(ours), mse(theirs))


def test_check_surrogate_options_refuses_only_a_bad_max_surrogates():
    for criterion in CRITERIA + ("log_loss", "misclassification"):
        for splitter in ("best", "random"):
            check_surrogate_options(criterion, 3, 8, splitter)
    for bad in (-1, 2.5, True, "5"):
        with pytest.raises(ValueError, match="max_surrogates must be a non-negative integer"):
            check_surrogate_options("gini", bad, None, "best")


def test_estimators_grow_surrogate_trees_with_the_new_options():
    from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier
    X, y, _ = problem("gini", 9, False, n=300)
    X = holes(X, 0.2, np.random.default_rng(2))
    for params in (dict(criterion="entropy"), dict(splitter="random", random_state=0), dict(max_leaf_nodes=6)):
        model = DecisionTreeClassifier(missing="surrogate", min_samples_leaf=3, **params).fit(X, y)
        assert model.tree_.surrogates is not None and model.score(X, y) > 0.6
    assert DecisionTreeClassifier(missing="surrogate", max_leaf_nodes=6).fit(X, y).get_n_leaves() == 6
    reg = DecisionTreeRegressor(missing="surrogate", criterion="absolute_error", min_samples_leaf=5).fit(X, y.astype(float))
    assert reg.tree_.surrogates is not None
    forest = ExtraTreesClassifier(n_estimators=5, missing="surrogate", min_samples_leaf=3, random_state=0).fit(X, y)
    assert forest.score(X, y) > 0.6
