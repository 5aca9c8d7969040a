"""How fast can numpy count its way down a tree at all? A floor under issue 37's few-valued targets.

    .venv/bin/python benchmarks/counting_floor.py            # best of 5 (forest) and 10 (trees); about a minute
    .venv/bin/python benchmarks/counting_floor.py --quick    # best of 1 and 3

Issue 37 asks, on few-valued data, for a random forest of 100 trees on digits at most 1.0x scikit-learn's and single
trees (digits; 100,000 x 10 columns of 100 values) at most 0.5x; on R's solder (read through `Rscript`, if R and rpart
are installed) a forest and a tree with native categorical columns at most 1.0x scikit-learn's on the codes. `lean_grow` below is the counting algorithm of
chapter 11 with nothing else: one node number per row (no orders to partition), at each depth one `np.bincount` over
the keys (node, drawn slot, value) of every row's drawn columns, the occupied bins numbered (a dense table when the
bins are few for the rows, a sort of the keys when not), one more bincount for the class weights (or two for w and w y),
cumulative sums per (node, slot), Gini or squared error at every occupied bin, the best bin per node, and the rows routed.
Left out: the tie rule across features and its tolerance, every stopping rule but purity, min_samples_leaf above 1,
missing values, categories, the tree's arrays, input checks, centred sums. It grows as many nodes as the library does
(printed). So its time is below what any fit of this algorithm in numpy costs, by the amount of what it leaves out. On
solder it cuts the level codes as numbers, as scikit-learn does: a native categorical search orders the levels first,
so it does more, and the floor is a floor under it too. The rows marked "by levels" order each node's levels by their
mean response first (`levels=True`), as the native search does, less chapter 6's rules for ties, levels without weight
and the default side: the floor of the categorical search itself. Extra trees on categorical columns draw no
threshold, so their floor is that grower on every row of every tree. On the 100k columns it is no floor: deep in those trees the
bins are many for the rows, where the sorted sweep wins (chapter 11), and the library mixes the two.

Printed side by side, best of `repeats`, interleaved, on one pinned core: scikit-learn, ours (the estimators), the lean
floor, and the ratios to scikit-learn's. Where the floor's ratio is above the target, the target is out of reach of
this algorithm in pure numpy; ours / floor says how far our generality costs above it.
"""
import argparse, os, sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import (ExtraTreesRegressor as SkExtraRegressor, RandomForestClassifier as SkForest,
                              RandomForestRegressor as SkForestRegressor)
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesRegressor, RandomForestClassifier,
                            RandomForestRegressor)
from counting import load_solder, node_count, rounded_data             # the target table's data
from small_floor import best_of

DENSE_PER_KEY = 4      # the occupied bins are found with a dense table while it has at most this many bins a key


def lean_grow(codes, y, weights, n_classes=None, max_features=None, seed=0, levels=False):
    "Grow one tree per row of `weights` (T, N) on `codes` (D, N) small integers, all as one frontier: classes 0..K-1 (Gini) if `n_classes`, else squared error on y. `max_features` columns drawn per node. `levels`: the codes are a categorical column's levels, ordered in each node by their mean response (two classes: the second's share) before the cuts, and a row goes left when its level's place in that order is at most the cut's (chapter 6's search, less its rules for ties, weightless levels and the default side). Returns the number of nodes."
    n_features = len(codes)
    tree, row = np.nonzero(weights)                                 # the stacked rows: each (tree, row) of positive weight
    w, ys = weights[tree, row].astype(float), y[row]
    by_row = np.ascontiguousarray(codes[:, row].T)                  # (n, D): a row's codes in one cache line
    width, m = int(codes.max()) + 1, n_features if max_features is None else max_features
    if n_classes is None: stats = np.stack([w, w * ys, w * ys * ys])
    node, alive, n_nodes, total = tree.copy(), np.arange(len(row)), len(weights), len(weights)
    rng = np.random.default_rng(seed)
    while len(alive):
        nd = node[alive]
        if n_classes is None:                                       # each node's w, w y, w y^2
            sums = np.stack([np.bincount(nd, s[alive], minlength=n_nodes) for s in stats])
            impure = sums[2] / sums[0] - (sums[1] / sums[0]) ** 2 > 1e-12 * np.maximum(1.0, (sums[1] / sums[0]) ** 2)
            sums = sums[:2]
        else:
            sums = np.bincount(nd * n_classes + ys[alive], w[alive], minlength=n_nodes * n_classes).reshape(n_nodes, n_classes).T
            impure = (sums > 0).sum(axis=0) > 1
        if m < n_features:
            drawn = np.argsort(rng.random((n_nodes, n_features)), axis=1)[:, :m]
            code = np.take_along_axis(by_row[alive], drawn[nd], axis=1)
        else: drawn, code = np.broadcast_to(np.arange(n_features), (n_nodes, n_features)), by_row[alive]
        keys = ((nd * (m * width))[:, None] + np.arange(0, m * width, width) + code).reshape(-1)
        if n_nodes * m * width <= DENSE_PER_KEY * len(keys):         # the occupied bins, numbered 0..B-1 in key order
            occupied = np.flatnonzero(np.bincount(keys, minlength=n_nodes * m * width))
            number = np.zeros(n_nodes * m * width, dtype=np.intp)
            number[occupied] = np.arange(len(occupied))
            bins = number.take(keys)
        else: occupied, bins = np.unique(keys, return_inverse=True)
        B = len(occupied)
        if n_classes is None:
            left = np.stack([np.bincount(bins, np.repeat(s[alive], m), minlength=B) for s in stats[:2]])
        else:
            left = np.bincount(np.repeat(ys[alive] * B, m) + bins, np.repeat(w[alive], m), minlength=B * n_classes).reshape(n_classes, B)
        pair = occupied // width
        first = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
        if levels:                                                  # each (node, slot)'s levels by their mean response
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = left[1] / (left[0] if n_classes is None else left.sum(axis=0))
            order = np.lexsort((mean, pair))
            occupied, left = occupied[order], left[:, order]
            place = np.zeros(n_nodes * m * width, dtype=np.intp)    # each occupied bin's place in its pair's order
            place[occupied] = np.arange(B) - np.repeat(first, np.diff(np.r_[first, B]))
        np.cumsum(left, axis=1, out=left)                           # cumulative within each (node, slot): less the sums before it
        left -= np.repeat(np.hstack([np.zeros((len(left), 1)), left[:, first[1:] - 1]]), np.diff(np.r_[first, B]), axis=1)
        right = sums[:, pair // m] - left
        with np.errstate(divide="ignore", invalid="ignore"):
            if n_classes is None:
                n_left, n_right = left[0], right[0]
                proxy = -(left[1] ** 2 / n_left + right[1] ** 2 / n_right)
            else:
                n_left, n_right = left.sum(axis=0), right.sum(axis=0)
                left *= left; right *= right
                proxy = -(left.sum(axis=0) / n_left + right.sum(axis=0) / n_right)
        proxy[(n_left <= 0) | (n_right <= 0)] = np.inf
        owner = pair // m
        lowest = np.full(n_nodes, np.inf)
        np.minimum.at(lowest, owner, proxy)
        best = np.full(n_nodes, -1)
        at = np.flatnonzero((proxy == lowest[owner]) & np.isfinite(proxy))[::-1]
        best[owner[at]] = at                                        # each node's first best bin
        splits = (best >= 0) & impure
        kept = alive[splits[nd]]
        feature, threshold = drawn[np.arange(n_nodes), pair[best] % m], occupied[best] % width
        at_node = node[kept]
        goes_left = by_row[kept, feature[at_node]] <= threshold[at_node]
        if levels:                                                  # by the row's level's place, at most the cut's
            slot = pair[best] % m
            cut = best - first[np.searchsorted(first, best, side="right") - 1]
            goes_left = place[(at_node * m + slot[at_node]) * width + by_row[kept, feature[at_node]]] <= cut[at_node]
        child = np.full(n_nodes, -1)
        child[splits] = 2 * np.arange(np.count_nonzero(splits))
        node[kept] = child[at_node] + ~goes_left
        n_nodes = 2 * np.count_nonzero(splits)
        total += n_nodes
        alive = kept
    return total


def cases(quick):
    "(label, target, ours(), lean(), scikit-learn's(), repeats), each call returning a model or a node count."
    X, y = load_digits(return_X_y=True)
    codes, rng = X.astype(np.uint8).T.copy(), np.random.default_rng(0)
    bootstrap = np.array([np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) for _ in range(100)])
    X_r, y_regression, y_class = rounded_data()
    codes_r = np.rint(X_r * 100).astype(np.uint8).T.copy()
    one = np.ones((1, len(y_class)))
    rows = [("random forest, 100 trees, digits", 1.0,
             lambda: RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1).fit(X, y),
             lambda: lean_grow(codes, y, bootstrap, 10, max_features=8),
             lambda: SkForest(n_estimators=100, random_state=0, n_jobs=1).fit(X, y), 1 if quick else 5),
            ("single tree, digits", 0.5, lambda: DecisionTreeClassifier().fit(X, y),
             lambda: lean_grow(codes, y, np.ones((1, len(y))), 10), lambda: SkClassifier(random_state=0).fit(X, y), 3 if quick else 10),
            ("single tree regressor, 100k x 10 (100 values)", 0.5, lambda: DecisionTreeRegressor().fit(X_r, y_regression),
             lambda: lean_grow(codes_r, y_regression, one), lambda: SkRegressor(random_state=0).fit(X_r, y_regression), 1 if quick else 3),
            ("single tree classifier, 100k x 10 (100 values)", 0.5, lambda: DecisionTreeClassifier().fit(X_r, y_class),
             lambda: lean_grow(codes_r, y_class, one, 2), lambda: SkClassifier(random_state=0).fit(X_r, y_class), 1 if quick else 3)]
    solder = load_solder()
    if solder is not None:                                          # the floor of numeric cuts on the codes: a native
        X_s, y_s = solder                                           # categorical search does more, not less
        codes_s, rng = X_s.astype(np.uint8).T.copy(), np.random.default_rng(0)
        bootstrap_s = np.array([np.bincount(rng.integers(0, len(y_s), len(y_s)), minlength=len(y_s)) for _ in range(100)])
        rows.append(("random forest, 100 trees, solder (floor on the codes)", 1.0,
                     lambda: RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1, categorical_features=list(range(5))).fit(X_s, y_s),
                     lambda: lean_grow(codes_s, y_s, bootstrap_s),
                     lambda: SkForestRegressor(n_estimators=100, random_state=0, n_jobs=1).fit(X_s, y_s), 1 if quick else 3))
        rows.append(("single tree, solder (floor on the codes)", 1.0,
                     lambda: DecisionTreeRegressor(categorical_features=list(range(5))).fit(X_s, y_s),
                     lambda: lean_grow(codes_s, y_s, np.ones((1, len(y_s)))),
                     lambda: SkRegressor(random_state=0).fit(X_s, y_s), 3 if quick else 20))
        rows.append(("random forest, 100 trees, solder (floor by levels)", 1.0,    # the categorical search's own floor
                     lambda: RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1, categorical_features=list(range(5))).fit(X_s, y_s),
                     lambda: lean_grow(codes_s, y_s, bootstrap_s, levels=True),
                     lambda: SkForestRegressor(n_estimators=100, random_state=0, n_jobs=1).fit(X_s, y_s), 1 if quick else 3))
        rows.append(("single tree, solder (floor by levels)", 1.0,
                     lambda: DecisionTreeRegressor(categorical_features=list(range(5))).fit(X_s, y_s),
                     lambda: lean_grow(codes_s, y_s, np.ones((1, len(y_s))), levels=True),
                     lambda: SkRegressor(random_state=0).fit(X_s, y_s), 3 if quick else 20))
        rows.append(("extra trees, 100 trees, solder (floor by levels)", 1.0,   # categorical columns: no threshold drawn
                     lambda: ExtraTreesRegressor(n_estimators=100, random_state=0, n_jobs=1, categorical_features=list(range(5))).fit(X_s, y_s),
                     lambda: lean_grow(codes_s, y_s, np.ones((100, len(y_s))), levels=True),
                     lambda: SkExtraRegressor(n_estimators=100, random_state=0, n_jobs=1).fit(X_s, y_s), 1 if quick else 3))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--cpu", type=int, default=None, help="the processor to pin to (default: the last one allowed)")
    args = parser.parse_args()
    cpu = sorted(os.sched_getaffinity(0))[-1] if args.cpu is None else args.cpu
    os.sched_setaffinity(0, {cpu})
    print(f"one core (cpu {cpu}); seconds, best of the repeats; ratios to scikit-learn's")
    print(f"{'case':54s} {'sklearn':>8s} {'ours':>8s} {'floor':>8s} {'ours/sk':>8s} {'floor/sk':>9s} {'target':>7s} {'ours/floor':>10s}  nodes sk/ours/floor")
    for label, target, ours, lean, theirs, repeats in cases(args.quick):
        t_sk, t_ours, t_lean = best_of([theirs, ours, lean], repeats)
        m_sk, m_ours, n_lean = theirs(), ours(), lean()               # once more, for the node counts
        print(f"{label:54s} {t_sk:8.4f} {t_ours:8.4f} {t_lean:8.4f} {t_ours / t_sk:8.2f} {t_lean / t_sk:9.2f} {target:7.1f} "
              f"{t_ours / t_lean:10.2f}  {node_count(m_sk)}/{node_count(m_ours)}/{n_lean}")


if __name__ == "__main__":
    main()
