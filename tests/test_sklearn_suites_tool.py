"""tools/sklearn_suites.py adapts scikit-learn's test files by rebinding names after the imports: checked on a small file."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("sklearn_suites", Path(__file__).parents[1] / "tools" / "sklearn_suites.py")
suites = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suites)

SOURCE = '''"""A test file."""
import numpy as np
from sklearn import tree
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier
from sklearn.tree._tree import TREE_LEAF

TREES = {"dt": DecisionTreeClassifier}

def test_public():
    assert TREES["dt"].__module__.startswith("climbing_trees")
    assert tree.DecisionTreeClassifier is DecisionTreeClassifier
    assert ExtraTreeClassifier.__module__.startswith("sklearn")

def test_private():
    assert TREE_LEAF == -1

def test_private_import_inside():
    from sklearn.tree._criterion import MSE

def test_private_attribute():
    assert DecisionTreeClassifier()._validate_y_class_weight

def test_hashes_the_module():
    assert {tree: 1}[tree] == 1
'''


def test_adapt_rebinds_public_names_before_module_code_and_finds_private_tests():
    adapted, rebound, private = suites.adapt(SOURCE)
    assert rebound == ["DecisionTreeClassifier"]
    assert private == ["test_private", "test_private_import_inside", "test_private_attribute"]
    namespace = {}
    exec(compile(adapted, "adapted", "exec"), namespace)
    namespace["test_public"]()                                  # ours where we offer the name, scikit-learn's elsewhere
    namespace["test_hashes_the_module"]()                       # the rebound module is a module, as hashable as the original
    assert adapted.index("_ours.DecisionTreeClassifier") < adapted.index("TREES = ")
