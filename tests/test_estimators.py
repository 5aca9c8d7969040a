"""Chapter 16's estimators as scikit-learn sees them: its whole `check_estimator` suite, and the
tools that rely on the conventions (Pipeline, GridSearchCV, cross_val_score, clone, pickle);
then data frames with categorical columns, the choice of algorithm, the fitted `Tree` that every
grower writes, and pruning with chapter 14's `prune`."""
import pickle

import sys

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
from climbing_trees.categorical_growth import CategoryEncoder
from climbing_trees.estimators import ALGORITHMS, DEFAULT_ALGORITHM, EstimatorTree
from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.impurity import play_tennis
from climbing_trees.inference import apply
from climbing_trees.views import export_text, plot_tree
from climbing_trees.levelwise_trees import grow_levelwise
from climbing_trees.tree import Tree, collapse, tree_differences
from climbing_trees.pruning import cost_complexity_path, prune

X_BC, Y_BC = load_breast_cancer(return_X_y=True)
X_DIA, Y_DIA = load_diabetes(return_X_y=True)


# -- scikit-learn's own test suite: every check must pass (none is skipped or expected to fail)
@parametrize_with_checks([DecisionTreeClassifier(), DecisionTreeRegressor()])
def test_sklearn_estimator_checks(estimator, check, monkeypatch):
    # the array-API check skips itself unless SCIPY_ARRAY_API is set; set, it runs (numpy namespace) and passes
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


def test_public_api():
    "The public names, importable from the package itself."
    from climbing_trees import DecisionTreeClassifier as C, DecisionTreeRegressor as R, export_text as E, plot_tree as P
    assert (C, R, E, P) == (DecisionTreeClassifier, DecisionTreeRegressor, export_text, plot_tree)
    assert climbing_trees.__version__


def test_default_algorithm_is_in_the_table():
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


def test_queries_agree_with_the_tree():
    clf = DecisionTreeClassifier(max_depth=5).fit(X_BC, Y_BC)
    assert isinstance(clf.tree_, EstimatorTree) and isinstance(clf.tree_, Tree)
    assert clf.get_depth() == clf.tree_.max_depth == 5
    assert clf.get_n_leaves() == clf.tree_.n_leaves == len(np.unique(clf.apply(X_BC)))
    assert clf.tree_.is_leaf[clf.apply(X_BC)].all()
    np.testing.assert_allclose(clf.feature_importances_.sum(), 1.0)


def test_a_lone_leaf_has_zero_importances():
    clf = DecisionTreeClassifier().fit(np.ones((5, 3)), [0, 1, 0, 1, 1])        # constant features: nothing to split
    assert clf.get_n_leaves() == 1 and clf.get_depth() == 0
    np.testing.assert_array_equal(clf.feature_importances_, np.zeros(3))


# -- CART's priors and misclassification costs, as class weights
def priors_problem(n=900, seed=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.8 * rng.normal(size=n), [0.8, 2.0])     # three classes, the last rare
    return X, y


def test_priors_as_class_weights_give_cart_node_probabilities():
    "class_weight pi_k N / N_k makes every node's value p(k | t) and its weight N p(t), with p(k, t) = pi_k N_k(t) / N_k."
    X, y = priors_problem()
    priors, n_k = np.array([0.2, 0.3, 0.5]), np.bincount(y)
    assert n_k.min() > 30 and not np.allclose(priors, n_k / len(y))
    clf = DecisionTreeClassifier(max_depth=4, class_weight={k: priors[k] * len(y) / n_k[k] for k in range(3)}).fit(X, y)
    n_kt = clf.decision_path(X).T @ np.eye(3)[y]
    p_kt = priors * n_kt / n_k
    np.testing.assert_allclose(clf.tree_.value[:, 0], p_kt / p_kt.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.tree_.weighted_n_node_samples, len(y) * p_kt.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(clf.tree_.value[0, 0], priors, rtol=0, atol=1e-12)


@pytest.mark.parametrize("miss_cost", [0.3, 3.0, 7.5, 40.0])
def test_two_class_costs_as_class_weights_predict_the_least_cost_class(miss_cost):
    "Weights proportional to the cost of misclassifying each class: every leaf predicts the class of least expected cost."
    X, y = priors_problem()
    labels = np.where(y == 2, "rare", "common")
    clf = DecisionTreeClassifier(max_depth=5, class_weight={"common": 1.0, "rare": miss_cost}).fit(X, labels)
    leaves = np.flatnonzero(clf.tree_.is_leaf)
    counts = (clf.decision_path(X).T @ np.column_stack([labels == "common", labels == "rare"]).astype(float))[leaves]
    cost = {"common": miss_cost * counts[:, 1], "rare": counts[:, 0]}            # predict common: miss the rare; predict rare: alarm
    predicted = clf.classes_[clf.tree_.value[leaves, 0].argmax(axis=1)]
    chosen = np.where(predicted == "common", cost["common"], cost["rare"])
    np.testing.assert_allclose(chosen, np.minimum(cost["common"], cost["rare"]), rtol=1e-12)
    assert len(set(predicted)) == 2


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
    fits = {a: DecisionTreeClassifier(criterion=criterion, max_depth=4, algorithm=a).fit(X, y) for a in ALGORITHMS}
    assert fits[DEFAULT_ALGORITHM].tree_.categorical.any()
    for a in ALGORITHMS:
        assert tree_differences(fits[a].tree_, fits[DEFAULT_ALGORITHM].tree_) == [], a


@pytest.mark.parametrize("make, X, y, criterion, n_classes, categorical", [
    (lambda: DecisionTreeClassifier(criterion="entropy", max_depth=6, min_samples_leaf=3), X_BC, Y_BC, "entropy", 2, ()),
    (lambda: DecisionTreeRegressor(min_samples_leaf=5), X_DIA, Y_DIA, "squared_error", None, ()),
    (lambda: DecisionTreeClassifier(max_depth=5), *categorical_frame(), "gini", 2, (0, 2))])
def test_the_estimators_tree_is_a_growers_tree(make, X, y, criterion, n_classes, categorical):
    "The fitted `tree_` is the grower's `Tree` seen as an `EstimatorTree` (the same arrays), nothing converted: chapter 2's comparison takes it as it is."
    est = make().fit(X, y)
    codes = CategoryEncoder().fit_transform(X) if isinstance(X, pd.DataFrame) else X
    grown = grow_levelwise(codes, y, criterion, None, n_classes, categorical=categorical, max_depth=est.max_depth,
                           min_samples_leaf=est.min_samples_leaf)
    assert isinstance(est.tree_, EstimatorTree) and type(grown) is Tree
    assert tree_differences(est.tree_, grown) == []
    shallower = grow_levelwise(codes, y, criterion, None, n_classes, categorical=categorical, max_depth=2)
    assert tree_differences(est.tree_, shallower) != []              # the comparison can fail


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


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_level_seen_in_fit_but_at_no_split_goes_where_an_unseen_level_goes(algorithm):
    "A grower's level tables may be only as wide as the largest code a split uses; a larger code must not break apply."
    rng = np.random.default_rng(0)
    B = rng.choice(["p", "q"], 400)
    A = np.where(B == "p", rng.choice(["a", "b", "c"], 400), rng.choice(["a", "b", "c", "z"], 400))   # "z" only where B is q
    y = np.where(B == "q", 1, (A == "a").astype(int))
    clf = DecisionTreeClassifier(algorithm=algorithm).fit(pd.DataFrame({"A": A, "B": B}), y)
    tree = clf.tree_
    assert list(clf.encoder_.levels_[0]) == ["a", "b", "c", "z"]
    assert tree.feature[0] == 1 and tree.feature[tree.children_left[0]] == 0          # "z" (code 3) reaches no split on A
    assert not tree.left_levels[:, 3:].any() and not tree.right_levels[:, 3:].any()
    if algorithm == "vectorized": assert tree.left_levels.shape[1] == 3               # chapter 2's builder: as wide as the codes used
    seen_nowhere = clf.apply(pd.DataFrame({"A": ["z"], "B": ["p"]}))
    unseen = clf.apply(pd.DataFrame({"A": ["never"], "B": ["p"]}))
    np.testing.assert_array_equal(seen_nowhere, unseen)


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


# -- collapsed and swapped trees
def test_collapse_is_what_growing_shallower_gives():
    deep = DecisionTreeRegressor(min_samples_leaf=5).fit(X_DIA, Y_DIA)
    shallow = DecisionTreeRegressor(min_samples_leaf=5, max_depth=3).fit(X_DIA, Y_DIA)
    at_depth_3 = np.flatnonzero((deep.tree_.node_depth == 3) & ~deep.tree_.is_leaf)
    cut = collapse(deep.tree_, at_depth_3)
    for name in ("children_left", "children_right", "feature", "threshold", "value", "impurity", "n_node_samples"):
        np.testing.assert_allclose(getattr(cut, name), getattr(shallow.tree_, name))
    np.testing.assert_array_equal(apply(cut, X_DIA), shallow.apply(X_DIA))


def test_a_swapped_tree_is_used_everywhere():
    reg = DecisionTreeRegressor(max_depth=4).fit(X_DIA, Y_DIA)
    stump = DecisionTreeRegressor(max_depth=1).fit(X_DIA, Y_DIA)
    reg.tree_ = collapse(reg.tree_, [1, np.flatnonzero(reg.tree_.node_depth == 1)[1]])
    np.testing.assert_allclose(reg.predict(X_DIA), stump.predict(X_DIA))
    np.testing.assert_allclose(reg.feature_importances_, stump.feature_importances_)
    assert (reg.get_depth(), reg.get_n_leaves()) == (1, 2)


@pytest.mark.parametrize("make, X, y", [(lambda a: DecisionTreeClassifier(ccp_alpha=a), X_BC, Y_BC),
                                        (lambda a: DecisionTreeRegressor(min_samples_leaf=3, ccp_alpha=a), X_DIA, Y_DIA)])
def test_ccp_alpha_prunes_with_prune(make, X, y):
    "A positive ccp_alpha gives the tree that chapter 14's `prune` makes of the unpruned fit; the path is chapter 14's path."
    unpruned = make(0.0).fit(X, y)
    path = make(0.5).cost_complexity_pruning_path(X, y)
    expected = cost_complexity_path(unpruned.tree_)
    np.testing.assert_array_equal(path.ccp_alphas, expected.ccp_alphas)
    np.testing.assert_array_equal(path.impurities, expected.impurities)
    alphas = path.ccp_alphas
    between = np.sqrt(alphas[1:-1] * alphas[2:])
    for alpha in [alphas[1], between[len(between) // 2], alphas[-2], alphas[-1]]:
        pruned = make(alpha).fit(X, y)
        assert tree_differences(pruned.tree_, prune(unpruned.tree_, alpha)) == []
        assert pruned.get_n_leaves() < unpruned.get_n_leaves()
    assert make(alphas[-1]).fit(X, y).get_n_leaves() == 1


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


def test_apply_reads_codes_like_the_estimator():
    "The estimator's `apply` is chapter 13's `apply` on the encoder's codes, unseen levels (-1) included."
    X, y = categorical_frame(n=400, seed=5)
    clf = DecisionTreeClassifier(criterion="entropy", max_depth=6).fit(X, y)
    tree = clf.tree_
    assert tree.categorical.any() and (~tree.categorical & ~tree.is_leaf).any()        # both kinds of split
    new = X.copy()
    new.loc[::5, "colour"] = "purple"                                                  # a level unseen in training
    codes = clf.encoder_.transform(new)
    assert (codes[::5, 0] == -1).all()
    np.testing.assert_array_equal(clf.apply(new), apply(tree, codes))
    np.testing.assert_array_equal(clf.predict_proba(new), tree.value[apply(tree, codes), 0])


def calls_of(function, fit):
    "How many times `fit()` calls `function`, observed with sys.setprofile (nothing of the library is replaced)."
    code, seen = function.__code__, []
    sys.setprofile(lambda frame, event, arg: seen.append(1) if event == "call" and frame.f_code is code else None)
    try: fit()
    finally: sys.setprofile(None)
    return len(seen)


def test_fit_grows_the_tree_once():
    "A known trap: a regressor that grew its tree twice per fit."
    grower = ALGORITHMS["vectorized"]
    assert calls_of(grower, lambda: DecisionTreeRegressor(algorithm="vectorized", max_depth=2).fit(X_DIA, Y_DIA)) == 1
    assert calls_of(grower, lambda: DecisionTreeClassifier(algorithm="vectorized", max_depth=2).fit(X_BC, Y_BC)) == 1


def test_threaded_walk_equals_single_thread_walk():
    "Large inputs are split among threads; every row must reach the same leaf as on one thread."
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=2000) > 0).astype(int)
    clf = DecisionTreeClassifier().fit(X, y)
    X_new = rng.normal(size=(250_000, 4))
    single = apply(clf.tree_, X_new, n_threads=1)
    np.testing.assert_array_equal(clf.apply(X_new), single)
    for n_threads in (2, 3):
        np.testing.assert_array_equal(apply(clf.tree_, X_new, n_threads=n_threads), single)


def test_one_base_validates_the_data_of_every_family():
    "Trees, forests and boosting inherit one `BaseTreeEstimator`: none defines its own validation, label coding or member helper."
    from climbing_trees.boosting_estimators import BaseGradientBoosting, GradientBoostingClassifier, GradientBoostingRegressor
    from climbing_trees.tree_estimators import BaseTreeEstimator
    from climbing_trees.forest_estimators import BaseForest, ExtraTreesRegressor, RandomForestClassifier
    shared = ("_densified", "_check_missing", "_validate_training_data", "_validate_X_predict", "_encode_classes", "_fitted_member",
              "__sklearn_tags__")
    families = (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier, ExtraTreesRegressor,
                GradientBoostingClassifier, GradientBoostingRegressor)
    for cls in families:
        assert issubclass(cls, BaseTreeEstimator)
        ours = [k for k in cls.__mro__[:cls.__mro__.index(BaseTreeEstimator)] if k.__module__.startswith("climbing_trees")]
        for klass in ours: assert not set(shared) & set(vars(klass)), (cls, klass)
    assert BaseGradientBoosting._contiguous_X and not BaseForest._contiguous_X
    assert GradientBoostingRegressor().get_params()["missing"] == "direction"  # a parameter of every family
    for cls in families: assert cls().__sklearn_tags__().input_tags.sparse and cls().__sklearn_tags__().input_tags.allow_nan
    assert not RandomForestClassifier(missing="error").__sklearn_tags__().input_tags.allow_nan


def test_boosting_refuses_what_a_tree_refuses_with_the_same_message():
    from climbing_trees.boosting_estimators import GradientBoostingRegressor
    X, y = X_DIA[:60], Y_DIA[:60]
    with pytest.raises(ValueError, match="fits one target"): GradientBoostingRegressor().fit(X, np.column_stack([y, y]))
    assert DecisionTreeRegressor().fit(X, np.column_stack([y, y])).predict(X).shape == (60, 2)   # a tree grows both outputs
    fitted = GradientBoostingRegressor(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features"): fitted.predict(X[:, :3])
    assert GradientBoostingRegressor(n_estimators=3).fit(np.asfortranarray(X), y).predict(np.asfortranarray(X)).shape == (60,)
