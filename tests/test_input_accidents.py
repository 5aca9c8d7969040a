"""Issue 40's accidents, each with what the user now sees: a table read from a file with a stray "?" or a typo in a
numeric column, a column of dates, a column of identifiers, a value of the wrong kind or a level never seen at predict,
parameter combinations that cannot work, and the dtypes pandas and numpy hand us (object arrays, mixed columns,
booleans, nullable Int64 / boolean / string). Every row of the closing note's table is a test here."""
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from climbing_trees import (DecisionTreeClassifier as C, DecisionTreeRegressor as R, RandomForestClassifier,
                            ExtraTreesClassifier, GradientBoostingClassifier, GradientBoostingRegressor)
from climbing_trees.categorical_growth import DataWarning
from climbing_trees.estimators import ParameterError

WINE = load_wine(as_frame=True)
FAMILIES = [C(), RandomForestClassifier(n_estimators=3, random_state=0), ExtraTreesClassifier(n_estimators=3, random_state=0),
            GradientBoostingClassifier(n_estimators=3)]


def read_back(frame, **read_csv):
    "The frame saved as CSV and read back, as a user's file would be."
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return pd.read_csv(io.StringIO(buffer.getvalue()), **read_csv)


def wine_with(**accidents):
    "The wine data as text-capable objects, with `accidents` {column: {row: value}}, saved and read back."
    frame = WINE.data.astype(object)
    for column, values in accidents.items():
        for row, value in values.items(): frame.loc[row, column] = value
    return read_back(frame)


@pytest.mark.parametrize("estimator", FAMILIES, ids=lambda e: type(e).__name__)
def test_a_stray_marker_in_a_numeric_column_is_refused_by_every_family(estimator):
    table = wine_with(alcohol={5: "?"})
    with pytest.raises(ValueError, match=r"column 'alcohol' is text, but 177 of its 178 values are numbers; the others \('\?', at row 5\)"):
        estimator.fit(table, WINE.target)


def test_a_typo_is_refused_and_the_remedies_work():
    table = wine_with(magnesium={40: "forty"}, alcohol={3: "NA?"})
    with pytest.raises(ValueError, match="na_values=.*pd.to_numeric.*categorical_features") as error:
        C().fit(table, WINE.target)
    assert "'NA?'" in str(error.value) or "'forty'" in str(error.value)
    fixed = table.assign(alcohol=pd.to_numeric(table.alcohol, errors="coerce"), magnesium=pd.to_numeric(table.magnesium, errors="coerce"))
    assert C(random_state=0).fit(fixed, WINE.target).score(fixed, WINE.target) == 1.0
    kept = C(categorical_features=["magnesium"]).fit(table.assign(alcohol=fixed.alcohol), WINE.target)   # on purpose: allowed
    assert kept.is_categorical_.tolist() == [c == "magnesium" for c in table.columns]


def test_na_values_reads_the_marker_as_missing():
    frame = WINE.data.astype(object)
    frame.loc[5, "alcohol"] = "?"
    table = read_back(frame, na_values=["?"])
    assert np.isnan(table.alcohol[5]) and C().fit(table, WINE.target).is_categorical_.sum() == 0


def test_numbers_written_as_text_are_refused():
    table = pd.DataFrame({"x": ["1.5", "2.5", "3.5", "4.5"]})
    with pytest.raises(ValueError, match=r"column 'x' holds numbers written as text .*pd.to_numeric"):
        C().fit(table, [0, 1, 0, 1])


@pytest.mark.parametrize("make", [lambda d: d, lambda d: d - d.min(), lambda d: d.dt.to_period("D"), lambda d: d.dt.tz_localize("UTC"),
                                  lambda d: d.astype(object), lambda d: pd.Series(d.dt.date)],
                         ids=["datetime64", "timedelta64", "period", "datetime tz", "object Timestamps", "object dates"])
@pytest.mark.parametrize("categorical_features", ["auto", []])
def test_dates_are_refused(make, categorical_features):
    days = pd.Series(pd.date_range("2024-01-01", periods=20))
    table = pd.DataFrame({"x": np.arange(20.0), "day": make(days)})
    with pytest.raises(ValueError, match=r"column 'day' holds dates or times .*\.dt\.days"):
        C(categorical_features=categorical_features).fit(table, np.arange(20) % 2)


def test_dates_listed_as_categorical_are_levels():
    table = pd.DataFrame({"day": pd.date_range("2024-01-01", periods=4).astype(object)})
    assert C(categorical_features=["day"]).fit(table, [0, 1, 0, 1]).is_categorical_.tolist() == [True]


def test_an_identifier_column_warns():
    table = pd.DataFrame({"customer": [f"c{i:03d}" for i in range(60)], "x": np.arange(60.0)})
    with pytest.warns(DataWarning, match="'customer' has 60 levels among 60 values"):
        C().fit(table, np.arange(60) % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        C().fit(table.assign(customer=[f"c{i % 5}" for i in range(60)]), np.arange(60) % 2)   # 5 levels: silent


SHOP = pd.DataFrame({"colour": ["red", "green", "blue"] * 20, "size": np.linspace(0, 1, 60)})
SOLD = (SHOP.colour == "red").astype(int)


@pytest.mark.parametrize("estimator", FAMILIES, ids=lambda e: type(e).__name__)
def test_the_wrong_kind_of_value_at_predict_is_an_error(estimator):
    fitted = estimator.fit(SHOP, SOLD)
    with pytest.raises(ValueError, match="column 'colour' held text at fit .* but X holds numbers"):
        fitted.predict(SHOP.assign(colour=np.arange(60) % 3))


def test_numbers_at_fit_and_text_at_predict():
    table = pd.DataFrame({"code": [1, 2, 3] * 10, "x": np.arange(30.0)})
    fitted = C(categorical_features=["code"]).fit(table, np.arange(30) % 2)
    with pytest.raises(ValueError, match="column 'code' held numbers at fit .* but X holds text"):
        fitted.predict(table.assign(code=["1", "2", "3"] * 10))
    with pytest.raises(ValueError, match=r"column 'x' is treated as numeric but holds '\?' \(at row 0\)"):
        fitted.predict(table.assign(x=["?"] + [1.0] * 29))


@pytest.mark.parametrize("estimator", FAMILIES, ids=lambda e: type(e).__name__)
def test_unseen_levels_warn_once_per_call_and_obey_handle_unknown(estimator):
    fitted = estimator.fit(SHOP, SOLD)
    new = SHOP.assign(colour=["purple", "red", "teal"] * 20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted.predict(new)
    unseen = [w for w in caught if issubclass(w.category, DataWarning)]
    assert len(unseen) == 1 and "column 'colour': 'purple', 'teal' (40 of 60 rows)" in str(unseen[0].message)
    fitted.set_params(handle_unknown="ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted.predict(new)
    fitted.set_params(handle_unknown="error")
    with pytest.raises(ValueError, match="handle_unknown='error' refuses them"):
        fitted.predict(new)


@pytest.mark.parametrize("cls", [C, R, RandomForestClassifier, GradientBoostingRegressor])
def test_handle_unknown_is_checked_with_the_parameters(cls):
    with pytest.raises(ParameterError, match="handle_unknown must be"):
        cls(handle_unknown="skip").fit(None, None)               # refused before any data is read


def test_a_frame_with_no_columns():
    for X in (pd.DataFrame(index=range(5)), np.empty((5, 0))):
        for categorical_features in ("auto", None):
            with pytest.raises(ValueError, match="X has no columns"):
                C(categorical_features=categorical_features).fit(X, [0, 1, 0, 1, 0])


def test_object_arrays():
    numbers = np.array([[1.5, 2], [2.5, 3], [3.5, 4], [4.5, 5]], dtype=object)
    assert C().fit(numbers, [0, 1, 0, 1]).predict(numbers).tolist() == [0, 1, 0, 1]
    text = np.array([["a", 2], ["b", 3], ["a", 4], ["b", 5]], dtype=object)
    with pytest.raises(ValueError, match=r"\('a' in row 0, column 0\).*categorical_features=\[0\]"):
        C().fit(text, [0, 1, 0, 1])
    assert C(categorical_features=[0]).fit(text, [0, 1, 0, 1]).score(text, [0, 1, 0, 1]) == 1.0


def test_mixed_type_columns():
    mostly_text = pd.DataFrame({"m": ["a", "b", 3, "a", "b", 3]})            # levels of two kinds: categorical
    fitted = C().fit(mostly_text, [0, 1, 1, 0, 1, 1])
    assert fitted.is_categorical_.tolist() == [True] and fitted.score(mostly_text, [0, 1, 1, 0, 1, 1]) == 1.0
    mostly_numbers = pd.DataFrame({"m": [1.5, 2.5, "x", 3.5, 4.5, 5.5]})    # one stray string: refused
    with pytest.raises(ValueError, match=r"the others \('x', at row 2\)"):
        C().fit(mostly_numbers, [0, 1, 1, 0, 1, 1])


def test_booleans_and_nullable_dtypes():
    y = np.arange(12) % 2
    frame = pd.DataFrame({"flag": (np.arange(12) % 2).astype(bool),
                          "nullable_flag": pd.array([True, False, None] * 4, dtype="boolean"),
                          "count": pd.array([1, 2, None, 4] * 3, dtype="Int64"),
                          "word": pd.array(["a", "b", None] * 4, dtype="string")})
    fitted = C().fit(frame, y)
    assert fitted.is_categorical_.tolist() == [True, True, False, True]
    assert fitted.score(frame, y) == 1.0                                      # the bool column is the target
    assert np.isnan(fitted._validate_X_predict(frame)[2, 2])                  # pandas' NA in Int64: a missing value


def test_pyarrow_strings():
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"word": pd.array(["a", "b", None, "a"] * 3, dtype="string[pyarrow]")})
    assert C().fit(frame, np.arange(12) % 2).is_categorical_.tolist() == [True]


def test_a_grid_over_criterion_and_missing_fits_everywhere():
    "Every criterion with every missing-value strategy, the random splitter and best first: no failed fit, no NaN score."
    from sklearn.model_selection import GridSearchCV
    rng = np.random.default_rng(0)
    X = np.where(rng.random((120, 3)) < 0.1, np.nan, rng.random((120, 3)))
    y = (np.nan_to_num(X[:, 0]) > 0.5).astype(int)
    grid = dict(criterion=["gini", "entropy", "log_loss"], missing=["direction", "surrogate"], splitter=["best", "random"],
                max_leaf_nodes=[None, 4])
    search = GridSearchCV(C(random_state=0), grid, cv=3, error_score="raise").fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all() and len(search.cv_results_["params"]) == 24
    regression = GridSearchCV(R(random_state=0), dict(criterion=["squared_error", "absolute_error", "poisson"], missing=["surrogate"]),
                              cv=3, error_score="raise").fit(X, y + 1.0)
    assert np.isfinite(regression.cv_results_["mean_test_score"]).all()
    assert ExtraTreesClassifier(n_estimators=5, missing="surrogate", random_state=0).fit(X, y).score(X, y) > 0.8


def test_a_random_splitter_with_a_depth_first_algorithm_is_refused_with_the_parameters():
    with pytest.raises(ParameterError, match="the depth-first algorithm 'naive'"):
        C(splitter="random", algorithm="naive").fit(None, None)


def test_boosting_accepts_missing_like_the_trees():
    rng = np.random.default_rng(0)
    X = rng.random((200, 4))
    y = X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=200)
    holes = np.where(rng.random(X.shape) < 0.15, np.nan, X)
    for missing in ("direction", "surrogate"):
        model = GradientBoostingRegressor(n_estimators=20, missing=missing, random_state=0).fit(holes, y)
        assert model.score(holes, y) > 0.7, missing
        assert model.estimators_[0, 0].missing == missing
        tree = model.estimators_[0, 0].tree_
        assert (tree.surrogates is not None and len(tree.surrogates.feature) > 0) == (missing == "surrogate")
    with pytest.raises(ValueError, match="missing='error'"):
        GradientBoostingRegressor(missing="error").fit(holes, y)
