"""Chapter 05's estimators as scikit-learn sees them: its whole `check_estimator` suite, and the
tools that rely on the conventions (Pipeline, GridSearchCV, cross_val_score, clone, pickle);
then data frames with categorical columns, the choice of algorithm, and the pruning hook."""
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import climbing_trees
from climbing_trees import tree as tree_module
from climbing_trees.impurity import play_tennis
from climbing_trees.tree import (ALGORITHMS, DEFAULT_ALGORITHM, DecisionTreeClassifier, DecisionTreeRegressor, collapse,
                                 export_text, flat_apply, plot_tree)

X_BC, Y_BC = load_breast_cancer(return_X_y=True)
X_DIA, Y_DIA = load_diabetes(return_X_y=True)


# -- scikit-learn's own test suite: every check must pass (none is skipped or expected to fail)
@parametrize_with_checks([DecisionTreeClassifier(), DecisionTreeRegressor()])
def test_sklearn_estimator_checks(estimator, check, monkeypatch):
    # the array-API check skips itself unless SCIPY_ARRAY_API is set; set, it runs (numpy namespace) and passes
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


def test_public_api():
    "The names DESIGN.md promises, importable from the package itself."
    from climbing_trees import DecisionTreeClassifier as C, DecisionTreeRegressor as R, export_text as E, plot_tree as P
    assert (C, R, E, P) == (DecisionTreeClassifier, DecisionTreeRegressor, export_text, plot_tree)
    assert climbing_trees.__version__


def test_default_algorithm_is_the_registered_default():
    assert DecisionTreeClassifier().algorithm == DEFAULT_ALGORITHM == DecisionTreeRegressor().algorithm
    assert DEFAULT_ALGORITHM in ALGORITHMS


# -- the tools built on the conventions
def test_pipeline_and_grid_search():
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier())
    grid = GridSearchCV(pipe, {"decisiontreeclassifier__max_depth": [1, 3], "decisiontreeclassifier__criterion": ["gini", "entropy"]},
                        cv=3).fit(X_BC, Y_BC)
    assert grid.best_params_["decisiontreeclassifier__max_depth"] == 3
    assert grid.score(X_BC, Y_BC) > 0.9


def test_cross_val_score_classifier_and_regressor():
    accuracy = cross_val_score(DecisionTreeClassifier(max_depth=4, min_samples_leaf=5), X_BC, Y_BC, cv=5)
    r2 = cross_val_score(DecisionTreeRegressor(max_depth=3, min_samples_leaf=10), X_DIA, Y_DIA, cv=5)
    assert accuracy.mean() > 0.88 and r2.mean() > 0.1


def test_clone_keeps_parameters_and_drops_the_fit():
    fitted = DecisionTreeClassifier(max_depth=3, criterion="entropy", algorithm="incremental").fit(X_BC, Y_BC)
    copy = clone(fitted)
    assert copy.get_params() == fitted.get_params()
    assert not hasattr(copy, "tree_")


@pytest.mark.parametrize("make", [lambda: DecisionTreeClassifier(max_depth=4).fit(X_BC, np.where(Y_BC, "benign", "malignant")),
                                  lambda: DecisionTreeRegressor(max_depth=4).fit(X_DIA, Y_DIA),
                                  lambda: DecisionTreeClassifier().fit(play_tennis().drop(columns="Play"), play_tennis()["Play"])])
def test_pickle_round_trip(make):
    fitted = make()
    X = play_tennis().drop(columns="Play") if fitted.n_features_in_ == 4 else (X_BC if fitted.n_features_in_ == 30 else X_DIA)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    np.testing.assert_array_equal(again.apply(X), fitted.apply(X))
    assert export_text(again) == export_text(fitted)


# -- labels, weights, queries
@pytest.mark.parametrize("labels", [np.array(["no", "yes"]), np.array([1, 2]), np.array([-1.0, 7.0]), np.array([True, False])])
def test_predictions_are_the_original_labels(labels):
    y = labels[Y_BC]
    clf = DecisionTreeClassifier(max_depth=3).fit(X_BC, y)
    assert set(clf.predict(X_BC)) <= set(labels)
    np.testing.assert_array_equal(clf.classes_, np.unique(labels))
    np.testing.assert_array_equal(clf.predict(X_BC), clf.classes_[clf.predict_proba(X_BC).argmax(1)])


def test_integer_weights_act_as_repeated_rows():
    rng = np.random.default_rng(3)
    X, y, w = rng.random((80, 3)), rng.integers(0, 3, 80), rng.integers(1, 4, 80)
    by_weight = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=w)
    by_repeat = DecisionTreeClassifier(max_depth=4).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(by_weight.predict_proba(X), by_repeat.predict_proba(X))
    np.testing.assert_allclose(by_weight.feature_importances_, by_repeat.feature_importances_)


def test_regressor_leaf_values_are_weighted_means():
    X = np.array([[0.], [0.], [0.], [1.], [1.]])
    y, w = np.array([1., 2., 6., 10., 20.]), np.array([1., 1., 2., 3., 1.])
    reg = DecisionTreeRegressor().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(reg.predict(np.array([[0.], [1.]])), [(1 + 2 + 12) / 4, (30 + 20) / 4])


def test_queries_agree_with_the_flat_tree():
    clf = DecisionTreeClassifier(max_depth=5).fit(X_BC, Y_BC)
    assert clf.get_depth() == clf.tree_.max_depth == 5
    assert clf.get_n_leaves() == clf.tree_.n_leaves == len(np.unique(clf.apply(X_BC)))
    assert clf.tree_.is_leaf[clf.apply(X_BC)].all()
    np.testing.assert_allclose(clf.feature_importances_.sum(), 1.0)


def test_a_lone_leaf_has_zero_importances():
    clf = DecisionTreeClassifier().fit(np.ones((5, 3)), [0, 1, 0, 1, 1])        # constant features: nothing to split
    assert clf.get_n_leaves() == 1 and clf.get_depth() == 0
    np.testing.assert_array_equal(clf.feature_importances_, np.zeros(3))


# -- every algorithm grows the same tree, numeric and categorical
def categorical_frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    size = rng.random(n)
    shape = pd.Categorical(rng.choice(["round", "square", "flat"], n))
    y = ((np.isin(colour, ["red", "grey"]) & (size > 0.3)) | (shape == "flat")).astype(int)
    flip = rng.random(n) < 0.1
    return pd.DataFrame({"colour": colour, "size": size, "shape": shape}), np.where(flip, 1 - y, y)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_all_algorithms_grow_the_same_tree(criterion):
    X, y = categorical_frame()
    fits = [DecisionTreeClassifier(criterion=criterion, max_depth=4, algorithm=a).fit(X, y) for a in ALGORITHMS]
    for other in fits[1:]:
        for name in ("children_left", "children_right", "feature", "left_levels", "right_levels", "default_left"):
            np.testing.assert_array_equal(getattr(other.tree_, name), getattr(fits[0].tree_, name))
        np.testing.assert_array_equal(other.tree_.threshold, fits[0].tree_.threshold)
        np.testing.assert_allclose(other.tree_.value, fits[0].tree_.value, rtol=1e-12)


# -- data frames with categorical columns
def test_categorical_columns_auto_and_listed():
    X, y = categorical_frame()
    auto = DecisionTreeClassifier(max_depth=3).fit(X, y)
    np.testing.assert_array_equal(auto.is_categorical_, [True, False, True])
    np.testing.assert_array_equal(auto.feature_names_in_, ["colour", "size", "shape"])
    assert auto.tree_.categorical.any()
    listed = DecisionTreeClassifier(max_depth=3, categorical_features=["colour", "shape"]).fit(X, y)
    np.testing.assert_array_equal(listed.predict(X), auto.predict(X))
    by_index = DecisionTreeClassifier(max_depth=3, categorical_features=[0, 2]).fit(X, y)
    np.testing.assert_array_equal(by_index.predict(X), auto.predict(X))
    assert " in {" in export_text(auto)
    assert (auto.predict(X) == y).mean() > 0.85


def test_unseen_levels_follow_the_heavier_child():
    X, y = categorical_frame()
    clf = DecisionTreeClassifier(max_depth=1, categorical_features=["colour"]).fit(X[["colour"]], y)
    unseen = clf.apply(pd.DataFrame({"colour": ["purple"]}))[0]
    tree = clf.tree_
    heavier = tree.children_left[0] if tree.default_left[0] else tree.children_right[0]
    assert unseen == heavier
    heavier_is_left = tree.weighted_n_node_samples[tree.children_left[0]] >= tree.weighted_n_node_samples[tree.children_right[0]]
    assert tree.default_left[0] == heavier_is_left


def test_categorical_numbers_as_levels_in_an_array():
    rng = np.random.default_rng(1)
    code = rng.integers(0, 5, 200)                                 # five levels whose order means nothing
    y = np.isin(code, [0, 3]).astype(int)
    X = np.column_stack([code, rng.random(200)])
    clf = DecisionTreeClassifier(max_depth=1, categorical_features=[0]).fit(X, y)
    assert clf.get_n_leaves() == 2 and clf.tree_.categorical[0]
    np.testing.assert_array_equal(clf.predict(X), y)                # one categorical split separates {0, 3}; no threshold can


def test_categorical_regression():
    rng = np.random.default_rng(2)
    city = rng.choice(["Oslo", "Lima", "Pune", "Kyiv"], 400)
    y = pd.Series(city).map({"Oslo": 1.0, "Lima": 5.0, "Pune": 1.2, "Kyiv": 4.8}).to_numpy() + 0.1 * rng.normal(size=400)
    reg = DecisionTreeRegressor(max_depth=1).fit(pd.DataFrame({"city": city}), y)
    assert export_text(reg).splitlines()[0] in ("|--- city in {Oslo, Pune}", "|--- city in {Kyiv, Lima}")


def test_bool_columns_work_in_arrays_and_frames():
    rng = np.random.default_rng(4)
    flag = rng.random(100) > 0.5
    y = flag.astype(int)
    assert (DecisionTreeClassifier().fit(flag[:, None], y).predict(flag[:, None]) == y).all()
    frame = pd.DataFrame({"flag": flag, "noise": rng.random(100)})
    assert (DecisionTreeClassifier().fit(frame, y).predict(frame) == y).all()


# -- the pruning hook that chapter 06 fills in
def test_collapse_is_what_growing_shallower_gives():
    deep = DecisionTreeRegressor(min_samples_leaf=5).fit(X_DIA, Y_DIA)
    shallow = DecisionTreeRegressor(min_samples_leaf=5, max_depth=3).fit(X_DIA, Y_DIA)
    at_depth_3 = np.flatnonzero((deep.tree_.node_depth == 3) & ~deep.tree_.is_leaf)
    cut = collapse(deep.tree_, at_depth_3)
    for name in ("children_left", "children_right", "feature", "threshold", "value", "impurity", "n_node_samples"):
        np.testing.assert_allclose(getattr(cut, name), getattr(shallow.tree_, name))
    np.testing.assert_array_equal(flat_apply(cut, X_DIA), shallow.apply(X_DIA))


def test_a_swapped_tree_is_used_everywhere():
    reg = DecisionTreeRegressor(max_depth=4).fit(X_DIA, Y_DIA)
    stump = DecisionTreeRegressor(max_depth=1).fit(X_DIA, Y_DIA)
    reg.tree_ = collapse(reg.tree_, [1, np.flatnonzero(reg.tree_.node_depth == 1)[1]])
    np.testing.assert_allclose(reg.predict(X_DIA), stump.predict(X_DIA))
    np.testing.assert_allclose(reg.feature_importances_, stump.feature_importances_)
    assert (reg.get_depth(), reg.get_n_leaves()) == (1, 2)


def test_pruning_hook():
    calls = []
    saved = dict(tree_module.PRUNING)               # chapter 06 registers itself when climbing_trees is imported
    try:
        tree_module.PRUNING.clear()
        with pytest.raises(NotImplementedError, match="chapter 06"):
            DecisionTreeClassifier(ccp_alpha=0.1).fit(X_BC, Y_BC)
        tree_module.PRUNING["prune"] = lambda tree, alpha: calls.append(alpha) or collapse(tree, [0])
        tree_module.PRUNING["path"] = lambda tree: (np.array([0.0, 1.0]), np.array([0.0, 0.5]))
        clf = DecisionTreeClassifier(ccp_alpha=0.25).fit(X_BC, Y_BC)
        assert calls == [0.25] and clf.get_n_leaves() == 1
        path = DecisionTreeClassifier(ccp_alpha=0.25).cost_complexity_pruning_path(X_BC, Y_BC)
        np.testing.assert_array_equal(path.ccp_alphas, [0.0, 1.0])
        assert calls == [0.25]                                      # the path grows an unpruned tree
    finally:
        tree_module.PRUNING.clear(); tree_module.PRUNING.update(saved)


def test_plot_tree_draws_every_node():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    clf = DecisionTreeClassifier().fit(play_tennis().drop(columns="Play"), play_tennis()["Play"])
    ax = plot_tree(clf)
    boxes = [t for t in ax.texts if "samples =" in t.get_text()]
    assert len(boxes) == clf.tree_.node_count
    assert any("Outlook in {" in t.get_text() for t in boxes)
    plt.close("all")


def test_three_walks_agree_on_a_categorical_tree():
    "The vectorized walk, the one-row walk over the arrays, and chapter 02's walk over the objects (chapter 04's goes_left)."
    from climbing_trees.categorical import CategoryEncoder
    from climbing_trees.naive import iter_nodes
    from climbing_trees.tree import flat_apply_one, flatten_tree, traverse
    X, y = categorical_frame(n=400, seed=5)
    encoder = CategoryEncoder().fit(X)
    codes = encoder.transform(X)
    grown = ALGORITHMS["vectorized"](codes, y, "entropy", np.ones(len(y)), 2, encoder.categorical_, max_depth=6)
    flat = flatten_tree(grown)
    assert flat.categorical.any() and (~flat.categorical & ~flat.is_leaf).any()     # both kinds of split
    new = codes.copy()
    new[::5, 0], new[1::7, 2] = -1, 9                                               # levels unseen in training
    leaves = flat_apply(flat, new)
    np.testing.assert_array_equal(leaves, [flat_apply_one(flat, x) for x in new])
    nodes = list(iter_nodes(grown))
    assert all(traverse(grown, x) is nodes[t] for x, t in zip(new, leaves))


def test_fit_grows_the_tree_once():
    "A seed bug: a regressor that grew its tree twice per fit."
    calls = []
    ALGORITHMS["counting"] = lambda *args, **kwargs: calls.append(1) or ALGORITHMS["vectorized"](*args, **kwargs)
    try:
        DecisionTreeRegressor(algorithm="counting", max_depth=2).fit(X_DIA, Y_DIA)
        DecisionTreeClassifier(algorithm="counting", max_depth=2).fit(X_BC, Y_BC)
    finally:
        del ALGORITHMS["counting"]
    assert len(calls) == 2


def test_threaded_walk_equals_single_thread_walk():
    "Large inputs are split among threads; every row must reach the same leaf as on one thread."
    from climbing_trees.tree import PARALLEL_ROWS, flat_apply
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=2000) > 0).astype(int)
    clf = DecisionTreeClassifier().fit(X, y)
    X_new = rng.normal(size=(PARALLEL_ROWS + 1234, 4))
    single = flat_apply(clf.tree_, X_new, n_threads=1)
    for n_threads in (2, 3, 4):
        np.testing.assert_array_equal(flat_apply(clf.tree_, X_new, n_threads=n_threads), single)
