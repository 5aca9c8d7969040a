"""Every parameter a scikit-learn user types, on chapter 16's estimators.

The signature is scikit-learn's (names, order and defaults); every bad value is refused before the
data is read, with an exception that is both a ValueError and a TypeError (as scikit-learn's
`InvalidParameterError`) and a message that names the parameter; fractions and `max_features` are
resolved as scikit-learn resolves them; `random_state` makes random trees reproducible; class
weights, `predict_log_proba`, `decision_path`, the `tree_` queries, sparse input and the refusal
of multi-output targets behave as in scikit-learn. Node-for-node comparisons with scikit-learn's
trees for every parameter are in `test_sklearn_oracle.py`."""
import inspect
import pickle
import warnings

import numpy as np
from sklearn.base import clone
import pandas as pd
import pytest
from scipy import sparse
from sklearn import tree as sktree
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import parametrize_with_checks

from climbing_trees.estimators import (ALGORITHMS, DEFAULT_ALGORITHM, EstimatorTree,
                                       ParameterError, grower_seed, resolve_max_features, resolve_plan)
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.tree import Tree, tree_differences
from climbing_trees.selection import cv_alpha_table

X_BC, Y_BC = load_breast_cancer(return_X_y=True)
X_DIA, Y_DIA = load_diabetes(return_X_y=True)
C, R = DecisionTreeClassifier, DecisionTreeRegressor
OURS_ONLY = ["categorical_features", "handle_unknown", "missing", "max_surrogates", "algorithm", "max_bins"]


# -- scikit-learn's test suite, with random features and with class weights
@parametrize_with_checks([C(max_features="sqrt", random_state=0), R(max_features="sqrt", random_state=0),
                          C(splitter="random", random_state=0, class_weight="balanced"), R(splitter="random", random_state=0),
                          C(max_leaf_nodes=6, min_weight_fraction_leaf=0.05, min_samples_leaf=0.02)])
def test_sklearn_estimator_checks_with_parameters(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


# -- the signature
@pytest.mark.parametrize("ours, theirs", [(C, sktree.DecisionTreeClassifier), (R, sktree.DecisionTreeRegressor)])
def test_signature_is_sklearns_in_sklearns_order(ours, theirs):
    mine = inspect.signature(ours.__init__).parameters
    sk = dict(inspect.signature(theirs.__init__).parameters)
    assert list(mine)[:len(sk)] == list(sk) and list(mine)[len(sk):] == OURS_ONLY
    for name in list(sk)[1:]:
        assert mine[name].default == sk[name].default, name


def test_positional_arguments_follow_sklearns_order():
    clf = C("entropy", "random", 3, 4, 2, 0.1, "sqrt", 7)
    assert (clf.criterion, clf.splitter, clf.max_depth, clf.min_samples_split, clf.min_samples_leaf, clf.min_weight_fraction_leaf,
            clf.max_features, clf.random_state) == ("entropy", "random", 3, 4, 2, 0.1, "sqrt", 7)
    assert R("absolute_error", "best", None, 2, 1, 0.0, None, None, 5).max_leaf_nodes == 5


# -- bad parameters: one exception type, both ValueError and TypeError, naming the parameter
BAD_PARAMETERS = [
    # (parameter, bad value, also refused by scikit-learn)
    ("criterion", "ginny", True), ("criterion", 3, True), ("criterion", None, True),
    ("splitter", "worst", True), ("splitter", None, True),
    ("max_depth", 0, True), ("max_depth", 2.5, True), ("max_depth", "3", True), ("max_depth", True, False),
    ("min_samples_split", 1, True), ("min_samples_split", 0.0, True), ("min_samples_split", 1.5, True), ("min_samples_split", "2", True),
    ("min_samples_leaf", 0, True), ("min_samples_leaf", 1.0, True), ("min_samples_leaf", -0.5, True), ("min_samples_leaf", None, True),
    ("min_weight_fraction_leaf", 0.6, True), ("min_weight_fraction_leaf", -0.1, True), ("min_weight_fraction_leaf", "0.1", True),
    ("min_weight_fraction_leaf", None, True),
    ("max_features", 0, True), ("max_features", 1.5, True), ("max_features", 0.0, True), ("max_features", "auto", True),
    ("max_features", [1, 2], True),
    ("random_state", -1, True), ("random_state", 2**32, True), ("random_state", 1.5, True), ("random_state", "seed", True),
    ("random_state", np.random.default_rng(0), True),
    ("max_leaf_nodes", 1, True), ("max_leaf_nodes", 0, True), ("max_leaf_nodes", 4.0, True), ("max_leaf_nodes", "8", True),
    ("min_impurity_decrease", -0.1, True), ("min_impurity_decrease", np.inf, True), ("min_impurity_decrease", "0", True),
    ("min_impurity_decrease", None, True),
    ("ccp_alpha", -0.01, True), ("ccp_alpha", np.inf, True), ("ccp_alpha", "0.1", True), ("ccp_alpha", None, True),
    ("categorical_features", "Outlook", None), ("categorical_features", 3, None),
    ("algorithm", "quantum", None), ("algorithm", None, None),
]
CLASS_WEIGHTS = [("class_weight", "balance", True), ("class_weight", 3, True), ("class_weight", {0: -1.0, 1: 1.0}, False),
                 ("class_weight", {0: "heavy"}, False), ("class_weight", [{0: 1.0, 1: 2.0}], False)]
CASES = [(C, *case) for case in BAD_PARAMETERS + CLASS_WEIGHTS] + [(R, *case) for case in BAD_PARAMETERS if case[0] != "criterion"]
CASES += [(R, "criterion", "gini", True), (R, "criterion", "log_loss", True), (C, "criterion", "poisson", True)]
rng = np.random.default_rng(0)
X_SMALL, Y_SMALL = rng.random((30, 3)), rng.integers(0, 2, 30)


@pytest.mark.parametrize("estimator, name, value, sklearn_refuses", CASES,
                         ids=[f"{e.__name__[12:]}-{n}={type(v).__name__ if isinstance(v, np.random.Generator) else repr(v)}" for e, n, v, _ in CASES])
def test_a_bad_parameter_is_a_value_and_a_type_error_that_names_it(estimator, name, value, sklearn_refuses):
    target = Y_SMALL if estimator is C else Y_SMALL.astype(float)
    for kind in (ValueError, TypeError):
        with pytest.raises(kind) as raised:
            estimator(**{name: value}).fit(X_SMALL, target)
        assert isinstance(raised.value, ParameterError)
        assert name in str(raised.value), str(raised.value)
    if sklearn_refuses:                               # scikit-learn refuses the same mistake, with an exception of both kinds
        theirs = sktree.DecisionTreeClassifier if estimator is C else sktree.DecisionTreeRegressor
        with pytest.raises(ValueError) as raised:
            theirs(**{name: value}).fit(X_SMALL, target)
        assert isinstance(raised.value, TypeError) or name == "class_weight"


def test_parameters_are_checked_before_the_data():
    "A bad parameter is reported even when the data are bad too, as scikit-learn does."
    with pytest.raises(ParameterError, match="max_features"):
        C(max_features="auto").fit(np.array([[np.nan]]), [1])
    with pytest.raises(ParameterError, match="splitter"):
        R(splitter="worst").fit(None, None)


def test_a_misspelled_criterion_says_which_estimator_has_it():
    with pytest.raises(ParameterError, match="a criterion of DecisionTreeRegressor"):
        C(criterion="absolute_error").fit(X_SMALL, Y_SMALL)
    with pytest.raises(ParameterError, match="a criterion of DecisionTreeClassifier"):
        R(criterion="log_loss").fit(X_SMALL, Y_SMALL.astype(float))


def test_friedman_mse_is_accepted_by_the_regressor_with_sklearns_future_warning():
    "scikit-learn 1.9 accepts criterion='friedman_mse' for its regression trees with a FutureWarning, and grows squared_error."
    y = Y_DIA
    with pytest.warns(FutureWarning, match="friedman_mse.*criterion='squared_error'") as caught:
        renamed = R(criterion="friedman_mse", max_depth=4)              # at construction, as scikit-learn 1.9 warns
    assert len(caught) == 1 and caught[0].filename == __file__            # the warning points at the caller
    assert renamed.get_params()["criterion"] == "squared_error"          # mapped there, as scikit-learn's: a clone is silent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        renamed = clone(renamed).fit(X_DIA, y)
    assert tree_differences(renamed.tree_, R(max_depth=4).fit(X_DIA, y).tree_) == []
    with pytest.warns(FutureWarning, match="friedman_mse") as caught:    # set after construction: fit warns instead
        R(max_depth=2).set_params(criterion="friedman_mse").fit(X_DIA, y)
    assert len(caught) == 1
    with pytest.warns(FutureWarning, match="friedman_mse"):
        sktree.DecisionTreeRegressor(criterion="friedman_mse")           # scikit-learn's, for the record
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R(criterion="squared_error", max_depth=2).fit(X_DIA, y)          # the other names: silent
    with pytest.raises(ParameterError, match="'friedman_mse' is a criterion of DecisionTreeRegressor"):
        C(criterion="friedman_mse").fit(X_SMALL, Y_SMALL)


# -- parameters resolved against the data, as scikit-learn resolves them
@pytest.mark.parametrize("n_features", [1, 2, 3, 7, 30, 64, 100])
@pytest.mark.parametrize("max_features", [None, "sqrt", "log2", 1, 5, 200, 0.01, 0.3, 0.5, 1.0])
def test_max_features_resolves_as_sklearn(max_features, n_features):
    X = np.random.default_rng(n_features).random((20, n_features))
    y = np.arange(20) % 2
    theirs = sktree.DecisionTreeClassifier(max_features=max_features, random_state=0).fit(X, y)
    ours = C(max_features=max_features, random_state=0).fit(X, y)
    assert ours.max_features_ == theirs.max_features_ == resolve_max_features(max_features, n_features)


def test_fractions_of_samples_are_ceilings_in_floating_point():
    "0.07 * 100 is 7.000000000000001 in floating point: leaves of at least 8 rows, as in scikit-learn."
    X = np.arange(100.0)[:, None]
    y = np.sin(X[:, 0] / 7)
    ours, theirs = R(min_samples_leaf=0.07).fit(X, y), sktree.DecisionTreeRegressor(min_samples_leaf=0.07).fit(X, y)
    assert ours.tree_.n_node_samples[ours.tree_.is_leaf].min() >= 8
    np.testing.assert_array_equal(ours.apply(X), theirs.apply(X))
    split = R(min_samples_split=0.5).fit(X, y)                          # ceil(50) = 50: only nodes of 50 or more are split
    inner = ~split.tree_.is_leaf
    assert split.tree_.n_node_samples[inner].min() >= 50


def test_fractions_count_rows_of_zero_weight():
    "Fractions are of all N rows, zero weights included (scikit-learn's count); the rows are dropped afterwards."
    X, y = X_DIA[:200], Y_DIA[:200]
    w = np.ones(200); w[::4] = 0
    ours = R(min_samples_leaf=0.05).fit(X, y, sample_weight=w)              # ceil(0.05 * 200) = 10, not ceil(0.05 * 150) = 8
    assert ours.tree_.n_node_samples[ours.tree_.is_leaf].min() >= 10
    assert ours.tree_.n_node_samples[0] == 150


def test_min_weight_fraction_leaf_is_of_the_total_weight():
    w = np.where(Y_BC == 1, 1.0, 4.0)
    clf = C(min_weight_fraction_leaf=0.1).fit(X_BC, Y_BC, sample_weight=w)
    leaves = clf.tree_.is_leaf
    assert clf.tree_.weighted_n_node_samples[leaves].min() >= 0.1 * w.sum() - 1e-9
    balanced = C(min_weight_fraction_leaf=0.1, class_weight="balanced").fit(X_BC, Y_BC)      # of the weight after class weights
    assert balanced.tree_.weighted_n_node_samples[balanced.tree_.is_leaf].min() >= 0.1 * len(Y_BC) - 1e-9


def test_max_leaf_nodes_bounds_the_leaves():
    for n in (2, 5, 17):
        assert C(max_leaf_nodes=n).fit(X_BC, Y_BC).get_n_leaves() == n
    assert C(max_leaf_nodes=1000).fit(X_BC, Y_BC).get_n_leaves() == C().fit(X_BC, Y_BC).get_n_leaves()


# -- randomness: reproducible with the same seed
@pytest.mark.parametrize("params", [dict(max_features="sqrt"), dict(max_features=0.2), dict(splitter="random"),
                                    dict(splitter="random", max_features=3)])
@pytest.mark.parametrize("estimator, X, y", [(C, X_BC, Y_BC), (R, X_DIA, Y_DIA)])
def test_same_random_state_same_tree(params, estimator, X, y):
    first, again = (estimator(random_state=42, **params).fit(X, y) for _ in range(2))
    assert tree_differences(first.tree_, again.tree_) == []
    others = [estimator(random_state=seed, **params).fit(X, y) for seed in (1, 2, 3)]
    assert any(tree_differences(first.tree_, other.tree_) != [] for other in others)
    assert pickle.loads(pickle.dumps(first)).get_params() == first.get_params()


def test_a_random_state_object_gives_a_new_tree_each_fit_and_the_same_sequence_again():
    fits = lambda: [C(max_features=2, random_state=state).fit(X_BC, Y_BC).tree_ for state in [np.random.RandomState(5)] * 3]
    a, b = fits(), fits()
    assert all(tree_differences(s, t) == [] for s, t in zip(a, b))
    assert tree_differences(a[0], a[1]) != []


def test_the_seed_is_one_integer_in_the_growth_plan():
    seeds = [grower_seed(0), grower_seed(0)]
    assert isinstance(seeds[0], int) and seeds[0] == seeds[1]
    n = len(Y_BC)
    plan, m = resolve_plan(C(max_features="sqrt", random_state=0), n, 30, float(n), 2, seed=seeds[0])
    assert (plan.max_features, plan.splitter, plan.random_state, m) == (5, "best", seeds[0], 5)
    assert resolve_plan(C(), n, 30, float(n), 2)[0].max_features is None      # every feature: the deterministic search and tie rule


def test_without_randomness_the_tree_ignores_the_seed():
    trees = [C(random_state=seed).fit(X_BC, Y_BC).tree_ for seed in (0, 1, None)]
    assert tree_differences(trees[0], trees[1]) == [] and tree_differences(trees[0], trees[2]) == []
    assert tree_differences(trees[0], C(max_features=30, random_state=3).fit(X_BC, Y_BC).tree_) == []   # all 30 drawn = all


@pytest.mark.parametrize("params", [dict(max_features="sqrt", random_state=0), dict(splitter="random", random_state=0),
                                    dict(max_leaf_nodes=5), dict(min_weight_fraction_leaf=0.1)])
@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a != DEFAULT_ALGORITHM])
def test_teaching_growers_grow_the_option_or_say_to_use_levelwise(algorithm, params):
    try:
        fitted = C(algorithm=algorithm, max_depth=3, **params).fit(X_BC[:200], Y_BC[:200])
    except ValueError as error:
        assert "levelwise" in str(error)
    else:
        levelwise = C(max_depth=3, **params).fit(X_BC[:200], Y_BC[:200])
        assert fitted.get_depth() <= 3
        if "random_state" not in params: assert tree_differences(fitted.tree_, levelwise.tree_) == []


# -- class weights
def test_class_weight_multiplies_sample_weight():
    labels = np.where(Y_BC == 1, "benign", "malignant")
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(Y_BC))
    for class_weight in ({"benign": 1.0, "malignant": 3.0}, "balanced", {"malignant": 2.0}):
        by_class = C(max_depth=5, class_weight=class_weight).fit(X_BC, labels, sample_weight=w)
        by_rows = C(max_depth=5).fit(X_BC, labels, sample_weight=w * compute_sample_weight(class_weight, labels))
        assert tree_differences(by_class.tree_, by_rows.tree_) == []


def test_balanced_classes_carry_equal_weight():
    y = np.r_[np.zeros(500, int), np.ones(50, int), np.full(19, 2)]
    X = np.random.default_rng(2).random((len(y), 4))
    clf = C(class_weight="balanced", max_depth=1).fit(X, y)
    np.testing.assert_allclose(clf.tree_.value[0, 0], [1 / 3] * 3)
    np.testing.assert_allclose(clf.tree_.weighted_n_node_samples[0], len(y))


def test_a_class_weight_of_zero_leaves_the_class_out_of_the_impurity():
    clf = C(class_weight={0: 0.0, 1: 1.0}, max_depth=2).fit(X_BC, Y_BC)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    np.testing.assert_allclose(clf.tree_.value[:, 0, 0], 0.0)
    assert clf.get_n_leaves() == 1                                 # one class left: pure


# -- the other queries
def test_predict_log_proba_is_the_log_of_predict_proba():
    clf = C(max_depth=6).fit(X_BC, Y_BC)
    proba, log_proba = clf.predict_proba(X_BC), clf.predict_log_proba(X_BC)
    np.testing.assert_array_equal(np.isneginf(log_proba), proba == 0)
    assert (proba == 0).any()
    np.testing.assert_allclose(log_proba[proba > 0], np.log(proba[proba > 0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                               # no divide-by-zero warning for the -inf
        clf.predict_log_proba(X_BC)
    assert not hasattr(R(), "predict_log_proba")


@pytest.mark.parametrize("make, X, y", [(lambda: C(max_depth=6), X_BC, Y_BC), (lambda: R(min_samples_leaf=5), X_DIA, Y_DIA),
                                        (lambda: C(max_leaf_nodes=12), X_BC, Y_BC)])
def test_decision_path_walks_from_the_root_to_the_leaf(make, X, y):
    est = make().fit(X, y)
    path = est.decision_path(X)
    assert sparse.issparse(path) and path.format == "csr" and path.shape == (len(X), est.tree_.node_count)
    dense, leaves, tree = path.toarray(), est.apply(X), est.tree_
    np.testing.assert_array_equal(dense.sum(axis=1), tree.node_depth[leaves] + 1)
    np.testing.assert_array_equal(dense[np.arange(len(X)), leaves], 1)
    np.testing.assert_array_equal(dense[:, 0], 1)
    inner = np.flatnonzero(~tree.is_leaf)                           # a row passes a node's child only if it passes the node
    for child in (tree.children_left[inner], tree.children_right[inner]):
        assert (dense[:, child] <= dense[:, inner]).all()
    np.testing.assert_array_equal(tree.decision_path(X).toarray(), dense)


@pytest.mark.parametrize("make, X, y", [(lambda: C(max_depth=6), X_BC, Y_BC), (lambda: R(), X_DIA, Y_DIA),
                                        (lambda: C(ccp_alpha=0.01), X_BC, Y_BC)])
def test_tree_is_an_estimator_tree_sharing_the_growers_arrays(make, X, y):
    est = make().fit(X, y)
    tree = est.tree_
    assert isinstance(tree, EstimatorTree) and isinstance(tree, Tree)
    np.testing.assert_array_equal(tree.apply(X), est.apply(X))
    np.testing.assert_allclose(tree.predict(X)[:, 0] if isinstance(est, R) else tree.predict(X),
                               est.predict(X) if isinstance(est, R) else est.predict_proba(X))
    assert (tree.n_features, tree.n_outputs, est.n_outputs_) == (X.shape[1], 1, 1)
    assert tree.max_n_classes == (2 if isinstance(est, C) else 1) and tree.capacity == tree.node_count


def test_cv_alpha_table_installs_estimator_trees():
    installed = []
    class Recording(C):
        def _install(self, tree):
            super()._install(tree)
            installed.append(self.tree_)
    cv_alpha_table(Recording(), X_BC[:200], Y_BC[:200], cv=3)
    assert len(installed) > 5 and all(isinstance(t, EstimatorTree) for t in installed)


# -- sparse input: the dense tree
@pytest.mark.parametrize("form", ["csr", "csc", "coo", "lil"])
@pytest.mark.parametrize("estimator", [C, R])
def test_sparse_input_grows_the_dense_tree(form, estimator):
    X = sparse.random(300, 40, density=0.08, format="csr", random_state=4)
    y = (np.asarray(X[:, :4].sum(axis=1)).ravel() > 0.15).astype(int)
    target = y if estimator is C else np.asarray(X[:, 1].todense()).ravel() + y
    dense = estimator(max_depth=6).fit(X.toarray(), target)
    fitted = estimator(max_depth=6).fit(X.asformat(form), target)
    assert tree_differences(fitted.tree_, dense.tree_) == []
    np.testing.assert_array_equal(fitted.predict(X.asformat(form)), dense.predict(X.toarray()))
    np.testing.assert_array_equal(fitted.apply(X), dense.apply(X.toarray()))
    np.testing.assert_array_equal(fitted.tree_.apply(X.asformat(form)), dense.apply(X.toarray()))
    np.testing.assert_array_equal(fitted.decision_path(X.tocsc()).toarray(), dense.decision_path(X.toarray()).toarray())


def test_sparse_input_with_categorical_columns_by_index():
    codes = np.random.default_rng(5).integers(0, 4, 200)
    X = sparse.csr_matrix(np.column_stack([codes, np.random.default_rng(6).random(200)]))
    y = np.isin(codes, [1, 3]).astype(int)
    fitted = C(categorical_features=[0], max_depth=1).fit(X, y)
    assert fitted.tree_.categorical[0]
    np.testing.assert_array_equal(fitted.predict(X), y)
    with pytest.raises(ValueError, match="no column names"):
        C(categorical_features=["colour"]).fit(X, y)


def test_sparse_nan_is_a_missing_value():
    "A NaN stored in a sparse matrix is a missing value like a dense one (refused only with missing='error')."
    dense = np.where(np.eye(6) > 0, np.nan, np.arange(36.0).reshape(6, 6))
    y = np.arange(6) % 2
    np.testing.assert_array_equal(C().fit(sparse.csr_matrix(dense), y).apply(dense), C().fit(dense, y).apply(dense))
    with pytest.raises(ValueError, match="missing values"):
        C(missing="error").fit(sparse.csr_matrix(dense), y)


# -- several outputs (tests/test_multi_output.py compares them with scikit-learn's)
@pytest.mark.parametrize("estimator, y", [(C, np.column_stack([Y_BC, 1 - Y_BC])), (R, np.column_stack([Y_BC, Y_BC]).astype(float)),
                                          (C, pd.DataFrame({"a": Y_BC, "b": Y_BC}))])
def test_a_target_of_several_columns_grows_one_tree_for_all(estimator, y):
    fitted = estimator(max_depth=3).fit(X_BC, y)
    assert fitted.n_outputs_ == 2 and fitted.predict(X_BC).shape == (len(X_BC), 2)
    assert fitted.tree_.value.shape[:2] == (fitted.tree_.node_count, 2)


@pytest.mark.parametrize("estimator, y", [(C, Y_BC), (R, Y_BC.astype(float))])
def test_a_column_vector_target_warns_and_fits_the_vector(estimator, y):
    with pytest.warns(DataConversionWarning):
        column = estimator(max_depth=3).fit(X_BC, y[:, None])
    np.testing.assert_array_equal(column.predict(X_BC), estimator(max_depth=3).fit(X_BC, y).predict(X_BC))
    assert column.n_outputs_ == 1
