"""Chapter 23's HistGradientBoostingRegressor/Classifier against scikit-learn 1.9's, on features of at most 255 distinct
values (exact binning): the same n_iter_, scores and predictions (1e-10), every tree node for node under constraints,
scikit-learn's errors for bad parameters, and check_estimator."""

import inspect, re
import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble
from sklearn.metrics import make_scorer, mean_absolute_error
from sklearn.utils.estimator_checks import check_estimator

from climbing_trees.hist_sklearn import HistGradientBoostingClassifier, HistGradientBoostingRegressor

REG = (ensemble.HistGradientBoostingRegressor, HistGradientBoostingRegressor)
CLF = (ensemble.HistGradientBoostingClassifier, HistGradientBoostingClassifier)
RTOL = 1e-10

def data(n=2000, d=5, seed=0, nan=()):
    "Features of at most 120 distinct values, a noisy target `score`, NaN in the columns `nan`."
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, (40, 120, 7, 60, 2)[j % 5], n) * 0.5 - 3 for j in range(d)])
    score = np.sin(X[:, 1]) + 0.1 * X[:, 2] - 0.5 * (X[:, 0] > 1) + rng.normal(0, 0.5, n)
    for j in nan: X[rng.random(n) < 0.15, j] = np.nan
    return X, score, rng

def classes(score, k=2):
    "k classes from the score's quantiles."
    return np.searchsorted(np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]), score)

def fit_both(pair, X, y, fit=None, **params):
    "sklearn's estimator and ours with the same parameters (random_state=0 unless given), fitted on the same data."
    params.setdefault("random_state", 0)
    fit = fit or {}
    return pair[0](**params).fit(X, y, **fit), pair[1](**params).fit(X, y, **fit)

def assert_same(sk, me, X_test, classifier=False):
    "Same n_iter_, do_early_stopping_, n_trees_per_iteration_, train and validation scores (1e-10 relative), same predictions (1e-10)."
    assert me.n_iter_ == sk.n_iter_
    assert me.do_early_stopping_ == sk.do_early_stopping_
    assert me.n_trees_per_iteration_ == sk.n_trees_per_iteration_
    assert me.train_score_.shape == sk.train_score_.shape and me.validation_score_.shape == sk.validation_score_.shape
    np.testing.assert_allclose(me.train_score_, sk.train_score_, rtol=RTOL)
    np.testing.assert_allclose(me.validation_score_, sk.validation_score_, rtol=RTOL)
    np.testing.assert_allclose(me._baseline_prediction, sk._baseline_prediction, rtol=RTOL)
    if classifier:
        np.testing.assert_array_equal(me.classes_, sk.classes_)
        np.testing.assert_array_equal(me.predict(X_test), sk.predict(X_test))
        np.testing.assert_allclose(me.predict_proba(X_test), sk.predict_proba(X_test), rtol=RTOL, atol=1e-14)
        np.testing.assert_allclose(me.decision_function(X_test), sk.decision_function(X_test), rtol=RTOL, atol=1e-12)
    else: np.testing.assert_allclose(me.predict(X_test), sk.predict(X_test), rtol=RTOL, atol=1e-12)

# ---------------------------------------------------------------------------------------------------------------- early stopping

def test_auto_early_stopping_regression_large():
    "n > 10,000: early stopping on by default (loss), the 10% validation split drawn from sklearn's _random_seed."
    X, y, _ = data(11000, nan=(1,))
    sk, me = fit_both(REG, X, y, max_iter=200, max_leaf_nodes=15, learning_rate=0.3)
    assert me.do_early_stopping_ and me.n_iter_ < 200
    assert len(me.train_score_) == me.n_iter_ + 1
    assert_same(sk, me, data(500, seed=1, nan=(1,))[0])

def test_auto_early_stopping_classifier_scorer_small_trainset():
    "n > 10,000 with a scorer: train scores on sklearn's stratified 10,000-row `_get_small_trainset` draw."
    X, score, _ = data(12000)
    sk, me = fit_both(CLF, X, classes(score), scoring="accuracy", max_iter=60, max_leaf_nodes=15, learning_rate=0.3,
                      n_iter_no_change=5)
    assert me.do_early_stopping_
    assert_same(sk, me, data(500, seed=1)[0], classifier=True)

def test_auto_off_below_10000():
    X, y, _ = data(1000)
    sk, me = fit_both(REG, X, y, max_iter=5)
    assert not me.do_early_stopping_ and me.n_iter_ == 5 and len(me.train_score_) == 0
    assert_same(sk, me, X)

REG_EARLY = {
    "loss": dict(),
    "scorer name": dict(scoring="neg_mean_squared_error"),
    "scorer r2 (default score)": dict(scoring=None),
    "callable scorer": dict(scoring=make_scorer(mean_absolute_error, greater_is_better=False)),
    "no validation set": dict(validation_fraction=None, tol=1e-2),
    "validation rows as a count": dict(validation_fraction=300),
    "tol and n_iter_no_change": dict(tol=1e-3, n_iter_no_change=3),
    "absolute error": dict(loss="absolute_error"),
    "quantile": dict(loss="quantile", quantile=0.8),
    "quantile scorer": dict(loss="quantile", quantile=0.3, scoring="neg_mean_absolute_error"),
}

@pytest.mark.parametrize("case", REG_EARLY)
def test_early_stopping_regression(case):
    X, y, _ = data(nan=(0,))
    sk, me = fit_both(REG, X, y, early_stopping=True, max_iter=80, learning_rate=0.5, max_leaf_nodes=8,
                      **REG_EARLY[case])
    assert me.n_iter_ < 80
    assert_same(sk, me, data(400, seed=1, nan=(0, 3))[0])

@pytest.mark.parametrize("loss", ["poisson", "gamma"])
def test_early_stopping_log_link(loss):
    X, score, _ = data()
    y = np.exp(score / 2) if loss == "gamma" else np.floor(np.exp(score / 2))
    sk, me = fit_both(REG, X, y, loss=loss, early_stopping=True, max_iter=80, learning_rate=0.5, max_leaf_nodes=8)
    assert_same(sk, me, data(400, seed=1)[0])

CLF_EARLY = {
    "binary loss": (2, dict()),
    "binary accuracy": (2, dict(scoring="accuracy")),
    "binary roc_auc": (2, dict(scoring="roc_auc")),
    "multiclass loss": (3, dict()),
    "multiclass accuracy": (3, dict(scoring="accuracy")),
    "multiclass no validation set": (3, dict(validation_fraction=None)),
}

@pytest.mark.parametrize("case", CLF_EARLY)
def test_early_stopping_classifier(case):
    k, params = CLF_EARLY[case]
    X, score, _ = data(nan=(2,))
    labels = np.array(["low", "mid", "high"])[classes(score, k)]  # string labels
    sk, me = fit_both(CLF, X, labels, early_stopping=True, max_iter=60, learning_rate=0.5, max_leaf_nodes=8,
                      n_iter_no_change=4, **params)
    assert_same(sk, me, data(400, seed=1, nan=(2,))[0], classifier=True)

@pytest.mark.parametrize("pair", [REG, CLF], ids=["regressor", "classifier"])
def test_early_stopping_sample_weight(pair):
    "Weights are split with the rows (train_test_split) and weight the loss and the scores."
    X, score, rng = data()
    y = score if pair is REG else classes(score, 3)
    w = rng.uniform(0.2, 3, len(y))
    for scoring in ("loss", "accuracy" if pair is CLF else "neg_mean_squared_error"):
        sk, me = fit_both(pair, X, y, fit=dict(sample_weight=w), early_stopping=True, max_iter=40, learning_rate=0.5,
                          max_leaf_nodes=8, scoring=scoring, n_iter_no_change=4)
        assert_same(sk, me, data(300, seed=1)[0], classifier=pair is CLF)

@pytest.mark.parametrize("pair", [REG, CLF], ids=["regressor", "classifier"])
@pytest.mark.parametrize("scoring", ["loss", "scorer"])
def test_X_val(pair, scoring):
    """X_val, y_val, sample_weight_val passed to fit: no split, early stopping on them. (With early_stopping='auto' and
    fewer than 10,000 rows sklearn 1.9.1 does not stop early, whatever its docstring says: checked below too.)"""
    X, score, rng = data(1600)
    Xv, sv, _ = data(500, seed=2)
    y, yv = (score, sv) if pair is REG else (classes(score, 3), classes(sv, 3))
    scorer = "neg_mean_absolute_error" if pair is REG else "balanced_accuracy"
    fit = dict(X_val=Xv, y_val=yv, sample_weight_val=rng.uniform(0.5, 2, len(yv)))
    for early_stopping in (True, "auto"):
        sk, me = fit_both(pair, X, y, fit=fit, max_iter=60, learning_rate=0.5, max_leaf_nodes=8, n_iter_no_change=4,
                          scoring="loss" if scoring == "loss" else scorer, early_stopping=early_stopping)
        assert me.do_early_stopping_ == (early_stopping is True)
        assert_same(sk, me, data(300, seed=1)[0], classifier=pair is CLF)

def test_X_val_errors():
    X, y, _ = data(300)
    with pytest.raises(ValueError, match="y_val was not provided"): HistGradientBoostingRegressor().fit(X, y, X_val=X)
    with pytest.raises(ValueError, match="X_val was not provided"): HistGradientBoostingRegressor().fit(X, y, y_val=y)
    with pytest.raises(ValueError, match="early_stopping is False"):
        HistGradientBoostingRegressor(early_stopping=False).fit(X, y, X_val=X, y_val=y)

def test_random_state_none_and_generator():
    "random_state=None or a RandomState: the seeds are drawn from it as sklearn draws them."
    X, y, _ = data()
    for seed in (np.random.RandomState(7), 123):
        state = lambda: np.random.RandomState(7) if not isinstance(seed, int) else seed
        sk = REG[0](random_state=state(), early_stopping=True, max_iter=30, learning_rate=0.5).fit(X, y)
        me = REG[1](random_state=state(), early_stopping=True, max_iter=30, learning_rate=0.5).fit(X, y)
        assert me._random_seed == sk._random_seed
        assert_same(sk, me, X)
    me = REG[1](early_stopping=True, max_iter=5).fit(X, y)       # random_state=None: runs, seeds from np.random
    assert me.n_iter_ <= 5

# ---------------------------------------------------------------------------------------------------------------- warm start

@pytest.mark.parametrize("pair", [REG, CLF], ids=["regressor", "classifier"])
def test_warm_start_equals_longer_fit(pair):
    X, score, _ = data(nan=(1,))
    y = score if pair is REG else classes(score, 3)
    me = pair[1](max_iter=5, warm_start=True, early_stopping=False, random_state=0).fit(X, y)
    me.set_params(max_iter=12).fit(X, y)
    one = pair[1](max_iter=12, early_stopping=False, random_state=0).fit(X, y)
    sk = pair[0](max_iter=12, early_stopping=False, random_state=0).fit(X, y)
    X_test = data(300, seed=1, nan=(1,))[0]
    assert me.n_iter_ == 12
    for other in (one, sk):
        if pair is REG: np.testing.assert_array_equal(me.predict(X_test), other.predict(X_test))
        else: np.testing.assert_array_equal(me.predict_proba(X_test), other.predict_proba(X_test))
    with pytest.raises(ValueError, match="max_iter=3 must be larger than or equal to n_iter_=12"):
        me.set_params(max_iter=3).fit(X, y)

def test_warm_start_early_stopping_matches_sklearn():
    "Warm start with early stopping: the same split (the first fit's seed), scores continued, as sklearn."
    X, y, _ = data()
    fits = []
    for Est in REG:
        est = Est(max_iter=4, warm_start=True, early_stopping=True, random_state=np.random.RandomState(3),
                  learning_rate=0.5, scoring="neg_mean_squared_error")
        est.fit(X, y)
        est.set_params(max_iter=40).fit(X, y)
        fits.append(est)
    assert fits[1].n_iter_ > 4
    assert_same(*fits, X)

def test_warm_start_off_clears_state():
    X, y, _ = data(500)
    me = HistGradientBoostingRegressor(max_iter=5, early_stopping=True).fit(X, y)
    me.set_params(early_stopping=False, max_iter=3).fit(X, y)
    assert me.n_iter_ == 3 and len(me.train_score_) == 0 and len(me.validation_score_) == 0

# ---------------------------------------------------------------------------------------------------------------- class weights

@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 3.0, 2: 0.5}])
@pytest.mark.parametrize("early_stopping", [False, True])
def test_class_weight(class_weight, early_stopping):
    X, score, rng = data()
    y = classes(score, 3)
    keep = (y != 2) | (rng.random(len(y)) < 0.3)                 # unbalanced classes
    X, y = X[keep], y[keep]
    w = rng.uniform(0.5, 2, len(y))
    for fit in ({}, dict(sample_weight=w)):
        sk, me = fit_both(CLF, X, y, fit=fit, class_weight=class_weight, early_stopping=early_stopping, max_iter=25,
                          learning_rate=0.5, max_leaf_nodes=8)
        assert_same(sk, me, data(300, seed=1)[0], classifier=True)

def test_weighted_percentile_bins():
    "Continuous columns (more than max_bins values) with sample weights or class weights: sklearn's weighted percentile bin edges (chapter 22's fit_bins stops there)."
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 4))
    X[rng.random(3000) < 0.1, 2] = np.nan
    y = X[:, 0] + np.sin(X[:, 1]) + rng.normal(0, 0.3, 3000)
    w = rng.uniform(0, 2, 3000)
    w[rng.random(3000) < 0.2] = 0
    sk, me = fit_both(REG, X, y, fit=dict(sample_weight=w), max_iter=15, early_stopping=True)
    assert_same(sk, me, rng.normal(size=(300, 4)))
    sk, me = fit_both(CLF, X, (y > 1).astype(int), class_weight="balanced", max_iter=15, early_stopping=True)
    assert_same(sk, me, rng.normal(size=(300, 4)), classifier=True)

# ---------------------------------------------------------------------------------------------------------------- staged

def test_staged_regressor():
    X, y, _ = data(nan=(0,))
    sk, me = fit_both(REG, X, np.floor(np.exp(y / 2)), loss="poisson", max_iter=15, early_stopping=False)
    X_test = data(300, seed=1, nan=(0,))[0]
    stages = list(zip(sk.staged_predict(X_test), me.staged_predict(X_test), strict=True))
    assert len(stages) == 15
    for a, b in stages: np.testing.assert_allclose(b, a, rtol=RTOL)
    np.testing.assert_array_equal(stages[-1][1], me.predict(X_test))

@pytest.mark.parametrize("k", [2, 3])
def test_staged_classifier(k):
    X, score, _ = data()
    sk, me = fit_both(CLF, X, classes(score, k), max_iter=10, early_stopping=True, n_iter_no_change=2)
    X_test = data(300, seed=1)[0]
    for name in ("staged_predict", "staged_predict_proba", "staged_decision_function"):
        stages = list(zip(getattr(sk, name)(X_test), getattr(me, name)(X_test), strict=True))
        assert len(stages) == me.n_iter_
        for a, b in stages:
            assert a.shape == b.shape
            np.testing.assert_allclose(b, a, rtol=RTOL, atol=1e-14)

# ---------------------------------------------------------------------------------------------------------------- inputs

def frame(n=1500, seed=0):
    "A DataFrame with two numeric columns, a pandas category column (strings, with NaN) and an integer-coded one."
    X, score, rng = data(n, d=3, seed=seed)
    letters = np.array(list("abcdefghij"))[rng.integers(0, 10, n)]
    codes = rng.integers(0, 12, n) * 5
    score = score + np.isin(letters, ["a", "c", "h"]) - 0.5 * np.isin(codes, [5, 25, 40])
    df = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "letter": pd.Categorical(letters), "code": codes.astype(float)})
    df.loc[rng.random(n) < 0.1, "letter"] = np.nan
    return df, score

@pytest.mark.parametrize("spec", ["from_dtype", "names", "indices", "mask"])
def test_categorical_features(spec):
    "Categorical columns given by dtype, name, index or mask; categories unseen in training, in the validation split or at prediction, go the missing way."
    df, score = frame()
    cat = {"from_dtype": "from_dtype", "names": ["letter", "code"], "indices": [2, 3], "mask": [False, False, True, True]}[spec]
    sk, me = fit_both(REG, df, score, categorical_features=cat, early_stopping=True, max_iter=30, learning_rate=0.5)
    expected = [False, False, True, spec != "from_dtype"]
    np.testing.assert_array_equal(me.is_categorical_, expected)
    np.testing.assert_array_equal(me.feature_names_in_, df.columns)
    test, _ = frame(300, seed=1)
    test.loc[:5, "code"] = 1000.0                                # unknown category
    assert_same(sk, me, test)

def test_categorical_numpy_and_errors():
    X, y, _ = data(800)
    X[:, 2] = np.round(X[:, 2])
    sk, me = fit_both(CLF, X, classes(y), categorical_features=[2], max_iter=10)
    assert_same(sk, me, data(200, seed=1)[0], classifier=True)
    with pytest.raises(ValueError, match="categorical_features should be passed as an array of integers"):
        HistGradientBoostingRegressor(categorical_features=["a"]).fit(X, y)
    with pytest.raises(ValueError, match=r"must be in \[0, n_features - 1\]"):
        HistGradientBoostingRegressor(categorical_features=[7]).fit(X, y)
    X[:, 1] = np.arange(len(X))                                  # 800 categories > max_bins
    with pytest.raises(ValueError, match="cardinality <= 255"):
        HistGradientBoostingRegressor(categorical_features=[1]).fit(X, y)

@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_n_features_and_names():
    df, score = frame(400)
    me = HistGradientBoostingRegressor(max_iter=3, categorical_features=None).fit(df[["x0", "x1"]], score)
    assert me.n_features_in_ == 2 and list(me.feature_names_in_) == ["x0", "x1"] and me.is_categorical_ is None
    with pytest.raises(ValueError, match="X has 3 features"): me.predict(np.zeros((2, 3)))

# ---------------------------------------------------------------------------------------------------------------- verbose

@pytest.mark.parametrize("scoring", ["loss", "neg_mean_squared_error"])
def test_verbose(capsys, scoring):
    X, y, _ = data(600)
    HistGradientBoostingRegressor(max_iter=3, verbose=2, early_stopping=True, scoring=scoring).fit(X, y)
    out = capsys.readouterr().out
    assert re.search(r"Binning 0\.000 GB of training data: \d+\.\d{3} s", out)
    assert "Binning 0.000 GB of validation data" in out and "Fitting gradient boosted rounds:" in out
    name = "loss" if scoring == "loss" else "score"
    for i in (1, 2, 3):
        assert re.search(rf"\[{i}/3\] 1 tree, \d+ leaves, max depth = \d+, train {name}: -?\d+\.\d{{5}}, "
                         rf"val {name}: -?\d+\.\d{{5}}, in \d+\.\d{{3}}s", out)
    assert re.search(r"Fit 3 trees in \d+\.\d{3} s, \(\d+ total leaves\)", out)
    HistGradientBoostingClassifier(max_iter=2, verbose=2, early_stopping=False).fit(X, classes(y, 3))
    out = capsys.readouterr().out
    assert re.search(r"\[2/2\] 3 trees, \d+ leaves \(\d+ on avg\), max depth = \d+, in", out)
    assert "Fit 6 trees in" in out
    HistGradientBoostingRegressor(max_iter=2, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "Fit 2 trees in" in out and "[1/2]" not in out

# ---------------------------------------------------------------------------------------------------------------- parameters

BAD = [
    ("learning_rate", 0), ("learning_rate", "fast"), ("max_iter", 0), ("max_iter", 1.5), ("max_leaf_nodes", 1),
    ("max_depth", 0), ("min_samples_leaf", 0), ("l2_regularization", -1), ("max_features", 0.0), ("max_features", 2),
    ("max_bins", 256), ("max_bins", 1), ("categorical_features", "all"), ("interaction_cst", "some"),
    ("n_iter_no_change", 0), ("validation_fraction", 1.0), ("validation_fraction", 0), ("tol", -1.0),
    ("warm_start", "yes"), ("early_stopping", "sometimes"), ("scoring", 3), ("verbose", -1), ("random_state", "x"),
    ("loss", "huber"),
]

@pytest.mark.parametrize("Est", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
@pytest.mark.parametrize("name, value", BAD)
def test_bad_parameters(Est, name, value):
    if Est is HistGradientBoostingClassifier and name == "loss": value = "squared_error"
    X, y, _ = data(100)
    with pytest.raises((ValueError, TypeError), match=f"'{name}' parameter of {Est.__name__} must be"):
        Est(**{name: value}).fit(X, y > 0)

def test_bad_parameters_specific():
    X, y, _ = data(100)
    with pytest.raises(ValueError, match="'quantile' parameter"): HistGradientBoostingRegressor(quantile=2).fit(X, y)
    with pytest.raises(ValueError, match="set quantile"): HistGradientBoostingRegressor(loss="quantile").fit(X, y)
    with pytest.raises(ValueError, match="'class_weight' parameter"):
        HistGradientBoostingClassifier(class_weight="even").fit(X, y > 0)
    with pytest.raises(ValueError, match="loss='poisson' requires non-negative y"):
        HistGradientBoostingRegressor(loss="poisson").fit(X, y)
    with pytest.raises(ValueError, match="loss='gamma' requires strictly positive y"):
        HistGradientBoostingRegressor(loss="gamma").fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"): HistGradientBoostingClassifier().fit(X, y)
    with pytest.raises(ValueError, match="Interaction constraints must consist of integer indices"):
        HistGradientBoostingRegressor(interaction_cst=[[0, 9]]).fit(X, y)


def test_parameter_names_and_defaults():
    "sklearn's parameters, defaults and order."
    for sk, me in (REG, CLF):
        assert list(me().get_params()) == list(sk().get_params())
        assert me().get_params() == sk().get_params()
        assert list(inspect.signature(me).parameters) == list(inspect.signature(sk).parameters)

# ---------------------------------------------------------------------------------------------------------------- constraints

TREE_FIELDS = ["feature_idx", "bin_threshold", "missing_go_to_left", "left", "right", "is_leaf", "count", "depth",
               "is_categorical", "num_threshold", "value", "gain"]

def assert_same_trees(sk, me):
    "Every tree node for node: structure, thresholds, missing sides, counts, and values and gains to the last bit."
    assert len(me._predictors) == len(sk._predictors)
    for i, (mine, theirs) in enumerate(zip(me._predictors, sk._predictors)):
        assert len(mine) == len(theirs)
        for k, ((nodes, _), pred) in enumerate(zip(mine, theirs)):
            assert len(nodes) == len(pred.nodes), f"iteration {i}, tree {k}: {len(nodes)} nodes, sklearn {len(pred.nodes)}"
            for f in TREE_FIELDS:
                np.testing.assert_array_equal(nodes[f], pred.nodes[f], err_msg=f"iteration {i}, tree {k}, {f}")

def assert_monotonic(me, X, j, sign):
    "Predictions (or decision values) along a grid of column j, the other columns of each of 30 rows fixed, move only in the constraint's direction."
    f = me.decision_function if hasattr(me, "decision_function") else me.predict
    grid = np.linspace(np.nanmin(X[:, j]) - 1, np.nanmax(X[:, j]) + 1, 60)
    for row in X[:30]:
        Z = np.repeat(row[None], len(grid), axis=0)
        Z[:, j] = grid
        assert np.all(sign * np.diff(f(Z)) >= 0)

MONOTONIC = {
    "increasing": [0, 1, 1, 0, 0],
    "decreasing": [-1, 0, 0, -1, 0],
    "mixed": [-1, 1, 1, -1, 1],
}

@pytest.mark.parametrize("cst", MONOTONIC)
@pytest.mark.parametrize("nan", [(), (0, 1)])
def test_monotonic_regression(cst, nan):
    X, y, _ = data(nan=nan)
    sk, me = fit_both(REG, X, y, monotonic_cst=MONOTONIC[cst], early_stopping=False, max_iter=20, learning_rate=0.3)
    assert_same_trees(sk, me)
    X_test = data(400, seed=1, nan=(0, 1, 3))[0]
    assert_same(sk, me, X_test)
    for j, c in enumerate(MONOTONIC[cst]):
        if c: assert_monotonic(me, X_test, j, c)

MONOTONIC_MORE = {
    "l2, max_depth, min_samples_leaf": (REG, dict(l2_regularization=1.5, max_depth=4, min_samples_leaf=5)),
    "absolute error": (REG, dict(loss="absolute_error")),
    "quantile": (REG, dict(loss="quantile", quantile=0.7)),
    "poisson, weights": (REG, dict(loss="poisson")),
    "gamma, early stopping": (REG, dict(loss="gamma", early_stopping=True)),
    "binary": (CLF, dict()),
    "binary, weights, early stopping": (CLF, dict(early_stopping=True, scoring="accuracy")),
}

@pytest.mark.parametrize("case", MONOTONIC_MORE)
def test_monotonic_more(case):
    pair, params = MONOTONIC_MORE[case]
    X, score, rng = data(nan=(1,))
    y = {"poisson": np.floor(np.exp(score / 2)), "gamma": np.exp(score / 2)}.get(params.get("loss"), score)
    if pair is CLF: y = classes(score)
    fit = dict(sample_weight=rng.uniform(0.2, 2, len(y))) if "weights" in case else None
    params = dict(dict(early_stopping=False, max_iter=25, learning_rate=0.3), **params)
    sk, me = fit_both(pair, X, y, fit=fit, monotonic_cst=[-1, 1, 0, 0, 1], **params)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(400, seed=1, nan=(1,))[0], classifier=pair is CLF)

def test_monotonic_dict_categorical_first():
    "monotonic_cst by feature name on a DataFrame whose categorical columns sklearn moves to the front (the constraints follow them: `monotonic_cst_remapped`)."
    df, score = frame()
    df = df[["letter", "x0", "code", "x1"]]
    sk, me = fit_both(REG, df, score, monotonic_cst={"x1": 1, "x0": -1}, categorical_features=["letter", "code"],
                      early_stopping=False, max_iter=20, learning_rate=0.5)
    assert_same_trees(sk, me)
    test, _ = frame(300, seed=1)
    assert_same(sk, me, test[["letter", "x0", "code", "x1"]])

def test_interaction_cst_categorical_not_remapped():
    "interaction_cst with a categorical column in the middle: sklearn reads the groups' indices in its internal (categorical first) order, and so does the port."
    X, score, rng = data(nan=(3,))
    X[:, 2] = rng.integers(0, 9, len(X))
    score = score + np.isin(X[:, 2], [1, 4, 5])
    sk, me = fit_both(REG, X, score, categorical_features=[2], interaction_cst=[[0, 1], [2, 3]], early_stopping=False,
                      max_iter=15)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(300, seed=1, nan=(3,))[0])

INTERACTIONS = {
    "two groups": [{0, 1}, {1, 2}],                               # features 3, 4: a third group
    "lists and tuples": [[0, 3], (1, 2, 4), [3, 4]],
    "pairwise": "pairwise",
    "no_interactions": "no_interactions",
    "one group": [list(range(5))],
}

@pytest.mark.parametrize("cst", INTERACTIONS)
@pytest.mark.parametrize("nan", [(), (1, 2)])
def test_interaction_cst(cst, nan):
    X, y, _ = data(nan=nan)
    sk, me = fit_both(REG, X, y, interaction_cst=INTERACTIONS[cst], early_stopping=False, max_iter=15, max_leaf_nodes=15)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(400, seed=1, nan=(1, 2, 3))[0])
    if cst == "no_interactions":
        for trees in me._predictors:
            nodes = trees[0][0]
            assert len(set(nodes["feature_idx"][~nodes["is_leaf"].astype(bool)])) <= 1

@pytest.mark.parametrize("max_features", [1.0, 0.5])
def test_interaction_cst_set_order_ties(max_features):
    "A child's allowed features come in Python's set order (the union of {1, 8} iterates 8 first): with column 8 a copy of column 1, the tie goes to 8, the first in that order, as in sklearn; the feature draw indexes the same order."
    X, y, _ = data(d=12, nan=(1,))
    X[:, 8], X[:, 11] = X[:, 1], X[:, 3]
    y = y + 2.0 * (X[:, 1] > 10)
    sk, me = fit_both(REG, X, y, interaction_cst=[{1, 8}, {0, 2, 8}, {3, 11}, {4, 5, 11}], max_features=max_features,
                      early_stopping=False, max_iter=10)
    assert_same_trees(sk, me)
    if max_features == 1.0:                                       # the root (all features, ascending) takes 1, its subtree 8
        nodes = me._predictors[0][0][0]
        assert nodes["feature_idx"][0] == 1 and set(nodes["feature_idx"][1:][~nodes["is_leaf"][1:].astype(bool)]) == {8}
    assert_same(sk, me, data(300, d=12, seed=1, nan=(1,))[0])

@pytest.mark.parametrize("k", [2, 3])
def test_interaction_cst_classifier(k):
    X, score, rng = data(nan=(0,))
    sk, me = fit_both(CLF, X, classes(score, k), fit=dict(sample_weight=rng.uniform(0.5, 2, len(score))),
                      interaction_cst=[[0, 2], [1, 2, 3]], early_stopping=True, max_iter=20, learning_rate=0.5)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(400, seed=1, nan=(0,))[0], classifier=True)

MAX_FEATURES = {
    "0.3": (5, dict(max_features=0.3)),
    "0.5": (5, dict(max_features=0.5)),
    "0.4 of 5 (exactly 2)": (5, dict(max_features=0.4)),
    "0.7 of 10 (7.000000000000001: 8)": (10, dict(max_features=0.7)),
    "0.01 (at least 1)": (5, dict(max_features=0.01)),
    "RandomState": (5, None),
    "random_state 42, min_samples_leaf 5": (6, dict(max_features=0.5, random_state=42, min_samples_leaf=5)),
}

@pytest.mark.parametrize("case", MAX_FEATURES)
def test_max_features_regression(case):
    d, params = MAX_FEATURES[case]
    X, y, _ = data(d=d, nan=(0, 2))
    if case == "RandomState":                                     # one fresh generator each, in the same state
        sk = REG[0](early_stopping=False, max_iter=15, max_features=0.5, random_state=np.random.RandomState(3)).fit(X, y)
        me = REG[1](early_stopping=False, max_iter=15, max_features=0.5, random_state=np.random.RandomState(3)).fit(X, y)
    else: sk, me = fit_both(REG, X, y, early_stopping=False, max_iter=15, **params)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(400, d=d, seed=1, nan=(0, 2))[0])

@pytest.mark.parametrize("k", [2, 3])
def test_max_features_classifier(k):
    "One feature draw per node searched, shared by the K trees of an iteration and carried on across iterations; with early stopping (the validation split draws from random_state first)."
    X, score, _ = data(nan=(1,))
    sk, me = fit_both(CLF, X, classes(score, k), max_features=0.5, early_stopping=True, max_iter=20, learning_rate=0.5,
                      n_iter_no_change=3)
    assert_same_trees(sk, me)
    assert_same(sk, me, data(400, seed=1, nan=(1,))[0], classifier=True)

def test_max_features_categorical_and_warm_start():
    "Categorical features drawn or not like the others; a warm start goes on with the same feature-draw generator, as sklearn's does."
    df, score = frame()
    params = dict(max_features=0.5, early_stopping=False, learning_rate=0.3, random_state=7)
    sk, me = fit_both(REG, df, score, max_iter=15, **params)
    assert_same_trees(sk, me)
    test, _ = frame(300, seed=1)
    assert_same(sk, me, test)
    sk, me = fit_both(REG, df, score, max_iter=6, warm_start=True, **params)
    sk.set_params(max_iter=14).fit(df, score)
    me.set_params(max_iter=14).fit(df, score)
    assert_same_trees(sk, me)
    assert_same(sk, me, test)

COMBINED = {
    "monotonic + interactions": (REG, dict(monotonic_cst=[1, 0, -1, 0, 1], interaction_cst=[[0, 1], [1, 2, 3]])),
    "monotonic + max_features": (REG, dict(monotonic_cst=[1, 1, 0, -1, 0], max_features=0.6)),
    "interactions + max_features": (REG, dict(interaction_cst="pairwise", max_features=0.5)),
    "all three, regression": (REG, dict(monotonic_cst=[-1, 1, 0, 0, 1], interaction_cst=[{0, 1, 2}, {2, 3}, {1, 4}],
                                        max_features=0.5, l2_regularization=1.0)),
    "all three, binary, early stopping": (CLF, dict(monotonic_cst=[0, 1, 1, -1, 0], interaction_cst=[[1, 2], [0, 3, 4]],
                                                    max_features=0.7, early_stopping=True)),
    "interactions + max_features, 3 classes": (CLF, dict(interaction_cst=[[0, 1], [2, 3, 4]], max_features=0.4)),
}

@pytest.mark.parametrize("case", COMBINED)
def test_constraints_combined(case):
    pair, params = COMBINED[case]
    X, score, _ = data(nan=(1, 3))
    y = classes(score, 3 if "3 classes" in case else 2) if pair is CLF else score
    params = dict(dict(early_stopping=False, max_iter=20, learning_rate=0.4), **params)
    sk, me = fit_both(pair, X, y, **params)
    assert_same_trees(sk, me)
    X_test = data(400, seed=1, nan=(1, 3))[0]
    assert_same(sk, me, X_test, classifier=pair is CLF)
    for j, c in enumerate(params.get("monotonic_cst", [])):
        if c: assert_monotonic(me, X_test, j, c)

CONSTRAINT_ERRORS = {
    "monotonic on a categorical feature": (REG, dict(monotonic_cst=[0, 0, 1, 0, 0], categorical_features=[2])),
    "monotonic, multiclass": (CLF, dict(monotonic_cst=[1, 0, 0, 0, 0])),
    "monotonic value 2": (REG, dict(monotonic_cst=[2, 0, 0, 0, 0])),
    "monotonic length": (REG, dict(monotonic_cst=[1, 0, 0])),
    "monotonic dict without feature names": (REG, dict(monotonic_cst={"a": 1})),
    "interaction index too large": (REG, dict(interaction_cst=[[0, 1], [5]])),
    "interaction index negative": (REG, dict(interaction_cst=[[-1, 2]])),
    "interaction index not an integer": (REG, dict(interaction_cst=[[0, 1.0]])),
    "interaction groups not sequences": (REG, dict(interaction_cst=[0, 1])),
    "max_features 0": (REG, dict(max_features=0.0)),
    "max_features 1 as an int": (REG, dict(max_features=1)),
}

@pytest.mark.parametrize("case", CONSTRAINT_ERRORS)
def test_constraint_errors(case):
    "The same error type and message as sklearn's for bad constraints."
    pair, params = CONSTRAINT_ERRORS[case]
    X, score, _ = data(300)
    X[:, 2] = np.round(X[:, 2])
    y = classes(score, 3) if pair is CLF else score
    with pytest.raises(Exception) as theirs: pair[0](max_iter=2, **params).fit(X, y)
    with pytest.raises(Exception) as mine: pair[1](max_iter=2, **params).fit(X, y)
    assert type(mine.value) is type(theirs.value) and str(mine.value) == str(theirs.value)

def test_monotonic_dict_errors():
    df, score = frame(300)
    for cst in ({"x0": 1, "nope": 1, "zz": -1}, {"x0": 3}, {"letter": 1}):
        with pytest.raises(ValueError) as theirs: REG[0](monotonic_cst=cst, max_iter=2).fit(df, score)
        with pytest.raises(ValueError) as mine: REG[1](monotonic_cst=cst, max_iter=2).fit(df, score)
        assert str(mine.value) == str(theirs.value)

def test_constraint_defaults_change_nothing():
    "monotonic_cst all zeros, max_features=1.0 and one interaction group of every feature grow sklearn's (and the unconstrained) trees."
    X, y, _ = data(800, nan=(1,))
    plain = HistGradientBoostingRegressor(max_iter=5, random_state=0).fit(X, y)
    sk, me = fit_both(REG, X, y, max_iter=5, monotonic_cst=[0] * 5, max_features=1.0, interaction_cst=[list(range(5))])
    assert_same_trees(sk, me)
    np.testing.assert_array_equal(me.predict(X), plain.predict(X))

# ---------------------------------------------------------------------------------------------------------------- check_estimator

@pytest.mark.parametrize("Est", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
def test_check_estimator(Est):
    results = check_estimator(Est(), on_fail=None)
    failed = [(r["check_name"], repr(r["exception"])[:300]) for r in results if r["status"] == "failed"]
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in results) >= 55
