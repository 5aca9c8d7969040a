"""Chapter 22's pieces of histogram boosting against scikit-learn's own code: baselines, weighted medians, bins past the
subsample, the errors of bad input, and counting on demand against counting every node."""
from functools import partial

import numpy as np
import pytest
from sklearn._loss.loss import AbsoluteError, HalfBinomialLoss, HalfMultinomialLoss, HalfPoissonLoss, HalfSquaredError
from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
from sklearn.utils.stats import _weighted_percentile

from climbing_trees.without_orders import BINNING_SUBSAMPLE
from climbing_trees.hist_boosting import (Codes, _split_gains, averaged_weighted_percentile, baseline, bin_codes,
                                         fit_bins, gradients, split_gain)
from climbing_trees.hist_growth import HistBoosting, Rows, growth_params, grow_tree, tree_records

LOSSES = {"squared_error": HalfSquaredError(), "absolute_error": AbsoluteError(), "poisson": HalfPoissonLoss(),
          "binary": HalfBinomialLoss(), "multinomial": HalfMultinomialLoss(n_classes=4)}


@pytest.mark.parametrize("l2", [0.0, 0.5, 3.0])
def test_the_scans_gains_are_split_gain_bit_for_bit(l2):
    "The scans' in-place gains equal `split_gain`, zeros, tiny hessians and negative sums included."
    rng = np.random.default_rng(3)
    L, R = rng.normal(size=(3, 4, 50)), rng.normal(size=(3, 4, 50))
    L[1], R[1] = np.abs(L[1]), np.abs(R[1])
    L[:2, 0, :5], R[1, 1, :5], L[1, 2, :5] = 0.0, 1e-16, 1e-300
    loss_node = float(rng.normal())
    with np.errstate(all="ignore"):
        theirs = split_gain(L[0], L[1], R[0], R[1], loss_node, l2)
        ours = _split_gains(L, R, loss_node, l2)
    assert np.array_equal(ours, theirs, equal_nan=True)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_baseline_is_scikit_learns_intercept(loss, weighted):
    rng = np.random.default_rng(0)
    y = {"poisson": rng.poisson(1.5, 500).astype(float), "binary": rng.integers(0, 2, 500).astype(float),
         "multinomial": rng.integers(0, 4, 500).astype(float)}.get(loss, rng.normal(size=500))
    w = rng.uniform(0.2, 3, 500) if weighted else None
    theirs = LOSSES[loss].fit_intercept_only(y, w)
    np.testing.assert_allclose(baseline(loss, y, w, 4), np.ravel(theirs), rtol=1e-12, atol=1e-15)


def test_averaged_weighted_percentile_is_scikit_learns():
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 100):
        a, w = rng.normal(size=n), rng.integers(1, 4, n).astype(float)
        for rank in (0, 10, 50, 99.5):
            assert averaged_weighted_percentile(a, w, rank) == _weighted_percentile(a, w, rank, average=True)


def test_bins_past_the_subsample_are_scikit_learns():
    "More rows than BINNING_SUBSAMPLE: the same rows drawn by the same seed, the same thresholds."
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=BINNING_SUBSAMPLE + 5_000), rng.exponential(size=BINNING_SUBSAMPLE + 5_000)])
    bins = fit_bins(X, 255, seed=7)
    mapper = _BinMapper(n_bins=256, subsample=BINNING_SUBSAMPLE, random_state=7).fit(X)
    for ours, theirs in zip(bins.edges, mapper.bin_thresholds_): np.testing.assert_array_equal(ours, theirs)


def test_unseen_categories_and_nan_go_to_the_missing_bin():
    X = np.array([[0.0, 1.5], [2.0, np.nan], [5.0, 0.5], [2.0, 2.5]])
    bins = fit_bins(X, 255, categorical=[0])
    codes = bin_codes(bins, np.array([[2.0, 1.0], [3.0, 1.0], [np.nan, np.nan]]))
    assert codes[0].tolist() == [1, 255, 255] and codes[1, 2] == 255


def test_bad_input_says_what_to_do():
    X = np.arange(600, dtype=float).reshape(300, 2)
    with pytest.raises(ValueError, match="more than max_bins=255: raise max_bins"):
        fit_bins(X, 255, categorical=[0])
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        gradients("hinge", np.zeros(3), np.zeros((3, 1)))


# Chapter 22's whole boosting loop against scikit-learn's HistGradientBoosting (early_stopping=False), tree by tree and node
# by node, on columns of at most 255 values (binning is then exact): squared error, absolute error, Poisson, two and three
# classes, NaN, weights (zeros too), categorical columns (in the middle of X too), ties, edge columns, constraints.
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from climbing_trees.hist_growth import HistBoosting

FIELDS = ["feature_idx", "bin_threshold", "missing_go_to_left", "left", "right", "is_leaf", "count", "depth",
          "is_categorical", "num_threshold"]

def data(n=1500, d=6, levels=(40, 120, 255, 7, 60, 2), nan=(), seed=0, n_cat=0, cat_levels=8):
    "Features of at most 255 distinct values (levels[j] each), NaN in the columns `nan`, the first n_cat columns categorical."
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, levels[j % len(levels)], n) * 0.5 - 3 for j in range(d)])
    for j in range(n_cat): X[:, j] = rng.integers(0, cat_levels, n) * 3 - 2
    score = np.sin(X[:, 1]) + 0.1 * X[:, 2] - 0.5 * (X[:, 0] > 1) + rng.normal(0, 0.5, n)
    if n_cat: score += np.where(np.isin(X[:, 0], [1, 7, 13]), 1.5, 0.0)
    for j in nan: X[rng.random(n) < 0.15, j] = np.nan
    return X, score, rng

def bitset(table):
    "A bool table over the 256 bins as sklearn's 8 uint32 words."
    words = np.zeros(8, dtype=np.uint64)
    for b in np.flatnonzero(table): words[b // 32] |= np.uint64(1) << np.uint64(b % 32)
    return words.astype(np.uint32)

def assert_same(sk, me, X_test):
    "Same baseline, same trees (structure, thresholds, missing sides, categories left, leaf values to 1e-6), same raw predictions to 1e-6."
    np.testing.assert_allclose(me.baseline_, sk._baseline_prediction.ravel(), rtol=1e-12)
    assert len(me.trees_) == len(sk._predictors)
    for i, (mine, theirs) in enumerate(zip(me.trees_, sk._predictors)):
        for k, ((nodes, cat_left), pred) in enumerate(zip(mine, theirs)):
            a = pred.nodes
            assert len(nodes) == len(a), f"iteration {i}, tree {k}: {len(nodes)} nodes, sklearn {len(a)}"
            for f in FIELDS: np.testing.assert_array_equal(nodes[f], a[f], err_msg=f"iteration {i}, tree {k}, {f}")
            leaf = a["is_leaf"].astype(bool)
            np.testing.assert_allclose(nodes["value"][leaf], a["value"][leaf], rtol=1e-6, atol=1e-12)
            for node, table in cat_left.items():
                np.testing.assert_array_equal(bitset(table), pred.binned_left_cat_bitsets[a["bitset_idx"][node]])
    np.testing.assert_allclose(me.raw_predict(X_test), sk._raw_predict(X_test), rtol=1e-6, atol=1e-9)

def fit_both(Est, X, y, w=None, **params):
    sk = Est(early_stopping=False, random_state=0, **params).fit(X, y, sample_weight=w)
    loss = params.pop("loss", "log_loss" if Est is HistGradientBoostingClassifier else "squared_error")
    cat = params.pop("categorical_features", None) or ()
    me = HistBoosting(loss=loss, categorical_features=cat, random_state=0, **params).fit(X, y, sample_weight=w)
    return sk, me

REGRESSION = {
    "one tree": dict(max_iter=1),
    "squared error": dict(max_iter=20),
    "small max_leaf_nodes": dict(max_iter=10, max_leaf_nodes=4),
    "max_depth": dict(max_iter=10, max_depth=3),
    "l2": dict(max_iter=10, l2_regularization=2.0),
    "min_samples_leaf": dict(max_iter=10, min_samples_leaf=3, max_leaf_nodes=60),
    "learning rate": dict(max_iter=10, learning_rate=0.5),
}

@pytest.mark.parametrize("case", REGRESSION)
@pytest.mark.parametrize("nan", [(), (1, 3)])
def test_squared_error(case, nan):
    X, y, _ = data(nan=nan)
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, **REGRESSION[case])
    assert_same(sk, me, data(400, nan=(0, 1, 2, 3), seed=1)[0])

@pytest.mark.parametrize("zeros", [False, True])
def test_squared_error_weights(zeros):
    X, y, rng = data(nan=(2,))
    w = rng.uniform(0.1, 3, len(y))
    if zeros: w[rng.random(len(y)) < 0.1] = 0
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, w, max_iter=15, l2_regularization=0.5)
    assert_same(sk, me, data(400, nan=(2,), seed=1)[0])

def test_many_values_percentile_bins():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    X[rng.random(3000) < 0.1, 1] = np.nan
    y = X[:, 0] + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(0, 0.3, 3000)
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, max_iter=10, max_bins=63)
    assert_same(sk, me, rng.normal(size=(300, 4)))

@pytest.mark.parametrize("weights", [False, True])
def test_absolute_error(weights):
    X, y, rng = data(nan=(1,))
    w = rng.uniform(0.2, 2, len(y)) if weights else None
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, w, loss="absolute_error", max_iter=15)
    assert_same(sk, me, data(400, nan=(1,), seed=1)[0])

@pytest.mark.parametrize("weights", [False, True])
def test_poisson(weights):
    X, y, rng = data(nan=(0, 4))
    y = rng.poisson(np.exp(0.3 * y))
    w = rng.uniform(0.2, 2, len(y)) if weights else None
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, w, loss="poisson", max_iter=15)
    assert_same(sk, me, data(400, nan=(0, 4), seed=1)[0])
    np.testing.assert_allclose(me.predict(X), sk.predict(X), rtol=1e-6)

@pytest.mark.parametrize("params", [dict(max_iter=20), dict(max_iter=10, max_depth=4, l2_regularization=1.0)])
@pytest.mark.parametrize("weights", [False, True])
def test_binary(params, weights):
    X, s, rng = data(nan=(1, 2))
    y = np.where(s + rng.logistic(size=len(s)) > 0.3, "yes", "no")
    w = rng.uniform(0.2, 2, len(y)) if weights else None
    sk, me = fit_both(HistGradientBoostingClassifier, X, y, w, **params)
    X_test = data(400, nan=(1, 2), seed=1)[0]
    assert_same(sk, me, X_test)
    np.testing.assert_allclose(me.predict_proba(X_test), sk.predict_proba(X_test), rtol=1e-6, atol=1e-12)
    assert (me.predict(X_test) == sk.predict(X_test)).all()

@pytest.mark.parametrize("weights", [False, True])
def test_multiclass(weights):
    X, s, rng = data(nan=(3,))
    y = np.digitize(s + rng.normal(0, 0.3, len(s)), [-0.3, 0.6])
    w = rng.uniform(0.2, 2, len(y)) if weights else None
    sk, me = fit_both(HistGradientBoostingClassifier, X, y, w, max_iter=10, max_leaf_nodes=15)
    X_test = data(400, nan=(3,), seed=1)[0]
    assert_same(sk, me, X_test)
    np.testing.assert_allclose(me.predict_proba(X_test), sk.predict_proba(X_test), rtol=1e-6, atol=1e-12)

@pytest.mark.parametrize("loss", ["squared_error", "log_loss"])
@pytest.mark.parametrize("nan", [(), (0, 1)])
def test_categorical(loss, nan):
    X, s, rng = data(n=2000, n_cat=2, cat_levels=15, nan=nan)
    cat = [0, 1]
    X_test = data(400, n_cat=2, cat_levels=17, nan=(0, 1), seed=1)[0]   # unknown categories too
    if loss == "log_loss":
        y = (s + rng.logistic(size=len(s)) > 0.3).astype(int)
        sk, me = fit_both(HistGradientBoostingClassifier, X, y, max_iter=15, categorical_features=cat)
    else: sk, me = fit_both(HistGradientBoostingRegressor, X, s, max_iter=15, categorical_features=cat)
    assert sum(len(t[1]) for trees in me.trees_ for t in trees) > 0   # some categorical splits were made
    assert_same(sk, me, X_test)

def test_categorical_weights_middle_column():
    X, s, rng = data(n=2000, n_cat=3, cat_levels=12, nan=(2, 4))
    X = X[:, [3, 0, 4, 1, 2, 5]]                                  # categorical columns 1, 3, 4: sklearn puts them first
    w = rng.uniform(0.2, 2, len(s))
    sk, me = fit_both(HistGradientBoostingRegressor, X, s, w, max_iter=10, categorical_features=[1, 3, 4])
    assert_same(sk, me, X)

def test_ties():
    "Exact ties: duplicated columns (the first feature wins), categories of identical statistics (sorted as glibc's merge sort orders them), equal gains at mirrored bins."
    rng = np.random.default_rng(5)
    n = 2400
    c = np.repeat(np.arange(12), n // 12).astype(float)          # 12 categories of 200 rows each
    rng.shuffle(c)
    x = rng.integers(0, 30, n).astype(float)
    y = np.isin(c, [0, 2, 4, 5, 9, 11]).astype(float) + (x > 14)   # two groups of categories: ties within each
    X = np.column_stack([c, c, x, x, 29 - x])
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, max_iter=5, categorical_features=[0, 1])
    assert_same(sk, me, X)
    yb = (y > 0.5).astype(int)
    sk, me = fit_both(HistGradientBoostingClassifier, X, yb, max_iter=5, categorical_features=[0, 1])
    assert_same(sk, me, X)

def test_edge_columns():
    "A constant column, a column missing but in 40 rows (sklearn fails on an all-missing one), a two-valued column with NaN; a root too small to split; no leaf limit."
    X, y, rng = data(n=800, nan=(2,))
    X[:, 0], X[40:, 1] = 1.5, np.nan
    X[:, 5] = np.where(rng.random(800) < 0.3, np.nan, X[:, 5])
    sk, me = fit_both(HistGradientBoostingRegressor, X, y, max_iter=5, max_leaf_nodes=None, max_depth=5)
    assert_same(sk, me, X)
    sk, me = fit_both(HistGradientBoostingRegressor, X[:30], y[:30], max_iter=3)
    assert_same(sk, me, X)

CASES = {"squared error, NaN": (HistGradientBoostingRegressor, dict(max_iter=10)),
         "Poisson": (HistGradientBoostingRegressor, dict(loss="poisson", max_iter=10)),
         "absolute error": (HistGradientBoostingRegressor, dict(loss="absolute_error", max_iter=10)),
         "binary": (HistGradientBoostingClassifier, dict(max_iter=10)),
         "multiclass": (HistGradientBoostingClassifier, dict(max_iter=5)),
         "categorical": (HistGradientBoostingRegressor, dict(max_iter=10, categorical_features=[0]))}

@pytest.mark.parametrize("case", CASES)
def test_bitwise(case):
    "Stronger than asked: every node's value and gain, and the raw predictions, are bit for bit sklearn's (here: numpy's exp agreeing with libm's exp after the float32 rounding)."
    Est, params = CASES[case]
    X, s, rng = data(nan=(1, 2), n_cat=1 if "categorical_features" in params else 0, cat_levels=12)
    y = {"Poisson": rng.poisson(np.exp(0.3 * s)), "binary": (s > 0.2).astype(int),
         "multiclass": np.digitize(s, [-0.3, 0.6])}.get(case, s)
    w = rng.uniform(0.2, 2, len(y))
    sk, me = fit_both(Est, X, y, w, **params)
    for mine, theirs in zip(me.trees_, sk._predictors):
        for (nodes, _), pred in zip(mine, theirs):
            for f in ("value", "gain"): np.testing.assert_array_equal(nodes[f], pred.nodes[f])
    np.testing.assert_array_equal(me.raw_predict(X), sk._raw_predict(X))

CONSTRAINED = {
    "monotonic, regression, NaN": (HistGradientBoostingRegressor, dict(max_iter=10, monotonic_cst=[1, 1, 0, -1, 0, 0])),
    "monotonic, binary, weights": (HistGradientBoostingClassifier, dict(max_iter=10, monotonic_cst=[-1, 1, 1, 0, 0, 1])),
    "monotonic, categorical in the middle": (HistGradientBoostingRegressor,
                                             dict(max_iter=10, monotonic_cst=[1, 0, -1, 0, 1, 0], categorical_features=[1, 3])),
    "interactions, categorical": (HistGradientBoostingRegressor,
                                  dict(max_iter=10, interaction_cst=[{0, 2}, {1, 2, 3}, {4, 5}], categorical_features=[0])),
    "max_features, multiclass": (HistGradientBoostingClassifier, dict(max_iter=5, max_features=0.5)),
    "all three, Poisson": (HistGradientBoostingRegressor, dict(loss="poisson", max_iter=10, max_features=0.6,
                                                               monotonic_cst=[0, 1, 1, 0, -1, 0],
                                                               interaction_cst=[{0, 1}, {1, 2, 3}, {3, 4, 5}])),
}

@pytest.mark.parametrize("case", CONSTRAINED)
def test_constraints(case):
    "Monotonic and interaction constraints and max_features: same trees, node values and gains bit for bit."
    Est, params = CONSTRAINED[case]
    cat = params.get("categorical_features")
    X, s, rng = data(nan=(1, 2), n_cat=0 if cat is None else 1, cat_levels=12)
    if cat is not None:
        for j in cat: X[:, j] = rng.integers(0, 10, len(X))
        s = s + np.isin(X[:, cat[0]], [2, 3, 7])
    y = {"monotonic, binary, weights": (s > 0.2).astype(int), "max_features, multiclass": np.digitize(s, [-0.3, 0.6]),
         "all three, Poisson": rng.poisson(np.exp(0.3 * s))}.get(case, s)
    w = rng.uniform(0.2, 2, len(y)) if "weights" in case else None
    sk, me = fit_both(Est, X, y, w, **params)
    for mine, theirs in zip(me.trees_, sk._predictors):
        for (nodes, _), pred in zip(mine, theirs):
            for f in ("value", "gain"): np.testing.assert_array_equal(nodes[f], pred.nodes[f])
    assert_same(sk, me, data(400, nan=(0, 1, 2, 3), seed=1)[0])
    np.testing.assert_array_equal(me.raw_predict(X), sk._raw_predict(X))

def test_monotonic_categorical_refused():
    X, y, _ = data(n=300)
    with pytest.raises(ValueError, match="Categorical features cannot have monotonic constraints"):
        HistBoosting(max_iter=2, categorical_features=[3], monotonic_cst=[0, 0, 0, 1, 0, 0]).fit(X, y)



class CountAll(Rows):
    "Rows that count every node: the reference for counting on demand."
    count_all = True


class Tally(Rows):
    "Rows that count on demand and tally what `find_split` and the grower ask for."
    asked = 0
    def counts(self, node, feature):
        self.asked += 1
        return super().counts(node, feature)


def boosted_trees(rows_class, X, y, w, loss, min_samples_leaf, iterations=15):
    "`iterations` trees grown by chapter 22's grower on `rows_class`, as records, and the rows."
    bins = fit_bins(X)
    by_feature = bin_codes(bins, X)
    has_missing = (by_feature == bins.missing_bin).any(axis=1)
    p = growth_params(HistBoosting(min_samples_leaf=min_samples_leaf), bins.n_known, has_missing, bins.missing_bin)
    raw = np.zeros((len(y), 1)) + baseline(loss, y, w)
    rows = rows_class(Codes(by_feature, np.ascontiguousarray(by_feature.T)), y, w, raw, bins.missing_bin)
    trees = []
    for _ in range(iterations):
        rows.gradients(partial(gradients, loss))
        root, leaves, n_nodes = grow_tree(rows, 0, p, bins.n_known, has_missing, bins.is_categorical, bins.missing_bin)
        trees.append(tree_records(root, n_nodes, bins)[0])
        rows.add_leaves({leaf.id: leaf.value for leaf in leaves})
    return trees, rows


@pytest.mark.parametrize("loss,weighted", [("binary", False), ("binary", True), ("poisson", False)])
def test_counting_on_demand_grows_the_trees_of_counting_every_node(loss, weighted):
    """The hessian bound only skips counts: the same trees as counting every node, with rows of large and tiny hessians
    (confident predictions, zero weights, missing values) and a min_samples_leaf that binds; and cuts the bound could
    not prove were counted and scanned again (more counts asked than nodes split)."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(3000, 6)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    score = 3 * np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2
    y = (score + rng.logistic(size=3000) > 1).astype(float) if loss == "binary" else rng.poisson(np.exp(score / 4)).astype(float)
    w = np.where(rng.random(3000) < 0.1, 0.0, rng.uniform(0.2, 3, 3000)) if weighted else None
    expected, _ = boosted_trees(CountAll, X, y, w, loss, min_samples_leaf=40)
    got, tally = boosted_trees(Tally, X, y, w, loss, min_samples_leaf=40)
    for a, b in zip(expected, got): assert a.tobytes() == b.tobytes()
    splits = sum(int((~tree["is_leaf"].astype(bool)).sum()) for tree in got)
    assert tally.asked > splits
