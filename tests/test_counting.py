"""Chapter 11's counted search (climbing_trees.counting) against the sorted sweep, `frontier_column_splits`, at every depth of real growths.

Each case grows a tree depth by depth with chapter 8's `Growth` (the plain tuning: every feature through
`frontier_column_splits`) and, at every depth, compares per (feature, node): which pairs have a cut at all, i(s)
(to 1e-9 relative), the cut (the code of the last left value against the value at the sweep's last left position)
and, per node, the feature the grower's tie rule picks. Data: integer columns with few values (many ties), duplicated
columns (ties between features), squared error with unit, positive, whole-number and zero weights, Gini and entropy,
`min_samples_leaf` and `min_weight_leaf`. The subtraction of siblings is checked against the full count at each depth.
"""
import numpy as np
import pytest

from climbing_trees.frontier import frontier_column_splits, frontier_layout, node_centres, segment_starts
from climbing_trees.growth import plan_growth
from climbing_trees.levelwise import Growth, _take_columns
from climbing_trees.naive import ties_with_best
from climbing_trees.tree import TreeBuilder

import climbing_trees.counting as proto


def make_data(seed, criterion, weights, n=None, d=None):
    "A small table of integer columns (2 to 12 values, one column a copy of another) and a target for `criterion`; sample weights of kind `weights` (None: unit)."
    rng = np.random.default_rng(seed)
    n, d = n or int(rng.integers(30, 300)), d or int(rng.integers(2, 6))
    X = np.column_stack([rng.integers(0, rng.integers(2, 13), n) for _ in range(d)]).astype(float)
    X = np.column_stack([X, X[:, 0]])                               # a copy: every cut of column 0 ties with it
    if rng.random() < 0.5: X[:, 1] = X[:, 1] * 0.5 - 3              # values that are not codes
    if criterion == "squared_error":
        y = X[:, 0] + (X[:, 1] > 1) + rng.integers(0, 3, n) * 1.0 + (100.0 if rng.random() < 0.3 else 0.0)   # ties, an offset
    else:
        y = ((X[:, 0] + rng.integers(0, 3, n)) % 3).astype(int)
    w = {None: None, "float": rng.uniform(0.1, 3.0, n), "whole": rng.integers(1, 4, n).astype(float),
         "zeros": np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0.5, 2.0, n))}[weights]
    return X, y, w


def depth_oracle(g, orders, counts, depth):
    "The sorted sweep of every feature at one depth, as `_search_frontier` and `_sweep` call it: (frontier, the per-row statistics it reads, i(s) (D, F), last left position (D, F), the nodes' impurity in the frontier's units)."
    starts = segment_starts(counts)
    node_stats, _, impurity, weight, units, in_units, _ = g.summaries(orders, counts, starts)
    searchable = g.rules.may_split(counts, depth, impurity)
    frontier = frontier_layout(counts, node_stats, g.crit, searchable, g.rules.min_samples_leaf, g.rules.min_weight_leaf,
                               g.children_rule, True, g.weights_are_one, in_units, weight, starts=starts)
    stats = np.array(g.swept_stats(frontier), dtype=float)          # by row: a copy, the next depth overwrites them
    features = np.arange(g.n_features)
    positive = None if g.positive is None else g.positive.take(orders)
    with np.errstate(divide="ignore", invalid="ignore"):
        lowest, where = frontier_column_splits(g.compared(features[:, None], orders), _take_columns(stats, orders), frontier,
                                               g.crit, positive, **g.sparse)
    return frontier, stats, lowest, where, in_units


def node_of_rows(orders, counts, n_rows):
    "Each row's frontier node (-1: in a leaf)."
    node = np.full(n_rows, -1, dtype=np.intp)
    node[orders[0]] = np.repeat(np.arange(len(counts)), counts)
    return node


def check_same(codes, orders, oracle, mine):
    "The histogram search found what the sweep found: the same pairs with a cut, the same i(s), the same cut, the same feature per node."
    frontier, _, lowest, where, in_units = oracle
    mine_lowest, mine_code = mine
    finite = np.isfinite(lowest)
    assert np.array_equal(finite, np.isfinite(mine_lowest))
    np.testing.assert_allclose(mine_lowest[finite], lowest[finite], rtol=1e-9, atol=1e-12)
    j, f = np.nonzero(finite)
    sweep_code = codes[j, orders[j, where[j, f]]]                  # the value at the sweep's last left sample
    assert np.array_equal(sweep_code, mine_code[j, f])
    for values in (lowest, mine_lowest):                            # the grower's choice of feature, on each
        with np.errstate(invalid="ignore"):
            least = values.min(axis=0)
            values_choice = ties_with_best(values, least, in_units).argmax(axis=0)
        if values is lowest: sweep_choice = values_choice
    assert np.array_equal(sweep_choice[np.isfinite(least)], values_choice[np.isfinite(least)])


def grow_and_compare(X, y, criterion, w, n_classes=None, subtract=True, sparse_below=proto.SPARSE_BELOW, **rules):
    "Grow a tree depth by depth, comparing the histogram search with the sweep at every depth; returns the depths checked."
    X, y, w, plan = plan_growth(X, y, criterion, w, n_classes, **rules)
    g = Growth(plan, X, y, w)
    codes, n_values = proto.value_codes(g.X)
    width = int(n_values.max())
    builder, orders, counts, depth = TreeBuilder(), g.orders, g.roots, 0
    parents, is_left = np.full(1, -1), np.ones(1, dtype=bool)
    previous = None                                                 # the last depth's histograms, and its nodes' centres
    positive = None if g.positive is None else g.positive.astype(bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        while len(counts):
            oracle = depth_oracle(g, orders, counts, depth)
            frontier, stats = oracle[0], oracle[1]
            node = node_of_rows(orders, counts, len(g.y))
            *mine, hist = proto.depth_histogram_splits(codes, node, stats, frontier, g.crit, width, positive, sparse_below)
            check_same(codes, orders, oracle, mine)
            centre, scale = (node_centres(g.y.take(orders[0]), None if g.unit_weights else g.w.take(orders[0]), counts,
                                          all_positive=g.positive is None)[:2] if g.centred else (None, None))
            if subtract and previous is not None:
                parent, split, parent_centre, parent_scale = previous
                units = None if not g.centred else (parent_centre, parent_scale, centre, scale, frontier.weights_are_one)
                by_difference = proto.subtract_siblings(parent, split, counts, codes, node, stats, width, positive, units)
                assert np.array_equal(by_difference.counts, hist.counts)
                np.testing.assert_allclose(by_difference.sums, hist.sums, rtol=1e-9, atol=1e-9)
                check_same(codes, orders, oracle, proto.histogram_splits(by_difference, frontier, g.crit, sparse_below))
            found = g.search(orders, counts, depth)
            ids = builder.add_nodes(parents, is_left, found.value, found.impurity, counts, found.weight)
            if not found.splits.any(): break
            previous = (hist, found.splits, centre, scale)
            orders, counts = g.split(builder, ids, found, orders, counts)
            parents = np.concatenate([ids[found.splits]] * 2)
            is_left = np.arange(len(parents)) < len(parents) // 2
            depth += 1
    return depth


CASES = [("squared_error", None), ("squared_error", "float"), ("squared_error", "whole"), ("squared_error", "zeros"),
         ("gini", None), ("gini", "whole"), ("gini", "float"), ("gini", "zeros"), ("entropy", None), ("entropy", "float")]


@pytest.mark.parametrize("criterion,weights", CASES)
@pytest.mark.parametrize("seed", range(6))
def test_same_cuts_every_depth(criterion, weights, seed):
    X, y, w = make_data(seed, criterion, weights)
    n_classes = None if criterion == "squared_error" else 3
    rules = dict(min_samples_leaf=[1, 1, 3, 7][seed % 4])
    if weights is not None and seed % 3 == 2: rules["min_weight_leaf"] = 0.05 * float(np.sum(w))
    depths = grow_and_compare(X, y, criterion, w, n_classes, **rules)
    assert depths >= 1


def test_digits_like_root_and_depth():
    "Pixels 0..16, ten classes: the search agrees at every depth of a full tree."
    rng = np.random.default_rng(0)
    X = rng.integers(0, 17, (400, 16)).astype(float)
    y = (X[:, 0] + X[:, 3] + rng.integers(0, 4, 400)).astype(int) % 10
    assert grow_and_compare(X, y, "gini", None, 10) >= 2


def test_value_codes():
    X = np.array([[0.5, 3.0], [0.1, 3.0], [0.5, -1.0]])
    codes, n_values = proto.value_codes(X)
    assert codes.tolist() == [[1, 0, 1], [1, 1, 0]] and n_values.tolist() == [2, 2]
    with pytest.raises(ValueError, match="missing"): proto.value_codes(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="max_values"): proto.value_codes(np.arange(10.0)[:, None], max_values=4)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("block_keys", [1, 500, proto.BLOCK_KEYS])
@pytest.mark.parametrize("weights", [None, "float", "zeros"])
def test_class_histograms_one_bincount(weights, block_keys, n_classes):
    "Counting (key, class) pairs in one call (or, for one class statistic, a weighted count) gives the histograms of one call per class, whatever the block of columns."
    X, y, w = make_data(3, "gini", weights, n=200, d=4)
    y = y % n_classes
    codes, n_values = proto.value_codes(X)
    width, n_nodes = int(n_values.max()), 5
    node = np.random.default_rng(1).integers(-1, n_nodes, len(y))
    weight = np.ones(len(y)) if w is None else w
    one_hot = np.zeros((n_classes, len(y)))
    one_hot[y, np.arange(len(y))] = weight
    positive = None if w is None else w > 0
    for first in (0, 1):
        expected = proto.count_histograms(codes, node, n_nodes, width, one_hot[first:], positive=positive, block_keys=10 ** 9)
        got = proto.count_histograms(codes, node, n_nodes, width, positive=positive, classes=(y, n_classes, w, bool(first)),
                                     block_keys=block_keys)
        assert np.array_equal(got.counts, expected.counts)
        np.testing.assert_allclose(got.sums, expected.sums, rtol=1e-12)
        assert (got.positive is None) == (expected.positive is None)
        if got.positive is not None: assert np.array_equal(got.positive, expected.positive)
        brute = np.zeros_like(expected.counts)                     # the layout: (value, column, node)
        for j in range(len(codes)):
            for r in np.flatnonzero(node >= 0): brute[codes[j, r], j, node[r]] += 1
        assert np.array_equal(brute, got.counts)


@pytest.mark.parametrize("sparse_below", [0.0, 1.01])
@pytest.mark.parametrize("criterion,weights", [("squared_error", "zeros"), ("gini", "float"), ("gini", None)])
def test_dense_and_sparse_paths(criterion, weights, sparse_below):
    "Both evaluations of the cuts, every bin (dense) or the candidates only (sparse), give the sweep's cuts."
    for seed in range(3):
        X, y, w = make_data(seed, criterion, weights)
        rules = dict(min_samples_leaf=1 + seed) if seed < 2 else dict(min_weight_leaf=0.05 * float(np.sum(w)) if w is not None else 0.0)
        grow_and_compare(X, y, criterion, w, None if criterion == "squared_error" else 3, sparse_below=sparse_below, **rules)


# The grower with chapter 11's COUNTING tuning against chapter 10's FAST: the same trees, node for node.
from climbing_trees.counting import COUNTING, counting_search
from climbing_trees.fast import FAST
from climbing_trees.forests import grow_trees
from climbing_trees.levelwise import grow_levelwise
from climbing_trees.tree import tree_differences
from dataclasses import replace


def rounded_data(seed, n, d, values, criterion, n_classes=None):
    "n x d columns of `values` values each (a few with fewer), and a target for `criterion`."
    rng = np.random.default_rng(seed)
    X = np.floor(rng.random((n, d)) * rng.integers(2, values + 1, d)) / values
    score = np.sin(6 * X[:, 0]) + X[:, 1] - X[:, -1] + rng.normal(scale=0.3, size=n)
    if criterion in ("squared_error", "friedman_mse"): return X, score + (100.0 if seed % 2 else 0.0)
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))


def counting_everywhere():
    "A list that records how many columns `counting_search` counts at each depth, and COUNTING made to count even where it loses (sorted: never without orders)."
    counted = []
    def recording(g):
        search = counting_search(g)
        def recorded(g, swept, *args):
            left = search(g, swept, *args)
            counted.append(len(swept) - len(left))
            return left
        return recorded
    return counted, replace(COUNTING, counting=recording, counting_from=0, counting_bins_per_row=4.0, by_values=None)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion,n_classes", [("squared_error", None), ("gini", 2), ("entropy", 3), ("gini", 12)])
def test_counting_grows_the_fast_tree(criterion, n_classes, seed):
    "Counting changes no tree: every criterion with sums (12 classes: the class-sum path), weights with zeros, leaf rules, max_depth."
    X, y = rounded_data(seed, 3000, 6, [4, 30, 200, 60][seed], criterion, n_classes)
    rng = np.random.default_rng(seed)
    w = [None, rng.integers(1, 4, len(y)).astype(float), np.where(rng.random(len(y)) < 0.2, 0.0, rng.uniform(0.5, 2, len(y))), None][seed]
    rules = [dict(), dict(min_samples_leaf=4), dict(min_weight_leaf=3.0), dict(min_samples_leaf=2, max_depth=12)][seed]
    counted, every_depth = counting_everywhere()
    trees = [grow_levelwise(X, y, criterion, w, n_classes, tuning=t, **rules) for t in (FAST, COUNTING, every_depth)]
    assert tree_differences(trees[0], trees[1]) == [] and tree_differences(trees[0], trees[2]) == []
    assert sum(c > 0 for c in counted) >= 3, counted                 # columns counted at several depths, deep ones too


def test_counting_applies_and_declines():
    "The search counts where it should (many rows, few values) and declines where it cannot (missing values, drawn thresholds, Poisson)."
    X, y = rounded_data(0, 3000, 6, 20, "squared_error")
    _, _, w, plan = plan_growth(X, y, "squared_error", None)
    assert counting_search(Growth(replace(plan, tuning=COUNTING), X, y, w)) is not None
    X_nan = X.copy(); X_nan[0, 0] = np.nan
    _, _, w, plan = plan_growth(X_nan, y, "squared_error", None)
    assert counting_search(Growth(replace(plan, tuning=COUNTING), X_nan, y, w)) is None
    _, _, w, plan = plan_growth(X, y, "squared_error", None, splitter="random", random_state=0)
    assert counting_search(Growth(replace(plan, tuning=COUNTING), X, y, w)) is None
    _, _, w, plan = plan_growth(X, np.abs(y), "poisson", None)
    assert counting_search(Growth(replace(plan, tuning=COUNTING), X, np.abs(y), w)) is None
    small = X[:100, :2]
    _, _, w, plan = plan_growth(small, y[:100], "squared_error", None)
    assert counting_search(Growth(replace(plan, tuning=COUNTING), small, y[:100], w)) is None   # too small to repay a count
    _, _, w_drawn, drawn = plan_growth(X, y, "squared_error", None, None, max_features=3, random_state=0)
    assert counting_search(Growth(replace(drawn, tuning=COUNTING), X, y, w_drawn)) is not None   # drawn features: their pairs


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("criterion,n_classes", [("squared_error", None), ("gini", 2), ("entropy", 3), ("gini", 10)])
def test_counting_drawn_pairs_grows_the_fast_tree(criterion, n_classes, seed):
    "Under max_features only the drawn (column, node) pairs are counted: the same tree as FAST's, counted at several depths."
    X, y = rounded_data(10 + seed, 3000, 9, [5, 40, 120][seed], criterion, n_classes)
    rng = np.random.default_rng(seed)
    w = [None, rng.integers(0, 3, len(y)).astype(float), rng.uniform(0.5, 2, len(y))][seed]
    rules = [dict(max_features=3), dict(max_features=5, min_samples_leaf=3), dict(max_features=2, min_weight_leaf=2.0)][seed]
    counted, every_depth = counting_everywhere()
    trees = [grow_levelwise(X, y, criterion, w, n_classes, tuning=t, random_state=seed, **rules) for t in (FAST, COUNTING, every_depth)]
    assert tree_differences(trees[0], trees[1]) == [] and tree_differences(trees[0], trees[2]) == []
    assert sum(c > 0 for c in counted) >= 3, counted


@pytest.mark.parametrize("criterion,n_classes,max_features", [("gini", 3, None), ("squared_error", None, None), ("gini", 10, 3), ("squared_error", None, 4)])
def test_counting_grows_the_fast_forest(criterion, n_classes, max_features):
    "Several bootstrapped trees grown together (their codes: X's ranks at the stacked rows) are FAST's trees."
    X, y = rounded_data(5, 6000, 8, 50, criterion, n_classes)
    rng = np.random.default_rng(0)
    weights = np.array([np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) for _ in range(4)], dtype=float)
    forests = [grow_trees(X, y, criterion, weights, n_classes=n_classes, random_states=[1, 2, 3, 4], tuning=t,
                          max_features=max_features) for t in (FAST, COUNTING)]
    for a, b in zip(*forests): assert tree_differences(a, b) == []


# Chapter 11's search of categorical columns at every node of a depth (`levels_search`, in `COUNTED_LEVELS`) against
# chapter 8's node-by-node `categorical_column_split` (the `FAST` tuning): the same tree, array for array.
from climbing_trees.counting import COUNTED_LEVELS, levels_search
from climbing_trees.fast import FAST
from climbing_trees.levelwise import grow_levelwise
from climbing_trees.tree import tree_differences


def level_table(seed):
    "A random table: 1 to 3 categorical columns of 2 to 11 levels beside a numeric one, NaN in some, a target and weights of a random kind, and the growth's options."
    rng = np.random.default_rng(seed)
    n, levels, n_cat = int(rng.integers(5, 400)), int(rng.integers(2, 12)), int(rng.integers(1, 4))
    X = rng.integers(0, levels, size=(n, n_cat + 1)).astype(float)
    X[:, -1] = rng.normal(size=n).round(1)
    if rng.random() < 0.4: X[rng.random(size=X.shape) < 0.1] = np.nan
    criterion = str(rng.choice(["squared_error", "poisson", "gini", "entropy"]))
    n_classes = None
    if criterion in ("gini", "entropy"):
        n_classes = int(rng.integers(2, 4)); y = rng.integers(0, n_classes, size=n)
    else:
        y = rng.poisson(1.0, size=n).astype(float) if rng.random() < 0.7 else rng.normal(size=n)
        if criterion == "poisson": y = np.abs(y)
    r, w = rng.random(), None
    if r < 0.3: w = rng.integers(0, 3, size=n).astype(float)          # whole numbers, zeros among them
    elif r < 0.5: w = rng.random(n)
    if w is not None and w.sum() == 0: w[0] = 1.0
    options = dict(categorical=list(range(n_cat)), min_samples_leaf=int(rng.integers(1, 4)))
    if rng.random() < 0.2: options["min_weight_leaf"] = 0.5
    if rng.random() < 0.3: options["max_depth"] = 3
    if rng.random() < 0.2: options.update(max_features=1, random_state=int(rng.integers(100)))
    return X, y, criterion, w, n_classes, options


@pytest.mark.parametrize("seed", range(300))
def test_levels_at_once_grow_the_node_by_node_tree(seed):
    X, y, criterion, w, n_classes, options = level_table(seed)
    trees = [grow_levelwise(X, y, criterion, w, n_classes, tuning=t, **options) for t in (FAST, COUNTED_LEVELS)]
    assert tree_differences(*trees) == []


def test_levels_at_once_search_through_the_estimators_and_forests():
    from climbing_trees.estimators import DecisionTreeRegressor
    from climbing_trees.forests import RandomForestClassifier
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(300, 3)).astype(float); y = X[:, 0] + rng.normal(size=300)
    tree = DecisionTreeRegressor(categorical_features=[0, 1, 2], random_state=0).fit(X, y)
    assert tree.tree_.categorical.any()
    forest = RandomForestClassifier(n_estimators=5, categorical_features=[0, 1], random_state=0).fit(X, (y > 2).astype(int))
    assert all(e.tree_.categorical.any() for e in forest.estimators_)


def test_levels_search_does_not_apply_without_sums():
    from climbing_trees.growth import plan_growth
    from climbing_trees.levelwise import Growth
    X = np.array([[0.0], [1.0], [2.0], [1.0]]); y = np.array([1.0, 2.0, 3.0, 2.5])
    _, _, w, plan = plan_growth(X, y, "absolute_error", None, None, categorical=[0])
    from dataclasses import replace
    assert levels_search(Growth(replace(plan, tuning=COUNTED_LEVELS), X, y, w)) is None   # absolute error: node by node


# Chapter 11's binning (`max_bins`) through the estimators: exact where it loses nothing, close where it does.
from climbing_trees.counting import MAX_BINS, bin_thresholds, fit_binning


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
    from climbing_trees.estimators import DecisionTreeClassifier, DecisionTreeRegressor
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
    from climbing_trees.estimators import DecisionTreeClassifier
    X, y = make_classification(30_000, 8, n_informative=5, random_state=0)
    scores = [DecisionTreeClassifier(random_state=0, max_bins=b).fit(X[:20_000], y[:20_000]).score(X[20_000:], y[20_000:])
              for b in (None, 255, 16)]
    assert abs(scores[1] - scores[0]) < 0.02 and scores[2] < scores[0] + 0.02
    few = DecisionTreeClassifier(max_bins=4, random_state=0).fit(X, y)
    assert all(len(np.unique(few.tree_.threshold[few.tree_.feature == j])) <= 3 for j in range(8))   # 3 edges a column


@pytest.mark.parametrize("bad", [1, 256.0, 2 ** 17, "255", True])
def test_max_bins_refuses_what_is_not_a_number_of_bins(bad):
    from climbing_trees.estimators import DecisionTreeClassifier
    with pytest.raises((ValueError, TypeError), match="max_bins"):
        DecisionTreeClassifier(max_bins=bad).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_bins"):
        fit_binning(np.eye(4), bad)


@pytest.mark.parametrize("weights", [None, "whole", "fractions"])
def test_many_classes_few_levels_all_partitions_at_once(weights, monkeypatch):
    import climbing_trees.counting as counting
    calls = []
    exhaustive = counting.exhaustive_pairs
    monkeypatch.setattr(counting, "exhaustive_pairs", lambda *a, **k: calls.append(len(a[0])) or exhaustive(*a, **k))
    rng = np.random.default_rng(5)
    n = 1500
    X = np.column_stack([rng.integers(0, k, n) for k in (4, 6, 9, 3, 12)]).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.integers(0, 3, n)).astype(int) % 5
    w = {None: None, "whole": rng.integers(0, 3, n) * 1.0, "fractions": rng.random(n)}[weights]
    trees = [grow_levelwise(X, y, "entropy", w, 5, categorical=range(5), min_samples_leaf=2, tuning=t) for t in (FAST, COUNTED_LEVELS)]
    assert tree_differences(*trees) == [] and sum(calls) > 50            # many (column, node) pairs searched at once


def mixed_width_table(seed):
    "`level_table`'s table with each categorical column of its own number of levels (2 to 11): the columns fall in groups of like widths."
    X, y, criterion, w, n_classes, options = level_table(seed)
    rng = np.random.default_rng(seed + 1000)
    for j in options["categorical"]:
        known = ~np.isnan(X[:, j])
        X[known, j] = rng.integers(0, int(rng.integers(2, 12)), size=int(known.sum()))
    return X, y, criterion, w, n_classes, options


@pytest.mark.parametrize("seed", range(150))
def test_levels_in_groups_of_widths_grow_the_node_by_node_tree(seed, monkeypatch):
    import climbing_trees.counting as counting
    monkeypatch.setattr(counting, "LEVEL_GROUPS_FROM", 0)             # every depth's columns in groups of like widths
    X, y, criterion, w, n_classes, options = mixed_width_table(seed)
    trees = [grow_levelwise(X, y, criterion, w, n_classes, tuning=t, **options) for t in (FAST, COUNTED_LEVELS)]
    assert tree_differences(*trees) == []


def test_forests_grow_without_orders_the_sorted_trees():
    "Chapter 17's forests on few-valued columns skip the sort (`trees_orders` gives None: `by_values_search` applies) and grow the sorted grower's trees: digits, bootstrap weights, all columns or a few drawn per node (each tree's own draws), the nodes searched all at once or a few at a time (`table_bins`), and the estimator end to end. A continuous column or a regression target keeps the orders."
    from dataclasses import replace
    from functools import partial
    from sklearn.datasets import load_digits
    from climbing_trees import RandomForestClassifier
    from climbing_trees.counting import COUNTING, by_values_search
    from climbing_trees.forests import grow_trees, trees_orders
    from climbing_trees.tree import tree_differences
    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    rng = np.random.default_rng(0)
    weights = np.array([np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) for _ in range(6)], dtype=float)
    _, _, _, plan = plan_growth(X, y, "gini", None, 10, max_features=8)
    assert trees_orders(replace(plan, tuning=COUNTING), X) is None
    assert trees_orders(replace(plan, tuning=COUNTING), X + rng.random(X.shape) * 1e-3) is not None   # continuous
    _, _, _, regression = plan_growth(X, y * 1.0, "squared_error", None)
    assert by_values_search(regression, X) is None and by_values_search(regression, X, classes_only=False) is not None
    sorted_tuning = replace(COUNTING, by_values=None)
    in_groups = replace(COUNTING, by_values=partial(by_values_search, table_bins=500))   # a few nodes a table
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
    from climbing_trees.counting import COUNTING, small_codes
    from climbing_trees.naive import FEATURE_THRESHOLD
    from climbing_trees.levelwise import grow_levelwise
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
    sorted_tuning = replace(COUNTING, by_values=None)
    for criterion in ("gini", "entropy"):
        a = grow_levelwise(X, y, criterion, None, 3, tuning=COUNTING)
        b = grow_levelwise(X, y, criterion, None, 3, tuning=sorted_tuning)
        assert tree_differences(replace(a, value=b.value, impurity=b.impurity), b) == []
        assert np.allclose(a.value, b.value) and a.node_count > 5


def test_categorical_columns_grow_without_orders_the_sorted_trees():
    "Categorical columns (two classes, or regression when every column is categorical) grow without orders, their levels ordered by mean response in every node: forests of bootstrap trees with all columns, a few or one drawn per node, all nodes at once or a few at a time, zero weights (levels without weight), and extra trees (their draws of thresholds, unused, kept in step) are the sorted grower's trees. Three classes, a numeric column in a regression, or a missing value keep the orders."
    from dataclasses import replace
    from functools import partial
    from climbing_trees.counting import COUNTING, by_values_search
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
    assert trees_orders(replace(plan, tuning=COUNTING), X) is None
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
    sorted_tuning = replace(COUNTING, by_values=None)
    in_groups = replace(COUNTING, by_values=partial(by_values_search, table_bins=300))
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
