"""scikit-learn as the oracle for chapter 16's estimators: on numeric data without ties, the same tree.

scikit-learn stores X as float32 and visits the features in a random order, keeping the first of
equal splits; so the data here are float32-exact, and each problem is accepted only if scikit-learn
grows one and the same tree for several `random_state`s (a tie between features would show as a
tree that depends on the seed; such data are regenerated with the next seed). Then the two trees
must agree node for node: structure, features, thresholds (bit for bit), values, impurities,
counts and weights; leaf numbers, decision paths, predictions and probabilities on new data;
importances to 1e-9. Every criterion is compared, with and without sample weights, and so is every
parameter that changes a deterministic tree: class weights, fractions of samples and of weight,
and best-first growth (`max_leaf_nodes`, whose trees scikit-learn numbers in the order it splits
them; they are compared after renumbering scikit-learn's in pre-order). Absolute error alone is
allowed one kind of difference: two thresholds of one feature that decrease the impurity exactly
equally (it is piecewise linear), of which scikit-learn's rounding picks one; the test then checks
that the first differing node is such a tie, and stops there."""
import numpy as np
import pytest
from sklearn import tree as sktree
from sklearn.utils.class_weight import compute_sample_weight

from climbing_trees.estimators import ALGORITHMS
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.impurity import REGRESSION_CRITERIA
from strategies import float32_exact

SEEDS = range(6)            # scikit-learn's random_state values that must all grow the same tree
CLASSIFICATION = ("gini", "entropy", "log_loss")
REGRESSION = ("squared_error", "absolute_error", "poisson")


def problem(criterion, seed, weighted, n=600, d=5):
    "X (float32-exact, distinct values per column), a target for `criterion`, weights or None, and new rows; None if a value repeats."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, d))
    if any(len(np.unique(X[:, j])) < n for j in range(d)): return None       # ties in X: regenerate
    signal = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2
    if criterion == "poisson": y = np.exp(signal + 0.3 * rng.normal(size=n))                   # positive, mean varies
    elif criterion in REGRESSION: y = signal + 0.2 * rng.normal(size=n)
    else: y = np.digitize(signal + 0.3 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))   # three classes
    w = rng.uniform(0.5, 3.0, n) if weighted else None
    return X, y, w, float32_exact(rng, (2000, d))


def sklearn_tree(criterion, random_state, **params):
    cls = sktree.DecisionTreeRegressor if criterion in REGRESSION else sktree.DecisionTreeClassifier
    return cls(criterion=criterion, random_state=random_state, **params)


def ours_tree(criterion, **params):
    return (DecisionTreeRegressor if criterion in REGRESSION else DecisionTreeClassifier)(criterion=criterion, **params)


def same_structure(a, b):
    return (np.array_equal(a.children_left, b.children_left) and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold))


def seed_free_problem(criterion, weighted, params, first_seed):
    "The first problem (from `first_seed` on) on which scikit-learn grows the same tree for every random_state in SEEDS."
    for seed in range(first_seed, first_seed + 60):
        drawn = problem(criterion, seed, weighted)
        if drawn is None: continue
        X, y, w, X_new = drawn
        trees = [sklearn_tree(criterion, s, **params).fit(X, y, sample_weight=w) for s in SEEDS]
        if all(same_structure(t.tree_, trees[0].tree_) for t in trees[1:]):
            return X, y, w, X_new, trees[0]
    pytest.fail(f"no tie-free problem among 60 seeds for {criterion}, weighted={weighted}, {params}")


def preorder(tree):
    "Node numbers of scikit-learn's `tree` in pre-order (left subtree first); the identity for a depth-first tree."
    order, stack = [], [0]
    while stack:
        t = stack.pop()
        order.append(t)
        if tree.children_left[t] != -1: stack += [tree.children_right[t], tree.children_left[t]]
    return np.array(order)


def split_loss(tree, t):
    "The weighted impurity of node t's two children, per unit of t's weight."
    l, r, W = tree.children_left[t], tree.children_right[t], tree.weighted_n_node_samples
    return (W[l] * tree.impurity[l] + W[r] * tree.impurity[r]) / W[t]


def is_tie_broken_by_rounding(mine, sk, order):
    """Whether the first node (pre-order) where the trees split differently splits equally well both ways, to 1e-12.
    Absolute error is piecewise linear, so two thresholds of one feature can tie exactly; scikit-learn's rounding then picks one."""
    n = min(mine.node_count, len(order))
    differs = [t for t in range(n) if mine.feature[t] != sk.feature[order[t]] or mine.threshold[t] != sk.threshold[order[t]]]
    if not differs: return False
    t = differs[0]
    if mine.children_left[t] == -1 or sk.children_left[order[t]] == -1: return False
    return np.isclose(split_loss(mine, t), split_loss(sk, order[t]), rtol=1e-12, atol=0)


def assert_same_tree(ours, theirs, X_new, min_leaves=4, ties_allowed=False):
    "Our fitted estimator and scikit-learn's grew the same tree: node for node, and on new data."
    sk, mine = theirs.tree_, ours.tree_
    order = preorder(sk)                              # sk node at each pre-order position
    if ties_allowed and is_tie_broken_by_rounding(mine, sk, order): return
    number = np.empty_like(order); number[order] = np.arange(len(order))
    renumber = lambda c: np.where(c == -1, -1, number[np.maximum(c, 0)])
    assert ours.get_n_leaves() == theirs.get_n_leaves() and ours.get_depth() == theirs.get_depth()
    np.testing.assert_array_equal(mine.children_left, renumber(sk.children_left[order]))
    np.testing.assert_array_equal(mine.children_right, renumber(sk.children_right[order]))
    internal = sk.children_left[order] != -1
    np.testing.assert_array_equal(mine.feature[internal], sk.feature[order][internal])
    np.testing.assert_array_equal(mine.threshold[internal], sk.threshold[order][internal])      # bit for bit
    np.testing.assert_array_equal(mine.n_node_samples, sk.n_node_samples[order])
    np.testing.assert_allclose(mine.weighted_n_node_samples, sk.weighted_n_node_samples[order], rtol=1e-12)
    np.testing.assert_allclose(mine.value, sk.value[order], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mine.impurity, sk.impurity[order], rtol=1e-9, atol=1e-12 * max(1.0, sk.impurity[0]))

    np.testing.assert_array_equal(ours.apply(X_new), number[theirs.apply(X_new)])
    np.testing.assert_array_equal(ours.decision_path(X_new).toarray(), theirs.decision_path(X_new).toarray()[:, order])
    if isinstance(ours, DecisionTreeRegressor):
        np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
        np.testing.assert_allclose(ours.predict_proba(X_new), theirs.predict_proba(X_new), rtol=1e-9, atol=1e-12)
        with np.errstate(divide="ignore"):
            log_theirs = theirs.predict_log_proba(X_new)
        np.testing.assert_array_equal(np.isneginf(ours.predict_log_proba(X_new)), np.isneginf(log_theirs))
        np.testing.assert_allclose(ours.predict_log_proba(X_new), log_theirs, rtol=1e-9)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-9)
    assert ours.get_n_leaves() >= min_leaves                         # a tree worth comparing


def test_criteria_lists_are_sklearns():
    assert set(CLASSIFICATION) == set(sktree.DecisionTreeClassifier._parameter_constraints["criterion"][0].options)
    assert set(REGRESSION) == set(sktree.DecisionTreeRegressor._parameter_constraints["criterion"][0].options) == set(REGRESSION_CRITERIA)


CASES = [(criterion, weighted, params)
         for criterion in CLASSIFICATION + REGRESSION
         for weighted in (False, True)
         for params in (dict(max_depth=3, min_samples_leaf=10), dict(max_depth=5, min_samples_leaf=15), dict(max_depth=4, min_samples_leaf=20))]


@pytest.mark.parametrize("criterion, weighted, params", CASES, ids=[f"{c}-{'weighted' if w else 'unweighted'}-depth{p['max_depth']}-leaf{p['min_samples_leaf']}" for c, w, p in CASES])
def test_same_tree_as_sklearn(criterion, weighted, params):
    X, y, w, X_new, theirs = seed_free_problem(criterion, weighted, params, first_seed=100 * params["max_depth"])
    ours = ours_tree(criterion, **params).fit(X, y, sample_weight=w)
    assert_same_tree(ours, theirs, X_new, ties_allowed=criterion == "absolute_error")


PARAMETER_CASES = [
    # (criterion, parameters): each changes the deterministic tree
    ("gini", dict(max_depth=4, min_samples_leaf=5, class_weight={0: 1.0, 1: 3.0, 2: 0.5})),
    ("entropy", dict(max_depth=4, min_samples_leaf=5, class_weight="balanced")),
    ("log_loss", dict(max_depth=5, class_weight="balanced", min_weight_fraction_leaf=0.02)),
    ("gini", dict(max_depth=6, min_weight_fraction_leaf=0.05)),
    ("squared_error", dict(min_weight_fraction_leaf=0.04)),
    ("gini", dict(max_depth=6, min_samples_leaf=0.03)),
    ("squared_error", dict(min_samples_leaf=0.02, min_samples_split=0.2)),
    ("entropy", dict(max_depth=6, min_samples_split=0.15)),
    ("gini", dict(max_leaf_nodes=10)),
    ("entropy", dict(max_leaf_nodes=7, min_samples_leaf=8)),
    ("squared_error", dict(max_leaf_nodes=12, min_samples_leaf=5)),
    ("absolute_error", dict(max_leaf_nodes=8, min_samples_leaf=10)),
    ("poisson", dict(max_depth=4, min_weight_fraction_leaf=0.03)),
    ("gini", dict(max_leaf_nodes=9, class_weight="balanced", min_samples_leaf=0.01)),
]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("criterion, params", PARAMETER_CASES, ids=[f"{c}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for c, p in PARAMETER_CASES])
def test_parameters_grow_sklearns_tree(criterion, params, weighted):
    X, y, w, X_new, theirs = seed_free_problem(criterion, weighted, params, first_seed=1000 + 7 * len(str(params)))
    ours = ours_tree(criterion, **params).fit(X, y, sample_weight=w)
    assert_same_tree(ours, theirs, X_new, ties_allowed=criterion == "absolute_error")
    if "max_leaf_nodes" in params: assert ours.get_n_leaves() <= params["max_leaf_nodes"]


def test_class_weight_is_a_sample_weight_times_sklearns_class_weights():
    "class_weight multiplies scikit-learn's `compute_sample_weight` into sample_weight: the same tree either way."
    X, y, w, X_new, _ = seed_free_problem("gini", True, dict(max_depth=4), first_seed=3)
    for class_weight in ({0: 2.0, 1: 1.0, 2: 0.25}, "balanced"):
        by_class = DecisionTreeClassifier(max_depth=4, class_weight=class_weight).fit(X, y, sample_weight=w)
        by_rows = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=w * compute_sample_weight(class_weight, y))
        np.testing.assert_array_equal(by_class.apply(X_new), by_rows.apply(X_new))
        np.testing.assert_allclose(by_class.tree_.value, by_rows.tree_.value)


def test_every_algorithm_matches_sklearn():
    X, y, w, X_new, theirs = seed_free_problem("gini", True, dict(max_depth=3, min_samples_leaf=10), first_seed=7)
    for algorithm in ALGORITHMS:
        ours = DecisionTreeClassifier(max_depth=3, min_samples_leaf=10, algorithm=algorithm).fit(X, y, sample_weight=w)
        np.testing.assert_array_equal(ours.apply(X_new), theirs.apply(X_new))
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-9)


def test_string_labels_and_frames_match_sklearn():
    import pandas as pd
    X, y, w, X_new, theirs = seed_free_problem("entropy", False, dict(max_depth=4, min_samples_leaf=20), first_seed=40)
    names = np.array(["low", "mid", "high"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    ours = DecisionTreeClassifier(criterion="entropy", max_depth=4, min_samples_leaf=20).fit(frame, names)
    np.testing.assert_array_equal(ours.predict(pd.DataFrame(X_new, columns=frame.columns)),
                                  np.array(["low", "mid", "high"])[theirs.predict(X_new)])
    np.testing.assert_array_equal(ours.feature_names_in_, frame.columns)


def test_the_tree_answers_sklearns_tree_queries():
    "`tree_` has scikit-learn's `tree_` sizes and queries, with the same answers on the same tree."
    X, y, w, X_new, theirs = seed_free_problem("gini", False, dict(max_depth=4, min_samples_leaf=10), first_seed=11)
    ours = DecisionTreeClassifier(max_depth=4, min_samples_leaf=10).fit(X, y)
    mine, sk = ours.tree_, theirs.tree_
    for name in ("n_features", "n_outputs", "max_n_classes", "node_count", "max_depth", "n_leaves"):
        assert getattr(mine, name) == getattr(sk, name), name
    np.testing.assert_array_equal(mine.n_classes, sk.n_classes)
    assert mine.capacity >= mine.node_count
    X32 = X_new.astype(np.float32)
    np.testing.assert_array_equal(mine.apply(X_new), sk.apply(X32))
    np.testing.assert_array_equal(mine.apply(X_new), ours.apply(X_new))
    np.testing.assert_array_equal(mine.decision_path(X_new).toarray(), sk.decision_path(X32).toarray())
    np.testing.assert_allclose(mine.predict(X_new), sk.predict(X32), rtol=1e-9)
    np.testing.assert_array_equal(mine.compute_node_depths(), sk.compute_node_depths())             # both in pre-order here
    np.testing.assert_array_equal(mine.missing_go_to_left[~mine.is_leaf], sk.missing_go_to_left[sk.children_left != -1])
    assert mine.value.shape == sk.value.shape and mine.missing_go_to_left.dtype == sk.missing_go_to_left.dtype
    reg = DecisionTreeRegressor(max_depth=3).fit(X, y.astype(float))
    sk_reg = sktree.DecisionTreeRegressor(max_depth=3).fit(X, y.astype(float))
    assert (reg.tree_.n_outputs, list(reg.tree_.n_classes), reg.tree_.max_n_classes) == (1, list(sk_reg.tree_.n_classes), 1)
