"""Chapter 23's estimators on dask collections against the same estimators in memory: the same trees (values to 1e-9),
the same predictions, on a LocalCluster of 2 worker processes; the cases not supported on dask fail with their reason."""
import warnings
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import climbing_trees.hist_boosting as hist_boosting
import climbing_trees.hist_sklearn as hist_sklearn
from climbing_trees.hist_sklearn import HistGradientBoostingClassifier, HistGradientBoostingRegressor


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                                   # dask's notes on ports and dashboards
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
             distributed.Client(cluster) as c:
            yield c


def data(n=6000, seed=0, classes=None):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 40, (n, 6)).astype(float)
    X[:, 5] = rng.normal(size=n)                                      # more than 255 values: percentile bins
    X[rng.random((n, 6)) < 0.05] = np.nan
    score = np.nan_to_num(X[:, 0]) / 10 - np.nan_to_num(X[:, 1]) / 20 + np.nan_to_num(X[:, 5]) + rng.normal(size=n)
    if classes: return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, score


def same_trees(a, b):
    assert a.n_iter_ == b.n_iter_
    for ta, tb in zip(a._predictors, b._predictors, strict=True):
        for (na, _), (nb, _) in zip(ta, tb, strict=True):
            for field in ("feature_idx", "bin_threshold", "missing_go_to_left", "left", "right", "is_leaf", "count"):
                np.testing.assert_array_equal(na[field], nb[field], err_msg=field)
            np.testing.assert_allclose(na["value"], nb["value"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("loss,classes", [("squared_error", None), ("poisson", None), ("log_loss", 2), ("log_loss", 3)])
def test_dask_fit_is_the_in_memory_fit(client, loss, classes):
    X, y = data(classes=classes)
    Est = HistGradientBoostingClassifier if classes else HistGradientBoostingRegressor
    params = dict(max_iter=8, max_leaf_nodes=15, min_samples_leaf=10, early_stopping=False, random_state=0)
    if loss == "poisson": y, params["loss"] = np.exp(y / 3), "poisson"
    w = np.random.default_rng(1).uniform(0.5, 2, len(y)) if loss == "poisson" else None
    local = Est(**params).fit(X, y, sample_weight=w)
    on_dask = Est(**params).fit(da.from_array(X, chunks=(1700, 6)), da.from_array(y, chunks=1700),
                                sample_weight=None if w is None else da.from_array(w, chunks=1700))
    same_trees(local, on_dask)
    Xd = da.from_array(X, chunks=(2500, 6))
    method = "predict_proba" if classes else "predict"
    np.testing.assert_allclose(getattr(on_dask, method)(Xd).compute(), getattr(local, method)(X), rtol=1e-9, atol=1e-12)
    per_node = 4 * 3 * X.shape[1] * 256 * 8                           # 4 blocks, each (3, F, 256) float64
    sent = on_dask._dask_traffic["histogram_bytes"]
    assert sent <= 8 * (classes if classes and classes > 2 else 1) * 15 * per_node   # at most one count per leaf: no rows


def test_dask_bins_past_the_subsample_and_early_stopping(client, monkeypatch):
    "Past BINNING_SUBSAMPLE rows the blocks send the rows the in-memory fit draws: the same bins; early stopping on X_val in memory stops where the in-memory fit stops."
    for module in (hist_boosting, hist_sklearn): monkeypatch.setattr(module, "BINNING_SUBSAMPLE", 2000)
    X, y = data(5000, seed=1)
    Xv, yv = data(800, seed=2)
    params = dict(max_iter=40, learning_rate=0.5, early_stopping=True, n_iter_no_change=3, random_state=0)
    local = HistGradientBoostingRegressor(**params).fit(X, y, X_val=Xv, y_val=yv)
    on_dask = HistGradientBoostingRegressor(**params).fit(da.from_array(X, chunks=(1300, 6)), da.from_array(y, chunks=1300),
                                                          X_val=Xv, y_val=yv)
    for a, b in zip(local._bins.edges, on_dask._bins.edges): np.testing.assert_array_equal(a, b)
    same_trees(local, on_dask)
    np.testing.assert_allclose(on_dask.validation_score_, local.validation_score_, rtol=1e-9)
    np.testing.assert_allclose(on_dask.train_score_, local.train_score_, rtol=1e-9)


def test_dask_data_frame_and_errors(client):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd
    X, y = data(3000, seed=3)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    params = dict(max_iter=5, early_stopping=False, categorical_features=["x0"], random_state=0)
    local = HistGradientBoostingRegressor(**params).fit(df, y)
    on_dask = HistGradientBoostingRegressor(**params).fit(dd.from_pandas(df, npartitions=3), da.from_array(y, chunks=1000))
    np.testing.assert_allclose(on_dask.predict(dd.from_pandas(df, npartitions=2)).compute(), local.predict(df), rtol=1e-9)
    Xd, yd = da.from_array(X, chunks=(1000, 6)), da.from_array(y, chunks=1000)
    with pytest.raises(NotImplementedError, match="medians"):
        HistGradientBoostingRegressor(loss="absolute_error").fit(Xd, yd)
    with pytest.raises(ValueError, match="pass X_val and y_val"):
        HistGradientBoostingRegressor(early_stopping=True).fit(Xd, yd)
    with pytest.raises(TypeError, match="not numbers"):
        HistGradientBoostingRegressor().fit(dd.from_pandas(df.assign(s=df.x1.astype(str)), npartitions=2), yd)
