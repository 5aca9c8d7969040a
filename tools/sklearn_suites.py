"""scikit-learn's own test files, run against our estimators with only the imports adapted: the parity measure of issue 39.

    .venv/bin/python tools/sklearn_suites.py                 # trees, monotonic trees, forests, gradient boosting (about ten minutes)
    .venv/bin/python tools/sklearn_suites.py tree            # one suite: tree, monotonic, forest or boosting
    .venv/bin/python tools/sklearn_suites.py --keep DIR      # keep the adapted files (and pytest's report) in DIR

Each suite is a test file installed with scikit-learn (sklearn/tree/tests/test_tree.py, sklearn/tree/tests/test_monotonic_tree.py,
sklearn/ensemble/tests/test_forest.py, sklearn/ensemble/tests/test_gradient_boosting.py). The file is copied unchanged except for one block inserted after its
imports, which rebinds every public name the library offers (DecisionTreeClassifier, RandomForestRegressor, export_text, ...)
to ours; the module attributes it reaches through (`tree.DecisionTreeClassifier`, `ensemble.RandomForestClassifier`) are
rebound the same way in the adapted file's namespace only (a new module object, which a test may hash as it would the original). Names we do not offer (ExtraTreeClassifier, the single extra tree;
export_graphviz while we have none) stay scikit-learn's, and the tests that use only them still count: they are part of
what a user of the suite sees.

Tests of scikit-learn's private modules are left out, as the issue says: a test whose body names something imported from
`sklearn.tree._*` or `sklearn.ensemble._*` (the Cython `Tree`, the criteria, `_check_...` helpers), imports from a private
module itself, or reads a private attribute (one leading underscore: `est._validate_y_class_weight(...)`, `clf._sample_weight`,
`gbrt._loss`) is deselected, and the table counts them apart. The rest are run by pytest (two processes), and the table gives passed, failed, errors and
skipped, and the pass rate over those run; then the test functions that pass in every case of their parameters, of
those run (the count the issue quotes).
"""
import argparse, ast, json, shutil, subprocess, sys, tempfile
from pathlib import Path

import sklearn
import climbing_trees

SKLEARN = Path(sklearn.__file__).parent
SUITES = {"tree": SKLEARN / "tree/tests/test_tree.py",
          "monotonic": SKLEARN / "tree/tests/test_monotonic_tree.py",
          "forest": SKLEARN / "ensemble/tests/test_forest.py",
          "boosting": SKLEARN / "ensemble/tests/test_gradient_boosting.py"}
OURS = [name for name in climbing_trees.__all__]                 # the public API, rebound to ours
MODULES = {"tree": "sklearn.tree", "ensemble": "sklearn.ensemble"}


def private_names(module):
    "Names a test file imports from scikit-learn's private tree and ensemble modules."
    names = set()
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.module and any(node.module.startswith(f"sklearn.{m}._") for m in ("tree", "ensemble")):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def uses_private_api(test, private):
    "Whether a test's body reaches scikit-learn's private API: a name the file imports from a private module, an import of its own from\n    one (`from sklearn.tree._criterion import MSE` inside the test), or a private attribute (`est._validate_y_class_weight`,\n    `clf._sample_weight`, `tree._tree.TREE_LEAF`: one leading underscore), which our estimators need not have."
    for n in ast.walk(test):
        if isinstance(n, ast.Name) and n.id in private: return True
        if isinstance(n, ast.ImportFrom) and n.module and any(part.startswith("_") for part in n.module.split(".")): return True
        if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__"): return True
    return False


def tests_of(module):
    "The test functions and test methods of a module, by the node id pytest gives them (without parameters)."
    found = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"): found.append((node.name, node))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [(f"{node.name}::{f.name}", f) for f in node.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
    return found


def adapt(source):
    "The test file `source` with our names rebound after its imports; and the names of its tests that use private modules."
    module = ast.parse(source)
    last_import = max(node.end_lineno for node in module.body if isinstance(node, (ast.Import, ast.ImportFrom))
                      and node.lineno < next(n.lineno for n in module.body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr))))
    imported = {alias.asname or alias.name for node in module.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    rebound = [name for name in OURS if name in imported]
    block = ["", "# --- adapted: scikit-learn's public estimators replaced by climbing_trees' ---", "import climbing_trees as _ours"]
    block += [f"{name} = _ours.{name}" for name in rebound]
    for alias, path in MODULES.items():                            # `tree.DecisionTreeClassifier` and the like
        if alias in imported:
            block += ["import types as _types",                   # a module, not a namespace: a test may hash it
                      f"_adapted = _types.ModuleType({alias}.__name__)",
                      f"_adapted.__dict__.update({{**vars({alias}), **{{n: getattr(_ours, n) for n in {OURS!r} if hasattr({alias}, n)}}}})",
                      f"{alias} = _adapted"]
    lines = source.splitlines()
    adapted = "\n".join(lines[:last_import] + block + lines[last_import:]) + "\n"
    private = private_names(module)
    uses_private = [name for name, node in tests_of(module) if uses_private_api(node, private)]
    return adapted, rebound, uses_private


def run_suite(name, path, directory):
    "Run one adapted suite in `directory`; returns its counts."
    adapted, rebound, uses_private = adapt(path.read_text())
    target = directory / f"test_sklearn_{name}.py"
    target.write_text(adapted)
    report = directory / f"report_{name}.json"
    deselect = sum([["--deselect", f"{target.name}::{test}"] for test in uses_private], [])
    subprocess.run([sys.executable, "-m", "pytest", target.name, "-q", "-n", "2", "-p", "no:cacheprovider", "--tb=no", "-rN",
                    "-W", "ignore", f"--junitxml={report.with_suffix('.xml')}", *deselect], cwd=directory,
                   capture_output=True, text=True)
    import xml.etree.ElementTree as ET
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    failures, functions = [], set()
    for case in ET.parse(report.with_suffix(".xml")).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        kind = "failed" if "failure" in kinds else "errors" if "error" in kinds else "skipped" if "skipped" in kinds else "passed"
        counts[kind] += 1
        if kind != "skipped": functions.add(case.get("name").split("[")[0])
        if kind in ("failed", "errors"): failures.append(case.get("name"))
    counts["private (deselected)"] = len(uses_private)
    failing = {f.split("[")[0] for f in failures}
    counts["functions"], counts["functions passed"] = len(functions), len(functions - failing)   # a function passes if all its cases do
    report.write_text(json.dumps({"rebound": rebound, "private": uses_private, "failures": failures, **counts}, indent=1))
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", help="tree, monotonic, forest, boosting (default: all four)")
    parser.add_argument("--keep", default=None, help="write the adapted files and reports here")
    args = parser.parse_args()
    unknown = set(args.suites) - set(SUITES)
    if unknown: parser.error(f"unknown suites {sorted(unknown)}: choose among {', '.join(SUITES)}")
    directory = Path(args.keep or tempfile.mkdtemp(prefix="sklearn_suites_"))
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SKLEARN / "conftest.py", directory / "conftest.py")   # scikit-learn's fixtures (global_random_seed, ...)
    print(f"scikit-learn {sklearn.__version__}'s suites against climbing_trees (adapted files in {directory})")
    print(f"{'suite':10s} {'passed':>7s} {'failed':>7s} {'errors':>7s} {'skipped':>8s} {'private':>8s} {'pass rate':>10s}"
          f" {'functions passed':>17s}")
    for name in args.suites or list(SUITES):
        c = run_suite(name, SUITES[name], directory)
        run = c["passed"] + c["failed"] + c["errors"]
        print(f"{name:10s} {c['passed']:7d} {c['failed']:7d} {c['errors']:7d} {c['skipped']:8d} {c['private (deselected)']:8d} "
              f"{c['passed'] / max(run, 1):10.1%} {c['functions passed']:>8d} of {c['functions']:<4d} "
              f"({c['functions passed'] / max(c['functions'], 1):.0%})")


if __name__ == "__main__":
    main()
