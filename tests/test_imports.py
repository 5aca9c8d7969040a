"""The book's order is the package's order: a chapter builds on earlier chapters only.

No module of climbing_trees imports a module of a later chapter (at the top or inside a function),
no notebook imports a later chapter, no module fills a registry that another module owns, and the
public API imports nothing for its side effects."""
import ast, json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "climbing_trees"
NBS = ROOT / "nbs"


def chapter_of_module():
    "Chapter number of each exported module, from the notebook its header names ('File to edit: ../nbs/NN_...')."
    chapters = {}
    for f in PACKAGE.glob("*.py"):
        m = re.search(r"File to edit: \.\./nbs/(\d+)_", f.read_text())
        if m: chapters[f.stem] = int(m.group(1))
    return chapters


def imported_modules(tree):
    "(line, module) for every import of a climbing_trees module anywhere in a parsed module, function bodies included."
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:                                   # from .x import y / from . import x
                found += [(node.lineno, module.split(".")[0])] if module else [(node.lineno, a.name) for a in node.names]
            elif module.startswith("climbing_trees."): found.append((node.lineno, module.split(".")[1]))
            elif module == "climbing_trees": found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[1]) for a in node.names if a.name.startswith("climbing_trees.")]
    return found


def public_api():
    "Name -> module of everything `climbing_trees/__init__.py` re-exports."
    names = {}
    for node in ast.parse((PACKAGE / "__init__.py").read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            for a in node.names: names[a.asname or a.name] = node.module
    return names


def test_every_chapter_module_is_numbered():
    chapters = chapter_of_module()
    modules = {f.stem for f in PACKAGE.glob("*.py")} - {"__init__", "_modidx"}
    assert modules <= set(chapters), f"modules without a chapter header: {sorted(modules - set(chapters))}"
    assert len(chapters) >= 8


def test_no_module_imports_a_later_chapter():
    chapters, backward = chapter_of_module(), []
    for name, chapter in chapters.items():
        for line, target in imported_modules(ast.parse((PACKAGE / f"{name}.py").read_text())):
            if target in chapters and chapters[target] > chapter:
                backward.append(f"climbing_trees/{name}.py:{line} (chapter {chapter:02d}) imports {target} (chapter {chapters[target]:02d})")
            if target not in chapters and target != "__version__":
                backward.append(f"climbing_trees/{name}.py:{line} imports {target}, which is not a chapter's module")
    assert backward == []


def notebook_imports(source, api):
    "Modules a notebook cell's code refers to by import, including imports inside strings run by a subprocess."
    modules = re.findall(r"(?:from|import)\s+climbing_trees\.(\w+)", source)
    for names in re.findall(r"from\s+climbing_trees\s+import\s+(\([^)]*\)|[^\n#]+)", source):
        names = [n.strip().split(" as ")[0].strip() for n in names.strip("() \n").split(",")]
        modules += [api.get(n, "?" + n) for n in names if n]
    return modules


def test_no_notebook_imports_a_later_chapter():
    chapters, api, backward = chapter_of_module(), public_api(), []
    for nb in sorted(NBS.glob("[0-9][0-9]_*.ipynb")):
        chapter = int(nb.name[:2])
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            if cell["cell_type"] != "code": continue
            for target in notebook_imports("".join(cell["source"]), api):
                if target.startswith("?"): backward.append(f"{nb.name} cell {i}: {target[1:]} is not in the public API")
                elif chapters.get(target, -1) > chapter:
                    backward.append(f"{nb.name} cell {i} imports {target} (chapter {chapters[target]:02d})")
    assert backward == []


def test_no_module_fills_another_modules_registry():
    "A top-level assignment into a name imported from another chapter (a registry, a monkey-patch) is a hidden back-edge."
    filled = []
    for f in PACKAGE.glob("*.py"):
        tree = ast.parse(f.read_text())
        imported = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) and
                    (node.level or (node.module or "").startswith("climbing_trees")) for a in node.names}
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, (ast.Subscript, ast.Attribute)) and isinstance(part.value, ast.Name) and part.value.id in imported:
                        filled.append(f"{f.name}:{node.lineno} assigns into {part.value.id}")
    assert filled == []


def test_the_public_api_imports_nothing_for_its_side_effects():
    init = ast.parse((PACKAGE / "__init__.py").read_text())
    exported = set(next(ast.literal_eval(n.value) for n in init.body if isinstance(n, ast.Assign) and
                        any(getattr(t, "id", None) == "__all__" for t in n.targets)))
    imported = {a.asname or a.name for n in init.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert imported - exported == set(), "names imported by __init__ but not exported (imported for a side effect?)"
    assert {"DecisionTreeClassifier", "DecisionTreeRegressor", "export_text", "plot_tree"} <= exported


@pytest.mark.parametrize("source, expected", [
    ("from climbing_trees.growth import grow_tree", ["growth"]),
    ("x = 'from climbing_trees.levelwise import grow_levelwise'", ["levelwise"]),
    ("from climbing_trees import DecisionTreeClassifier, plot_tree\nn_rows = 3", ["estimators", "inference"]),
    ("from climbing_trees import (DecisionTreeClassifier,\n    plot_tree)  # two names", ["estimators", "inference"]),
])
def test_the_notebook_import_scanner_sees_imports(source, expected):
    api = {"DecisionTreeClassifier": "estimators", "plot_tree": "inference"}
    assert notebook_imports(source, api) == expected
