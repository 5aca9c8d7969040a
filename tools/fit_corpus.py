"""A corpus of fits: the estimators (and, apart, the engine's growers) fitted on small data, each fit reduced to a
sha256 of its trees' arrays and its predictions, so that a restructured engine can show it grows the same trees, bit for bit.

    .venv/bin/python tools/fit_corpus.py record   # fit everything, write tests/fit_corpus.json
    .venv/bin/python tools/fit_corpus.py check    # fit again; exit 1 naming the fits (and arrays) that differ

tests/test_fit_corpus.py runs the same check, one test per fit. The estimator fits are the contract; the "engine"
group calls growers by name (grow_levelwise, grow_trees, grow_tree, grow_surrogate) and may follow their renaming.
"""
import hashlib, json, platform, sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import scipy
import sklearn
from sklearn import datasets
from sklearn.base import clone, is_classifier

from climbing_trees.tree import flat_values
from climbing_trees.estimators import ALGORITHMS
from climbing_trees.tree_estimators import DecisionTreeClassifier as DTC, DecisionTreeRegressor as DTR
from climbing_trees.forest_estimators import ExtraTreesClassifier as ETC, ExtraTreesRegressor as ETR, RandomForestClassifier as RFC, RandomForestRegressor as RFR
from climbing_trees.boosting_estimators import GradientBoostingClassifier as GBC, GradientBoostingRegressor as GBR

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fit_corpus.json"
TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "categorical", "left_levels", "right_levels",
               "default_left", "value", "impurity", "n_node_samples", "weighted_n_node_samples")
SURROGATE_ARRAYS = ("start", "feature", "threshold", "below_left", "categorical", "left_levels", "right_levels", "agree", "adj")
PREFIX = 12   # hex digits kept per array: enough to say which one changed


# -- data: sklearn's bundled sets, NaN punched in at fixed places, and a frame with categorical columns
def _with_nan(X, fraction=0.1, seed=0):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < fraction] = np.nan
    return X

def _frame(n=300, seed=1):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey", "black", "white"], n)
    size = rng.choice(["S", "M", "L"], n)
    x0, x1 = rng.normal(size=n), rng.uniform(size=n)
    score = x0 + np.isin(colour, ["red", "blue", "black"]) * 1.5 + (size == "L") + rng.normal(scale=0.5, size=n)
    X = pd.DataFrame({"x0": x0, "colour": pd.Categorical(colour), "x1": x1, "size": pd.Categorical(size, ["S", "M", "L"])})
    X.loc[rng.random(n) < 0.1, "x1"] = np.nan
    X.loc[rng.random(n) < 0.05, "colour"] = np.nan
    return X, np.digitize(score, np.quantile(score, [1 / 3, 2 / 3])), score

@cache
def _load(name):
    load = lambda f: f(return_X_y=True)
    if name == "iris": return load(datasets.load_iris)
    if name == "cancer": return load(datasets.load_breast_cancer)
    if name == "diabetes": return load(datasets.load_diabetes)
    if name == "wine": return load(datasets.load_wine)
    if name == "digits": return tuple(a[:400] for a in load(datasets.load_digits))
    if name.endswith("+nan"): X, y = _load(name[:-4]); return _with_nan(X), y
    if name == "frame": X, y, _ = _frame(); return X, y
    if name == "frame_reg": X, _, score = _frame(); return X, score
    if name == "diabetes_big_y": X, y = _load("diabetes"); return X, y * 1e6 + 1e9
    raise KeyError(name)

def data(name):
    "X, y of data set `name`, fresh copies (a fit that wrote into its input cannot leak into the next one)."
    return tuple(a.copy() for a in _load(name))

def weights(kind, n, seed=2):
    rng = np.random.default_rng(seed)
    if kind == "int": return rng.integers(0, 4, n).astype(float)                      # 0..3: rows left out and repeated
    if kind == "frac": return np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0.1, 3.0, n))
    raise KeyError(kind)


# -- the fits
@dataclass
class Fit:
    name: str
    make: Callable                   # () -> unfitted estimator, or for the engine group (X, y) -> list of trees
    data: str
    weight: str | None = None
    predict_on: str | None = None    # predictions on this data set's X as well as on the training X
    group: str = "estimator"
    may_refuse: bool = False         # a ValueError/TypeError at fit is recorded as the refusal, not raised

def estimator_fits():
    C, R = [], []
    for crit in ("gini", "entropy", "log_loss"):
        C += [Fit(f"clf_{crit}_depth3", lambda c=crit: DTC(criterion=c, max_depth=3), "cancer"),
              Fit(f"clf_{crit}_full", lambda c=crit: DTC(criterion=c), "wine")]
    C += [Fit("clf_weight_int", lambda: DTC(), "iris", weight="int"),
          Fit("clf_weight_frac", lambda: DTC(criterion="entropy"), "wine", weight="frac"),
          Fit("clf_class_weight_balanced", lambda: DTC(class_weight="balanced", max_depth=5), "cancer"),
          Fit("clf_min_samples_leaf5", lambda: DTC(min_samples_leaf=5), "cancer"),
          Fit("clf_min_weight_fraction", lambda: DTC(min_weight_fraction_leaf=0.05), "wine", weight="frac"),
          Fit("clf_min_impurity_decrease", lambda: DTC(min_impurity_decrease=0.01), "cancer"),
          Fit("clf_max_features_sqrt", lambda: DTC(max_features="sqrt", random_state=0), "cancer"),
          Fit("clf_splitter_random", lambda: DTC(splitter="random", random_state=0), "wine"),
          Fit("clf_max_leaf_nodes8", lambda: DTC(max_leaf_nodes=8), "cancer"),
          Fit("clf_ccp_alpha", lambda: DTC(ccp_alpha=0.004), "cancer"),
          Fit("clf_digits_10_classes", lambda: DTC(), "digits"),
          Fit("clf_categorical_frame", lambda: DTC(max_depth=6), "frame"),
          Fit("clf_nan_direction", lambda: DTC(), "iris+nan"),
          Fit("clf_predict_nan_unseen", lambda: DTC(), "iris", predict_on="iris+nan"),
          Fit("clf_nan_surrogate", lambda: DTC(missing="surrogate", max_surrogates=3), "cancer+nan"),
          Fit("clf_surrogate_categorical_frame", lambda: DTC(missing="surrogate", max_depth=5), "frame")]
    R += [Fit("reg_squared_error_depth4", lambda: DTR(max_depth=4), "diabetes"),
          Fit("reg_squared_error_full", lambda: DTR(), "diabetes"),
          Fit("reg_absolute_error", lambda: DTR(criterion="absolute_error", max_depth=5), "diabetes"),
          Fit("reg_poisson", lambda: DTR(criterion="poisson", max_depth=5), "diabetes"),
          Fit("reg_friedman_mse", lambda: DTR(criterion="friedman_mse", max_depth=4), "diabetes", may_refuse=True),
          Fit("reg_weight_frac", lambda: DTR(min_samples_leaf=3), "diabetes", weight="frac"),
          Fit("reg_nan_direction", lambda: DTR(max_depth=6), "diabetes+nan"),
          Fit("reg_nan_surrogate", lambda: DTR(missing="surrogate", max_depth=6), "diabetes+nan"),
          Fit("reg_categorical_frame", lambda: DTR(max_depth=6), "frame_reg"),
          Fit("reg_max_leaf_nodes8", lambda: DTR(max_leaf_nodes=8), "diabetes"),
          Fit("reg_ccp_alpha", lambda: DTR(ccp_alpha=50.0), "diabetes"),
          Fit("reg_splitter_random", lambda: DTR(splitter="random", random_state=0, max_depth=8), "diabetes"),
          Fit("reg_shifted_scaled_y", lambda: DTR(max_depth=6), "diabetes_big_y")]
    for algo in ALGORITHMS:
        C.append(Fit(f"clf_algorithm_{algo}", lambda a=algo: DTC(algorithm=a), "iris"))
        R.append(Fit(f"reg_algorithm_{algo}", lambda a=algo: DTR(algorithm=a, max_depth=5), "diabetes"))
    forests = dict(n_estimators=6, random_state=0, n_jobs=1)
    E = [Fit("rf_clf", lambda: RFC(**forests), "cancer"),
         Fit("rf_clf_nan", lambda: RFC(**forests), "wine+nan"),
         Fit("rf_clf_categorical", lambda: RFC(max_depth=6, **forests), "frame"),
         Fit("rf_clf_max_samples", lambda: RFC(max_samples=0.5, **forests), "iris"),
         Fit("rf_reg", lambda: RFR(max_depth=6, **forests), "diabetes"),
         Fit("rf_reg_nan", lambda: RFR(max_depth=6, **forests), "diabetes+nan"),
         Fit("rf_reg_no_bootstrap", lambda: RFR(bootstrap=False, max_features=0.5, max_depth=6, **forests), "diabetes"),
         Fit("et_clf", lambda: ETC(**forests), "cancer"),
         Fit("et_clf_nan", lambda: ETC(**forests), "iris+nan"),
         Fit("et_reg", lambda: ETR(max_depth=8, **forests), "diabetes"),
         Fit("et_reg_bootstrap", lambda: ETR(bootstrap=True, max_depth=8, **forests), "diabetes+nan")]
    stages = dict(n_estimators=10, random_state=0)
    E += [Fit("gb_clf_binary", lambda: GBC(**stages), "cancer"),
          Fit("gb_clf_multiclass", lambda: GBC(**stages), "iris"),
          Fit("gb_clf_subsample", lambda: GBC(subsample=0.7, **stages), "wine")]
    for loss in ("squared_error", "absolute_error", "huber", "quantile"):
        E.append(Fit(f"gb_reg_{loss}", lambda l=loss: GBR(loss=l, **stages), "diabetes"))
    E.append(Fit("gb_reg_subsample", lambda: GBR(subsample=0.6, **stages), "diabetes"))
    return C + R + E

def engine_fits():
    from climbing_trees.levelwise_trees import grow_levelwise
    from climbing_trees.forests import grow_trees
    from climbing_trees.growth import grow_tree
    from climbing_trees.missing import grow_surrogate
    codes = lambda y: np.unique(y, return_inverse=True)[1]
    boot = lambda n: np.stack([weights("int", n, seed) for seed in range(4)])
    return [Fit(f"engine_{name}", make, d, group="engine") for name, make, d in [
        ("grow_tree_gini", lambda X, y: [grow_tree(X, codes(y), "gini", None, 3)], "iris"),
        ("grow_levelwise_entropy", lambda X, y: [grow_levelwise(X, codes(y), "entropy", None, 3, max_depth=4)], "wine"),
        ("grow_levelwise_nan", lambda X, y: [grow_levelwise(X, y, "squared_error", None, None, max_depth=5)], "diabetes+nan"),
        ("grow_levelwise_best_first", lambda X, y: [grow_levelwise(X, y, "absolute_error", max_leaf_nodes=6)], "diabetes"),
        ("grow_trees", lambda X, y: grow_trees(X, codes(y), "gini", boot(len(y)), 2, random_states=range(4), max_features=5),
         "cancer"),
        ("grow_trees_random", lambda X, y: grow_trees(X, y, "squared_error", boot(len(y)), random_states=range(4),
                                                      splitter="random", max_depth=6), "diabetes+nan"),
        ("grow_surrogate", lambda X, y: [grow_surrogate(X, codes(y), "gini", None, 3, max_surrogates=2)], "iris+nan")]]

def all_fits():
    return estimator_fits() + engine_fits()


# -- a fit's arrays, digest and facts
def tree_arrays(tree):
    arrays = {k: flat_values(tree) if k == "value" else getattr(tree, k) for k in TREE_ARRAYS}   # value: the grown table,
                                                                      # whatever the estimator's view of it (nodes, outputs, classes)
    if tree.surrogates is not None: arrays |= {f"surrogates.{k}": getattr(tree.surrogates, k) for k in SURROGATE_ARRAYS}
    return arrays

def run(fit):
    "The fitted trees, and the predictions {label: array} (none for the engine group)."
    X, y = data(fit.data)
    if fit.group == "engine": return fit.make(np.asarray(X, dtype=float), y), {}
    w = None if fit.weight is None else weights(fit.weight, len(y))
    est = clone(fit.make()).fit(X, y, sample_weight=w)
    members = getattr(est, "estimators_", None)
    trees = [est.tree_] if members is None else [e.tree_ for e in np.ravel(members)]   # boosting: (stages, classes)
    kinds = ("predict", "predict_proba") if is_classifier(est) else ("predict",)
    targets = {"": X} if fit.predict_on is None else {"": X, f"@{fit.predict_on}": data(fit.predict_on)[0]}
    return trees, {f"{k}{at}": np.asarray(getattr(est, k)(Xp)) for k in kinds for at, Xp in targets.items()}

def _bytes(label, a):
    a = np.ascontiguousarray(a)
    return f"{label}|{a.dtype.str}|{a.shape}|".encode() + a.tobytes()

def describe(fit):
    "The corpus entry of `fit`: its digest, node counts, and a hash prefix per array name (all trees) and per tree."
    try: trees, predictions = run(fit)
    except (ValueError, TypeError) as e:           # a parameter refused: the refusal is recorded (and must stay)
        if not fit.may_refuse: raise
        return {"name": fit.name, "group": fit.group, "digest": f"refused: {type(e).__name__}", "error": str(e)[:200]}
    labelled = [(i, k, a) for i, t in enumerate(trees) for k, a in tree_arrays(t).items()]
    labelled += [(None, k, a) for k, a in predictions.items()]
    whole, per_array, per_tree = hashlib.sha256(), {}, [hashlib.sha256() for _ in trees]
    for i, k, a in labelled:
        chunk = _bytes(k if i is None else f"tree{i}.{k}", a)
        for h in (whole, per_array.setdefault(k, hashlib.sha256()), *([] if i is None else [per_tree[i]])): h.update(chunk)
    entry = {"name": fit.name, "group": fit.group, "digest": whole.hexdigest(), "n_trees": len(trees),
             "node_count": [int(t.node_count) for t in trees],
             "arrays": {k: h.hexdigest()[:PREFIX] for k, h in per_array.items()}}
    if len(trees) > 1: entry["trees"] = [h.hexdigest()[:PREFIX] for h in per_tree]
    return entry

def differences(recorded, now):
    "Lines saying how entry `now` differs from `recorded` (empty if the digests are equal)."
    if recorded["digest"] == now["digest"]: return []
    lines = [f"{now['name']}: digest {recorded['digest'][:PREFIX]} -> {now['digest'][:PREFIX]}"]
    if "arrays" not in recorded or "arrays" not in now:
        return lines + [f"  {recorded.get('error', 'fitted')} -> {now.get('error', 'fitted')}"]
    if recorded["node_count"] != now["node_count"]: lines.append(f"  node_count {recorded['node_count']} -> {now['node_count']}")
    trees = [i for i, (a, b) in enumerate(zip(recorded.get("trees", []), now.get("trees", []))) if a != b]
    if trees: lines.append(f"  first differing tree: {trees[0]} ({len(trees)} of {now['n_trees']} differ)")
    changed = [k for k in {**recorded["arrays"], **now["arrays"]} if recorded["arrays"].get(k) != now["arrays"].get(k)]
    if changed: lines.append(f"  first differing array: {changed[0]} (all: {', '.join(changed)})")
    return lines

def environment():
    return {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
            "sklearn": sklearn.__version__, "pandas": pd.__version__, "machine": platform.machine()}

def load_corpus(path=CORPUS):
    return json.loads(Path(path).read_text())


def record(path=CORPUS):
    entries = []
    for fit in all_fits():
        entry, again = describe(fit), describe(fit)
        if entry["digest"] != again["digest"]: sys.exit(f"{fit.name} is not deterministic: two fits in one process differ")
        if "error" in entry: print(f"{fit.name}: {entry['digest']} ({entry['error']})")
        entries.append(entry)
    lines = ",\n".join(json.dumps(e) for e in entries)        # one line per fit: a re-record's diff names the fits
    Path(path).write_text(f'{{"environment": {json.dumps(environment())},\n"fits": [\n{lines}\n]}}\n')
    print(f"{len(entries)} fits recorded in {path}")

def check(path=CORPUS):
    corpus = load_corpus(path)
    if corpus["environment"] != environment():
        print(f"note: recorded with {corpus['environment']}, checking with {environment()}")
    recorded, fits = {e["name"]: e for e in corpus["fits"]}, all_fits()
    failures = [f"{name}: recorded, but no longer in the corpus" for name in recorded.keys() - {f.name for f in fits}]
    for fit in fits:
        if fit.name not in recorded: failures.append(f"{fit.name}: not recorded (run record)"); continue
        try: failures += differences(recorded[fit.name], describe(fit))
        except Exception as e: failures.append(f"{fit.name}: raised {type(e).__name__}: {e}")
    print("\n".join(failures) or f"all {len(fits)} fits match {path}")
    return 1 if failures else 0

if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) == 2 else None
    if mode not in ("record", "check"): sys.exit("usage: fit_corpus.py record|check")
    sys.exit(record() if mode == "record" else check())
