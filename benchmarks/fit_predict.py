"""Fit, predict and memory of the default grower against scikit-learn, side by side, in every case of the speed targets.

    .venv/bin/python benchmarks/fit_predict.py            # the full table (several minutes)
    .venv/bin/python benchmarks/fit_predict.py --quick    # the same table on smaller data, for CI (about half a minute)

How it measures (Linux):
- The script re-executes itself with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set to 1.
- Memory first: for every case and each library, a child process forked from this one before anything was fitted
  (so it starts with the imports and nothing else) turns transparent huge pages off for itself, makes the data, fits once
  on 20 rows (so that first-use costs such as lazy imports are not counted), returns freed heap memory to the system
  (`malloc_trim`, so the fit cannot reuse pages the data left behind unseen), resets its peak resident set size
  (`echo 5 > /proc/self/clear_refs`), reads VmRSS, fits, and reports VmHWM - VmRSS before: the peak memory the fit added.
- Then time, on ONE core: the process pins itself to CPU 0 (`os.sched_setaffinity`, what `taskset -c 0` does) and
  times our fit and scikit-learn's alternately, and then predict on new rows from the same distribution (on small data:
  one row, through the estimator's input validation), best of `repeats`, ours and scikit-learn's interleaved.
  Wall-clock seconds by default; `--cpu-time` uses the process's CPU time instead, which a busy machine disturbs less
  (both libraries run these parts on one thread).
- Then predict again with the affinity widened to every core: our walk splits large inputs among threads;
  scikit-learn's single-tree predict runs on one core either way.
Ratios are ours / scikit-learn's, measured in the same run on the same data. Targets: at most 1.0 for fit and predict on
one core in the large and many-class cases, 1.5 on small data (fit and one-row predict), 2.0 for added peak memory.
Results also go to benchmarks/results/fit_predict.json.
"""
import argparse, ctypes, json, multiprocessing, os, platform, sys, time, traceback
from dataclasses import dataclass, field
from pathlib import Path

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if any(os.environ.get(v) != "1" for v in THREAD_VARIABLES):          # before numpy is imported: re-execute with one BLAS thread
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **{v: "1" for v in THREAD_VARIABLES}})

import numpy as np
import sklearn
from scipy.special import ndtr
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.tree import DecisionTreeClassifier as SkClassifier, DecisionTreeRegressor as SkRegressor

import climbing_trees
from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.bench import gaussian_problem

TARGETS = {"large": 1.0, "many classes": 1.0, "small": 1.5, "memory": 2.0}


@dataclass
class Case:
    "One row of the table: how to make the data, the estimator's parameters, and which targets apply."
    name: str
    group: str                      # "large", "many classes" or "small"
    make: tuple                     # (function name, arguments) of a data maker below: picklable, rebuilt in each child
    task: str                       # "classification" or "regression"
    params: dict = field(default_factory=dict)
    weighted: bool = False
    fit_repeats: int = 3
    predict_repeats: int = 15


# ---- data: features, target, new rows to predict (same distribution), optional integer weights
def _latent(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)

def binary(n, d, seed=0): X, s = _latent(n, d, seed); return X, (s > 0).astype(int)
def five_classes(n, d, seed=0): X, s = _latent(n, d, seed); return X, np.digitize(s, np.quantile(s, [.2, .4, .6, .8]))
def regression(n, d, seed=0): return _latent(n, d, seed)
def heavy_ties(n, d, seed=0):
    X, y = binary(n, d, seed)
    return np.floor(ndtr(X) * 100), y                               # each feature takes 100 equally likely values
def binary_missing(n, d, seed=0):
    X, y = binary(n, d, seed)
    X[np.random.default_rng(seed + 100).random(X.shape) < 0.2] = np.nan   # a fifth of the values missing, at random
    return X, y
def many_classes(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.integers(0, k, n)            # uniformly random labels
def toy(name, seed=0):
    data = {"iris": load_iris, "breast cancer": load_breast_cancer, "diabetes": load_diabetes}[name]()
    return data.data, data.target

MAKERS = {f.__name__: f for f in (binary, five_classes, regression, heavy_ties, binary_missing, many_classes, toy)}

def make_data(case):
    "Training X, y, sample weights (or None) and the rows to predict."
    name, args = case.make
    X, y = MAKERS[name](*args)
    if case.group == "small": return X, y, None, X[:1]              # one-row predict
    X_new = MAKERS[name](*args, seed=1)[0]                            # new rows, same distribution
    w = np.random.default_rng(2).integers(1, 4, len(y)).astype(float) if case.weighted else None
    return X, y, w, X_new

def estimators(case):
    ours, theirs = (DecisionTreeClassifier, SkClassifier) if case.task == "classification" else (DecisionTreeRegressor, SkRegressor)
    return (lambda: ours(**case.params)), (lambda: theirs(random_state=0, **case.params))


def cases(quick):
    n, n_many, big = (10_000, 2_000, None) if quick else (100_000, 20_000, 1_000_000)
    large = [("binary, full depth", ("binary", (n, 10)), "classification", {}, False),
             ("5 classes, full depth", ("five_classes", (n, 10)), "classification", {}, False),
             ("regression, full depth", ("regression", (n, 10)), "regression", {}, False),
             ("integer sample weights 1-3", ("binary", (n, 10)), "classification", {}, True),
             ("heavy ties (100 values a feature)", ("heavy_ties", (n, 10)), "classification", {}, False),
             ("binary, 20% missing values (NaN)", ("binary_missing", (n, 10)), "classification", {}, False),
             ("binary, max_depth 8", ("binary", (n, 10)), "classification", {"max_depth": 8}, False),
             ("regression, max_depth 8", ("regression", (n, 10)), "regression", {"max_depth": 8}, False)]
    out = [Case(name, "large", make, task, params, weighted) for name, make, task, params, weighted in large]
    if big: out.append(Case("binary, full depth, 1M x 20", "large", ("binary", (big, 20)), "classification", fit_repeats=1, predict_repeats=3))
    out += [Case(f"{k} classes, max_depth 10", "many classes", ("many_classes", (n_many, 5, k)), "classification", {"max_depth": 10},
                 fit_repeats=1 if k == 1000 and not quick else 3) for k in (100, 1000)]
    for data, task in (("iris", "classification"), ("breast cancer", "classification"), ("diabetes", "regression")):
        for depth in (3, None):
            out.append(Case(f"{data}, {'depth 3' if depth else 'full depth'}", "small", ("toy", (data,)), task,
                            {"max_depth": depth}, fit_repeats=20, predict_repeats=200))
    return out


# ---- memory: a child forked before anything was fitted
def _status_kb(key):
    return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1])

def _fit_memory(case, which, conn):
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(41, 1, 0, 0, 0)                  # PR_SET_THP_DISABLE: with huge pages the kernel's RSS counts lag
        X, y, w, _ = make_data(case)
        make = estimators(case)[which]
        make().fit(X[:20], y[:20])                                      # first-use costs (lazy imports, caches) are not the fit's
        model = make()
        libc.malloc_trim(0)                         # memory freed while making the data goes back to the system, not to the fit
        with open("/proc/self/clear_refs", "w") as f: f.write("5")      # reset the peak (VmHWM) to the current RSS
        before = _status_kb("VmRSS")
        model.fit(X, y, sample_weight=w)
        conn.send((_status_kb("VmHWM") - before) / 1024)
    except Exception as error:
        conn.send(f"{type(error).__name__}: {error}")

def measure_memory(all_cases, parallel):
    "Added peak MB of each (case, library), two forked children at a time."
    ctx = multiprocessing.get_context("fork")
    jobs = [(i, which) for i in range(len(all_cases)) for which in (0, 1)]
    results, running = {}, []
    while jobs or running:
        while jobs and len(running) < parallel:
            i, which = jobs.pop(0)
            receive, send = ctx.Pipe(duplex=False)
            child = ctx.Process(target=_fit_memory, args=(all_cases[i], which, send)); child.start()
            running.append((i, which, child, receive))
        i, which, child, receive = running.pop(0)
        results[i, which] = receive.recv() if receive.poll(3600) else "no answer"
        child.join()
    return [(results[i, 0], results[i, 1]) for i in range(len(all_cases))]


# ---- time: side by side, best of repeats
def best_of(calls, repeats, clock=time.perf_counter):
    "Best seconds of each call by `clock`, the calls interleaved in every round so that both see the same machine."
    best = [np.inf] * len(calls)
    for _ in range(repeats):
        for k, call in enumerate(calls):
            t0 = clock(); call(); best[k] = min(best[k], clock() - t0)
    return best

def measure_time(case, one_core, all_cores, clock):
    X, y, w, X_new = make_data(case)
    make_ours, make_theirs = estimators(case)
    fitted = {}
    def fit(key, make): fitted[key] = make().fit(X, y, sample_weight=w)
    os.sched_setaffinity(0, one_core)
    fit_ours, fit_theirs = best_of([lambda: fit("ours", make_ours), lambda: fit("theirs", make_theirs)], case.fit_repeats, clock)
    ours, theirs = fitted["ours"], fitted["theirs"]
    predict = [lambda: ours.predict(X_new), lambda: theirs.predict(X_new)]
    one_ours, one_theirs = best_of(predict, case.predict_repeats, clock)
    os.sched_setaffinity(0, all_cores)
    all_ours, all_theirs = best_of(predict, case.predict_repeats)
    return dict(N=len(y), D=X.shape[1], nodes_ours=int(ours.tree_.node_count), nodes_theirs=int(theirs.tree_.node_count),
                fit_ours=fit_ours, fit_theirs=fit_theirs, predict_one_core_ours=one_ours, predict_one_core_theirs=one_theirs,
                predict_all_cores_ours=all_ours, predict_all_cores_theirs=all_theirs, predict_rows=len(X_new))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller data (10k rows, many classes on 2k), for CI")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory column")
    parser.add_argument("--cpu-time", action="store_true",
                        help="one-core columns in process CPU time instead of wall-clock time (steadier on a busy machine)")
    args = parser.parse_args(argv)
    all_cases = cases(args.quick)
    all_cores = os.sched_getaffinity(0)
    one_core = {min(all_cores)}
    print(f"climbing_trees {climbing_trees.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}, {len(all_cores)} cores, {platform.machine()}; "
          f"{'quick' if args.quick else 'full'} run; one-core times in {'CPU' if args.cpu_time else 'wall-clock'} seconds", flush=True)
    t0 = time.perf_counter()
    memory = [(None, None)] * len(all_cases) if args.no_memory else measure_memory(all_cases, min(2, len(all_cores)))
    print(f"memory measured in {time.perf_counter() - t0:.0f} s", flush=True)
    rows, failed = [], []
    for case, (mem_ours, mem_theirs) in zip(all_cases, memory):
        t0 = time.perf_counter()
        try: timing = measure_time(case, one_core, all_cores, time.process_time if args.cpu_time else time.perf_counter)
        except Exception:
            failed.append(case.name); print(f"{case.name}: FAILED\n{traceback.format_exc()}", flush=True); continue
        finally: os.sched_setaffinity(0, all_cores)
        rows.append(dict(case=case.name, group=case.group, memory_ours_mb=mem_ours, memory_theirs_mb=mem_theirs, **timing))
        print(f"  {case.name}: {time.perf_counter() - t0:.1f} s", flush=True)
    print_table(rows)
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / f"fit_predict{'_quick' if args.quick else ''}.json").write_text(json.dumps(rows, indent=1))
    if failed: print(f"\nFAILED: {', '.join(failed)}"); return 1
    return 0


def print_table(rows):
    def ratio(a, b): return a / b
    def mark(value, target):
        shown = f"{value:.2f}" if value <= target or round(value, 2) > target else f"{value:.3f}"   # 1.004 is not shown as 1.00
        return shown + ("" if value <= target else " ✗")
    print("\nRatios ours / scikit-learn (✗: above the target). Fit and predict on one pinned core; predict on all cores "
          "with our threads; memory = peak RSS added by the fit, fresh process each.\n")
    print("| case | N x D | nodes ours / sk | fit s ours / sk | fit | predict, 1 core | predict, all cores | added peak MB ours / sk | memory |")
    print("|---|---|---|---|---:|---:|---:|---|---:|")
    verdicts = []
    for r in rows:
        target = TARGETS[r["group"]]
        fit = ratio(r["fit_ours"], r["fit_theirs"])
        one = ratio(r["predict_one_core_ours"], r["predict_one_core_theirs"])
        every = ratio(r["predict_all_cores_ours"], r["predict_all_cores_theirs"])
        mo, mt = r["memory_ours_mb"], r["memory_theirs_mb"]
        numbers = isinstance(mo, float) and isinstance(mt, float)
        memory_ratio = mo / mt if numbers and mt > 0 else None
        memory_target = r["group"] != "small"                          # a few hundred kB on small data: not a meaningful ratio
        mem_text = f"{mo:.1f} / {mt:.1f}" if numbers else "not measured" if mo is None else f"{mo} / {mt}"
        mem_cell = "" if memory_ratio is None else (mark(memory_ratio, TARGETS["memory"]) if memory_target else f"{memory_ratio:.2f}")
        predict_label = "1 row" if r["group"] == "small" else f"{r['predict_rows']:,} rows"
        print(f"| {r['case']} | {r['N']:,} x {r['D']} | {r['nodes_ours']:,} / {r['nodes_theirs']:,} | "
              f"{r['fit_ours']:.4f} / {r['fit_theirs']:.4f} | {mark(fit, target)} | {mark(one, target)} ({predict_label}) | "
              f"{every:.2f} | {mem_text} | {mem_cell} |")
        verdicts += [(f"{r['case']}: fit", fit, target), (f"{r['case']}: predict on one core", one, target)]
        if memory_target and memory_ratio is not None: verdicts.append((f"{r['case']}: memory", memory_ratio, TARGETS["memory"]))
    met = [v for v in verdicts if v[1] <= v[2]]
    print(f"\n{len(met)} of {len(verdicts)} ratios meet their targets "
          f"(fit and one-core predict <= {TARGETS['large']} large and many classes, <= {TARGETS['small']} small; memory <= {TARGETS['memory']}).")
    for name, value, target in verdicts:
        if value > target: print(f"  above target: {name} = {value:.2f} (target {target})")


if __name__ == "__main__":
    sys.exit(main())
