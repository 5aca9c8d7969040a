"""The machine-dependent measurements of chapter 10 ("Making numpy fast"), as one table.

    .venv/bin/python benchmarks/numpy_devices.py            # best of 20 runs each (about a minute)
    .venv/bin/python benchmarks/numpy_devices.py --quick    # best of 3, smaller fits (a smoke test, seconds)

Chapter 10 chooses several paths by a measurement whose outcome depends on the processor (branch prediction, caches,
the latency of a float addition) or on numpy's build (its sort kernels): numpy's default sort and a repair of its ties
against its stable sort, a column's one-byte ranks against its float values, arithmetic and `np.compress` against
`np.where` and boolean indexing on a coin-flip mask, 32-bit integer cumulative sums against float ones, and `FAST`
against `PLAIN`. The chapter shows each measurement as this build's figures and asserts none of these orderings (a page
must not fail on a machine where one does not hold); this script prints them all with one verdict a line, "holds" or
"does not hold here", for the claim the chapter's choice rests on. It asserts nothing: a line that does not hold says
that on this machine the path buys nothing, not that anything is wrong. One thread each (BLAS), one process, the
cases timed one after the other: run it on a quiet machine, pinned (`taskset -c 0`) if you like.
"""
import os, sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: one thread each
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

from dataclasses import replace

import numpy as np

from climbing_trees.bench import gaussian_problem, time_call
from climbing_trees.fast import FAST, RANKS_FROM_BYTES, dense_ranks, stable_argsort
from climbing_trees.frontier import segment_starts, segment_sums, segmented_cumsum
from climbing_trees.levelwise import PLAIN, _presorted_orders
from climbing_trees.levelwise_trees import grow_levelwise

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 20
N = 20_000 if QUICK else 100_000


def ms(f, repeats=REPEATS):
    "Best time of `f()` in milliseconds."
    return time_call(f, repeats=repeats).best * 1e3


rows = []
def compare(device, case, slow_label, slow, fast_label, fast, claim_margin=1.0):
    "One line: A (`slow`, the alternative or the harder case) against B (`fast`, the chapter's path), both in ms; the claim: A > margin x B."
    rows.append((device, case, slow_label, slow, fast_label, fast, slow / fast, slow > claim_margin * fast))


# 1. the sort: numpy's stable sort against its default sort with the ties repaired (FAST's `repaired_sort`)
rng = np.random.default_rng(0)
gauss = rng.normal(size=(N, 10))
ties = np.floor(rng.random((N, 10)) * 100)
holes = np.where(rng.random(gauss.shape) < 0.2, np.nan, gauss)
for case, X in ((f"Gaussian, {N:,} x 10", gauss), (f"100 values a column, {N:,} x 10", ties), (f"Gaussian, a fifth NaN, {N:,} x 10", holes),
                ("Gaussian, 1,000 x 10", gauss[:1000]), ("Gaussian, 600 x 30", rng.normal(size=(600, 30)))):
    columns = np.ascontiguousarray(X.T)
    stable = ms(lambda: np.argsort(columns, axis=1, kind="stable"))
    compare("sort", case, "stable sort", stable, "default + repair", ms(lambda: stable_argsort(columns)))
nan_columns = np.ascontiguousarray(holes.T)
compare("sort", "numpy's default sort, a fifth NaN vs none", "with NaN", ms(lambda: np.argsort(nan_columns, axis=1)),
        "without", ms(lambda: np.argsort(np.ascontiguousarray(gauss.T), axis=1)))

# 2. ranks: a column's one-byte ranks against its float values, gathered along its order and compared
orders = _presorted_orders(ties)
ranks = dense_ranks(ties, orders)
compare("ranks", f"gather and compare one column, {N:,} rows", "from X", ms(lambda: np.diff(ties.reshape(-1).take(orders[3] * 10 + 3)) > 0),
        "from ranks", ms(lambda: np.diff(ranks[3].take(orders[3])) > 0))
for n in ((2_000, 8_000) if QUICK else (2_000, 8_000, 50_000, 200_000)):
    X_n, y_n = gaussian_problem(n)
    fit = lambda tuning: grow_levelwise(X_n, y_n, "gini", n_classes=2, tuning=tuning)
    without = ms(lambda: fit(replace(FAST, ranks_from_bytes=2 ** 62)), max(3, REPEATS // 4))
    with_ranks = ms(lambda: fit(replace(FAST, ranks_from_bytes=0)), max(3, REPEATS // 4))
    case = f"full-depth fit, {n:,} x 10 ({X_n.nbytes / 2 ** 20:.2f} MB of X, {'above' if X_n.nbytes > RANKS_FROM_BYTES else 'below'} the switch)"
    if X_n.nbytes > RANKS_FROM_BYTES: compare("ranks", case, "without ranks", without, "with ranks", with_ranks)
    else: compare("ranks", case, "with ranks", with_ranks, "without ranks", without)    # below the switch X is read

# 3. masks: branches on a coin flip against arithmetic and np.compress
a, b = rng.integers(0, 10 ** 6, (2, 10 ** 6))
x = rng.random(10 ** 6)
coin = rng.random(10 ** 6) < 0.5
runs = np.sort(coin)[::-1].copy()
compare("masks", "np.where(side, a, b), coin flip vs sorted mask", "coin flip", ms(lambda: np.where(coin, a, b)),
        "sorted", ms(lambda: np.where(runs, a, b)))
compare("masks", "coin flip: np.where(side, a, b) vs b + side * (a - b)", "np.where", ms(lambda: np.where(coin, a, b)),
        "arithmetic", ms(lambda: b + coin * (a - b)))
compare("masks", "coin flip: np.where(side, x, 0) vs side * x", "np.where", ms(lambda: np.where(coin, x, 0.0)),
        "arithmetic", ms(lambda: coin * x))
compare("masks", "coin flip: a[side] vs np.compress(side, a)", "a[side]", ms(lambda: a[coin]),
        "np.compress", ms(lambda: np.compress(coin, a)))

# 4. the adder: 32-bit integer cumulative sums against float64 ones
as_float, as_int, into_float = coin.astype(float), coin.astype(np.int32), np.empty(10 ** 6)
thousands = np.full(1000, 1000)
starts = segment_starts(thousands)
compare("adder", "np.cumsum of 10^6: float64 vs int32 (dtype=np.int32)", "float64", ms(lambda: np.cumsum(as_float)),
        "int32", ms(lambda: np.cumsum(as_int, dtype=np.int32)))
compare("adder", "np.cumsum of int32: widened to int64 vs kept", "widened", ms(lambda: np.cumsum(as_int)),
        "kept", ms(lambda: np.cumsum(as_int, dtype=np.int32)))
compare("adder", "segmented_cumsum, segments of 1,000: float64 vs int32 into float64", "float64",
        ms(lambda: segmented_cumsum(as_float, thousands)), "int32", ms(lambda: segmented_cumsum(as_int, thousands, out=into_float)))
compare("adder", "sums of a bool mask by segment: np.add.reduceat vs segment_sums", "reduceat", ms(lambda: np.add.reduceat(coin, starts)),
        "segment_sums", ms(lambda: segment_sums(coin, starts)))

# 5. all of it: the plain grower against FAST
X_f, y_f = gaussian_problem(N)
compare("grower", f"full-depth fit, {N:,} x 10 binary", "PLAIN", ms(lambda: grow_levelwise(X_f, y_f, "gini", n_classes=2, tuning=PLAIN), 3),
        "FAST", ms(lambda: grow_levelwise(X_f, y_f, "gini", n_classes=2, tuning=FAST), 3))

print(f"chapter 10's machine-dependent measurements ({'quick: ' if QUICK else ''}best of {REPEATS} runs; ms)")
print(f"{'device':7s} {'case':66s} {'A, ms':>25s} {'B, ms':>25s} {'A/B':>6s}  the chapter's claim: A takes longer than B")
for device, case, slow_label, slow, fast_label, fast, ratio, holds in rows:
    print(f"{device:7s} {case:66s} {slow_label:>16s} {slow:>8.3f} {fast_label:>16s} {fast:>8.3f} {ratio:>6.2f}  "
          f"{'holds' if holds else 'does not hold here'}")
