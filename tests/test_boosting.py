"""The boosting chapter's estimators against scikit-learn 1.9's `GradientBoostingRegressor` and
`GradientBoostingClassifier`, its `check_estimator` suite, and the parts scikit-learn cannot judge.

The data are float32-exact (scikit-learn stores X as float32) and tie-free (continuous features), with
`subsample=1.0` and `max_features=None`, so nothing is random. Deep in a boosted tree two features can
still cut a node's samples identically, and scikit-learn breaks such ties at random: the trees may then
differ in a feature and a threshold while fitting every training row the same way. So the comparison is
on the fitted values of the training rows (predict, decision_function, predict_proba, after every
stage) and on `train_score_`, to 1e-9. The losses whose gradient takes few values (absolute error,
quantile, Huber) are compared for the stages before scikit-learn first splits a node whose gradients
are all equal (it does when rounding leaves such a node's impurity above its 2.2e-16 threshold; ours is
exactly 0): the chapter shows that case."""
import inspect
import warnings
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble as sk
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from climbing_trees.boosting import make_loss, weighted_percentile
from climbing_trees.boosting_estimators import GradientBoostingClassifier, GradientBoostingRegressor
from climbing_trees.levelwise import presort, subset_orders
from climbing_trees.estimators import ParameterError
from climbing_trees.tree_estimators import DecisionTreeRegressor
from climbing_trees.levelwise_trees import grow_levelwise

ROOT = Path(__file__).resolve().parents[1]


def problem(task, n=300, d=4, seed=0, weighted=False):
    "Float32-exact Gaussian features, a target for `task`, and positive continuous weights (or None)."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    s = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)
    y = {"regression": s, "binary": (s > 0).astype(int),
         "multiclass": np.digitize(s, np.quantile(s, [1 / 3, 2 / 3]))}[task]
    return X, y, (rng.random(n) * 2 + 0.1 if weighted else None)


def pair(task, params, seed=0, weighted=False):
    "Ours and scikit-learn's, fitted on the same problem with the same parameters."
    ours_class, theirs_class = ((GradientBoostingRegressor, sk.GradientBoostingRegressor) if task == "regression"
                                else (GradientBoostingClassifier, sk.GradientBoostingClassifier))
    X, y, w = problem(task, seed=seed, weighted=weighted)
    params = dict(random_state=0, **params)
    return ours_class(**params).fit(X, y, sample_weight=w), theirs_class(**params).fit(X, y, sample_weight=w), X, y


def staged_difference(ours, theirs, X):
    "Largest difference of the staged fitted values (raw scores and probabilities for a classifier) over all stages."
    if isinstance(ours, GradientBoostingRegressor):
        return max(np.abs(a - b).max() for a, b in zip(ours.staged_predict(X), theirs.staged_predict(X)))
    raw = max(np.abs(a - b).max() for a, b in zip(ours.staged_decision_function(X), theirs.staged_decision_function(X)))
    proba = max(np.abs(a - b).max() for a, b in zip(ours.staged_predict_proba(X), theirs.staged_predict_proba(X)))
    return max(raw, proba)


EXACT = [("regression", "squared_error"), ("binary", "log_loss"), ("binary", "exponential"), ("multiclass", "log_loss")]
TREE_SETTINGS = [dict(), dict(max_depth=5, min_samples_leaf=5), dict(max_depth=None, max_leaf_nodes=5),
                 dict(min_samples_split=0.1, learning_rate=0.5), dict(min_weight_fraction_leaf=0.04),
                 dict(min_impurity_decrease=0.005), dict(init="zero"), dict(ccp_alpha=0.005), dict(criterion="squared_error")]


@pytest.mark.parametrize("task,loss", EXACT)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_fitted_values_and_scores_equal_scikit_learns(task, loss, weighted, seed):
    ours, theirs, X, y = pair(task, dict(loss=loss, n_estimators=30), seed, weighted)
    assert staged_difference(ours, theirs, X) < 1e-9
    np.testing.assert_allclose(ours.train_score_, theirs.train_score_, rtol=0, atol=1e-9)
    if task == "regression": np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-9)
    else:
        np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), rtol=0, atol=1e-9)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-9)
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.n_estimators_ == theirs.n_estimators_ == 30 and ours.estimators_.shape == theirs.estimators_.shape


@pytest.mark.filterwarnings("ignore:The parameter `criterion` is deprecated:FutureWarning")   # scikit-learn 1.9's, not ours
@pytest.mark.parametrize("params", TREE_SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_tree_parameters_shape_the_same_models(task, params):
    ours, theirs, X, _ = pair(task, dict(n_estimators=15, **params), weighted=True)
    assert staged_difference(ours, theirs, X) < 1e-9
    np.testing.assert_allclose(ours.train_score_, theirs.train_score_, rtol=0, atol=1e-9)


@pytest.mark.parametrize("loss", ["absolute_error", "quantile", "huber"])
def test_few_valued_gradients_agree_until_a_pure_node(loss):
    ours, theirs, X, y = pair("regression", dict(loss=loss, n_estimators=60, alpha=0.8), weighted=True)
    staged_ours, staged_theirs = list(ours.staged_predict(X)), list(theirs.staged_predict(X))
    differs = [np.abs(a - b).max() > 1e-9 for a, b in zip(staged_ours, staged_theirs)]
    first = differs.index(True) if any(differs) else len(differs)
    np.testing.assert_allclose(ours.train_score_[:first], theirs.train_score_[:first], rtol=0, atol=1e-9)
    if first < len(differs):                         # then scikit-learn split a node whose gradients were all equal
        before = staged_ours[first - 1] if first else ours._init_raw(X)[:, 0]
        gradient_loss = make_loss(loss, alpha=0.8)
        gradient_loss.prepare(y, before[:, None], problem("regression", weighted=True)[2])
        g = gradient_loss.negative_gradient(y, before[:, None])[:, 0]
        estimator = theirs.estimators_[first, 0]
        passes = estimator.decision_path(X.astype(np.float32)).toarray().astype(bool)
        internal = np.flatnonzero(estimator.tree_.children_left >= 0)
        assert any(np.ptp(g[passes[:, t]]) == 0 for t in internal)


def test_importances_equal_when_the_trees_use_the_same_features():
    ours, theirs, X, _ = pair("regression", dict(n_estimators=5), weighted=True)
    for a, b in zip(ours.estimators_.ravel(), theirs.estimators_.ravel()):
        np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_.sum(), 1.0)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize("n_iter_no_change", [2, 5])
def test_early_stopping_stops_at_scikit_learns_stage(task, n_iter_no_change):
    X, y, _ = problem(task, n=600, seed=3)
    if task != "regression": y = np.where(np.random.default_rng(3).random(600) < 0.2, (y + 1) % (y.max() + 1), y)
    # leaves of 10 samples or more: no tie between features in a tiny node, which fits the training rows identically
    # but may send a validation row elsewhere and move the validation loss
    params = dict(n_estimators=300, learning_rate=0.5, n_iter_no_change=n_iter_no_change, validation_fraction=0.25, random_state=2,
                  min_samples_leaf=10)
    ours_class, theirs_class = ((GradientBoostingRegressor, sk.GradientBoostingRegressor) if task == "regression"
                                else (GradientBoostingClassifier, sk.GradientBoostingClassifier))
    ours, theirs = ours_class(**params).fit(X, y), theirs_class(**params).fit(X, y)
    assert ours.n_estimators_ == theirs.n_estimators_ < 300
    assert len(ours.estimators_) == len(ours.train_score_) == ours.n_estimators_
    np.testing.assert_allclose(ours.train_score_, theirs.train_score_, rtol=0, atol=1e-9)


@parametrize_with_checks([GradientBoostingRegressor(n_estimators=10), GradientBoostingClassifier(n_estimators=10)])
def test_sklearn_estimator_checks(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


def test_subsampling_keeps_out_of_bag_scores_and_is_reproducible():
    X, y, _ = problem("binary", n=500)
    a = GradientBoostingClassifier(n_estimators=20, subsample=0.5, random_state=3).fit(X, y)
    b = GradientBoostingClassifier(n_estimators=20, subsample=0.5, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.oob_improvement_.shape == a.oob_scores_.shape == (20,) and a.oob_score_ == a.oob_scores_[-1]
    assert a.estimators_[0, 0].tree_.n_node_samples[0] == 250           # floor(0.5 N) rows per tree
    assert not hasattr(GradientBoostingClassifier(n_estimators=3).fit(X, y), "oob_improvement_")


def test_subset_orders_are_the_orders_of_the_subset():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(200, 3)).astype(float)                   # many ties: stability matters
    for _ in range(5):
        rows = rng.random(200) < rng.random()
        np.testing.assert_array_equal(subset_orders(presort(X), rows), presort(X[rows]))


def test_a_stage_tree_is_the_tree_grown_on_its_rows():
    "With subsampling, each stage's tree is chapter 8's tree of the in-bag rows and their gradient."
    X, y, _ = problem("regression", n=400)
    model = GradientBoostingRegressor(n_estimators=2, subsample=0.6, max_depth=4, random_state=0).fit(X, y)
    tree = model.estimators_[0, 0].tree_
    # the first stage's rows: the in-bag rows are those the first tree counted; rebuild them from the same generator
    rng = np.random.RandomState(0)
    rows = np.zeros(400, dtype=bool)
    rows[rng.choice(400, 240, replace=False)] = True
    g = y - y.mean()
    again = grow_levelwise(X[rows], g[rows], "squared_error", max_depth=4)
    np.testing.assert_array_equal(tree.feature, again.feature)
    np.testing.assert_array_equal(tree.threshold, again.threshold)
    np.testing.assert_array_equal(tree.n_node_samples, again.n_node_samples)


def test_warm_start_adds_stages_to_the_same_model():
    X, y, _ = problem("multiclass")
    warm = GradientBoostingClassifier(n_estimators=5, warm_start=True, random_state=0).fit(X, y)
    warm.set_params(n_estimators=12).fit(X, y)
    cold = GradientBoostingClassifier(n_estimators=12, random_state=0).fit(X, y)
    np.testing.assert_allclose(warm.predict_proba(X), cold.predict_proba(X), rtol=0, atol=1e-12)
    assert warm.n_estimators_ == 12 and warm.estimators_.shape == (12, 3)
    with pytest.raises(ValueError, match="n_estimators=4 must be larger or equal"):
        warm.set_params(n_estimators=4).fit(X, y)


def test_labels_of_any_type_and_categorical_columns():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"size": rng.normal(size=300), "colour": pd.Categorical(rng.choice(list("abcd"), 300))})
    labels = np.where(frame["colour"].isin(["a", "c"]) ^ (frame["size"] > 0), "yes", "no")
    model = GradientBoostingClassifier(n_estimators=40, max_depth=2).fit(frame, labels)
    assert set(model.predict(frame)) <= {"yes", "no"} and model.score(frame, labels) > 0.95
    assert any(e.tree_.categorical.any() for e in model.estimators_.ravel())
    assert list(model.feature_names_in_) == ["size", "colour"]


def test_an_init_estimator_and_zero():
    X, y, w = problem("regression", weighted=True)
    ours, theirs, *_ = pair("regression", dict(n_estimators=10, init=DecisionTreeRegressor(max_depth=2)), weighted=True)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-9)
    assert ours.init_ is not ours.init                                  # a clone is fitted, the parameter left alone


@pytest.mark.parametrize("params,message", [
    (dict(loss="hinge"), "unknown loss 'hinge'"), (dict(learning_rate=-1.0), "learning_rate must be"),
    (dict(n_estimators=0), "n_estimators must be"), (dict(subsample=0.0), "subsample must be"),
    (dict(criterion="gini"), "criterion must be"), (dict(max_depth=0), "max_depth must be"),
    (dict(n_iter_no_change=0), "n_iter_no_change must be"), (dict(validation_fraction=1.0), "validation_fraction must be"),
    (dict(init="one"), "init must be"), (dict(alpha=1.0), "alpha must be"), (dict(min_samples_leaf=0), "min_samples_leaf must be"),
])
def test_bad_parameters_name_the_culprit(params, message):
    X, y, _ = problem("regression", n=50)
    with pytest.raises(ParameterError, match=message):
        GradientBoostingRegressor(**params).fit(X, y)


@pytest.mark.parametrize("model_class", [GradientBoostingRegressor, GradientBoostingClassifier])
def test_criterion_is_deprecated_as_in_sklearn(model_class):
    "scikit-learn 1.9: criterion defaults to 'deprecated'; 'friedman_mse' or 'squared_error' warn (FutureWarning) and change nothing."
    assert inspect.signature(model_class).parameters["criterion"].default == "deprecated"
    task = "regression" if model_class is GradientBoostingRegressor else "binary"
    X, y, _ = problem(task, n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        silent = model_class(n_estimators=5, random_state=0).fit(X, y)
    for name in ("friedman_mse", "squared_error"):
        with pytest.warns(FutureWarning, match="criterion") as caught:
            named = model_class(n_estimators=5, random_state=0, criterion=name).fit(X, y)
        assert len(caught) == 1 and caught[0].filename == __file__ and "has no effect" in str(caught[0].message)
        np.testing.assert_array_equal(named.predict(X), silent.predict(X))


def test_a_model_is_a_sequence_of_its_stages():
    X, y, _ = problem("multiclass", n=150)
    model = GradientBoostingClassifier(n_estimators=4, random_state=0).fit(X, y)
    assert len(model) == 4 and model[1].shape == (3,) and all(a is b for a, b in zip(model[1], model.estimators_[1]))
    assert all(a is b for stage, row in zip(model, model.estimators_) for a, b in zip(stage, row))
    with pytest.raises(ValueError, match="not fitted"): len(GradientBoostingClassifier())


def test_exponential_loss_needs_two_classes():
    X, y, _ = problem("multiclass", n=90)
    with pytest.raises(ValueError, match="two classes"):
        GradientBoostingClassifier(loss="exponential").fit(X, y)


def test_weighted_percentile_is_scikit_learns():
    from sklearn.utils.stats import _weighted_percentile
    rng = np.random.default_rng(5)
    for _ in range(300):
        v, w = rng.normal(size=9).round(1), rng.integers(0, 3, 9) * rng.random(9)
        if w.sum() == 0: continue
        for rank in (0, 25, 50, 90, 100): assert weighted_percentile(v, w, rank) == _weighted_percentile(v, w, rank)


def test_missing_values_go_to_the_trees_when_they_take_them():
    X, y, _ = problem("binary", n=300)
    X[::7, 1] = np.nan
    if DecisionTreeRegressor().__sklearn_tags__().input_tags.allow_nan:
        model = GradientBoostingClassifier(n_estimators=10).fit(X, y)
        assert np.isfinite(model.predict_proba(X)).all() and model.score(X, y) > 0.7
    else:
        with pytest.raises(ValueError, match="NaN"):
            GradientBoostingClassifier(n_estimators=10).fit(X, y)


def test_benchmark_quick_prints_every_case():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "boosting.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    for case in ("binary", "regression", "ratio"):
        assert case in run.stdout, f"the table lacks {case!r}:\n{run.stdout[-3000:]}"


@pytest.mark.parametrize("make", [lambda: GradientBoostingClassifier(n_estimators=8, max_depth=2),
                                  lambda: GradientBoostingClassifier(n_estimators=4, max_depth=2),      # three classes: K trees a stage
                                  lambda: GradientBoostingRegressor(n_estimators=8, max_depth=2)])
def test_member_trees_keep_the_column_names_and_levels(make):
    "A tree of `estimators_` knows the data frame's columns and levels, as a forest's tree does: it prints them and predicts the frame."
    from climbing_trees.views import export_text
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"size": rng.normal(size=400), "colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey"], 400))})
    model = make()
    group = (frame["colour"].cat.codes.to_numpy() + (frame["size"].to_numpy() > 0.3)) % 3           # levels and sizes both matter
    if isinstance(model, GradientBoostingRegressor): y = group + rng.normal(0, 0.1, 400)
    elif model.n_estimators == 4: y = np.array(["a", "b", "c"])[group]                              # three classes
    else: y = np.where(group == 1, "yes", "no")
    model.fit(frame, y)
    member = model.estimators_[0, 0]
    text = "".join(export_text(e) for e in model.estimators_.ravel())
    assert "colour in {" in export_text(member) and "size" in text and "x0" not in text and "x1" not in text
    assert any(level in export_text(member) for level in ("red", "green", "blue", "grey"))
    assert list(member.feature_names_in_) == ["size", "colour"] and member.encoder_ is model.encoder_
    assert not hasattr(member, "classes_")                                  # a regression tree, even in a classifier
    raw = model.decision_function(frame) if hasattr(model, "classes_") else model.predict(frame)
    raw = raw.reshape(len(frame), -1)
    for k in range(model.estimators_.shape[1]):
        trees_sum = sum(e.predict(frame) for e in model.estimators_[:, k])  # each member reads the data frame itself
        initial = raw[:, k] - model.learning_rate * trees_sum
        np.testing.assert_allclose(initial, initial[0], rtol=0, atol=1e-9)   # what is left is the initial model's constant


def test_an_init_pipeline_without_sample_weight_is_named():
    "A Pipeline's fit refuses sample_weight with a ValueError (not a TypeError): the message still names the initial estimator."
    from sklearn.dummy import DummyRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.arange(30.0)
    model = GradientBoostingRegressor(init=make_pipeline(StandardScaler(), DummyRegressor()), n_estimators=2)
    with pytest.raises(ValueError, match="The initial estimator Pipeline does not support sample weights"):
        model.fit(X, y, sample_weight=np.ones(30))
    assert model.fit(X, y).n_estimators_ == 2                   # without weights it fits


@pytest.mark.parametrize("init", ["class", "no_predict_proba"])
def test_a_classifier_init_needs_an_instance_with_predict_proba(init):
    "scikit-learn's rule: the classifier's initial model gives probabilities (its raw scores are their link), and is an instance."
    from sklearn.dummy import DummyRegressor
    X, y, _ = problem("binary", n=60)
    bad = GradientBoostingRegressor if init == "class" else DummyRegressor()
    with pytest.raises(ParameterError, match="init must be None, 'zero' or an estimator .* with fit and predict_proba"):
        GradientBoostingClassifier(init=bad, n_estimators=2).fit(X, y)
