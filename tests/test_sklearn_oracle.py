"""scikit-learn as the oracle for chapter 08's estimators: on numeric data without ties, the same tree.

scikit-learn stores X as float32 and visits the features in a random order, keeping the first of
equal splits; so the data here are float32-exact, and each problem is accepted only if scikit-learn
grows one and the same tree for several `random_state`s (a tie between features would show as a
tree that depends on the seed; such data are regenerated with the next seed). Then the two trees
must agree node for node: structure, features, thresholds (bit for bit), values, impurities,
counts and weights; leaf numbers, predictions and probabilities on new data; importances to 1e-9."""
import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees.estimators import ALGORITHMS, DecisionTreeClassifier, DecisionTreeRegressor

SEEDS = range(4)            # scikit-learn's random_state values that must all grow the same tree


def float32_exact(rng, shape):
    "Uniform random numbers that float32 represents exactly, as float64."
    return rng.random(shape).astype(np.float32).astype(np.float64)


def problem(criterion, seed, weighted, n=600, d=5):
    "X (float32-exact, distinct values per column), a target for `criterion`, weights or None, and new rows; None if a value repeats."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, d))
    if any(len(np.unique(X[:, j])) < n for j in range(d)): return None       # ties in X: regenerate
    signal = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2
    if criterion == "squared_error": y = signal + 0.2 * rng.normal(size=n)
    else: y = np.digitize(signal + 0.3 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))   # three classes
    w = rng.uniform(0.5, 3.0, n) if weighted else None
    return X, y, w, float32_exact(rng, (2000, d))


def sklearn_tree(criterion, random_state, **params):
    cls = sktree.DecisionTreeRegressor if criterion == "squared_error" else sktree.DecisionTreeClassifier
    return cls(criterion=criterion, random_state=random_state, **params)


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


CASES = [(criterion, weighted, params)
         for criterion in ("gini", "entropy", "squared_error")
         for weighted in (False, True)
         for params in (dict(max_depth=3, min_samples_leaf=10), dict(max_depth=5, min_samples_leaf=15), dict(max_depth=4, min_samples_leaf=20))]


@pytest.mark.parametrize("criterion, weighted, params", CASES, ids=[f"{c}-{'weighted' if w else 'unweighted'}-depth{p['max_depth']}-leaf{p['min_samples_leaf']}" for c, w, p in CASES])
def test_same_tree_as_sklearn(criterion, weighted, params):
    X, y, w, X_new, theirs = seed_free_problem(criterion, weighted, params, first_seed=100 * params["max_depth"])
    ours_cls = DecisionTreeRegressor if criterion == "squared_error" else DecisionTreeClassifier
    ours = ours_cls(criterion=criterion, **params).fit(X, y, sample_weight=w)
    sk, mine = theirs.tree_, ours.tree_

    assert ours.get_n_leaves() == theirs.get_n_leaves() and ours.get_depth() == theirs.get_depth()
    np.testing.assert_array_equal(mine.children_left, sk.children_left)
    np.testing.assert_array_equal(mine.children_right, sk.children_right)
    internal = sk.children_left != -1
    np.testing.assert_array_equal(mine.feature[internal], sk.feature[internal])
    np.testing.assert_array_equal(mine.threshold[internal], sk.threshold[internal])      # bit for bit
    np.testing.assert_array_equal(mine.n_node_samples, sk.n_node_samples)
    np.testing.assert_allclose(mine.weighted_n_node_samples, sk.weighted_n_node_samples, rtol=1e-12)
    np.testing.assert_allclose(mine.value, sk.value[:, 0, :], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mine.impurity, sk.impurity, rtol=1e-9, atol=1e-12 * max(1.0, sk.impurity[0]))

    np.testing.assert_array_equal(ours.apply(X_new), theirs.apply(X_new))
    if criterion == "squared_error":
        np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
        np.testing.assert_allclose(ours.predict_proba(X_new), theirs.predict_proba(X_new), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-9)
    assert ours.get_n_leaves() >= 4                                  # a tree worth comparing


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
