"""How fast can level-wise numpy grow extra trees at all? A lower bound for the forests chapter's extra-trees target.

    .venv/bin/python benchmarks/extra_trees_floor.py            # 10,000 and 40,000 rows x 20, 100 trees (about a minute)
    .venv/bin/python benchmarks/extra_trees_floor.py --quick    # 2,000 rows and 10 trees, for CI (seconds)

The forests issue asks for a fit at most 1.0x scikit-learn's with the same n_jobs; `benchmarks/forests.py` measures
the book's ExtraTreesClassifier above that on 10,000 and 40,000 rows. This script measures what the same algorithm
costs in numpy before anything the library adds: `lean_extra_trees` below grows binary Gini extra trees to purity on
unit weights, level by level, with only each depth's kernels: gather the drawn features' values at each node's rows,
their smallest and largest value per node, a uniform threshold between them, the comparison, the counts on the left,
the best of the node's features, and a stable partition. It builds no tree (no values, impurities or children), draws
from one generator instead of one per tree, and drops a node whose drawn features are all constant instead of drawing
on. Its trees hold as many nodes as scikit-learn's, give or take the randomness (checked below: within 3%).
Trees grown together: as many as keep a frontier near 2**20 (row, feature) entries, the best batch measured here.
Ours, scikit-learn's and the lean grower run alternately on one pinned core with one BLAS thread, best of a few runs.

What it does not show: the best a lean grower can do (a floor that is itself not tight), n_jobs=2, or any other data.
"""
import os, sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier as SkExtraTrees

from climbing_trees.forest_estimators import ExtraTreesClassifier
from small_floor import best_of                                      # the same interleaved best-of as the trees' floor

FRONTIER_ENTRIES = 2 ** 20          # the lean grower grows max(1, this // (N * D)) trees as one frontier


def lean_extra_trees(X, y, n_trees, max_features, seed):
    "Extra trees on X (N x D floats) and binary labels y (0/1), grown to purity; returns the number of nodes grown."
    n_rows, n_features = X.shape
    columns = np.ascontiguousarray(X.T).reshape(-1)                     # feature j's values at j * N ...
    label, rng = y.astype(np.int8), np.random.default_rng(seed)
    batch, n_nodes = max(1, FRONTIER_ENTRIES // (n_rows * n_features)), 0
    for first in range(0, n_trees, batch):
        n_grown = min(batch, n_trees - first)
        rows = np.tile(np.arange(n_rows, dtype=np.int32), n_grown)      # each frontier node's rows, one node after another
        counts = np.full(n_grown, n_rows)
        n_nodes += n_grown
        while len(counts):
            starts = np.cumsum(counts) - counts
            y_rows = label.take(rows)
            positive = np.add.reduceat(y_rows, starts, dtype=np.int32)
            impure = (positive > 0) & (positive < counts)
            if not impure.all():                                        # pure nodes are leaves: their rows leave the frontier
                rows, y_rows = rows[np.repeat(impure, counts)], y_rows[np.repeat(impure, counts)]
                counts, positive = counts[impure], positive[impure]
                if not len(counts): break
                starts = np.cumsum(counts) - counts
            F, n = len(counts), len(rows)
            feature = rng.random((F, n_features)).argsort(axis=1)[:, :max_features].T   # (m, F): each node's drawn features
            index = np.repeat(np.multiply(feature, n_rows, dtype=np.intp), counts, axis=1)
            index += rows
            x = columns.take(index)                                     # (m, n): the drawn features' values at the rows
            low, high = np.minimum.reduceat(x, starts, axis=1), np.maximum.reduceat(x, starts, axis=1)
            threshold = low + (high - low) * rng.random(low.shape)
            threshold = np.where(threshold == high, low, threshold)
            left = x <= np.repeat(threshold, counts, axis=1)
            n_left = np.add.reduceat(left.view(np.int8), starts, axis=1, dtype=np.int32)
            positive_left = np.add.reduceat((left & y_rows.view(bool)).view(np.int8), starts, axis=1, dtype=np.int32)
            n_right, positive_right = counts - n_left, positive - positive_left
            with np.errstate(divide="ignore", invalid="ignore"):        # Gini's proxy: the larger, the purer the children
                proxy = ((positive_left ** 2 + (n_left - positive_left) ** 2) / n_left
                         + (positive_right ** 2 + (n_right - positive_right) ** 2) / n_right)
            proxy[(high <= low + 1e-7) | (n_left == 0) | (n_right == 0)] = -np.inf
            slot = proxy.argmax(axis=0)
            nodes = np.arange(F)
            split = np.isfinite(proxy[slot, nodes])
            goes_left = left.reshape(-1).take(np.repeat(slot * n, counts) + np.arange(n))
            kept = np.repeat(split, counts)
            rows = np.concatenate([rows[goes_left & kept], rows[~goes_left & kept]])   # left children, then right ones
            counts = np.concatenate([n_left[slot, nodes][split], n_right[slot, nodes][split]])
            n_nodes += len(counts)
    return n_nodes


def main():
    quick = "--quick" in sys.argv[1:]
    n_trees, sizes = (10, [(2_000, 0)]) if quick else (100, [(10_000, 0), (40_000, 1)])   # forests.py's data and seeds
    if hasattr(os, "sched_setaffinity"): os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"extra trees, {n_trees} trees grown to purity, make_classification(n, 20, n_informative=10), one core; "
          "seconds, best of a few runs; ratio to scikit-learn's fit")
    print(f"{'rows':>7s} {'nodes/tree sklearn':>19s} {'lean':>6s} {'scikit-learn':>13s} {'lean numpy':>11s} {'ratio':>6s} "
          f"{'climbing-trees':>15s} {'ratio':>6s}")
    for n, seed in sizes:
        X, y = make_classification(n, 20, n_informative=10, random_state=seed)
        max_features = int(np.sqrt(X.shape[1]))                         # the classifier's default, "sqrt"
        fitted = SkExtraTrees(n_trees, random_state=0).fit(X, y)
        sk_nodes = np.mean([tree.tree_.node_count for tree in fitted.estimators_])
        lean_nodes = lean_extra_trees(X, y, n_trees, max_features, 0) / n_trees
        assert abs(lean_nodes / sk_nodes - 1) < 0.03, (lean_nodes, sk_nodes)   # as much tree, or the floor means nothing
        ExtraTreesClassifier(2).fit(X[:100], y[:100])                   # first-use costs (imports, caches) not timed
        sk, lean, ours = best_of([lambda: SkExtraTrees(n_trees, n_jobs=1, random_state=0).fit(X, y),
                                  lambda: lean_extra_trees(X, y, n_trees, max_features, 0),
                                  lambda: ExtraTreesClassifier(n_trees, n_jobs=1, random_state=0).fit(X, y)],
                                 1 if quick or n >= 20_000 else 3)
        print(f"{n:7d} {sk_nodes:19.0f} {lean_nodes:6.0f} {sk:13.3f} {lean:11.3f} {lean / sk:6.2f} {ours:15.3f} {ours / sk:6.2f}",
              flush=True)


if __name__ == "__main__":
    main()
