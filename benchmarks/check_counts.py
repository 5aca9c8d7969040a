"""How many times does one fit call each checking or resolving function? A table per fit, and whether ensembles scale it.

    .venv/bin/python benchmarks/check_counts.py           # eight fits, about ten seconds

The functions counted are found, not listed: every function or method defined in climbing_trees/*.py whose name
starts with check_, _check, validate, _validate, resolve or _resolve, plus make_criterion, column_searches and
categorical_encoder (which resolve a criterion, the column searches and the categorical columns); and every
scikit-learn function whose name starts with check_ or validate that our modules import (validate_data, check_array,
check_X_y, check_random_state, ...), counted only when called directly from a climbing_trees module (not from
inside scikit-learn). Calls are counted with `sys.setprofile`, which observes and changes nothing; it is removed
after each fit.

The fits: DecisionTreeClassifier on iris, DecisionTreeRegressor on diabetes, RandomForestClassifier (n_jobs=1) on
breast cancer, GradientBoostingClassifier on breast cancer, GradientBoostingRegressor on diabetes, the ensembles with
10 and 20 members. The target: a 20-member fit calls no checking function more times than a 10-member fit, i.e.
parameters and data are checked and resolved once per fit, not once per member. A line per family says whether it holds.
"""
import ast, sys
from pathlib import Path

from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

import climbing_trees
from climbing_trees import (DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
                            GradientBoostingRegressor, RandomForestClassifier)

PREFIXES = ("check_", "_check", "validate", "_validate", "resolve", "_resolve")
EXTRA = {"make_criterion", "column_searches", "categorical_encoder"}
PACKAGE = Path(climbing_trees.__file__).resolve().parent


def our_checkers():
    """{(file, first line of the code object): 'module.Qualified.name'} of every checking function in the package, found by ast;
    and the names of checking functions our modules import from scikit-learn."""
    ours, sklearn_names = {}, set()
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text())
        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{prefix}{child.name}"
                    if child.name.startswith(PREFIXES) or child.name in EXTRA:
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])   # a code object's co_firstlineno
                        ours[(str(path), first)] = f"{path.stem}.{name}"
                    visit(child, name + ".")
                elif isinstance(child, ast.ClassDef): visit(child, f"{prefix}{child.name}.")
                elif isinstance(child, ast.ImportFrom) and (child.module or "").startswith("sklearn"):
                    sklearn_names.update(a.name for a in child.names if a.name.startswith(("check_", "validate")))
        visit(tree, "")
    return ours, sklearn_names


def sklearn_codes(names):
    "{code object: 'sklearn.name'} of scikit-learn's checking functions our modules import."
    import sklearn.utils, sklearn.utils.validation, sklearn.utils.multiclass
    codes = {}
    for name in names:
        for module in (sklearn.utils.validation, sklearn.utils, sklearn.utils.multiclass):
            f = getattr(module, name, None)
            if f is not None and hasattr(f, "__code__"): codes[f.__code__] = f"sklearn.{name}"; break
    return codes


def count_calls(fit, ours, theirs):
    "Run `fit()` under a profiler that counts the calls of the checking functions; returns {name: calls}."
    counts, package = {}, str(PACKAGE)
    def profile(frame, event, arg):
        if event != "call": return
        code = frame.f_code
        name = ours.get((code.co_filename, code.co_firstlineno))
        if name is None:
            name = theirs.get(code)
            if name is None or not frame.f_back.f_code.co_filename.startswith(package): return
        counts[name] = counts.get(name, 0) + 1
    sys.setprofile(profile)
    try: fit()
    finally: sys.setprofile(None)
    return counts


def cases():
    "(family, label, fit) of every fit counted; the families' members are in the order 10, 20."
    iris, cancer, diabetes = (load(return_X_y=True) for load in (load_iris, load_breast_cancer, load_diabetes))
    yield "tree", "DTC iris", lambda: DecisionTreeClassifier(random_state=0).fit(*iris)
    yield "tree", "DTR diabetes", lambda: DecisionTreeRegressor(random_state=0).fit(*diabetes)
    for n in (10, 20):
        yield "RandomForestClassifier", f"RFC {n}", lambda n=n: RandomForestClassifier(n_estimators=n, n_jobs=1, random_state=0).fit(*cancer)
    for n in (10, 20):
        yield "GradientBoostingClassifier", f"GBC {n}", lambda n=n: GradientBoostingClassifier(n_estimators=n, random_state=0).fit(*cancer)
    for n in (10, 20):
        yield "GradientBoostingRegressor", f"GBR {n}", lambda n=n: GradientBoostingRegressor(n_estimators=n, random_state=0).fit(*diabetes)


def main():
    ours, sklearn_names = our_checkers()
    theirs = sklearn_codes(sklearn_names)
    print(f"{len(ours)} checking/resolving functions found in {PACKAGE.name}/*.py; scikit-learn's counted: "
          f"{', '.join(sorted(theirs.values()))}\n")
    results = []
    for family, label, fit in cases():
        fit()                                                    # a warm-up: imports and caches out of the count
        results.append((family, label, count_calls(fit, ours, theirs)))
    names = sorted({name for *_, c in results for name in c})
    width = max(len(n) for n in names)
    print(f"{'calls per fit':<{width}s} " + " ".join(f"{label:>12s}" for _, label, _ in results))
    for name in names:
        print(f"{name:<{width}s} " + " ".join(f"{c.get(name, 0):12d}" for *_, c in results))
    print(f"{'total':<{width}s} " + " ".join(f"{sum(c.values()):12d}" for *_, c in results))
    print()
    for family in dict.fromkeys(f for f, *_ in results if f != "tree"):
        (_, l10, c10), (_, l20, c20) = [r for r in results if r[0] == family]
        more = [f"{n} ({c10.get(n, 0)} -> {c20[n]})" for n in sorted(c20) if c20[n] > c10.get(n, 0)]
        verdict = "OK, no checking function is called more often" if not more else "MORE calls: " + ", ".join(more)
        print(f"{family}: {l20} vs {l10}: {verdict}")


if __name__ == "__main__":
    main()
