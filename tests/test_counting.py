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
from climbing_trees.levelwise_search import Growth, _take_columns
from climbing_trees.naive import ties_with_best
from climbing_trees.tree_builder import TreeBuilder

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
from climbing_trees.counting_grower import COUNTING, counting_search
from climbing_trees.fast import FAST
from climbing_trees.forests import grow_trees
from climbing_trees.levelwise_trees import grow_levelwise
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
from climbing_trees.counting_grower import COUNTED_LEVELS, levels_search
from climbing_trees.fast import FAST
from climbing_trees.levelwise_trees import grow_levelwise
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
    from climbing_trees.tree_estimators import DecisionTreeRegressor
    from climbing_trees.forest_estimators import RandomForestClassifier
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(300, 3)).astype(float); y = X[:, 0] + rng.normal(size=300)
    tree = DecisionTreeRegressor(categorical_features=[0, 1, 2], random_state=0).fit(X, y)
    assert tree.tree_.categorical.any()
    forest = RandomForestClassifier(n_estimators=5, categorical_features=[0, 1], random_state=0).fit(X, (y > 2).astype(int))
    assert all(e.tree_.categorical.any() for e in forest.estimators_)


def test_levels_search_does_not_apply_without_sums():
    from climbing_trees.growth import plan_growth
    from climbing_trees.levelwise_search import Growth
    X = np.array([[0.0], [1.0], [2.0], [1.0]]); y = np.array([1.0, 2.0, 3.0, 2.5])
    _, _, w, plan = plan_growth(X, y, "absolute_error", None, None, categorical=[0])
    from dataclasses import replace
    assert levels_search(Growth(replace(plan, tuning=COUNTED_LEVELS), X, y, w)) is None   # absolute error: node by node


@pytest.mark.parametrize("weights", [None, "whole", "fractions"])
def test_many_classes_few_levels_all_partitions_at_once(weights, monkeypatch):
    import climbing_trees.counting_grower as counting
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
    import climbing_trees.counting_grower as counting
    monkeypatch.setattr(counting, "LEVEL_GROUPS_FROM", 0)             # every depth's columns in groups of like widths
    X, y, criterion, w, n_classes, options = mixed_width_table(seed)
    trees = [grow_levelwise(X, y, criterion, w, n_classes, tuning=t, **options) for t in (FAST, COUNTED_LEVELS)]
    assert tree_differences(*trees) == []
