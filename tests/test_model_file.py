"""Chapter 20's model files: every tree, forest and boosting model of the library round-trips through JSON exactly
(its attributes, bit for bit, and every prediction on training and new data), a file of another version, a truncated or
tampered one and a foreign one are refused with errors that say what to do, and loading runs no code from the file."""
import base64, builtins, gzip, importlib, json, pickle, warnings
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification, make_regression
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression

from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.forest_estimators import RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor
from climbing_trees.boosting_estimators import GradientBoostingClassifier, GradientBoostingRegressor
from climbing_trees.model_file import (FORMAT_VERSION, ModelFileError, from_json, load, save, to_json, _body, _digest)


# ---------- data: numeric arrays, and a data frame with categorical columns, NaN, and unseen levels at predict

def numeric(task, n=160, seed=0, n_classes=3):
    if task == "regression":
        X, y = make_regression(n, 5, noise=5.0, random_state=seed)
        return X, y
    X, y = make_classification(n, 5, n_informative=3, n_redundant=0, n_classes=n_classes, random_state=seed)
    return X, y


def frame(task, n=180, seed=0, n_classes=3, holes=0.15):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "amber"], n)
    size = rng.choice([1, 2, 3], n).astype(object)                   # numbers as levels (an object column)
    flag = rng.choice([True, False], n)
    x = rng.normal(size=n)
    X = pd.DataFrame({"colour": colour, "size": pd.Categorical(size), "flag": flag, "x": x, "z": rng.normal(size=n)})
    signal = (colour == "red") * 2.0 + x + (flag * 1.0)
    X.loc[rng.random(n) < holes, "x"] = np.nan
    X.loc[rng.random(n) < holes, "colour"] = None
    if task == "regression": return X, signal + rng.normal(scale=0.3, size=n)
    labels = np.array(["low", "mid", "high", "top"][:n_classes])
    return X, labels[np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))]


def new_rows(X, seed=1):
    "New data like X: other rows, and for a data frame a level never seen in fit (routed as missing)."
    rng = np.random.default_rng(seed)
    if not isinstance(X, pd.DataFrame): return X[rng.permutation(len(X))[:50]] + rng.normal(scale=0.1, size=(50, X.shape[1]))
    new = X.sample(50, random_state=seed).reset_index(drop=True)
    new.loc[:9, "colour"] = "violet"
    return new


CLF, REG = "classification", "regression"
CASES = {
    **{f"tree-{c}": (lambda c=c: DecisionTreeClassifier(criterion=c, random_state=0), CLF, "numeric") for c in ("gini", "entropy", "log_loss")},
    **{f"tree-{c}": (lambda c=c: DecisionTreeRegressor(criterion=c, random_state=0), REG, "numeric") for c in ("squared_error", "absolute_error")},
    "tree-poisson": (lambda: DecisionTreeRegressor(criterion="poisson", max_depth=4), "poisson", "numeric"),
    "tree-frame-direction": (lambda: DecisionTreeClassifier(missing="direction"), CLF, "frame"),
    "tree-frame-surrogate": (lambda: DecisionTreeClassifier(missing="surrogate", max_depth=5), CLF, "frame"),
    "tree-frame-surrogate-regressor": (lambda: DecisionTreeRegressor(missing="surrogate", max_depth=5), REG, "frame"),
    "tree-pruned": (lambda: DecisionTreeClassifier(ccp_alpha=0.01), CLF, "numeric"),
    "tree-pruned-frame": (lambda: DecisionTreeRegressor(ccp_alpha=0.05), REG, "frame"),
    "tree-random-best-first": (lambda: DecisionTreeClassifier(splitter="random", max_leaf_nodes=9, max_features=2, random_state=3), CLF, "numeric"),
    "tree-class-weight": (lambda: DecisionTreeClassifier(class_weight={"low": 2.0, "mid": 1.0, "high": 0.5}, max_depth=4), CLF, "frame"),
    "forest-oob": (lambda: RandomForestClassifier(12, oob_score=True, random_state=0), CLF, "numeric"),
    "forest-frame": (lambda: RandomForestClassifier(8, random_state=1, max_samples=0.7), CLF, "frame"),
    "forest-regressor-oob": (lambda: RandomForestRegressor(12, oob_score=True, random_state=0, max_depth=6), REG, "frame"),
    "extra-trees": (lambda: ExtraTreesClassifier(10, random_state=0, class_weight="balanced"), CLF, "numeric"),
    "extra-trees-regressor": (lambda: ExtraTreesRegressor(10, bootstrap=True, oob_score=True, random_state=0), REG, "numeric"),
    "forest-surrogate": (lambda: RandomForestRegressor(5, missing="surrogate", max_depth=4, random_state=0), REG, "frame"),
    "boost-binary": (lambda: GradientBoostingClassifier(n_estimators=15, random_state=0), "binary", "numeric"),
    "boost-multiclass": (lambda: GradientBoostingClassifier(n_estimators=10, random_state=0), CLF, "numeric"),
    "boost-exponential": (lambda: GradientBoostingClassifier(loss="exponential", n_estimators=10), "binary", "numeric"),
    "boost-frame": (lambda: GradientBoostingClassifier(n_estimators=10, max_depth=2), CLF, "frame"),
    **{f"boost-{loss}": (lambda loss=loss: GradientBoostingRegressor(loss=loss, n_estimators=12, random_state=0), REG, "numeric")
       for loss in ("squared_error", "absolute_error", "huber", "quantile")},
    "boost-subsample": (lambda: GradientBoostingRegressor(n_estimators=12, subsample=0.7, random_state=0), REG, "frame"),
    "boost-subsample-classifier": (lambda: GradientBoostingClassifier(n_estimators=8, subsample=0.6, random_state=1), CLF, "numeric"),
    "boost-early-stopping": (lambda: GradientBoostingClassifier(n_estimators=300, n_iter_no_change=3, learning_rate=0.5,
                                                                random_state=0), "binary", "numeric"),
    "boost-zero-init": (lambda: GradientBoostingRegressor(init="zero", n_estimators=8), REG, "numeric"),
    "boost-dummy-init": (lambda: GradientBoostingRegressor(init=DummyRegressor(strategy="median"), n_estimators=8), REG, "numeric"),
    "boost-surrogate": (lambda: GradientBoostingRegressor(missing="surrogate", n_estimators=5, max_depth=2), REG, "frame"),
}


def data(task, kind):
    if task == "poisson":
        X, y = numeric(REG)
        return X, np.exp(y / 100)
    if task == "binary": return (numeric(CLF, n_classes=2) if kind == "numeric" else frame(CLF, n_classes=2))
    return numeric(task) if kind == "numeric" else frame(task)


def fitted(case):
    make, task, kind = CASES[case]
    X, y = data(task, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)               # a few rows without out-of-bag trees
        return make().fit(X, y), X


def same(a, b, where="model"):
    "Whether two attribute values are the same: arrays in dtype, shape and bits (NaN included), objects attribute by attribute."
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        if a.dtype.kind == "O":
            for i, (u, v) in enumerate(zip(a.ravel(), b.ravel())): same(u, v, f"{where}[{i}]")
        else: assert a.tobytes() == b.tobytes(), f"{where}: the bits differ"
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b)): same(u, v, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a: same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.random.RandomState):
        same(list(a.get_state()), list(b.get_state()), where)
    elif hasattr(a, "__dict__"):
        same(vars(a), vars(b), where)
    elif isinstance(a, float) and np.isnan(a): assert np.isnan(b), where
    else: assert a == b, f"{where}: {a!r} vs {b!r}"


def predictions(model, X):
    "Everything the model predicts for X, by method name."
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                              # the unseen level's warning: not the point here
        for name in ("predict", "predict_proba", "predict_log_proba", "decision_function", "apply"):
            if hasattr(model, name): out[name] = getattr(model, name)(X)
        for name in ("staged_predict", "staged_predict_proba", "staged_decision_function"):
            if hasattr(model, name): out[name] = list(getattr(model, name)(X))
        if hasattr(model, "decision_path"): out["decision_path"] = model.decision_path(X)
        out["feature_importances_"] = model.feature_importances_
    return out


def bitwise(a, b, name):
    if isinstance(a, tuple): return [bitwise(u, v, name) for u, v in zip(a, b)]
    if isinstance(a, list): return [bitwise(u, v, name) for u, v in zip(a, b)]
    if hasattr(a, "toarray"): a, b = a.toarray(), b.toarray()
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape and (a.tobytes() == b.tobytes() if a.dtype.kind != "O" else (a == b).all()), name


@pytest.mark.parametrize("case", list(CASES))
def test_round_trip_is_exact(case):
    model, X = fitted(case)
    text = to_json(model)
    loaded = from_json(text)
    same(model, loaded)                                              # every attribute, bit for bit
    assert to_json(loaded) == text                                   # the file of the loaded model is the same file
    for data_ in (X, new_rows(X)):
        expected, got = predictions(model, data_), predictions(loaded, data_)
        assert list(expected) == list(got)
        for name in expected: bitwise(expected[name], got[name], f"{case}: {name}")


@pytest.mark.parametrize("case", ["forest-frame", "boost-subsample", "tree-frame-surrogate"])
def test_members_share_what_the_ensemble_shares(case):
    model, _ = fitted(case)
    loaded = from_json(to_json(model))
    members = list(np.ravel(getattr(loaded, "estimators_", [])))
    assert len(members) > 0 or case.startswith("tree")
    for member in members:
        assert member.encoder_ is loaded.encoder_ and member.is_categorical_ is loaded.is_categorical_
        if hasattr(loaded, "feature_names_in_"): assert member.feature_names_in_ is loaded.feature_names_in_


@pytest.mark.parametrize("make", [lambda: RandomForestRegressor(5, random_state=0, warm_start=True),
                                  lambda: GradientBoostingRegressor(n_estimators=5, subsample=0.8, random_state=0, warm_start=True)])
def test_a_loaded_model_keeps_growing_as_the_original(make):
    "The random state and the forest's draws are part of the file: warm-starting the loaded model adds the same trees."
    X, y = numeric(REG)
    original = make().fit(X, y)
    loaded = from_json(to_json(original))
    original.set_params(n_estimators=8).fit(X, y)
    loaded.set_params(n_estimators=8).fit(X, y)
    bitwise(original.predict(X), loaded.predict(X), "warm start")
    assert to_json(original) == to_json(loaded)


def test_unfitted_models_and_every_family_round_trip():
    for cls in (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
                ExtraTreesRegressor, GradientBoostingClassifier, GradientBoostingRegressor):
        model = cls(max_depth=3)
        loaded = from_json(to_json(model))
        assert type(loaded) is cls and loaded.get_params() == model.get_params()


def test_save_and_load(tmp_path):
    model, X = fitted("forest-frame")
    for name in ("model.json", "model.json.gz"):
        path = save(model, tmp_path / name)
        bitwise(load(path).predict_proba(X), model.predict_proba(X), name)
    assert (tmp_path / "model.json").read_text() == to_json(model)
    assert gzip.decompress((tmp_path / "model.json.gz").read_bytes()).decode() == to_json(model)
    assert (tmp_path / "model.json.gz").stat().st_size < (tmp_path / "model.json").stat().st_size / 2
    save(model, tmp_path / "again.json.gz")
    assert (tmp_path / "again.json.gz").read_bytes() == (tmp_path / "model.json.gz").read_bytes()   # no time stamp: same bytes


# ---------- the header: format, version, checksum

def document(case="tree-frame-surrogate"):
    model, _ = fitted(case)
    return json.loads(to_json(model))


def write(doc, fix_checksum=True):
    "A file's text from a (tampered) document, its checksum recomputed unless told not to."
    if fix_checksum: doc["sha256"] = _digest(_body(doc["model"]))
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("version, says", [(FORMAT_VERSION + 1, "upgrade climbing_trees"), (0, "load it with climbing_trees"),
                                           ("1", "format version 1")])
def test_another_format_version_is_refused(version, says):
    doc = document()
    doc["format_version"] = version
    with pytest.raises(ModelFileError, match=f"written by format version .*reads format version {FORMAT_VERSION}") as error:
        from_json(write(doc))
    assert says in str(error.value)


def test_a_truncated_file_is_refused(tmp_path):
    text = to_json(fitted("forest-oob")[0])
    for cut in (len(text) // 3, len(text) - 1):
        with pytest.raises(ModelFileError, match="not complete JSON.*truncated"): from_json(text[:cut])
    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(text.encode())[:500])
    with pytest.raises(ModelFileError, match="damaged or truncated"): load(tmp_path / "cut.json.gz")


def test_a_changed_byte_fails_the_checksum():
    text = to_json(fitted("tree-gini")[0])
    at = max((text.index('"', i + 8) - i, i) for i in range(len(text)) if text.startswith('"data":"', i))[1] + 20   # in the longest array
    tampered = text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1:]
    with pytest.raises(ModelFileError, match="checksum does not match.*save the model again"): from_json(tampered)


def test_missing_header_keys_are_corruption():
    doc = document()
    del doc["sha256"]
    with pytest.raises(ModelFileError, match="lacks sha256.*corrupted"): from_json(write(doc, fix_checksum=False))


@pytest.mark.parametrize("text", ['{"a": 1}', "[1, 2]", "hello", '{"format": "sklearn"}', ""])
def test_other_files_are_not_model_files(text):
    with pytest.raises(ModelFileError, match="not a climbing_trees model file"): from_json(text)


def test_a_pickle_is_refused_unread(tmp_path):
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(fitted("tree-gini")[0]))
    with pytest.raises(ModelFileError, match="is a pickle.*runs the code"): load(tmp_path / "model.pkl")
    with pytest.raises(ModelFileError, match="not a climbing_trees model file"): from_json(b"\x80\x04\x95garbage")


# ---------- the body: structure checked before use (a checksum recomputed, as by a careless or malicious writer)

def find(node, predicate, path=()):
    "Every (path, node) in a JSON document where `predicate(node)` holds."
    found = [(path, node)] if predicate(node) else []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for k, v in children: found += find(v, predicate, path + (k,))
    return found


def tree_arrays(doc):
    return [node["fields"] for _, node in find(doc["model"], lambda n: isinstance(n, dict) and n.get("class") == "EstimatorTree")]


def test_a_tampered_array_length_is_refused():
    doc = document()
    threshold = tree_arrays(doc)[0]["threshold"]["$array"]
    threshold["data"] = base64.b64encode(base64.b64decode(threshold["data"])[:-8]).decode()
    with pytest.raises(ModelFileError, match=r"threshold: the array's data holds \d+ bytes, but its shape .* needs \d+.*corrupted"):
        from_json(write(doc))


def test_arrays_of_a_tree_must_agree_in_length():
    doc = document()
    value = tree_arrays(doc)[0]["impurity"]["$array"]
    data = base64.b64decode(value["data"])
    value["data"], value["shape"] = base64.b64encode(data[:-8]).decode(), [value["shape"][0] - 1]
    with pytest.raises(ModelFileError, match="impurity: a tree of \\d+ nodes needs \\d+ rows"): from_json(write(doc))


def test_a_tree_whose_children_loop_is_refused():
    "A child numbered before its parent could make every walk of the tree endless: refused before any prediction."
    doc = document("tree-gini")
    left = tree_arrays(doc)[0]["children_left"]["$array"]
    children = np.frombuffer(base64.b64decode(left["data"]), dtype=left["dtype"]).copy()
    children[np.flatnonzero(children > 0)[0]] = 0                    # the first split's left child: the root again
    left["data"] = base64.b64encode(children.tobytes()).decode()
    with pytest.raises(ModelFileError, match="do not describe a tree"): from_json(write(doc))


@pytest.mark.parametrize("name", ["os.system", "Pipeline", "builtins.eval", "subprocess.Popen", "LinearRegression"])
def test_a_class_outside_the_allow_list_is_refused(name):
    doc = document()
    doc["model"]["$estimator"]["class"] = name
    with pytest.raises(ModelFileError, match=f"the class '{name}' is not one this library loads.*nothing was imported"):
        from_json(write(doc))


def test_an_object_class_outside_the_allow_list_is_refused():
    doc = document("tree-frame-direction")
    (_, encoder), = find(doc["model"], lambda n: isinstance(n, dict) and n.get("class") == "CategoryEncoder")
    encoder["class"] = "Popen"
    with pytest.raises(ModelFileError, match="'Popen' is not one this library loads"): from_json(write(doc))


def test_python_attribute_names_are_refused():
    doc = document()
    doc["model"]["$estimator"]["fitted"]["__class__"] = {"$tuple": []}
    with pytest.raises(ModelFileError, match="'__class__' is not an attribute name"): from_json(write(doc))


def test_unknown_tags_and_parameters_are_corruption():
    doc = document()
    doc["model"]["$estimator"]["fitted"]["n_features_in_"] = {"$code": "import os"}
    with pytest.raises(ModelFileError, match="unknown tag '\\$code'"): from_json(write(doc))
    doc = document()
    doc["model"]["$estimator"]["params"]["no_such_parameter"] = 1
    with pytest.raises(ModelFileError, match="refuses the parameters"): from_json(write(doc))


def test_loading_runs_no_code(monkeypatch, tmp_path):
    "No eval, exec, pickle or import happens while a model is read: each is replaced by a function that fails."
    model, X = fitted("boost-frame")
    path = save(model, tmp_path / "model.json")
    importlib.import_module("climbing_trees.model_file")
    def forbidden(*args, **kwargs): raise AssertionError("code was run or imported while loading a model file")
    real_import = builtins.__import__
    def no_new_imports(name, *args, **kwargs):
        import sys
        if name not in sys.modules: forbidden()
        return real_import(name, *args, **kwargs)
    for module, name in ((builtins, "eval"), (builtins, "exec"), (builtins, "compile"), (pickle, "loads"), (pickle, "load"),
                         (importlib, "import_module")):
        monkeypatch.setattr(module, name, forbidden)
    monkeypatch.setattr(builtins, "__import__", no_new_imports)
    loaded = load(path)
    monkeypatch.undo()
    bitwise(loaded.predict_proba(X), model.predict_proba(X), "loaded without code")


# ---------- what a model file cannot store: said when saving

def test_an_init_estimator_of_ones_own_is_refused():
    model = GradientBoostingRegressor(init=LinearRegression(), n_estimators=3).fit(*numeric(REG))
    with pytest.raises(TypeError, match="model.init: .*an estimator of your own.*init=None or init='zero'"): to_json(model)


def test_a_function_parameter_is_refused():
    X, y = numeric(CLF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)                   # a few rows without out-of-bag trees
        model = RandomForestClassifier(5, oob_score=lambda y, p: 0.0, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="model.oob_score: .*a function.*holds no code"): to_json(model)


def test_a_level_of_a_type_it_cannot_store_is_named():
    X = pd.DataFrame({"price": [Decimal("1.5"), Decimal("2.5"), Decimal("1.5"), Decimal("3.5")] * 5, "x": np.arange(20.0)})
    model = DecisionTreeRegressor(categorical_features=["price"]).fit(X, np.arange(20.0))
    with pytest.raises(TypeError, match=r"model\.encoder_\.levels_\[0\]\[0\]: .*decimal\.Decimal"): to_json(model)


def test_to_json_takes_only_the_librarys_models():
    with pytest.raises(TypeError, match="to_json stores the estimators of climbing_trees"): to_json(LinearRegression())
    with pytest.raises(TypeError, match="reads the text of a model file"): from_json(None)


def test_numbers_survive_exactly():
    "NaN, infinities, negative zero, the smallest subnormal and integers beyond 2**53 keep their bits, in arrays and alone."
    model = DecisionTreeRegressor().fit([[0.0], [1.0]], [0.0, 1.0])
    odd = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, np.finfo(float).max, 0.1])
    model.tree_.threshold = np.resize(odd, model.tree_.node_count)
    model.extra_ = {"floats": [float(v) for v in odd], "big": 2**63 - 1, "scalar": np.float32(0.1), "ints": np.arange(3, dtype=np.uint16),
                    ("tuple", 1): frozenset({"b", "a"}), "text": np.array(["é", "ü"]), "none": None}
    loaded = from_json(to_json(model))
    same(model, loaded)


def test_a_value_in_the_old_layout_is_refused():
    "Format version 1 stored an estimator's value as (nodes, classes); a file that does so under version 2 is refused, not misread."
    doc = document("tree-gini")
    value = tree_arrays(doc)[0]["value"]["$array"]
    value["shape"] = [value["shape"][0], value["shape"][2]]               # the same bytes, (nodes, classes)
    with pytest.raises(ModelFileError, match=r"value: an estimator's tree of 1 output\(s\) stores value as \(nodes, 1, classes\)"):
        from_json(write(doc))
