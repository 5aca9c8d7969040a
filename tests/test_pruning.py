"""Chapter 14 (pruning) against scikit-learn, and its edge cases; then chapter 17's cross-validation of alpha.

scikit-learn is the oracle for the weakest-link path. Its path lists one alpha per cut node (a tie
between two links shows as the same alpha twice), ours one entry per distinct alpha (all tied links
cut at once, as Breiman et al. define the sequence), so scikit-learn's path is merged into distinct
steps before comparing: the first alpha of each run of equal alphas, and the impurity after the run.

The trees must be the same in both libraries. As in tests/test_sklearn_oracle.py the data are
float32-exact without repeated values; a problem is used only if scikit-learn grows one and the same
tree for several random_states (a tie between features, decided by its random feature order, would
show as trees that differ) and our tree is that tree; otherwise the next seed is drawn. Unweighted
classification needs larger leaves (equal class counts tie often in small nodes); weighted data get a
tiny min_impurity_decrease, so that neither library splits a pure node whose weighted impurity is
rounding noise (about 1e-15).

Our trees are grown by chapter 8's level-wise grower and pruned by chapter 14's functions directly;
the last sections go through chapter 16's estimators (imported inside the tests that need them).
"""
import numpy as np
import pytest
from sklearn import tree as sktree

from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.tree import Tree, tree_differences
from climbing_trees.naive import TIE_TOLERANCE
from climbing_trees.pruning import PruningPath, cost_complexity_path, effective_alphas, node_risk, prune, subtree_totals
from strategies import float32_exact

SEEDS = range(4)            # scikit-learn random_states that must all grow the same tree


def problem(criterion, seed, weighted, n):
    "X (float32-exact, distinct values per column), a target for `criterion` and weights (or None); None if a value repeats."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, 5))
    if any(len(np.unique(X[:, j])) < n for j in range(X.shape[1])): return None
    signal = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2
    if criterion == "squared_error": y = signal + 0.2 * rng.normal(size=n)
    else: y = np.digitize(signal + 0.3 * rng.normal(size=n), np.quantile(signal, [0.35, 0.7]))   # three classes
    return X, y, (rng.uniform(0.5, 3.0, n) if weighted else None)


def grow(X, y, criterion, sample_weight=None, **params):
    "Our tree, grown level-wise (class codes 0..K-1 for a classifier)."
    n_classes = None if criterion == "squared_error" else int(np.max(y)) + 1
    return grow_levelwise(X, y, criterion, sample_weight, n_classes, **params)


def sklearn_class(criterion):
    return sktree.DecisionTreeRegressor if criterion == "squared_error" else sktree.DecisionTreeClassifier


def same_tree(a, b):
    "Whether two trees (ours or scikit-learn's `tree_`) have the same nodes: structure, splits, counts, weights, impurities."
    return (a.node_count == b.node_count and np.array_equal(a.children_left, b.children_left)
            and np.array_equal(a.children_right, b.children_right) and np.array_equal(a.threshold, b.threshold)
            and np.array_equal(a.n_node_samples, b.n_node_samples)
            and np.allclose(a.weighted_n_node_samples, b.weighted_n_node_samples, rtol=1e-12)
            and np.allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12))


def shared_problem(criterion, weighted, params, first_seed):
    "The first problem from `first_seed` on that scikit-learn grows one way for every seed in SEEDS, and that we grow the same way."
    theirs_cls = sklearn_class(criterion)
    for seed in range(first_seed, first_seed + 60):
        drawn = problem(criterion, seed, weighted, params["n"])
        if drawn is None: continue
        X, y, w = drawn
        tree_params = {k: v for k, v in params.items() if k != "n"}
        theirs = [theirs_cls(criterion=criterion, random_state=s, **tree_params).fit(X, y, sample_weight=w) for s in SEEDS]
        if not all(same_tree(t.tree_, theirs[0].tree_) for t in theirs[1:]): continue
        ours = grow(X, y, criterion, w, **tree_params)
        if same_tree(ours, theirs[0].tree_): return X, y, w, ours, theirs[0], tree_params
    pytest.fail(f"no problem among 60 seeds on which both libraries grow one tree: {criterion}, weighted={weighted}, {params}")


def distinct_steps(ccp_alphas, impurities, tolerance):
    "scikit-learn's path (one alpha per cut node) merged into one entry per distinct alpha: first alpha, impurity after the last cut."
    alphas, risks = [], []
    for a, r in zip(ccp_alphas, impurities):
        if alphas and a <= alphas[-1] + tolerance: risks[-1] = r
        else: alphas.append(a); risks.append(r)
    return np.array(alphas), np.array(risks)


PARAMS = {False: dict(n=400, min_samples_leaf=10), True: dict(n=600, min_samples_leaf=5, min_impurity_decrease=1e-12)}
CASES = [(criterion, weighted) for criterion in ("gini", "entropy", "squared_error") for weighted in (False, True)]
REGRESSION = dict(n=600, min_samples_leaf=5)


def case_params(criterion, weighted):
    return REGRESSION if criterion == "squared_error" else PARAMS[weighted]


@pytest.fixture(scope="module", params=CASES, ids=[f"{c}-{'weighted' if w else 'unweighted'}" for c, w in CASES])
def shared(request):
    criterion, weighted = request.param
    return (criterion,) + shared_problem(criterion, weighted, case_params(criterion, weighted), first_seed=0)


# ---- the path and the pruned trees against scikit-learn's

def test_path_equals_sklearn(shared):
    criterion, X, y, w, ours, theirs, _ = shared
    path = cost_complexity_path(ours)
    sk = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
    sk_alphas, sk_risks = distinct_steps(sk.ccp_alphas, sk.impurities, TIE_TOLERANCE * sk.impurities[-1])
    assert len(path.ccp_alphas) == len(sk_alphas) > 5
    np.testing.assert_allclose(path.ccp_alphas, sk_alphas, rtol=1e-7, atol=1e-15)
    np.testing.assert_allclose(path.impurities, sk_risks, rtol=1e-7, atol=1e-15)
    assert path.ccp_alphas[0] == 0 and np.all(np.diff(path.ccp_alphas) > 0)


def test_pruned_trees_equal_sklearn(shared):
    "Pruned at alphas of scikit-learn's path, and between them, both libraries keep the same leaves; a few whole trees compared."
    criterion, X, y, w, ours, theirs, params = shared
    sk = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
    alphas = np.unique(sk.ccp_alphas[sk.ccp_alphas > 0])
    between = np.sqrt(alphas[:-1] * alphas[1:])
    for a in np.concatenate([alphas, between]):
        sk_tree = sklearn_class(criterion)(criterion=criterion, ccp_alpha=a, random_state=0, **params).fit(X, y, sample_weight=w).tree_
        pruned = prune(ours, a)
        assert pruned.n_leaves == sk_tree.n_leaves, f"alpha={a!r}"
        assert np.array_equal(pruned.threshold[~pruned.is_leaf], sk_tree.threshold[sk_tree.children_left >= 0]), f"alpha={a!r}"
    for a in list(alphas[:: max(1, len(alphas) // 3)]) + [between[len(between) // 2]]:
        sk_tree = sklearn_class(criterion)(criterion=criterion, ccp_alpha=a, random_state=0, **params).fit(X, y, sample_weight=w).tree_
        assert same_tree(prune(ours, a), sk_tree), f"alpha={a!r}"


# ---- a tree small enough to check by hand (chapter 14's ten samples)

X_HAND = np.arange(1, 11, dtype=float)[:, None]
Y_HAND = np.array([0, 0, 0, 1, 1, 0, 1, 1, 1, 1])


def hand_tree(y=Y_HAND):
    return grow_levelwise(X_HAND, np.asarray(y), "gini", n_classes=2)


def test_hand_checked_tree():
    tree = hand_tree()
    np.testing.assert_array_equal(tree.children_left, [1, -1, 3, 4, -1, -1, -1])
    risk = node_risk(tree)
    np.testing.assert_allclose(risk, [0.48, 0, 6 / 35, 2 / 15, 0, 0, 0], atol=1e-15)
    branch_risk, n_leaves = subtree_totals(tree, risk)
    np.testing.assert_array_equal(n_leaves, [4, 1, 3, 2, 1, 1, 1]); np.testing.assert_allclose(branch_risk, 0, atol=1e-15)
    g = effective_alphas(tree, risk)
    np.testing.assert_allclose(g[[0, 2, 3]], [0.16, 3 / 35, 2 / 15], rtol=1e-12)
    path = cost_complexity_path(tree)
    assert isinstance(path, PruningPath)
    np.testing.assert_allclose(path.ccp_alphas, [0, 3 / 35, 54 / 175], rtol=1e-12)
    np.testing.assert_allclose(path.impurities, [0, 6 / 35, 0.48], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(path.n_leaves, [4, 2, 1])
    np.testing.assert_allclose(path.node_alpha[[0, 2, 3]], [54 / 175, 3 / 35, 3 / 35], rtol=1e-12)
    assert prune(tree, 0.1).n_leaves == 2 and prune(tree, 0.05).n_leaves == 4 and prune(tree, 0.31).n_leaves == 1


def test_pruned_tree_is_a_tree_with_the_kept_nodes():
    tree = hand_tree()
    pruned = prune(tree, 0.1)
    assert isinstance(pruned, Tree)
    np.testing.assert_array_equal(pruned.children_left, [1, -1, -1]); np.testing.assert_array_equal(pruned.feature, [0, -2, -2])
    np.testing.assert_array_equal(pruned.value, tree.value[[0, 1, 2]])       # node 2 keeps its class proportions as a leaf
    np.testing.assert_array_equal(pruned.weighted_n_node_samples, [10, 3, 7])
    assert tree.node_count == 7                                               # the grown tree is left alone


def test_ties_are_cut_together():
    path = cost_complexity_path(hand_tree([0, 0, 1, 0, 0, 1, 1, 0, 1, 1]))
    np.testing.assert_allclose(path.ccp_alphas, [0, 0.08, 0.18], rtol=1e-12)
    np.testing.assert_array_equal(path.n_leaves, [6, 2, 1])


def test_misclassification_path_counts_errors():
    tree = hand_tree()
    path = cost_complexity_path(tree, "misclassification")
    # errors: root 4 of 10; node 2 (one 0 among seven) 1; node 3 (one 0 among three) 1; leaves 0
    # g(2) = (0.1 - 0) / 2 = 0.05, g(3) = 0.1, g(0) = 0.4 / 3; then the root: (0.4 - 0.1) / 1 = 0.3
    np.testing.assert_allclose(path.ccp_alphas, [0, 0.05, 0.3], rtol=1e-12)
    np.testing.assert_allclose(path.impurities, [0, 0.1, 0.4], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="class proportions"):
        cost_complexity_path(grow_levelwise(X_HAND, Y_HAND * 3.0, "squared_error"), "misclassification")
    with pytest.raises(ValueError, match="unknown impurity"):
        node_risk(tree, "error")


def test_prune_at_zero_keeps_a_tree_whose_splits_all_pay():
    X, y, _ = problem("gini", 1, False, 300)
    tree = grow(X, y, "gini")
    assert np.nanmin(effective_alphas(tree, node_risk(tree))) > 0
    assert tree_differences(prune(tree, 0.0), tree) == []


def test_huge_ccp_alpha_leaves_the_root():
    X, y, w = problem("squared_error", 2, True, 300)
    tree = grow(X, y, "squared_error", w)
    root = prune(tree, 1e6)
    assert root.n_leaves == 1 and root.node_count == 1 and root.max_depth == 0
    np.testing.assert_allclose(root.value[0, 0], np.average(y, weights=w))
    assert prune(tree, np.inf).n_leaves == 1


def test_path_of_a_lone_leaf():
    tree = hand_tree(np.ones(10, int))
    path = cost_complexity_path(tree)
    np.testing.assert_array_equal(path.ccp_alphas, [0.0]); np.testing.assert_array_equal(path.n_leaves, [1])
    assert prune(tree, 0.5).node_count == 1


@pytest.mark.parametrize("alpha, error, message", [(-0.01, ValueError, "ccp_alpha"), (np.nan, ValueError, "ccp_alpha"),
                                                    ("0.1", TypeError, "ccp_alpha"), (True, TypeError, "ccp_alpha")])
def test_bad_ccp_alpha_is_rejected(alpha, error, message):
    with pytest.raises(error, match=message):
        prune(hand_tree(), alpha)


def test_not_a_tree_is_rejected():
    sk_tree = sktree.DecisionTreeClassifier(random_state=0).fit(X_HAND, Y_HAND).tree_
    for bad in (sk_tree, sktree.DecisionTreeClassifier(), None):
        with pytest.raises(TypeError, match="expects a climbing_trees Tree"):
            cost_complexity_path(bad)
    with pytest.raises(TypeError, match="expects a climbing_trees Tree"):
        prune(sk_tree, 0.1)


def test_what_the_estimators_call():
    "Chapter 16's estimators call prune(tree, ccp_alpha) and read ccp_alphas and impurities of cost_complexity_path(tree)."
    tree = hand_tree()
    path = cost_complexity_path(tree)
    np.testing.assert_allclose(path.ccp_alphas, [0, 3 / 35, 54 / 175], rtol=1e-12)
    np.testing.assert_allclose(path.impurities, [0, 6 / 35, 0.48], rtol=1e-12, atol=1e-15)
    assert prune(tree, 3 / 35).n_leaves == 2


def test_path_is_monotone_and_nested_on_random_trees():
    for seed in range(5):
        X, y, w = problem("entropy", seed, seed % 2 == 1, 300)
        tree = grow(X, y, "entropy", w)
        path = cost_complexity_path(tree)
        assert np.all(np.diff(path.ccp_alphas) > 0) and np.all(np.diff(path.n_leaves) < 0) and path.n_leaves[-1] == 1
        inner = np.flatnonzero(~tree.is_leaf)
        for t in inner:                                               # a child never outlives its parent
            for child in (tree.children_left[t], tree.children_right[t]):
                if not tree.is_leaf[child]: assert path.node_alpha[child] <= path.node_alpha[t]
        for a, n in zip(path.ccp_alphas, path.n_leaves):              # T(alpha_k) has the path's leaf count
            assert prune(tree, a).n_leaves == n


# ---- through chapter 16's estimators: ccp_alpha and cost_complexity_pruning_path call chapter 14

def test_estimators_prune_as_prune_does(shared):
    from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
    criterion, X, y, w, ours, theirs, params = shared
    estimator = DecisionTreeRegressor if criterion == "squared_error" else DecisionTreeClassifier
    path = estimator(criterion=criterion, **params).cost_complexity_pruning_path(X, y, sample_weight=w)
    np.testing.assert_allclose(path.ccp_alphas, cost_complexity_path(ours).ccp_alphas, rtol=1e-12)
    np.testing.assert_allclose(path.impurities, cost_complexity_path(ours).impurities, rtol=1e-12, atol=1e-15)
    sk = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
    alphas = np.unique(sk.ccp_alphas[sk.ccp_alphas > 0])
    for a in list(alphas[:: max(1, len(alphas) // 3)]):
        model = estimator(criterion=criterion, ccp_alpha=a, **params).fit(X, y, sample_weight=w)
        assert same_tree(model.tree_, prune(ours, a)), f"alpha={a!r}"


def test_estimators_ccp_alpha_zero_and_bad_values():
    from climbing_trees.tree_estimators import DecisionTreeClassifier
    X, y, _ = problem("gini", 1, False, 300)
    grown = DecisionTreeClassifier().fit(X, y)
    also = DecisionTreeClassifier(ccp_alpha=0.0).fit(X, y)
    assert same_tree(grown.tree_, also.tree_)
    np.testing.assert_array_equal(grown.predict(X), also.predict(X))
    for alpha, error in [(-0.01, ValueError), (np.nan, ValueError), ("0.1", TypeError)]:
        with pytest.raises(error, match="ccp_alpha"):
            DecisionTreeClassifier(ccp_alpha=alpha).fit(X_HAND, Y_HAND)


# ---- choosing alpha (chapter 17: cv_alpha_table and one_standard_error_alpha, built on the estimators)

def test_one_standard_error_alpha():
    import pandas as pd
    from climbing_trees.selection import one_standard_error_alpha
    table = pd.DataFrame({"alpha": [0, .01, .02, .05, .2], "n_leaves": [9, 6, 4, 2, 1],
                          "cv_error": [.20, .15, .17, .19, .40], "cv_se": [.02, .03, .03, .03, .04]})
    assert one_standard_error_alpha(table) == .02
    assert one_standard_error_alpha(table.assign(cv_se=0.0)) == .01
    with pytest.raises(ValueError, match="cv_error"):
        one_standard_error_alpha(table.drop(columns="cv_error"))


def test_cv_alpha_table_matches_refitting():
    "Pruning each fold's tree at alpha_cv gives the same CV error as refitting each fold with ccp_alpha = alpha_cv."
    from sklearn.model_selection import KFold
    from climbing_trees.tree_estimators import DecisionTreeRegressor
    from climbing_trees.selection import cv_alpha_table, one_standard_error_alpha
    X, y, _ = problem("squared_error", 3, False, 200)
    folds = KFold(4, shuffle=True, random_state=1)
    table = cv_alpha_table(DecisionTreeRegressor(min_samples_leaf=5), X, y, cv=folds)
    assert table.n_leaves.iloc[-1] == 1 and table.alpha.iloc[0] == 0 and np.isinf(table.alpha_cv.iloc[-1])
    for k in (1, len(table) // 2, len(table) - 2):
        errors = np.zeros(len(y))
        for train, test in folds.split(X):
            model = DecisionTreeRegressor(min_samples_leaf=5, ccp_alpha=table.alpha_cv[k]).fit(X[train], y[train])
            errors[test] = (model.predict(X[test]) - y[test]) ** 2
        np.testing.assert_allclose(table.cv_error[k], errors.mean(), rtol=1e-12)
    assert 0 <= one_standard_error_alpha(table) <= table.alpha.iloc[-1]


def test_cv_alpha_table_bad_input():
    from climbing_trees.tree_estimators import DecisionTreeClassifier
    from climbing_trees.selection import cv_alpha_table
    with pytest.raises(TypeError, match="climbing_trees"):
        cv_alpha_table(sktree.DecisionTreeClassifier(), X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="at least 2"):
        cv_alpha_table(DecisionTreeClassifier(), X_HAND, Y_HAND, cv=1)
    with pytest.raises(TypeError, match="splitter"):
        cv_alpha_table(DecisionTreeClassifier(), X_HAND, Y_HAND, cv=[1, 2])
