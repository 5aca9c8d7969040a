"""The forests chapter's estimators: every tree against a single tree grown alone, scikit-learn's seeds and bootstrap
samples, scikit-learn's `check_estimator` suite, the same forest whatever joblib backend grows it (dask included),
and accuracy and out-of-bag scores against scikit-learn's forests.

The oracle that makes `n_jobs` and backends irrelevant: tree b of a forest equals `DecisionTree*(random_state=seed_b,
same parameters).fit(X, y, sample_weight=w_b)`, node for node, where seed_b is scikit-learn's seed of tree b and w_b
its bootstrap counts (times the class weights). scikit-learn's forests are the oracle only statistically (they store X
as float32 and visit features in another random order): 5-fold cross-validated accuracy or R^2 no worse than theirs by
more than 0.01, out-of-bag scores within 0.02."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from sklearn import ensemble as sk
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from climbing_trees.estimators import ParameterError
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.forest_estimators import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor, bootstrap_indices, tree_seeds, tree_weights
from climbing_trees.inference import feature_importances
from climbing_trees.tree import tree_differences

ROOT = Path(__file__).resolve().parents[1]
FORESTS = [RandomForestClassifier, ExtraTreesClassifier, RandomForestRegressor, ExtraTreesRegressor]
SKLEARN = {RandomForestClassifier: sk.RandomForestClassifier, ExtraTreesClassifier: sk.ExtraTreesClassifier,
           RandomForestRegressor: sk.RandomForestRegressor, ExtraTreesRegressor: sk.ExtraTreesRegressor}


def is_classifier_class(forest_class): return forest_class in (RandomForestClassifier, ExtraTreesClassifier)


def problem(classification, n=300, d=5, seed=0, holes=0.0):
    "Gaussian features with ties (rounded), a target of x0 + x1 x2 + noise (three classes or the value), NaN holes."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(1)
    s = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    y = np.digitize(s, np.quantile(s, [1 / 3, 2 / 3])) if classification else s
    if holes: X[rng.random(X.shape) < holes] = np.nan
    return X, y


def single_tree(forest, b, X, y, sample_weight=None):
    "Tree b of `forest` grown alone: a DecisionTree* with scikit-learn's seed of tree b, fitted with that tree's weights."
    params = {k: v for k, v in forest.estimator_.get_params().items() if k != "random_state"}
    tree = (DecisionTreeClassifier if is_classifier_class(type(forest)) else DecisionTreeRegressor)(**params)
    seed = forest.estimators_[b].random_state
    sampling = forest._sampling(np.unique(y, return_inverse=True)[1] if is_classifier_class(type(forest)) else y)
    return tree.set_params(random_state=seed).fit(X, y, sample_weight=np.array(tree_weights([seed], **sampling)[0]))


def assert_trees_grown_alone(forest, X, y, trees=(0, 1, -1)):
    for b in trees:
        alone = single_tree(forest, b, X, y)
        assert tree_differences(forest.estimators_[b].tree_, alone.tree_) == [], f"tree {b}"


@pytest.mark.parametrize("forest_class", FORESTS)
@pytest.mark.parametrize("params", [dict(), dict(max_features=2, min_samples_leaf=3), dict(bootstrap=True, max_samples=0.5),
                                    dict(max_depth=4, ccp_alpha=0.01), dict(min_weight_fraction_leaf=0.05, max_leaf_nodes=12)])
def test_every_tree_is_the_tree_grown_alone(forest_class, params):
    X, y = problem(is_classifier_class(forest_class))
    forest = forest_class(n_estimators=6, random_state=1, **params).fit(X, y)
    assert_trees_grown_alone(forest, X, y)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_sample_weights_and_holes(forest_class):
    X, y = problem(is_classifier_class(forest_class), holes=0.1)
    w = np.random.default_rng(3).integers(0, 4, len(y)).astype(float)
    forest = forest_class(n_estimators=5, random_state=2).fit(X, y, sample_weight=w)
    for b in (0, 4):
        sampling = forest._sampling(y)
        seed = forest.estimators_[b].random_state
        weights = np.array(tree_weights([seed], **sampling)[0])
        assert (weights[w == 0] == 0).all()                             # a row of weight 0 is never drawn
        params = {k: v for k, v in forest.estimator_.get_params().items() if k != "random_state"}
        alone = type(forest.estimator_)(**params, random_state=seed).fit(X, y, sample_weight=weights)
        assert tree_differences(forest.estimators_[b].tree_, alone.tree_) == []


@pytest.mark.parametrize("class_weight", ["balanced", "balanced_subsample", {0: 1.0, 1: 3.0, 2: 0.5}])
def test_class_weights_enter_the_tree_weights(class_weight):
    X, y = problem(True)
    forest = RandomForestClassifier(n_estimators=4, random_state=0, class_weight=class_weight).fit(X, y)
    assert_trees_grown_alone(forest, X, y)
    theirs = sk.RandomForestClassifier(n_estimators=4, random_state=0, class_weight=class_weight).fit(X, y)
    for ours_rows, their_rows in zip(forest.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(ours_rows, their_rows)


@pytest.mark.parametrize("params", [dict(missing="surrogate", max_surrogates=2), dict(algorithm="vectorized"),
                                    dict(algorithm="incremental", max_features=None)])
def test_trees_of_other_growers_are_grown_alone_too(params):
    X, y = problem(True, n=150, holes=0.1 if "missing" in params else 0.0)
    forest = RandomForestClassifier(n_estimators=3, random_state=0, **params).fit(X, y)
    assert_trees_grown_alone(forest, X, y, trees=(0, 2))


def test_categorical_columns_of_a_data_frame():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"size": rng.normal(size=300), "colour": pd.Categorical(rng.choice(list("abcdefgh"), 300))})
    labels = np.where(frame["colour"].isin(["a", "c", "f"]) ^ (frame["size"] > 0.5), "yes", "no")
    forest = RandomForestClassifier(n_estimators=10, max_features=None, random_state=0).fit(frame, labels)
    assert any(e.tree_.categorical.any() for e in forest.estimators_)
    assert list(forest.feature_names_in_) == ["size", "colour"] and forest.score(frame, labels) > 0.95
    assert_trees_grown_alone(forest, frame, labels)
    assert set(forest.estimators_[0].predict(frame)) <= {"yes", "no"}        # a tree reads the forest's data frame too


@pytest.mark.parametrize("forest_class", FORESTS)
@pytest.mark.parametrize("params", [dict(), dict(bootstrap=True, max_samples=100), dict(bootstrap=False)])
def test_seeds_and_bootstrap_samples_are_scikit_learns(forest_class, params):
    X, y = problem(is_classifier_class(forest_class))
    w = np.random.default_rng(0).random(len(y)) + 0.2
    for sample_weight in (None, w):
        ours = forest_class(n_estimators=5, random_state=4, **params).fit(X, y, sample_weight=sample_weight)
        theirs = SKLEARN[forest_class](n_estimators=5, random_state=4, **params).fit(X, y, sample_weight=sample_weight)
        assert [e.random_state for e in ours.estimators_] == [e.random_state for e in theirs.estimators_]
        for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_): np.testing.assert_array_equal(a, b)


def test_tree_seeds_skip_the_trees_already_grown():
    np.testing.assert_array_equal(tree_seeds(5, 3, 4), tree_seeds(5, 0, 7)[3:])
    rows = bootstrap_indices(11, 50, 50)
    assert rows.dtype == np.int32 and len(rows) == 50 and len(np.unique(rows)) < 50


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_warm_start_adds_the_trees_a_cold_fit_would_grow():
    X, y = problem(True)
    cold = RandomForestClassifier(n_estimators=8, random_state=3, oob_score=True).fit(X, y)
    warm = RandomForestClassifier(n_estimators=5, random_state=3, warm_start=True, oob_score=True).fit(X, y)
    first = warm.estimators_[:5]
    warm.set_params(n_estimators=8).fit(X, y)
    assert warm.estimators_[:5] == first and len(warm.estimators_) == 8
    for a, b in zip(warm.estimators_, cold.estimators_): assert tree_differences(a.tree_, b.tree_) == []
    np.testing.assert_array_equal(warm.predict_proba(X), cold.predict_proba(X))
    assert warm.oob_score_ == cold.oob_score_
    with pytest.warns(UserWarning, match="without increasing n_estimators"): warm.fit(X, y)
    with pytest.raises(ValueError, match="must be larger or equal"): warm.set_params(n_estimators=3).fit(X, y)


def grown(forest_class, X, y, **params):
    "Each tree's arrays, to compare forests grown in different ways."
    forest = forest_class(n_estimators=6, random_state=7, **params).fit(X, y)
    return forest, [e.tree_ for e in forest.estimators_]


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, ExtraTreesRegressor])
def test_the_same_forest_whatever_n_jobs_and_backend(forest_class):
    X, y = problem(is_classifier_class(forest_class))
    reference, trees = grown(forest_class, X, y, n_jobs=1)
    others = [grown(forest_class, X, y, n_jobs=2)[1], grown(forest_class, X, y, n_jobs=-1)[1]]
    for backend in ("threading", "loky"):
        with parallel_config(backend=backend): others.append(grown(forest_class, X, y, n_jobs=2)[1])
    for other in others:
        assert all(tree_differences(a, b) == [] for a, b in zip(trees, other))


def test_unconfigured_jobs_fork_and_a_configuration_goes_to_joblib(monkeypatch, capsys):
    import climbing_trees.forest_estimators as forests
    assert forests.joblib_configured() is False
    for config in (dict(backend="threading"), dict(backend="loky"), dict(prefer="threads"), dict(require="sharedmem")):
        with parallel_config(**config): assert forests.joblib_configured() is True
    with parallel_config(n_jobs=2): assert forests.joblib_configured() is False        # a number of jobs only: still ours
    calls = []
    forked = forests.forked_map
    monkeypatch.setattr(forests, "forked_map", lambda *a, **k: calls.append(a[2]) or forked(*a, **k))
    X, y = problem(True)
    _, trees = grown(RandomForestClassifier, X, y, n_jobs=1)
    forest, by_fork = grown(RandomForestClassifier, X, y, n_jobs=2, verbose=1)
    assert calls == ([2] if forests.FORK else []) and all(tree_differences(a, b) == [] for a, b in zip(trees, by_fork))
    assert "6/6 trees grown" in capsys.readouterr().out                # progress as the batches come back
    with parallel_config(backend="threading"): grown(RandomForestClassifier, X, y, n_jobs=2)
    assert len(calls) == (1 if forests.FORK else 0)                     # configured: joblib's threads, not the fork


def test_a_failing_forked_batch_raises_in_the_parent():
    import climbing_trees.forest_estimators as forests
    if not forests.FORK: pytest.skip("no fork here")
    with pytest.raises(ZeroDivisionError):
        list(forests.forked_map(lambda a, item: 1 / item, [1, 0], 2, before=(None,)))


def test_the_same_forest_on_a_dask_cluster():
    distributed = pytest.importorskip("distributed")
    X, y = problem(True, n=200)
    _, local = grown(RandomForestClassifier, X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                                   # dask's notes on ports and dashboards
        with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
                distributed.Client(cluster):
            with parallel_config(backend="dask"):
                forest, remote = grown(RandomForestClassifier, X, y, n_jobs=2)
    assert len(remote) == 6 and all(tree_differences(a, b) == [] for a, b in zip(local, remote))


EXPECTED_FAILURES = {  # scikit-learn expects the same of its own forests: bootstrap draws make weights and repeats differ
    "check_sample_weight_equivalence_on_dense_data": "bootstrap samples: weights equal repeated rows only in distribution",
    "check_sample_weight_equivalence_on_sparse_data": "bootstrap samples: weights equal repeated rows only in distribution",
}


@parametrize_with_checks([forest_class(n_estimators=5) for forest_class in FORESTS],
                         expected_failed_checks=lambda e: EXPECTED_FAILURES if e.bootstrap else {})
def test_sklearn_estimator_checks(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


def cv_score(model, X, y, classification):
    folds = (StratifiedKFold if classification else KFold)(5, shuffle=True, random_state=0)
    return cross_val_score(model, X, y, cv=folds).mean()


ACCURACY_CASES = [("breast cancer", lambda: load_breast_cancer(return_X_y=True), True),
                  ("classification 1000 x 20", lambda: make_classification(1000, 20, n_informative=8, random_state=0), True),
                  ("diabetes", lambda: load_diabetes(return_X_y=True), False)]


@pytest.mark.parametrize("name,load,classification", ACCURACY_CASES)
@pytest.mark.parametrize("kind", ["random forest", "extra trees"])
def test_cross_validated_scores_are_scikit_learns(name, load, classification, kind):
    X, y = load()
    ours_class = {("random forest", True): RandomForestClassifier, ("random forest", False): RandomForestRegressor,
                  ("extra trees", True): ExtraTreesClassifier, ("extra trees", False): ExtraTreesRegressor}[kind, classification]
    ours = cv_score(ours_class(n_estimators=100, random_state=0), X, y, classification)
    theirs = cv_score(SKLEARN[ours_class](n_estimators=100, random_state=0), X, y, classification)
    assert ours >= theirs - 0.01, f"{name}, {kind}: ours {ours:.4f}, scikit-learn's {theirs:.4f}"


@pytest.mark.parametrize("name,load,classification", ACCURACY_CASES)
def test_out_of_bag_scores_are_scikit_learns(name, load, classification):
    X, y = load()
    ours_class = RandomForestClassifier if classification else RandomForestRegressor
    ours = ours_class(n_estimators=100, oob_score=True, random_state=0).fit(X, y)
    theirs = SKLEARN[ours_class](n_estimators=100, oob_score=True, random_state=0).fit(X, y)
    assert abs(ours.oob_score_ - theirs.oob_score_) <= 0.02, f"{name}: ours {ours.oob_score_:.4f}, theirs {theirs.oob_score_:.4f}"
    attribute = "oob_decision_function_" if classification else "oob_prediction_"
    assert getattr(ours, attribute).shape == getattr(theirs, attribute).shape


def test_out_of_bag_rows_and_the_warning_for_rows_always_drawn():
    X, y = problem(True, n=120)
    with pytest.warns(UserWarning, match="do not have OOB scores"):
        few = RandomForestClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    never_out = np.all([np.isin(np.arange(120), rows) for rows in few.estimators_samples_], axis=0)
    assert (few.oob_decision_function_[never_out] == 0).all()
    forest = RandomForestClassifier(n_estimators=30, oob_score=lambda t, p: float(np.mean(t == p)), random_state=0).fit(X, y)
    by_hand = np.zeros((120, 3)), np.zeros(120)
    for estimator, rows in zip(forest.estimators_, forest.estimators_samples_):
        out = ~np.isin(np.arange(120), rows)
        by_hand[0][out] += estimator.predict_proba(X[out]); by_hand[1][out] += 1
    np.testing.assert_allclose(forest.oob_decision_function_, by_hand[0] / by_hand[1][:, None])
    assert forest.oob_score_ == np.mean(forest.oob_decision_function_.argmax(axis=1) == y)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_queries(forest_class):
    X, y = problem(is_classifier_class(forest_class))
    forest = forest_class(n_estimators=7, random_state=0).fit(X, y)
    leaves = forest.apply(X)
    assert leaves.shape == (len(X), 7)
    np.testing.assert_array_equal(leaves[:, 3], forest.estimators_[3].apply(X))
    indicator, starts = forest.decision_path(X)
    assert indicator.shape == (len(X), starts[-1]) and len(starts) == 8
    np.testing.assert_array_equal(indicator[:, starts[2]:starts[3]].toarray(), forest.estimators_[2].decision_path(X).toarray())
    trees = [feature_importances(e.tree_, X.shape[1]) for e in forest.estimators_]
    np.testing.assert_allclose(forest.feature_importances_, np.mean(trees, axis=0) / np.mean(trees, axis=0).sum())
    if is_classifier_class(forest_class):
        np.testing.assert_allclose(forest.predict_proba(X), np.mean([e.predict_proba(X) for e in forest.estimators_], axis=0))
        with np.errstate(divide="ignore"): np.testing.assert_allclose(forest.predict_log_proba(X), np.log(forest.predict_proba(X)))
    else: np.testing.assert_allclose(forest.predict(X), np.mean([e.predict(X) for e in forest.estimators_], axis=0))


def test_stumps_only_give_zero_importances():
    X, y = problem(False, n=40)
    forest = RandomForestRegressor(n_estimators=3, min_samples_split=100).fit(X, y)
    np.testing.assert_array_equal(forest.feature_importances_, np.zeros(5))


def test_verbose_reports_progress(capsys):
    X, y = problem(True, n=100)
    RandomForestClassifier(n_estimators=20, verbose=1).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) > 1 and lines[-1].startswith("RandomForestClassifier: 20/20 trees grown")


@pytest.mark.parametrize("params,message", [
    (dict(n_estimators=0), "n_estimators must be"), (dict(bootstrap="yes"), "bootstrap must be"),
    (dict(max_samples=0.0), "max_samples must be"), (dict(n_jobs=0), "n_jobs must be"),
    (dict(monotonic_cst="up"), "monotonic_cst must be"), (dict(class_weight="balanced_everything"), "class_weight must be"),
    (dict(criterion="squared_error"), "DecisionTreeRegressor"), (dict(max_depth=0), "max_depth must be"),
    (dict(missing="impute"), "missing must be"), (dict(algorithm="fast"), "unknown algorithm"),
    (dict(random_state=np.random.default_rng(0)), "random_state must be"), (dict(warm_start=1), "warm_start must be"),
])
def test_bad_parameters_name_the_culprit(params, message):
    X, y = problem(True, n=50)
    with pytest.raises(ParameterError, match=message):
        RandomForestClassifier(**params).fit(X, y)


def test_bad_combinations_and_data():
    X, y = problem(False, n=50)
    with pytest.raises(ValueError, match="only available if bootstrap=True"):
        ExtraTreesRegressor(oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="draws a bootstrap sample, but bootstrap=False"):
        ExtraTreesRegressor(max_samples=0.5).fit(X, y)
    with pytest.raises(ValueError, match="missing='error'"):
        RandomForestRegressor(missing="error").fit(problem(False, n=50, holes=0.1)[0], y)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        RandomForestRegressor().fit(X, y, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="continuous"):
        RandomForestClassifier().fit(X, y)
    forest = RandomForestRegressor(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        forest.predict(X[:, :3])


@pytest.mark.parametrize("forest_class", [RandomForestRegressor, ExtraTreesRegressor])
def test_friedman_mse_grows_squared_error_trees_with_sklearns_future_warning(forest_class):
    X, y = problem(False)
    with pytest.warns(FutureWarning, match="friedman_mse") as caught:
        a = forest_class(n_estimators=3, criterion="friedman_mse", random_state=0)   # at construction, as scikit-learn 1.9
    assert len(caught) == 1 and caught[0].filename == __file__
    a.fit(X, y)
    b = forest_class(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.estimator_.criterion == "squared_error" and a.criterion == "squared_error"   # mapped, as scikit-learn's
    with pytest.raises(ParameterError, match="'friedman_mse' is a criterion of DecisionTreeRegressor"):
        RandomForestClassifier(criterion="friedman_mse").fit(*problem(True))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_a_forest_is_a_sequence_of_its_trees(forest_class):
    X, y = problem(is_classifier_class(forest_class))
    forest = forest_class(n_estimators=6, max_depth=3, random_state=0).fit(X, y)
    assert len(forest) == 6 and forest[2] is forest.estimators_[2] and forest[-2:] == forest.estimators_[-2:]
    assert list(forest) == forest.estimators_ and [tree.random_state for tree in forest] == [t.random_state for t in forest.estimators_]
    with pytest.raises(ValueError, match="not fitted"): len(forest_class())
    with pytest.raises(IndexError): forest[6]


@pytest.mark.parametrize("forest_class", FORESTS)
def test_estimator_is_the_unfitted_template_as_in_sklearn(forest_class):
    forest = forest_class(max_depth=4, min_samples_leaf=3)
    template, theirs = forest.estimator, SKLEARN[forest_class]().estimator
    assert type(template) is (DecisionTreeClassifier if is_classifier_class(forest_class) else DecisionTreeRegressor)
    assert template.splitter == theirs.splitter and not hasattr(template, "tree_")
    assert (template.max_depth, template.min_samples_leaf) == (4, 3)
    assert "estimator" not in forest.get_params() and "estimator" not in SKLEARN[forest_class]().get_params()   # not a parameter
    X, y = problem(is_classifier_class(forest_class))
    forest.set_params(n_estimators=3).fit(X, y)
    assert forest.estimator_.get_params() == forest.estimator.get_params()


def test_public_api():
    import climbing_trees
    for name in ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor"):
        assert getattr(climbing_trees, name).__module__ == "climbing_trees.forest_estimators"


def test_benchmark_quick_prints_every_case():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "forests.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    for case in ("breast cancer", "diabetes", "synthetic", "random forest", "extra trees", "ratio"):
        assert case in run.stdout, f"the table lacks {case!r}:\n{run.stdout[-3000:]}"


def test_a_sparse_y_is_refused_with_sklearns_words():
    "scikit-learn reads a sparse y as a multilabel indicator and refuses it with a ValueError; so do we, for trees and forests."
    from scipy.sparse import csr_matrix
    for model in (RandomForestClassifier(n_estimators=2), DecisionTreeClassifier()):
        with pytest.raises(ValueError, match="sparse multilabel-indicator for y is not supported"):
            model.fit([[1, 2, 3]], csr_matrix([[4, 5, 6]]))


@pytest.mark.parametrize("forest_class", [RandomForestRegressor, ExtraTreesRegressor])
def test_a_forest_checks_its_targets_for_the_criterion_as_a_tree_does(forest_class):
    "A Poisson forest refuses negative targets and a sum of zero (it once fitted them silently), in scikit-learn's words."
    X = np.random.default_rng(0).normal(size=(3, 3))
    with pytest.raises(ValueError, match=r"Some value\(s\) of y are negative which is not allowed for Poisson regression"):
        forest_class(criterion="poisson", n_estimators=2).fit(X, [-1, 1, 3])
    with pytest.raises(ValueError, match="Sum of y is not strictly positive which is necessary for Poisson regression"):
        forest_class(criterion="poisson", n_estimators=2).fit(X, [0, 0, 0])


def test_a_sparse_y_is_both_errors_scikit_learn_raises():
    "scikit-learn's trees raise a TypeError for a sparse y, its forests a ValueError: ours is both."
    from scipy.sparse import csr_matrix
    with pytest.raises(TypeError, match="sparse multilabel-indicator"):
        DecisionTreeClassifier().fit([[1, 2, 3]], csr_matrix([[4, 5, 6]]))


def test_a_tree_of_a_forest_without_bootstrap_is_the_tree_grown_alone_bit_for_bit():
    "Grown in a batch of trees or alone, a tree's values are the same numbers: each node is centred on its own mean, with no shift shared by the batch's frontier (scikit-learn's test_estimators_samples compares them with atol=0)."
    from sklearn.base import clone
    from sklearn.datasets import make_hastie_10_2
    X, y = make_hastie_10_2(n_samples=200, random_state=1)
    for forest in (RandomForestRegressor, ExtraTreesRegressor):
        fitted = forest(n_estimators=10, max_features=0.5, random_state=1, bootstrap=False).fit(X, y)
        for tree, rows in zip(fitted.estimators_, fitted.estimators_samples_):
            alone = clone(tree).fit(X[rows], y[rows])
            np.testing.assert_array_equal(alone.tree_.value, tree.tree_.value)
            np.testing.assert_array_equal(alone.tree_.impurity, tree.tree_.impurity)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_max_bins_grows_the_same_forest_where_columns_have_few_values(forest_class):
    "Chapter 12's bins lose nothing on columns of at most max_bins values: the same leaves for every row, thresholds on X's scale."
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    X, y = X[:600], (y[:600] if is_classifier_class(forest_class) else y[:600].astype(float))
    exact, binned = (forest_class(n_estimators=5, random_state=3, max_bins=b).fit(X, y) for b in (None, 255))
    np.testing.assert_array_equal(binned.apply(X), exact.apply(X))
    np.testing.assert_array_equal(binned.predict(X), exact.predict(X))
    assert binned.estimators_[0].max_bins == 255
    with pytest.raises((ValueError, TypeError), match="max_bins"):
        forest_class(n_estimators=2, max_bins=1).fit(X, y)


def test_max_bins_extra_trees_draw_on_the_bins():
    "Extra trees draw their thresholds between a node's smallest and largest bin, not value: another forest, as good."
    X, y = problem(True, n=3000)
    X_test, y_test = problem(True, n=3000, seed=1)
    scores = [ExtraTreesClassifier(n_estimators=30, random_state=0, max_bins=b).fit(X, y).score(X_test, y_test) for b in (None, 32)]
    assert abs(scores[0] - scores[1]) < 0.05
