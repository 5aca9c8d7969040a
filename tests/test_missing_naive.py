"""Chapter 4's missing values against scikit-learn 1.9: the naive grower's tree is scikit-learn's.

scikit-learn stores X as float32 and visits the features of a node in a random order, keeping the
first of equal splits. So the data here are float32-exact normal columns with distinct values
(no ties within a column), and holes missing completely at random (10-30% of the values).
- Depth-limited trees (`min_samples_leaf` > 1) are compared exactly, on the problems where
  scikit-learn grows one and the same tree for several `random_state`s and where, at each of its
  splits, one candidate alone (feature, threshold, missing side) is best within the tie tolerance
  (other problems have a tie, which scikit-learn's feature order or rounding breaks, and are
  skipped): structure, features, thresholds bit for bit, the side missing
  values go (`tree_.missing_go_to_left` against `default_left`) at every internal node, values,
  impurities, counts and weights; then the leaves new rows with holes reach, and the predictions.
- Full trees with scikit-learn's default parameters end in nodes of two or three rows that every
  feature separates alike: they are compared up to such ties (walking both trees on the same rows:
  the same statistics at every node reached, and at every split the same rule, or a different one
  with the same impurity on the node's rows, below which the trees may differ; scikit-learn also
  splits pure nodes whose Gini impurity rounds to 3e-16, where ours are leaves).
- Trees fitted on complete data, with holes only in the rows to predict: missing values go to the
  child with more training samples, a tie to the right, as in scikit-learn.
- Hand-made cases: a column whose known values are all equal (its only cut is known | missing,
  threshold +inf) and a feature missing at every row of a node (never split on there)."""
import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees.impurity import split_impurity
from climbing_trees.tree import Split, default_side
from climbing_trees.naive import TIE_TOLERANCE, best_split, naive_column_split, naive_split_curve, node_summary
from climbing_trees.growth import grow_tree
from strategies import float32_exact

SEEDS = range(6)            # scikit-learn's random_state values that must all grow the same tree
DEPTH_LIMITED = (dict(max_depth=4, min_samples_leaf=5), dict(max_depth=6, min_samples_leaf=3))


def holes_problem(seed, criterion, weighted, holes=True):
    "X (float32-exact, distinct values per column) with MCAR holes, y for `criterion`, weights or None, new rows with holes."
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(60, 201)), int(rng.integers(3, 5))
    X = float32_exact(rng, (n, d))
    assert all(len(np.unique(X[:, j])) == n for j in range(d))
    Z = 4 * X - 2
    signal = Z[:, 0] + 0.8 * np.sin(2 * Z[:, 1]) + 0.5 * Z[:, 2] ** 2
    if criterion == "gini": y = np.digitize(signal + 0.4 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))
    else: y = signal + 0.3 * rng.normal(size=n)
    if holes: X[rng.random(X.shape) < rng.uniform(0.1, 0.3)] = np.nan
    w = rng.uniform(0.5, 3.0, n) if weighted else None
    X_new = float32_exact(rng, (300, d))
    X_new[rng.random(X_new.shape) < 0.2] = np.nan
    return X, y, w, X_new


def sklearn_fit(criterion, X, y, w, random_state=0, **params):
    cls = sktree.DecisionTreeClassifier if criterion == "gini" else sktree.DecisionTreeRegressor
    return cls(criterion=criterion, random_state=random_state, **params).fit(X, y, sample_weight=w)


def ours_fit(criterion, X, y, w, **params):
    return grow_tree(X, y, criterion, w, int(y.max()) + 1 if criterion == "gini" else None, **params)


def same_rules(a, b):
    return all(np.array_equal(getattr(a, name), getattr(b, name))
               for name in ("children_left", "children_right", "feature", "threshold", "missing_go_to_left"))


def seed_free_problems(criterion, weighted, params, count, holes=True, first_seed=0):
    "The first `count` problems on which scikit-learn grows the same tree for every random_state in SEEDS."
    found = []
    for seed in range(first_seed, first_seed + 80):
        X, y, w, X_new = holes_problem(seed, criterion, weighted, holes)
        fits = [sklearn_fit(criterion, X, y, w, s, **params) for s in SEEDS]
        if all(same_rules(f.tree_, fits[0].tree_) for f in fits[1:]) and tie_free(fits[0].tree_, X, y, w, criterion, params.get("min_samples_leaf", 1)):
            found.append((X, y, w, X_new, fits[0]))
        if len(found) == count: return found
    pytest.fail(f"only {len(found)} tie-free problems among 80 seeds for {criterion}, weighted={weighted}, {params}")


def node_rows(tree, X):
    "The training rows of every node of a tree (ours or scikit-learn's), routed by its own rules."
    missing_left = getattr(tree, "default_left", None)
    missing_left = tree.missing_go_to_left.astype(bool) if missing_left is None else missing_left
    rows_of, stack = {}, [(0, np.arange(len(X)))]
    while stack:
        t, rows = stack.pop()
        rows_of[t] = rows
        if tree.children_left[t] == -1: continue
        x = X[rows, tree.feature[t]]
        left = (x <= tree.threshold[t]) | (np.isnan(x) & missing_left[t])
        stack += [(tree.children_left[t], rows[left]), (tree.children_right[t], rows[~left])]
    return rows_of


def tie_free(tree, X, y, w, criterion, min_samples_leaf):
    "Whether at every split of scikit-learn's `tree` one candidate alone (feature, threshold, missing side) is best within the tie tolerance."
    w = np.ones(len(y)) if w is None else w
    K = 3 if criterion == "gini" else None
    for t, rows in node_rows(tree, X).items():
        if tree.children_left[t] == -1: continue
        values = np.concatenate([naive_split_curve(X[rows, j], y[rows], w[rows], criterion, K, min_samples_leaf, missing_left=side)[1]
                                 for j in range(X.shape[1])
                                 for side in ((False, True) if np.isnan(X[rows, j]).any() else (False,))])
        scale = node_summary(y[rows], w[rows], criterion, K)[1]
        if (values <= values.min() + 2 * TIE_TOLERANCE * scale).sum() > 1: return False
    return True


def leaves(tree, X):
    "The leaf each row of X reaches in our Tree: x <= threshold goes left, NaN follows default_left."
    node = np.zeros(len(X), dtype=np.intp)
    for _ in range(tree.max_depth):
        rows = np.flatnonzero(~tree.is_leaf[node])
        t = node[rows]
        x = X[rows, tree.feature[t]]
        left = (x <= tree.threshold[t]) | (np.isnan(x) & tree.default_left[t])
        node[rows] = np.where(left, tree.children_left[t], tree.children_right[t])
    return node


def assert_same_tree(ours, theirs):
    "Our Tree and scikit-learn's fitted tree_ node for node, missing sides included."
    assert ours.node_count == theirs.node_count
    np.testing.assert_array_equal(ours.children_left, theirs.children_left)
    np.testing.assert_array_equal(ours.children_right, theirs.children_right)
    inner = ~ours.is_leaf
    np.testing.assert_array_equal(ours.feature[inner], theirs.feature[inner])
    np.testing.assert_array_equal(ours.threshold[inner], theirs.threshold[inner])                 # bit for bit, inf included
    np.testing.assert_array_equal(ours.default_left[inner], theirs.missing_go_to_left[inner].astype(bool))
    np.testing.assert_allclose(ours.value, theirs.value[:, 0, :], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.impurity, theirs.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.n_node_samples, theirs.n_node_samples)
    np.testing.assert_allclose(ours.weighted_n_node_samples, theirs.weighted_n_node_samples, rtol=1e-12)


def assert_same_predictions(ours, fitted, X_new, criterion):
    "New rows with holes reach the same leaves, and get the same predictions."
    np.testing.assert_array_equal(leaves(ours, X_new), fitted.apply(X_new))
    theirs = fitted.predict_proba(X_new) if criterion == "gini" else fitted.predict(X_new)[:, None]
    np.testing.assert_allclose(ours.value[leaves(ours, X_new)], theirs, rtol=1e-9, atol=1e-12)


CASES = [(c, weighted, params) for c in ("gini", "squared_error") for weighted in (False, True) for params in DEPTH_LIMITED]


@pytest.mark.parametrize("criterion, weighted, params", CASES,
                         ids=[f"{c}-{'weighted' if w else 'unweighted'}-depth{p['max_depth']}" for c, w, p in CASES])
def test_same_tree_as_sklearn_with_holes(criterion, weighted, params):
    kinds = np.zeros(3, int)                # splits with the known | missing cut, missing values left, missing values right
    for X, y, w, X_new, fitted in seed_free_problems(criterion, weighted, params, count=3, first_seed=17 * params["max_depth"]):
        ours = ours_fit(criterion, X, y, w, **params)
        assert_same_tree(ours, fitted.tree_)
        assert_same_predictions(ours, fitted, X_new, criterion)
        inner = ~ours.is_leaf
        kinds += [np.isinf(ours.threshold[inner]).sum(), ours.default_left[inner].sum(), (~ours.default_left[inner]).sum()]
    assert kinds[1] > 0 and kinds[2] > 0, kinds          # both sides were learned somewhere


def test_the_known_missing_cut_is_found_on_the_depth_limited_problems():
    "Across the exact comparisons some split is the known | missing cut (threshold +inf), so that case is compared too."
    found = 0
    for criterion in ("gini", "squared_error"):
        for X, y, w, _, fitted in seed_free_problems(criterion, True, DEPTH_LIMITED[1], count=3, first_seed=102):
            found += int(np.isinf(ours_fit(criterion, X, y, w, **DEPTH_LIMITED[1]).threshold).sum())
    assert found > 0


def training_rows_left(tree, t, X, rows, missing_left):
    x = X[rows, tree.feature[t]]
    return (x <= tree.threshold[t]) | (np.isnan(x) & missing_left)


def assert_same_tree_up_to_ties(ours, theirs, X, y, w, criterion):
    """Walk both trees together from the root, on the same training rows: equal statistics at every node reached, and at each
    split the same rule (feature, threshold, missing side), or a different one that is a tie (the same i(s) on the node's
    rows), below which the trees may differ. Returns how many splits agreed and how many were ties."""
    w = np.ones(len(y)) if w is None else w
    K = int(y.max()) + 1 if criterion == "gini" else None
    same = ties = 0
    stack = [(0, 0, np.arange(len(X)))]
    while stack:
        a, b, rows = stack.pop()
        assert ours.n_node_samples[a] == theirs.n_node_samples[b] == len(rows)
        np.testing.assert_allclose(ours.weighted_n_node_samples[a], theirs.weighted_n_node_samples[b], rtol=1e-12)
        np.testing.assert_allclose(ours.value[a], theirs.value[b, 0], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ours.impurity[a], theirs.impurity[b], rtol=1e-9, atol=1e-9)
        if ours.is_leaf[a] and ours.impurity[a] == 0 and theirs.impurity[b] < 1e-12: continue   # scikit-learn splits a pure
        assert ours.is_leaf[a] == (theirs.children_left[b] == -1), (a, b)      # node whose Gini rounds to 3e-16; we do not
        if ours.is_leaf[a]: continue
        left = training_rows_left(ours, a, X, rows, ours.default_left[a])
        if (ours.feature[a], ours.threshold[a], bool(ours.default_left[a])) == \
           (theirs.feature[b], theirs.threshold[b], bool(theirs.missing_go_to_left[b])):
            same += 1
            stack += [(ours.children_left[a], theirs.children_left[b], rows[left]),
                      (ours.children_right[a], theirs.children_right[b], rows[~left])]
            continue
        their_left = training_rows_left(theirs, b, X, rows, bool(theirs.missing_go_to_left[b]))
        mine, theirs_i = (split_impurity(y[rows], side, criterion, K, w[rows]) for side in (left, their_left))
        assert abs(mine - theirs_i) <= 2 * TIE_TOLERANCE * ours.impurity[a] + 1e-15, (a, mine, theirs_i)
        ties += 1
    return same, ties


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("weighted", [False, True])
def test_full_trees_with_default_parameters_are_sklearns_up_to_ties(criterion, weighted):
    same = ties = 0
    for seed in range(4):
        X, y, w, _ = holes_problem(100 + seed, criterion, weighted)
        s, t = assert_same_tree_up_to_ties(ours_fit(criterion, X, y, w), sklearn_fit(criterion, X, y, w).tree_, X, y, w, criterion)
        same, ties = same + s, ties + t
    assert same > 2 * ties, (same, ties)           # ties are the exception, in small nodes


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
@pytest.mark.parametrize("weighted", [False, True])
def test_holes_only_at_predict_follow_the_child_with_more_samples(criterion, weighted):
    for X, y, w, X_new, fitted in seed_free_problems(criterion, weighted, DEPTH_LIMITED[1], count=2, holes=False, first_seed=300):
        ours = ours_fit(criterion, X, y, w, **DEPTH_LIMITED[1])
        assert_same_tree(ours, fitted.tree_)
        inner = ~ours.is_leaf
        n_left, n_right = ours.n_node_samples[ours.children_left[inner]], ours.n_node_samples[ours.children_right[inner]]
        np.testing.assert_array_equal(ours.default_left[inner], default_side(n_left, n_right))
        assert_same_predictions(ours, fitted, X_new, criterion)


def test_a_column_known_only_as_one_value_splits_known_from_missing():
    X = np.array([[1.], [1.], [1.], [np.nan], [np.nan], [np.nan], [1.]])
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    for criterion, target in (("gini", y), ("squared_error", y * 2.5)):
        ours, theirs = ours_fit(criterion, X, target, None), sklearn_fit(criterion, X, target, None).tree_
        assert (ours.threshold[0], bool(ours.default_left[0])) == (np.inf, False)
        assert_same_tree(ours, theirs)
    split = naive_column_split(X[:, 0], y, np.ones(7), "gini", 2)
    assert (split.threshold, split.default_left) == (np.inf, False)
    assert naive_column_split(X[:, 0], y, np.ones(7), "gini", 2, min_samples_leaf=4) is None     # 4 known, 3 missing


def test_a_feature_missing_at_every_row_of_a_node_is_not_split_on_there():
    rng = np.random.default_rng(5)
    n = 80
    X = float32_exact(rng, (n, 2))
    y = np.where(X[:, 1] <= 0.5, (X[:, 0] > 0.5).astype(int), (X[:, 1] > 0.75).astype(int))
    X[X[:, 1] > 0.5, 0] = np.nan                                 # x0 is known only where x1 <= 0.5
    X[rng.random(n) < 0.1, 1] = np.nan                           # and x1 has a few holes of its own
    for w in (None, rng.uniform(0.5, 2.0, n)):
        ours = ours_fit("gini", X, y, w)
        rows_of = {0: np.arange(n)}
        for t in range(ours.node_count):
            if ours.is_leaf[t]: continue
            rows = rows_of[t]
            if np.isnan(X[rows, 0]).all(): assert ours.feature[t] == 1, t
            left = training_rows_left(ours, t, X, rows, ours.default_left[t])
            rows_of[ours.children_left[t]], rows_of[ours.children_right[t]] = rows[left], rows[~left]
        assert any(np.isnan(X[rows_of[t], 0]).all() and not ours.is_leaf[t] for t in rows_of)   # such a node was split
        assert_same_tree_up_to_ties(ours, sklearn_fit("gini", X, y, w).tree_, X, y, w, "gini")
    all_missing = np.column_stack([np.full(6, np.nan), [1., 2., 3., 4., 5., 6.]])
    assert best_split(all_missing, np.array([0, 0, 0, 1, 1, 1]), np.ones(6), "gini", 2).feature == 1


def test_infinity_is_refused_and_nan_accepted():
    X = np.array([[0.], [1.], [np.nan], [2.]])
    grow_tree(X, np.array([0, 1, 0, 1]), "gini", n_classes=2)
    with pytest.raises(ValueError, match="NaN"):
        grow_tree(np.array([[0.], [np.inf]]), np.array([0, 1]), "gini", n_classes=2)
