"""Several outputs grown as one tree (chapter 5's `MultiOutput`, chapter 16's 2-D y, chapter 18's forests): scikit-learn 1.9's
multi-output trees as the oracle, node for node on data without ties, for every criterion it allows, with weights, class
weights, NaN and text labels; scikit-learn's shapes (`tree_.value` (nodes, outputs, classes), `predict_proba` a list);
forests; the model file; and clear refusals where several outputs are not grown."""
import numpy as np
import pytest
from sklearn import ensemble, tree as sktree

from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                            GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor, from_json, to_json)
from climbing_trees.criteria import MultiOutput, criterion_of
from strategies import float32_exact
from test_sklearn_oracle import SEEDS, preorder, same_structure

REGRESSION = ("squared_error", "friedman_mse", "poisson", "absolute_error")
CLASSIFICATION = ("gini", "entropy", "log_loss")


def problem(criterion, seed, weighted, holes, n=400, d=5):
    "Float32-exact X with distinct values per column (NaN if `holes`), and two or three outputs for `criterion`."
    rng = np.random.default_rng(seed)
    X = float32_exact(rng, (n, d))
    signal = np.c_[2 * X[:, 0] - X[:, 1], np.sin(5 * X[:, 2]) + X[:, 3], X[:, 4] - X[:, 0]]
    noisy = signal + 0.3 * rng.normal(size=signal.shape)
    if criterion == "poisson": y = np.exp(noisy[:, :2])
    elif criterion in REGRESSION: y = noisy[:, :2]
    else: y = np.c_[noisy[:, 0] > 0.5, np.digitize(noisy[:, 1], [0.3, 0.9]), np.digitize(noisy[:, 2], [-0.4, 0, 0.4])].astype(int)
    if holes: X[rng.random(X.shape) < holes] = np.nan
    return X, y, (rng.uniform(0.5, 3.0, n) if weighted else None), float32_exact(rng, (500, d))


def seed_free(criterion, weighted, holes, params):
    "The first problem on which scikit-learn's multi-output tree does not depend on its random_state (no tie between features)."
    cls = sktree.DecisionTreeRegressor if criterion in REGRESSION else sktree.DecisionTreeClassifier
    for seed in range(40):
        X, y, w, X_new = problem(criterion, seed, weighted, holes)
        trees = [cls(criterion=criterion, random_state=s, **params).fit(X, y, sample_weight=w) for s in SEEDS]
        if all(same_structure(t.tree_, trees[0].tree_) for t in trees[1:]): return X, y, w, X_new, trees[0]
    pytest.fail(f"no tie-free problem for {criterion} {params}")


def assert_same_multi_output_tree(ours, theirs, X_new):
    "Node for node (pre-order), value (nodes, outputs, classes) included, and the same predictions in scikit-learn's shapes."
    sk, mine, order = theirs.tree_, ours.tree_, preorder(theirs.tree_)
    assert mine.node_count == sk.node_count and ours.get_n_leaves() >= 4
    internal = sk.children_left[order] != -1
    np.testing.assert_array_equal(mine.feature[internal], sk.feature[order][internal])
    np.testing.assert_array_equal(mine.threshold[internal], sk.threshold[order][internal])      # bit for bit
    np.testing.assert_array_equal(mine.n_node_samples, sk.n_node_samples[order])
    assert mine.value.shape == sk.value.shape and mine.n_outputs == sk.n_outputs
    np.testing.assert_allclose(mine.value, sk.value[order], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mine.impurity, sk.impurity[order], rtol=1e-9, atol=1e-12 * max(1.0, sk.impurity[0]))
    if isinstance(ours, DecisionTreeRegressor):
        np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=1e-9, atol=1e-12)
        return
    np.testing.assert_array_equal(ours.n_classes_, theirs.n_classes_)
    for mine_c, their_c in zip(ours.classes_, theirs.classes_): np.testing.assert_array_equal(mine_c, their_c)
    np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
    for p, q in zip(ours.predict_proba(X_new), theirs.predict_proba(X_new)): np.testing.assert_allclose(p, q, rtol=1e-9, atol=1e-12)


CASES = [(c, weighted, holes) for c in REGRESSION + CLASSIFICATION for weighted, holes in ((False, 0.0), (True, 0.0), (False, 0.05))
         if not (c == "absolute_error" and holes)]


@pytest.mark.parametrize("criterion, weighted, holes", CASES, ids=[f"{c}-{'w' if w else 'u'}-{h}" for c, w, h in CASES])
def test_same_tree_as_sklearn(criterion, weighted, holes):
    params = dict(max_depth=4, min_samples_leaf=20) if criterion in CLASSIFICATION else dict(max_depth=4, min_samples_leaf=5)
    X, y, w, X_new, theirs = seed_free(criterion, weighted, holes, params)
    cls = DecisionTreeRegressor if criterion in REGRESSION else DecisionTreeClassifier
    with pytest.warns(FutureWarning) if criterion == "friedman_mse" else np.errstate():
        ours = cls(criterion=criterion, **params)
    ours.fit(X, y, sample_weight=w)
    if holes: X_new[np.random.default_rng(1).random(X_new.shape) < holes] = np.nan
    assert_same_multi_output_tree(ours, theirs, X_new)


def test_best_first_and_class_weights_match_sklearn():
    X, y, _, X_new = problem("gini", 3, False, 0.0)
    cw = [{0: 1.0, 1: 3.0}, "balanced"][0]
    weights = [cw, {0: 1.0, 1: 2.0, 2: 0.5}, {0: 2.0, 1: 1.0, 2: 1.0, 3: 1.0}]
    for params in (dict(max_leaf_nodes=12, min_samples_leaf=8), dict(class_weight=weights, max_depth=4, min_samples_leaf=8),
                   dict(class_weight="balanced", max_depth=4, min_samples_leaf=8)):
        theirs = sktree.DecisionTreeClassifier(random_state=0, **params).fit(X, y)
        assert all(same_structure(sktree.DecisionTreeClassifier(random_state=s, **params).fit(X, y).tree_, theirs.tree_) for s in SEEDS)
        assert_same_multi_output_tree(DecisionTreeClassifier(**params).fit(X, y), theirs, X_new)


def test_text_labels_and_sklearns_shapes():
    X, y, _, X_new = problem("gini", 0, False, 0.0)
    labels = np.c_[np.where(y[:, 0] == 1, "yes", "no"), np.array(["low", "mid", "high"])[y[:, 1]]]
    ours, theirs = DecisionTreeClassifier(max_depth=3).fit(X, labels), sktree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, labels)
    assert ours.predict(X_new).shape == (len(X_new), 2) and ours.predict(X_new).dtype == theirs.predict(X_new).dtype
    np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
    assert [p.shape for p in ours.predict_proba(X_new)] == [(len(X_new), 2), (len(X_new), 3)]
    assert [p.shape for p in ours.predict_log_proba(X_new)] == [(len(X_new), 2), (len(X_new), 3)]
    assert ours.tree_.value.shape == theirs.tree_.value.shape == (ours.tree_.node_count, 2, 3)
    np.testing.assert_array_equal(ours.tree_.n_classes, [2, 3])
    assert ours.tree_.predict(X_new).shape == theirs.tree_.predict(X_new.astype(np.float32)).shape
    np.testing.assert_array_equal(ours.tree_.missing_go_to_left, ours.tree_.default_left.astype(np.uint8))


def test_one_output_is_unchanged_and_the_criterion_is_the_mean():
    "One output: the plain criterion. Several: impurity and value are the outputs' mean and side by side."
    rng = np.random.default_rng(0)
    y, w = rng.normal(size=(50, 3)), rng.uniform(0.5, 2, 50)
    crit = criterion_of("squared_error", None, 3)
    assert isinstance(crit, MultiOutput) and not isinstance(criterion_of("squared_error", None, 1), MultiOutput)
    S = crit.stats(y, w).sum(axis=0)
    np.testing.assert_allclose(crit.value(S), np.average(y, axis=0, weights=w))
    variances = [np.average((y[:, o] - np.average(y[:, o], weights=w)) ** 2, weights=w) for o in range(3)]
    np.testing.assert_allclose(crit.impurity(S), np.mean(variances))
    codes = rng.integers(0, [2, 4], size=(50, 2))
    crit = criterion_of("gini", (2, 4), 2)
    S = crit.stats(codes, w).sum(axis=0)
    p = [np.bincount(codes[:, o], w, k) / w.sum() for o, k in enumerate((2, 4))]
    np.testing.assert_allclose(crit.value(S), np.r_[p[0], 0, 0, p[1]])                # padded to four classes each
    np.testing.assert_allclose(crit.impurity(S), np.mean([1 - (q ** 2).sum() for q in p]))


@pytest.mark.parametrize("forest", [RandomForestRegressor, ExtraTreesRegressor, RandomForestClassifier, ExtraTreesClassifier],
                         ids=lambda f: f.__name__)
def test_forests_of_several_outputs(forest):
    X, y, _, X_new = problem("squared_error" if "Regressor" in forest.__name__ else "gini", 0, False, 0.0)
    oob = forest is RandomForestRegressor                                  # bootstrap samples, and a target OOB can score
    model = forest(n_estimators=15, random_state=0, oob_score=oob).fit(X, y[:, :2])
    if "Regressor" in forest.__name__:
        mean = np.mean([tree.predict(X_new) for tree in model], axis=0)
        np.testing.assert_allclose(model.predict(X_new), mean, rtol=1e-12)
        if oob: assert model.oob_prediction_.shape == (len(X), 2) and np.isfinite(model.oob_score_)
    else:
        proba = model.predict_proba(X_new)
        for o in range(2): np.testing.assert_allclose(proba[o], np.mean([tree.predict_proba(X_new)[o] for tree in model], axis=0))
        np.testing.assert_array_equal(model.predict(X_new)[:, 1], model.classes_[1].take(proba[1].argmax(axis=1)))
    reference = getattr(ensemble, forest.__name__)(n_estimators=15, random_state=0).fit(X, y[:, :2])
    held_out = problem("squared_error" if "Regressor" in forest.__name__ else "gini", 99, False, 0.0)
    score = ((lambda m: m.score(held_out[0], held_out[1][:, :2])) if "Regressor" in forest.__name__ else   # R^2, or the mean
             (lambda m: np.mean(m.predict(held_out[0]) == held_out[1][:, :2])))                          # accuracy of the outputs
    assert score(model) > score(reference) - 0.05


def test_the_model_file_round_trips_several_outputs():
    X, y, _, X_new = problem("gini", 0, False, 0.0)
    for model in (DecisionTreeClassifier(max_depth=4).fit(X, y), RandomForestRegressor(5, random_state=0).fit(X, y.astype(float))):
        again = from_json(to_json(model))
        np.testing.assert_array_equal(np.asarray(again.predict(X_new)), np.asarray(model.predict(X_new)))


@pytest.mark.parametrize("make, words", [
    (lambda: GradientBoostingRegressor(), "fits one target"),
    (lambda: DecisionTreeRegressor(missing="surrogate"), "missing='surrogate'"),
    (lambda: DecisionTreeRegressor(algorithm="incremental"), "algorithm='incremental'"),
    (lambda: DecisionTreeRegressor(categorical_features=[0]), "categorical columns"),
    (lambda: DecisionTreeRegressor(monotonic_cst=[1, 0, 0, 0, 0]), "Monotonicity constraints are not supported with multiple outputs"),
    (lambda: DecisionTreeClassifier(class_weight=[{0: 1.0, 1: 2.0}]), "number of elements in class_weight should match number of outputs"),
    (lambda: RandomForestClassifier(oob_score=True), "The type of target cannot be used to compute OOB estimates"),
])
def test_what_several_outputs_refuse(make, words):
    X, y, _, _ = problem("gini", 0, False, 0.0)
    model = make()
    target = y if isinstance(model, (DecisionTreeClassifier, RandomForestClassifier)) else y.astype(float)
    with pytest.raises(ValueError, match=words): model.fit(X, target)


def test_shap_refuses_a_classifier_of_several_outputs():
    X, y, _, _ = problem("gini", 0, False, 0.0)
    with pytest.raises(ValueError, match="one classifier per output"): DecisionTreeClassifier(max_depth=2).fit(X, y).to_shap()
    tree = DecisionTreeRegressor(max_depth=2).fit(X, y.astype(float))
    assert tree.to_shap()["trees"][0]["values"].shape == (tree.tree_.node_count, 3)


def test_sklearns_export_graphviz_reads_our_trees_as_its_own():
    "scikit-learn's own `export_graphviz` reads `tree_` (value (nodes, outputs, classes) included) and writes the same DOT text for our tree as for its identical tree: one output and several."
    X, y, _, _ = problem("gini", 0, False, 0.0)
    for ours, theirs in [(DecisionTreeClassifier(max_depth=3), sktree.DecisionTreeClassifier(max_depth=3, random_state=0)),
                         (DecisionTreeRegressor(max_depth=2), sktree.DecisionTreeRegressor(max_depth=2, random_state=0))]:
        for target in (y[:, 0], y[:, :2]):
            target = target if isinstance(ours, DecisionTreeClassifier) else target.astype(float)
            ours.fit(X, target); theirs.fit(X, target)
            assert sktree.export_graphviz(ours, filled=True) == sktree.export_graphviz(theirs, filled=True)


def test_the_books_views_refuse_several_outputs_and_name_the_way():
    from climbing_trees import export_text
    X, y, _, _ = problem("squared_error", 0, False, 0.0)
    with pytest.raises(ValueError, match="sklearn.tree.export_graphviz"): export_text(DecisionTreeRegressor(max_depth=2).fit(X, y))
