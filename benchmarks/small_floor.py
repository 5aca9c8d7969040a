"""How fast can a level-wise grower in numpy fit a small data set at all? A lower bound for the small-data targets.

    .venv/bin/python benchmarks/small_floor.py            # diabetes (442 x 10), max_depth 3 and full depth (about ten seconds)
    .venv/bin/python benchmarks/small_floor.py --quick    # best of 5 instead of 200, for CI (a second)

Issue 36's small-data target asks for a single tree's fit at most 2.0x scikit-learn's on iris, breast cancer and diabetes,
at depth 3 and at full depth (on diabetes, 21 depths). A level-wise grower pays a fixed cost per depth: its numpy calls, whatever the depth holds. This script
measures that cost without the library's generality: `lean_grow` below is a level-wise squared-error grower with
nothing else (unit weights, no stopping rule but purity and max_depth, no missing values, no categories, no exact
centring, no tree object: only each depth's chosen features and thresholds), a few dozen numpy calls a depth.
It grows the same number of nodes as scikit-learn (checked below). Its time is what the same algorithm costs
in numpy before anything the library adds; the book's grower, `DecisionTreeRegressor`, and scikit-learn's are timed
beside it, best of 200 runs each, alternately, on one pinned core.

Two more columns make the floor a whole fit. "lean fit" adds what any fit must do: the input checks scikit-learn's fit
makes (`check_X_y`) and the tree's arrays (children, feature, threshold, value, impurity, count), checked to be a tree
(its predictions on the training rows are scikit-learn's). "+ contract" adds two things the library's trees promise:
sums of centred targets (each node's targets less its mean, over their largest deviation: exact at any shift of y) and
the nodes numbered in pre-order, as scikit-learn numbers them (checked: a left child follows its parent). Still left out:
weights, the tie rule across features with its tolerance, every stopping rule but max_depth, missing values, categories.

What it does not show: the lean grower is not the best a lean grower can do (its partition is a sort per depth); it is a
floor that is itself not tight.
"""
import os, sys, time

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.utils import check_X_y

from climbing_trees import DecisionTreeRegressor
from climbing_trees.tree_builder import preorder_numbers


def lean_grow(X, y, max_depth=None, tree=None, centred=False):
    "Level-wise squared-error growth of X (N x D floats), y: each depth's (feature, threshold) of its split nodes; returns (depths, nodes). Given a list `tree`, each depth's node arrays are appended to it (`lean_fit`); `centred`: the sweeps sum each node's targets less its mean, over their largest deviation (the library's exact sums)."
    n_rows, n_features = X.shape
    orders = np.argsort(X, axis=0, kind="stable").T.copy()             # (D, N): each feature's rows in order, grouped by node
    columns = np.ascontiguousarray(X.T).reshape(-1)
    counts, depth, n_nodes, splits = np.array([n_rows]), 0, 1, []
    while True:
        F, n = len(counts), orders.shape[1]
        starts = np.cumsum(counts) - counts
        segment = np.repeat(np.arange(F), counts)
        y_sorted = y.take(orders)                                       # (D, n)
        total = np.add.reduceat(y_sorted[0], starts)
        mean = total / counts
        impurity = np.add.reduceat(np.square(y_sorted[0]), starts) / counts - mean ** 2
        splittable = (counts >= 2) & (impurity > 1e-12 * np.maximum(1, mean ** 2))
        if max_depth is not None and depth >= max_depth: splittable[:] = False
        if tree is not None: tree.append((counts, mean, impurity))      # every node's count, value and impurity
        if not splittable.any(): break
        if centred:                                                     # u = (y - mean) / scale, scale 0 in a constant node
            deviation = y_sorted - mean[segment]
            scale = np.maximum(np.maximum.reduceat(deviation[0], starts), -np.minimum.reduceat(deviation[0], starts))
            y_sorted = deviation / np.where(scale > 0, scale, np.inf)[segment]
            total = np.add.reduceat(y_sorted[0], starts)
        prefix = np.cumsum(y_sorted, axis=1)
        before = np.concatenate([np.zeros((n_features, 1)), prefix[:, :-1]], axis=1)[:, starts]
        left = prefix - np.repeat(before, counts, axis=1)               # each node's left sums, per feature and position
        n_left = np.arange(1, n + 1) - starts[segment]
        n_right = counts[segment] - n_left
        x = columns.take(orders + (np.arange(n_features) * n_rows)[:, None])
        ok = np.zeros((n_features, n), dtype=bool)
        np.less(x[:, :-1], x[:, 1:], out=ok[:, :-1])
        ok &= (n_right > 0) & splittable[segment]
        right = total[segment] - left
        with np.errstate(divide="ignore", invalid="ignore"):
            proxy = left * left / n_left + right * right / n_right     # the largest proxy is the least impurity
        proxy[~ok] = -np.inf
        best = np.maximum.reduceat(proxy, starts, axis=1)               # (D, F)
        feature = best.argmax(axis=0)
        value = best[feature, np.arange(F)]
        split = splittable & np.isfinite(value)
        if not split.any(): break
        hit = proxy[feature[segment], np.arange(n)] == value[segment]
        position = np.minimum(np.minimum.reduceat(np.where(hit, np.arange(n), n), starts), n - 2)
        splits.append((np.where(split, feature, -2), (x[feature, position] + x[feature, position + 1]) / 2))
        if tree is not None: tree.append((split, *splits[-1]))           # the split nodes, their features and thresholds
        goes_left = np.zeros(n_rows, dtype=bool)
        goes_left[orders[feature[segment], np.arange(n)][np.arange(n) <= position[segment]]] = True
        kept = split[segment]
        child = 2 * np.cumsum(split)[segment] - 2 + ~goes_left[orders]  # each position's child, for the kept rows
        by_child = np.argsort(np.where(kept[None, :], child, 2 * F + 2), axis=1, kind="stable")
        orders = np.take_along_axis(orders, by_child, axis=1)[:, :np.count_nonzero(kept)]
        counts = np.bincount(child[0][kept], minlength=2 * np.count_nonzero(split))
        n_nodes += 2 * np.count_nonzero(split)
        depth += 1
    return depth, n_nodes


def lean_fit(X, y, max_depth=None, contract=False):
    "`lean_grow` as a whole fit: the input checks scikit-learn's fit makes (`check_X_y`), and the tree's arrays (children, feature, threshold, value, impurity, count) in the order the nodes were grown; no estimator object. With `contract`, two things the library's trees promise: sums of centred targets (`lean_grow`'s `centred`), and the nodes numbered in pre-order, as scikit-learn's (chapter 2's `preorder_numbers`)."
    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True)
    parts = []
    lean_grow(X, y, max_depth, parts, centred=contract)
    summaries, split = parts[0::2], parts[1::2]                          # each depth's nodes; each searched depth's splits
    counts, value, impurity = (np.concatenate(a) for a in zip(*summaries))
    first = np.cumsum([0] + [len(c) for c, _, _ in summaries])          # each depth's first node
    children_left, feature, threshold = np.full(len(counts), -1), np.full(len(counts), -2), np.full(len(counts), -2.0)
    for d, (s, f, t) in enumerate(split):                                # left and right children alternate, in order
        nodes = first[d] + np.flatnonzero(s)
        children_left[nodes] = first[d + 1] + 2 * np.arange(len(nodes))
        feature[nodes], threshold[nodes] = f[s], t[s]
    children_right = np.where(children_left >= 0, children_left + 1, -1)
    if not contract: return children_left, children_right, feature, threshold, value, impurity, counts
    number = preorder_numbers(children_left, children_right)
    order = np.empty_like(number); order[number] = np.arange(len(number))
    split = children_left[order] >= 0
    left, right = np.where(split, number[children_left[order]], -1), np.where(split, number[children_right[order]], -1)
    return (left, right, *(a[order] for a in (feature, threshold, value, impurity, counts)))


def best_of(calls, repeats=200):
    "Best seconds of each call, the calls interleaved in every round."
    best = [np.inf] * len(calls)
    for _ in range(repeats):
        for k, call in enumerate(calls):
            t0 = time.perf_counter(); call(); best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main():
    repeats = 5 if "--quick" in sys.argv[1:] else 200
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    X, y = load_diabetes(return_X_y=True)
    print(f"diabetes {X.shape[0]} x {X.shape[1]}, one core; ms, best of {repeats}; ratio to scikit-learn's whole fit")
    print(f"{'max_depth':>10s} {'nodes':>6s} {'scikit-learn':>13s} {'lean numpy':>11s} {'ratio':>6s} {'lean fit':>9s} {'ratio':>6s} "
          f"{'+ contract':>11s} {'ratio':>6s} {'climbing-trees':>15s} {'ratio':>6s}")
    for max_depth in (3, None):
        sk_tree = SkRegressor(max_depth=max_depth, random_state=0).fit(X, y)
        sk_nodes = sk_tree.tree_.node_count
        depths, lean_nodes = lean_grow(X, y, max_depth)
        assert lean_nodes == sk_nodes, (lean_nodes, sk_nodes)          # the same amount of tree, or the floor means nothing
        for contract in (False, True):                                  # and the lean fits are trees: scikit-learn's predictions
            left, right, feature, threshold, value, _, _ = lean_fit(X, y, max_depth, contract)
            node = np.zeros(len(X), dtype=int)
            while (inner := left[node] >= 0).any():
                t = node[inner]
                node[inner] = np.where(X[inner, feature[t]] <= threshold[t], left[t], right[t])
            assert np.allclose(value[node], sk_tree.predict(X)), (max_depth, contract)
        left = lean_fit(X, y, max_depth, True)[0]                      # pre-order: a left child follows its parent
        assert np.array_equal(left, np.where(left >= 0, np.arange(1, len(left) + 1), -1))
        sk, lean, fit, contract, ours = best_of([lambda: SkRegressor(max_depth=max_depth, random_state=0).fit(X, y),
                                                 lambda: lean_grow(X, y, max_depth), lambda: lean_fit(X, y, max_depth),
                                                 lambda: lean_fit(X, y, max_depth, True),
                                                 lambda: DecisionTreeRegressor(max_depth=max_depth).fit(X, y)], repeats)
        print(f"{str(max_depth):>10s} {sk_nodes:6d} {sk * 1e3:13.2f} {lean * 1e3:11.2f} {lean / sk:6.2f} {fit * 1e3:9.2f} {fit / sk:6.2f} "
              f"{contract * 1e3:11.2f} {contract / sk:6.2f} {ours * 1e3:15.2f} {ours / sk:6.2f}")

if __name__ == "__main__":
    main()
