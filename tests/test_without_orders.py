"""Chapter 12's growth without orders (climbing_trees.without_orders) against the sorted grower, and its binning.

The oracle of a growth without orders is the sorted grower (chapter 11's `COUNTING`, `BY_VALUES` with its `by_values`
slot emptied), tree for tree: forests of digits, awkward values, and categorical columns shaped like R's solder.
Binning (`max_bins`) is held to scikit-learn's thresholds, and to the exact tree where it loses nothing.
"""
import numpy as np
import pytest

from climbing_trees.growth import plan_growth
from climbing_trees.without_orders import bin_thresholds, fit_binning


# Binning (`max_bins`) through the estimators: exact where it loses nothing, close where it does.


def test_bin_thresholds_are_scikit_learns():
    from sklearn.ensemble._hist_gradient_boosting.binning import _find_binning_thresholds
    rng = np.random.default_rng(0)
    for x in [rng.normal(size=5000), np.round(rng.normal(size=5000), 1), np.r_[rng.normal(size=3000), [np.nan] * 40],
              rng.integers(0, 300, 4000).astype(float)]:
        for max_bins in (2, 16, 255):
            np.testing.assert_allclose(bin_thresholds(x, max_bins), _find_binning_thresholds(x, max_bins), rtol=0, atol=0)


@pytest.mark.parametrize("kind", ["classifier", "regressor", "nan", "surrogate"])
def test_max_bins_loses_nothing_on_few_values(kind):
    from sklearn.datasets import load_digits
    from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
    rng = np.random.default_rng(1)
    X, y = load_digits(return_X_y=True)
    if kind in ("nan", "surrogate"): X = np.where(rng.random(X.shape) < 0.05, np.nan, X)
    options = dict(missing="surrogate", max_depth=6) if kind == "surrogate" else {}
    Model = DecisionTreeRegressor if kind == "regressor" else DecisionTreeClassifier
    exact, binned = (Model(random_state=0, max_bins=b, **options).fit(X, y) for b in (None, 255))
    assert binned.tree_.node_count == exact.tree_.node_count
    np.testing.assert_array_equal(binned.apply(X), exact.apply(X))
    np.testing.assert_array_equal(binned.tree_.feature, exact.tree_.feature)
    np.testing.assert_array_equal(binned.predict(X), exact.predict(X))


def test_max_bins_on_continuous_columns_stays_close():
    from sklearn.datasets import make_classification
    from climbing_trees.tree_estimators import DecisionTreeClassifier
    X, y = make_classification(30_000, 8, n_informative=5, random_state=0)
    scores = [DecisionTreeClassifier(random_state=0, max_bins=b).fit(X[:20_000], y[:20_000]).score(X[20_000:], y[20_000:])
              for b in (None, 255, 16)]
    assert abs(scores[1] - scores[0]) < 0.02 and scores[2] < scores[0] + 0.02
    few = DecisionTreeClassifier(max_bins=4, random_state=0).fit(X, y)
    assert all(len(np.unique(few.tree_.threshold[few.tree_.feature == j])) <= 3 for j in range(8))   # 3 edges a column


@pytest.mark.parametrize("bad", [1, 256.0, 2 ** 17, "255", True])
def test_max_bins_refuses_what_is_not_a_number_of_bins(bad):
    from climbing_trees.tree_estimators import DecisionTreeClassifier
    with pytest.raises((ValueError, TypeError), match="max_bins"):
        DecisionTreeClassifier(max_bins=bad).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_bins"):
        fit_binning(np.eye(4), bad)


def test_forests_grow_without_orders_the_sorted_trees():
    "Chapter 18's forests on few-valued columns skip the sort (`trees_orders` gives None: `by_values_search` applies) and grow the sorted grower's trees: digits, bootstrap weights, all columns or a few drawn per node (each tree's own draws), the nodes searched all at once or a few at a time (`table_bins`), and the estimator end to end. A continuous column or a regression target keeps the orders."
    from dataclasses import replace
    from functools import partial
    from sklearn.datasets import load_digits
    from climbing_trees import RandomForestClassifier
    from climbing_trees.without_orders import BY_VALUES, by_values_search
    from climbing_trees.forests import grow_trees, trees_orders
    from climbing_trees.tree import tree_differences
    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    rng = np.random.default_rng(0)
    weights = np.array([np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) for _ in range(6)], dtype=float)
    _, _, _, plan = plan_growth(X, y, "gini", None, 10, max_features=8)
    assert trees_orders(replace(plan, tuning=BY_VALUES), X) is None
    assert trees_orders(replace(plan, tuning=BY_VALUES), X + rng.random(X.shape) * 1e-3) is not None   # continuous
    _, _, _, regression = plan_growth(X, y * 1.0, "squared_error", None)
    assert by_values_search(regression, X) is None and by_values_search(regression, X, classes_only=False) is not None
    sorted_tuning = replace(BY_VALUES, by_values=None)
    in_groups = replace(BY_VALUES, by_values=partial(by_values_search, table_bins=500))   # a few nodes a table
    for max_features, tuning in ((None, None), (8, None), (1, None), (None, in_groups), (8, in_groups)):
        ours = grow_trees(X, y, "gini", weights, 10, random_states=range(6), max_features=max_features, tuning=tuning)
        oracle = grow_trees(X, y, "gini", weights, 10, random_states=range(6), max_features=max_features, tuning=sorted_tuning)
        for a, b in zip(ours, oracle):
            assert tree_differences(replace(a, value=b.value, impurity=b.impurity), b) == []
            assert np.allclose(a.value, b.value, rtol=1e-10, atol=1e-12)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert (forest.predict(X) == y).mean() > 0.95                   # bootstrap trees fit their rows


def test_small_codes_and_trees_at_awkward_values():
    "`small_codes` gives back X exactly, or refuses, on whole numbers far from 0 (past 2**53 the spacing is 2 or more), negative and mixed-sign decimals, a gap at FEATURE_THRESHOLD and just above it, and a column with one value; the classifiers grown on them without orders are the sorted grower's trees."
    from dataclasses import replace
    from climbing_trees.without_orders import BY_VALUES, small_codes
    from climbing_trees.naive import FEATURE_THRESHOLD
    from climbing_trees.levelwise_trees import grow_levelwise
    from climbing_trees.tree import tree_differences
    rng = np.random.default_rng(5)
    n = 300
    columns = {"far from 0": 1e15 + rng.integers(0, 20, n),
               "past 2**53": 2.0 ** 60 + 256 * rng.integers(0, 9, n),
               "negative decimals": -3.7 + 0.1 * rng.integers(0, 25, n),
               "mixed signs": rng.choice([-2.5, -0.0, 0.0, 1e-3, 7.25], n),
               "one value": np.full(n, 4.2)}
    X = np.column_stack(list(columns.values()))
    codes, values = small_codes(X)
    assert np.array_equal(np.take_along_axis(values, codes.astype(np.intp), axis=1), X.T)
    for j in range(X.shape[1]):                                      # order and ties kept
        assert np.array_equal(np.argsort(codes[j], kind="stable"), np.argsort(X[:, j], kind="stable"))
    at_threshold = np.array([[0.0], [FEATURE_THRESHOLD], [1.0]])
    assert small_codes(at_threshold) is None                         # the sweep would not cut there
    assert small_codes(at_threshold * 1.5) is not None               # just above it, it would
    y = (X[:, 0] % 3 == 0).astype(int) + (X[:, 2] > -2.5)
    sorted_tuning = replace(BY_VALUES, by_values=None)
    for criterion in ("gini", "entropy"):
        a = grow_levelwise(X, y, criterion, None, 3, tuning=BY_VALUES)
        b = grow_levelwise(X, y, criterion, None, 3, tuning=sorted_tuning)
        assert tree_differences(replace(a, value=b.value, impurity=b.impurity), b) == []
        assert np.allclose(a.value, b.value) and a.node_count > 5


def test_categorical_columns_grow_without_orders_the_sorted_trees():
    "Categorical columns (two classes, or regression when every column is categorical) grow without orders, their levels ordered by mean response in every node: forests of bootstrap trees with all columns, a few or one drawn per node, all nodes at once or a few at a time, zero weights (levels without weight), and extra trees (their draws of thresholds, unused, kept in step) are the sorted grower's trees. Three classes, a numeric column in a regression, or a missing value keep the orders."
    from dataclasses import replace
    from functools import partial
    from climbing_trees.without_orders import BY_VALUES, by_values_search
    from climbing_trees.forests import grow_trees, trees_orders
    from climbing_trees.tree import tree_differences
    rng = np.random.default_rng(3)
    n, levels = 500, [3, 2, 5, 10, 3]                               # solder's shape: five factors
    X = np.column_stack([rng.integers(0, k, n) for k in levels]).astype(float)
    effect = [rng.normal(0, 1, k) for k in levels]
    y_count = rng.poisson(np.exp(sum(e[X[:, j].astype(int)] for j, e in enumerate(effect)) / 2)).astype(float)
    y_class = (y_count > np.median(y_count)).astype(int)
    categorical = tuple(range(len(levels)))
    _, _, _, plan = plan_growth(X, y_count, "squared_error", None, categorical=categorical)
    assert trees_orders(replace(plan, tuning=BY_VALUES), X) is None
    X_mixed = np.column_stack([X, rng.random(n)])                   # a continuous column: sorted
    _, _, _, mixed = plan_growth(X_mixed, y_count, "squared_error", None, categorical=categorical)
    assert by_values_search(mixed, X_mixed) is None
    _, _, _, three = plan_growth(X, y_class + (y_count > 3), "gini", None, 3, categorical=categorical)
    assert by_values_search(three, X) is None
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    _, _, _, holes = plan_growth(X_nan, y_count, "squared_error", None, categorical=categorical)
    assert by_values_search(holes, X_nan) is None
    weights = np.array([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(5)], dtype=float)
    zeros = weights * (rng.random(weights.shape) < 0.9)             # some rows, and levels, weigh nothing
    sorted_tuning = replace(BY_VALUES, by_values=None)
    in_groups = replace(BY_VALUES, by_values=partial(by_values_search, table_bins=300))
    ones = np.ones_like(weights)                                     # extra trees: every row, no threshold drawn
    cases = [("squared_error", y_count, None, weights, "best"), ("gini", y_class, 2, weights, "best"),
             ("entropy", y_class, 2, zeros, "best"), ("squared_error", y_count, None, zeros, "best"),
             ("squared_error", y_count, None, ones, "random"), ("gini", y_class, 2, zeros, "random")]
    _, _, _, extra = plan_growth(X, y_count, "squared_error", None, categorical=categorical, splitter="random")
    assert by_values_search(extra, X) is not None and by_values_search(replace(mixed, splitter="random"), X_mixed) is None
    grown = 0
    for criterion, y, k, w, splitter in cases:
        for max_features, tuning in ((None, None), (2, None), (1, None), (None, in_groups), (2, in_groups)):
            rules = dict(random_states=range(len(w)), categorical=categorical, max_features=max_features,
                         min_samples_leaf=2 if max_features == 2 else 1, splitter=splitter)
            ours = grow_trees(X, y, criterion, w, k, tuning=tuning, **rules)
            oracle = grow_trees(X, y, criterion, w, k, tuning=sorted_tuning, **rules)
            for a, b in zip(ours, oracle):
                assert tree_differences(replace(a, value=b.value, impurity=b.impurity), b) == []
                assert np.allclose(a.value, b.value, rtol=1e-10, atol=1e-12)
                grown += int(np.any(a.categorical))
    assert grown == len(cases) * 5 * len(weights)                   # every tree split on levels


def test_binned_bytes_grow_without_orders_the_sorted_trees():
    "`Binning.codes(X, small=True)` gives column-major bytes, the bins of X as given (no float32 rounding across a threshold); on enough rows per bin a classifier grows on them without orders, and every growth (two and three classes, a leaf rule, drawn columns, regression, too few rows) is the sorted grower's tree on the float codes."
    from dataclasses import replace
    from sklearn.datasets import make_classification
    from climbing_trees.counting_grower import COUNTING
    from climbing_trees.levelwise_search import Growth
    from climbing_trees.levelwise_trees import grow_levelwise_from_plan
    from climbing_trees.tree import tree_differences
    from climbing_trees.without_orders import BY_VALUES, CODES_ROWS_PER_VALUE, small_codes
    cases = [(40_000, 255, "gini", 2, {}), (40_000, 64, "entropy", 3, dict(min_samples_leaf=3)),
             (40_000, 255, "gini", 2, dict(max_features=5, random_state=1)),
             (5_000, 255, "gini", 2, {}), (40_000, 255, "squared_error", None, dict(max_depth=8))]
    went = []
    for n, bins, criterion, k, rules in cases:
        X, y = make_classification(n, 12, n_informative=8, n_classes=k or 2, random_state=0)
        if k is None: y = X[:, 0] + np.random.default_rng(0).normal(size=n)
        binning = fit_binning(X, bins, random_state=0)
        floats, small = binning.codes(X), binning.codes(X, small=True)
        assert small.dtype == np.uint8 and small.flags.f_contiguous and np.array_equal(small, floats)
        codes, _ = small_codes(small, 256)
        assert np.shares_memory(codes, small)                      # its own codes: no copy
        _, y_p, w_p, plan = plan_growth(floats, y, criterion, None, k, **rules)
        went.append(not Growth(replace(plan, tuning=BY_VALUES), small, y_p, w_p).sorted)
        ours = grow_levelwise_from_plan(replace(plan, tuning=BY_VALUES), small, y_p, w_p)   # as the
        oracle = grow_levelwise_from_plan(replace(plan, tuning=COUNTING), floats, y_p, w_p)   # estimator
        assert tree_differences(replace(ours, value=oracle.value, impurity=oracle.impurity), oracle) == []
        assert np.allclose(ours.value, oracle.value)
    assert went == [True, True, True, False, False]                # 5,000 rows < 128 a bin; regression sorts
    assert 5_000 < CODES_ROWS_PER_VALUE * 256 <= 40_000


def test_binned_trees_send_their_training_rows_where_they_were_counted():
    "A full-depth binned tree, unbinned, sends each training row (of continuous X) to the leaf that counted it: the leaves' n_node_samples are the rows `apply` brings there. Binning float32-rounded values broke this for rows next to a threshold."
    from sklearn.datasets import make_classification
    from climbing_trees.tree_estimators import DecisionTreeClassifier
    X, y = make_classification(40_000, 12, n_informative=8, random_state=0)
    for algorithm in ("levelwise", "vectorized"):                  # bytes, and float codes
        model = DecisionTreeClassifier(max_bins=255, random_state=0, algorithm=algorithm).fit(X, y)
        tree = model.tree_
        leaves = np.flatnonzero(tree.children_left == -1)
        reached = np.bincount(model.apply(X), minlength=tree.node_count)
        np.testing.assert_array_equal(reached[leaves], tree.n_node_samples[leaves])
