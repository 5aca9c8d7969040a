"""Bad input to chapter 16's estimators: each case gets a ValueError or TypeError (NotFittedError for an
unfitted tree) whose message names the problem; and the edge inputs that must simply work. A bad parameter
raises a ParameterError, both a ValueError and a TypeError (tests/test_parameters.py checks every parameter)."""
import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.exceptions import NotFittedError

from climbing_trees.impurity import play_tennis
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.boosting_estimators import GradientBoostingRegressor as GBR
from climbing_trees.views import export_text, plot_tree

rng = np.random.default_rng(0)
X = rng.random((20, 3))
y = rng.integers(0, 2, 20)
y_real = rng.normal(size=20)
DAYS, PLAY = play_tennis().drop(columns="Play"), play_tennis()["Play"]
C, R = DecisionTreeClassifier, DecisionTreeRegressor


def with_value(array, index, value):
    array = np.array(array, dtype=float)
    array[index] = value
    return array


def fitted(estimator):
    return estimator.fit(X, y if isinstance(estimator, C) else y_real)


BAD = [
    # (case, call, exception, words the message must contain)
    ("inf in X", lambda: C().fit(with_value(X, (3, 1), np.inf), y), ValueError, "infinity"),
    ("-inf in X (regressor)", lambda: R().fit(with_value(X, (0, 0), -np.inf), y_real), ValueError, "infinity"),
    ("NaN in X with missing='error'", lambda: C(missing="error").fit(with_value(X, (5, 2), np.nan), y), ValueError, "1 missing values (NaN), in columns [2]"),
    ("NaN in X at predict with missing='error'", lambda: fitted(C(missing="error")).predict(with_value(X, (1, 1), np.nan)), ValueError, "missing='direction'"),
    ("unknown missing strategy", lambda: C(missing="impute").fit(X, y), ValueError, "missing must be 'direction'"),
    ("negative max_surrogates", lambda: R(max_surrogates=-1).fit(X, y_real), ValueError, "max_surrogates must be an integer >= 0"),
    ("NaN in y (regressor)", lambda: R().fit(X, with_value(y_real, 4, np.nan)), ValueError, "y contains NaN"),
    ("NaN in y (classifier)", lambda: C().fit(X, with_value(y, 4, np.nan)), ValueError, "y contains NaN"),
    ("NaN label among strings", lambda: C().fit(X, np.array(["a", "b"] * 9 + ["a", np.nan], dtype=object)), ValueError, "NaN"),
    ("lengths differ", lambda: C().fit(X, y[:-1]), ValueError, "inconsistent numbers of samples"),
    ("empty X", lambda: C().fit(np.empty((0, 3)), np.empty(0)), ValueError, "0 sample(s)"),
    ("no columns", lambda: R().fit(np.empty((20, 0)), y_real), ValueError, "0 feature(s)"),
    ("3-D X", lambda: C().fit(X.reshape(20, 3, 1), y), ValueError, "dim 3"),
    ("1-D X", lambda: C().fit(X[:, 0], y), ValueError, "Expected 2D array"),
    ("strings in a numeric array", lambda: C().fit(np.array([["a", 1.0]] * 20, dtype=object), y), ValueError, "categorical_features='auto' finds categorical columns only by a pandas DataFrame"),
    ("negative sample_weight", lambda: C().fit(X, y, sample_weight=with_value(np.ones(20), 2, -1.0)), ValueError, "non-negative"),
    ("all-zero sample_weight", lambda: R().fit(X, y_real, sample_weight=np.zeros(20)), ValueError, "all zero"),
    ("wrong-length sample_weight", lambda: C().fit(X, y, sample_weight=np.ones(19)), ValueError, "19 entries but there are 20"),
    ("2-D sample_weight", lambda: C().fit(X, y, sample_weight=np.ones((20, 1))), ValueError, "1-D"),
    ("NaN sample_weight", lambda: C().fit(X, y, sample_weight=with_value(np.ones(20), 0, np.nan)), ValueError, "finite"),
    ("text sample_weight", lambda: C().fit(X, y, sample_weight=["heavy"] * 20), TypeError, "numeric"),
    ("predict before fit", lambda: C().predict(X), NotFittedError, "not fitted"),
    ("predict_proba before fit", lambda: C().predict_proba(X), NotFittedError, "not fitted"),
    ("apply before fit", lambda: R().apply(X), NotFittedError, "not fitted"),
    ("get_depth before fit", lambda: R().get_depth(), NotFittedError, "not fitted"),
    ("importances before fit", lambda: C().feature_importances_, NotFittedError, "not fitted"),
    ("export_text before fit", lambda: export_text(C()), NotFittedError, "not fitted"),
    ("plot_tree before fit", lambda: plot_tree(R()), NotFittedError, "not fitted"),
    ("wrong number of features at predict", lambda: fitted(C()).predict(X[:, :2]), ValueError, "X has 2 features"),
    ("wrong number of features at apply", lambda: fitted(R()).apply(np.ones((2, 4))), ValueError, "X has 4 features"),
    ("max_depth 0", lambda: C(max_depth=0).fit(X, y), ValueError, "max_depth must be None (no limit) or an integer >= 1"),
    ("negative max_depth", lambda: R(max_depth=-2).fit(X, y_real), ValueError, "max_depth must be None (no limit) or an integer >= 1"),
    ("float max_depth", lambda: C(max_depth=2.5).fit(X, y), TypeError, "max_depth must be None (no limit) or an integer >= 1"),
    ("min_samples_leaf 0", lambda: C(min_samples_leaf=0).fit(X, y), ValueError, "min_samples_leaf must be an integer >= 1 or a fraction"),
    ("min_samples_leaf 1.0", lambda: C(min_samples_leaf=1.0).fit(X, y), ValueError, "a fraction of the samples in (0, 1)"),
    ("min_samples_split 1", lambda: R(min_samples_split=1).fit(X, y_real), ValueError, "min_samples_split must be an integer >= 2"),
    ("min_samples_split 1.5", lambda: R(min_samples_split=1.5).fit(X, y_real), ValueError, "a fraction of the samples in (0, 1]"),
    ("min_weight_fraction_leaf above 0.5", lambda: C(min_weight_fraction_leaf=0.6).fit(X, y), ValueError, "min_weight_fraction_leaf must be"),
    ("unknown splitter", lambda: R(splitter="worst").fit(X, y_real), ValueError, "splitter must be 'best' or 'random'"),
    ("max_features 'auto' (gone from scikit-learn)", lambda: C(max_features="auto").fit(X, y), ValueError, "max_features must be"),
    ("max_features 0", lambda: R(max_features=0).fit(X, y_real), ValueError, "max_features must be"),
    ("max_features above 1.0", lambda: C(max_features=1.5).fit(X, y), ValueError, "max_features must be"),
    ("a numpy Generator as random_state", lambda: C(random_state=np.random.default_rng(0)).fit(X, y), TypeError, "random_state must be"),
    ("negative random_state", lambda: C(random_state=-1).fit(X, y), ValueError, "random_state must be"),
    ("max_leaf_nodes 1", lambda: C(max_leaf_nodes=1).fit(X, y), ValueError, "max_leaf_nodes must be None (no limit) or an integer >= 2"),
    ("misspelled class_weight", lambda: C(class_weight="balance").fit(X, y), ValueError, "class_weight must be"),
    ("negative class weight", lambda: C(class_weight={0: -1.0, 1: 1.0}).fit(X, y), ValueError, "non-negative weight"),
    ("class_weight for several outputs", lambda: C(class_weight=[{0: 1.0}]).fit(X, y), ValueError, "one dict per output, but y has one column"),
    ("class_weight on a regressor", lambda: R(class_weight="balanced"), TypeError, "class_weight"),
    ("negative y for poisson", lambda: R(criterion="poisson").fit(X, y_real), ValueError, "negative"),
    ("sparse X with categorical names", lambda: C(categorical_features=["a"]).fit(sparse.csr_matrix(X), y), ValueError, "no column names"),
    ("NaN in a sparse X with missing='error'", lambda: C(missing="error").fit(sparse.csr_matrix(with_value(X, (2, 2), np.nan)), y), ValueError, "NaN"),
    ("negative min_impurity_decrease", lambda: C(min_impurity_decrease=-0.1).fit(X, y), ValueError, "min_impurity_decrease"),
    ("unknown criterion", lambda: C(criterion="ginny").fit(X, y), ValueError, "unknown criterion 'ginny'"),
    ("misclassification is not a growing criterion", lambda: C(criterion="misclassification").fit(X, y), ValueError,
     "unknown criterion 'misclassification'"),
    ("criterion not a string", lambda: R(criterion=None).fit(X, y_real), ValueError, "unknown criterion None"),
    ("regression criterion on a classifier", lambda: C(criterion="squared_error").fit(X, y), ValueError, "a criterion of DecisionTreeRegressor"),
    ("classification criterion on a regressor", lambda: R(criterion="gini").fit(X, y_real), ValueError, "a criterion of DecisionTreeClassifier"),
    ("continuous y for a classifier", lambda: C().fit(X, y_real), ValueError, "Unknown label type: continuous"),
    ("text y for a regressor", lambda: R().fit(X, np.array(["a", "b"] * 10)), ValueError, "could not convert"),
    ("2-column y with surrogates", lambda: C(missing="surrogate").fit(X, np.column_stack([y, y])), ValueError, "fit one model per column"),
    ("2-column y for boosting", lambda: GBR().fit(X, np.column_stack([y_real, y_real])), ValueError, "fits one target"),
    ("y is None", lambda: C().fit(X, None), ValueError, "requires y"),
    ("negative ccp_alpha", lambda: C(ccp_alpha=-0.01).fit(X, y), ValueError, "ccp_alpha must be a finite number >= 0"),
    ("infinite ccp_alpha", lambda: R(ccp_alpha=np.inf).fit(X, y_real), ValueError, "ccp_alpha"),
    ("text ccp_alpha", lambda: C(ccp_alpha="0.1").fit(X, y), TypeError, "ccp_alpha must be a finite number >= 0"),
    ("unknown algorithm", lambda: C(algorithm="quantum").fit(X, y), ValueError, "unknown algorithm 'quantum'"),
    ("unknown categorical column", lambda: C(categorical_features=["Rainfall"]).fit(DAYS, PLAY), ValueError, "Rainfall"),
    ("categorical index out of range", lambda: C(categorical_features=[7]).fit(DAYS, PLAY), ValueError, "out of range"),
    ("categorical name for an array", lambda: C(categorical_features=["Outlook"]).fit(X, y), ValueError, "no column names"),
    ("categorical_features a bare string", lambda: C(categorical_features="Outlook").fit(DAYS, PLAY), ValueError, "categorical_features"),
    ("categorical_features a number", lambda: C(categorical_features=3).fit(DAYS, PLAY), TypeError, "categorical_features"),
    ("text column not declared categorical", lambda: C(categorical_features=["Wind"]).fit(DAYS, PLAY), ValueError, "Outlook"),
    ("NaN in a categorical column with missing='error'", lambda: C(missing="error").fit(DAYS.assign(Wind=DAYS["Wind"].where(DAYS.index != 3)), PLAY), ValueError, "missing values"),
    ("NaN in a categorical column at predict with missing='error'", lambda: C(missing="error").fit(DAYS, PLAY).predict(DAYS.assign(Wind=None)), ValueError, "missing values"),
    ("other columns at predict", lambda: C().fit(DAYS, PLAY).predict(DAYS.rename(columns={"Wind": "Gusts"})), ValueError, "feature names"),
    ("feature_names of the wrong length", lambda: export_text(fitted(C()), feature_names=["a"]), ValueError, "1 names"),
    ("class_names of the wrong length", lambda: plot_tree(fitted(C()), class_names=["a", "b", "c"]), ValueError, "class_names"),
]


@pytest.mark.parametrize("call, exception, words", [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_input_gets_a_clear_error(call, exception, words):
    with pytest.raises(exception) as raised:
        call()
    assert words in str(raised.value), f"message {str(raised.value)!r} does not say {words!r}"


# -- edge inputs that must work
@pytest.mark.parametrize("estimator, target", [(C(), np.zeros(20, int)), (C(), np.array(["only"] * 20)), (R(), np.full(20, 3.5))])
def test_one_class_or_constant_target(estimator, target):
    fitted_tree = estimator.fit(X, target)
    assert fitted_tree.get_n_leaves() == 1 and fitted_tree.get_depth() == 0
    np.testing.assert_array_equal(fitted_tree.predict(X), target)
    if isinstance(estimator, C): np.testing.assert_array_equal(fitted_tree.predict_proba(X), np.ones((20, 1)))


@pytest.mark.parametrize("estimator, target", [(C(), [7]), (R(), [2.5])])
def test_one_row(estimator, target):
    fitted_tree = estimator.fit(X[:1], target)
    assert fitted_tree.get_n_leaves() == 1
    np.testing.assert_array_equal(fitted_tree.predict(X), np.repeat(target, 20))


def test_constant_features():
    fitted_tree = C().fit(np.ones((20, 3)), y)
    assert fitted_tree.get_n_leaves() == 1
    np.testing.assert_allclose(fitted_tree.predict_proba(X)[0], np.bincount(y) / 20)
    np.testing.assert_array_equal(fitted_tree.feature_importances_, [0, 0, 0])


def test_one_informative_column_among_constant_ones():
    X_mixed = np.column_stack([np.ones(20), X[:, 0], np.zeros(20)])
    fitted_tree = C().fit(X_mixed, X[:, 0] > 0.5)
    np.testing.assert_array_equal(fitted_tree.feature_importances_, [0, 1, 0])


def test_bool_columns_and_bool_labels():
    flags = rng.random((40, 2)) > 0.5
    target = flags[:, 0] & ~flags[:, 1]
    fitted_tree = C().fit(flags, target)
    np.testing.assert_array_equal(fitted_tree.predict(flags), target)
    assert fitted_tree.classes_.dtype == bool
    frame = pd.DataFrame(flags, columns=["a", "b"])
    assert (C().fit(frame, target).predict(frame) == target).all()
    assert (R().fit(frame, target.astype(float)).predict(frame) == target).all()


def test_unseen_level_and_unseen_column_order_at_predict():
    fitted_tree = C().fit(DAYS, PLAY)
    new = DAYS.assign(Outlook="Hail")                               # a level never seen: a warning, the heavier child
    with pytest.warns(UserWarning, match="'Outlook': 'Hail'"): assert len(fitted_tree.predict(new)) == len(DAYS)


def test_lists_and_integer_arrays_work():
    fitted_tree = C(max_depth=2).fit(X.tolist(), y.tolist())
    np.testing.assert_array_equal(fitted_tree.predict(X.tolist()), fitted_tree.predict(X))
    ints = (X * 10).astype(np.int64)
    assert R(max_depth=2).fit(ints, y_real).predict(ints).shape == (20,)


def test_zero_weights_on_some_rows_work():
    w = np.ones(20); w[:5] = 0
    fitted_tree = C().fit(X, y, sample_weight=w)
    assert fitted_tree.tree_.weighted_n_node_samples[0] == 15
