"""Chapter 13's views of a tree against scikit-learn's: `export_text` (the same lines for every `max_depth`, but for the
leaf lines' extras and one space after '>'), `export_graphviz` (the same nodes and edges; the DOT parses with graphviz's
`dot` when it is installed) and `plot_tree` (no two node boxes overlap and every box lies inside the axes)."""
import io
import re
import shutil
import subprocess

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from sklearn import tree as sktree

from climbing_trees.tree_estimators import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees.impurity import play_tennis
from climbing_trees.views import export_graphviz, export_text, plot_tree
from climbing_trees.levelwise_trees import grow_levelwise
from strategies import float32_exact

SEEDS = range(4)            # scikit-learn's random_state values that must all grow our tree (no ties between features)


def identical_pair(regression=False, n=1000, max_depth=5, min_samples_leaf=20):
    "Our estimator and scikit-learn's fitted on float32-exact data on which every seed of scikit-learn grows our tree."
    for seed in range(50):
        rng = np.random.default_rng(seed)
        X = float32_exact(rng, (n, 4))
        signal = X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
        y = signal if regression else (signal > 0.9).astype(int) + (X[:, 2] > 0.7)
        params = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
        ours = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(**params).fit(X, y)
        theirs = [(sktree.DecisionTreeRegressor if regression else sktree.DecisionTreeClassifier)(random_state=s, **params).fit(X, y)
                  for s in SEEDS]
        if all(t.tree_.node_count == ours.tree_.node_count and np.array_equal(t.apply(X), ours.apply(X))
               and np.array_equal(t.tree_.threshold[t.tree_.feature >= 0], ours.tree_.threshold[~ours.tree_.is_leaf]) for t in theirs):
            return ours, theirs[0]
    raise AssertionError("no tie-free problem found")


def as_sklearn(text):
    "Our rules as scikit-learn writes them: two spaces after '>', a leaf's line without class proportions and weight."
    return "".join(line.split("  [")[0].split("  weight")[0].replace(" > ", " >  ") + "\n" for line in text.splitlines())


@pytest.mark.parametrize("regression", [False, True])
def test_export_text_lines_equal_sklearn(regression):
    ours, theirs = identical_pair(regression)
    names = ["a", "b", "c", "d"]
    theirs_text = lambda **k: re.sub(r"value: \[(.*)\]", r"value: \1", sktree.export_text(theirs, feature_names=names, **k))   # "[1.23]": "1.23"
    for k in (0, 1, 2, 3, 4, 5, 10):
        assert as_sklearn(export_text(ours, names, max_depth=k)) == theirs_text(max_depth=k), k
    assert theirs_text() == as_sklearn(export_text(ours, names, max_depth=10))     # scikit-learn's default max_depth is 10
    assert "truncated branch of depth 5" in export_text(ours, max_depth=0)           # depth 5: five levels below the root's split


def test_export_text_max_depth_checked():
    ours, _ = identical_pair()
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_depth must be None"):
            export_text(ours, max_depth=bad)


def dot_graph(dot):
    "Node numbers and edges (parent, child) of DOT text."
    return re.findall(r"^(\d+) \[label=", dot, re.M), re.findall(r"^(\d+) -> (\d+)", dot, re.M)


def dot_parses(dot):
    "Whether graphviz's `dot` draws the DOT text (skip when graphviz is not installed: `make graphviz`)."
    if shutil.which("dot") is None: pytest.skip("graphviz's dot is not installed (make graphviz)")
    done = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.lstrip().startswith("<?xml") or "<svg" in done.stdout


@pytest.mark.parametrize("regression", [False, True])
def test_export_graphviz_graph_equals_sklearn(regression):
    ours, theirs = identical_pair(regression)
    for k in (None, 0, 1, 2, 4):
        for options in ({}, dict(filled=True, rounded=True, node_ids=True, proportion=True, label="root")):
            dot = export_graphviz(ours, max_depth=k, **options)
            assert dot_graph(dot) == dot_graph(sktree.export_graphviz(theirs, max_depth=k, **options))
    assert len(dot_graph(export_graphviz(ours))[0]) == theirs.tree_.node_count
    # without our extras the numeric labels carry scikit-learn's numbers: the question, samples and counts
    ours_labels = re.findall(r'^\d+ \[label="(.*?)"', export_graphviz(ours, show_missing=False, impurity=False), re.M)
    sk_labels = re.findall(r'^\d+ \[label="(.*?)"', sktree.export_graphviz(theirs, impurity=False, feature_names=["x0", "x1", "x2", "x3"]), re.M)
    for a, b in zip(ours_labels, sk_labels):
        numbers = lambda label: [float(x) for x in re.findall(r"-?\d+\.?\d*", label.split("class")[0].replace("x0", "").replace("x1", "").replace("x2", "").replace("x3", ""))]
        np.testing.assert_allclose(numbers(a), numbers(b), atol=1e-3)
    assert dot_parses(export_graphviz(ours, filled=True, rounded=True))


def test_export_graphviz_categorical_missing_and_surrogates():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.uniform(20, 70, 300), "income": rng.uniform(10, 90, 300),
                      "region": rng.choice(["north", "south", "west"], 300)})
    y = ((X.age > 40) ^ (X.region == "west")).astype(int)
    X.loc[::4, "age"] = np.nan
    surrogate = DecisionTreeClassifier(missing="surrogate", max_depth=3).fit(X, y)
    dot = export_graphviz(surrogate, filled=True)
    assert "surrogate: " in dot and "region in {" in dot and re.search(r"\{[a-z, ]*(north|south|west)", dot)
    tree = surrogate.tree_
    # the edge to the side missing values take, at every split: "missing" (at the root, beside True/False)
    assert dot.count("missing") == (~tree.is_leaf).sum()
    for t in np.flatnonzero(~tree.is_leaf):
        child = tree.children_left[t] if tree.default_left[t] else tree.children_right[t]
        assert re.search(rf"^{t} -> {child} .*missing", dot, re.M), t
    assert "missing" not in export_graphviz(surrogate, show_missing=False)
    assert dot_parses(dot)
    tennis = play_tennis()
    clf = DecisionTreeClassifier(criterion="entropy").fit(tennis.drop(columns="Play"), tennis["Play"])
    dot = export_graphviz(clf, class_names=True)
    assert 'label="Outlook in {Overcast}\\nentropy = 0.940\\nsamples = 14\\nvalue = [5, 9]\\nclass = y[1]"' in dot
    assert dot_parses(dot)


def test_export_graphviz_out_file_and_quoting(tmp_path):
    tree = grow_levelwise(np.arange(10.)[:, None], np.arange(10) % 2, "gini", n_classes=2, max_depth=2)
    dot = export_graphviz(tree, feature_names=['a "quoted" \\ name'])
    assert 'a \\"quoted\\" \\\\ name <= ' in dot
    path = tmp_path / "tree.dot"
    assert export_graphviz(tree, out_file=path) is None and path.read_text() == export_graphviz(tree)
    buffer = io.StringIO()
    export_graphviz(tree, out_file=buffer)
    assert buffer.getvalue() == export_graphviz(tree)
    with pytest.raises(TypeError, match="out_file"): export_graphviz(tree, out_file=3)
    with pytest.raises(ValueError, match="precision"): export_graphviz(tree, precision=-1)
    assert dot_parses(dot)


def overlaps_and_outside(ax):
    "Pairs of node boxes of a drawn tree whose extents (as the renderer measures them) overlap, and boxes outside the axes."
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    area = ax.get_window_extent(renderer)
    nodes = [text for text in ax.texts if text.get_text() not in ("yes", "no")]
    extents = [text.get_bbox_patch().get_window_extent(renderer) for text in nodes] + [text.get_window_extent(renderer) for text in ax.texts]
    boxes = [text.get_bbox_patch().get_window_extent(renderer) for text in nodes]
    pairs = [(a, b) for a in range(len(boxes)) for b in range(a) if boxes[a].overlaps(boxes[b])]
    texts = [text.get_window_extent(renderer) for text in ax.texts]
    pairs += [(a, b) for a in range(len(texts)) for b in range(a) if texts[a].overlaps(texts[b])]
    outside = [e for e in extents if not (area.x0 <= e.x0 and e.x1 <= area.x1 and area.y0 <= e.y0 and e.y1 <= area.y1)]
    return pairs, outside


def test_plot_tree_labels_fit_a_deep_tree():
    rng = np.random.default_rng(0)
    X = rng.random((3000, 5))
    y = (X[:, 0] + X[:, 1] + 0.4 * rng.normal(size=3000) > 1).astype(int)
    clf = DecisionTreeClassifier(max_depth=7).fit(X, y)
    assert clf.tree_.n_leaves > 50
    ax = plot_tree(clf)
    assert overlaps_and_outside(ax) == ([], [])
    width, height = ax.figure.get_size_inches()
    assert ax.texts[0].get_fontsize() >= 3 and width > 16          # the default figure grows rather than the text vanishing
    plt.close("all")
    ax = plot_tree(clf, max_depth=3)
    assert overlaps_and_outside(ax) == ([], []) and sum(t.get_text() == "(...)" for t in ax.texts) == 16
    assert ax.texts[-1].get_fontsize() >= 4                         # 16 columns in 16 inches: no smaller than 4 points
    plt.close("all")


@pytest.mark.parametrize("size", [None, (4, 3), (12, 8)])
def test_plot_tree_labels_fit_play_tennis(size):
    tennis = play_tennis()
    clf = DecisionTreeClassifier(criterion="entropy").fit(tennis.drop(columns="Play"), tennis["Play"])
    ax = None if size is None else plt.subplots(figsize=size)[1]
    ax = plot_tree(clf, ax=ax)
    assert any("Outlook in {Overcast}" in t.get_text() for t in ax.texts)
    assert overlaps_and_outside(ax) == ([], [])
    if size is None: assert ax.texts[-1].get_fontsize() >= 7
    plt.close("all")


def test_plot_tree_max_depth_as_sklearn():
    ours, theirs = identical_pair()
    for k in (0, 1, 2):
        mine = plot_tree(ours, max_depth=k)
        sk = plt.subplots()[1]
        sktree.plot_tree(theirs, max_depth=k, ax=sk)
        boxes = lambda ax: sorted(t.get_text() == "(...)" or "(...)" in t.get_text() for t in ax.texts if t.get_text().strip() not in ("yes", "no", "True", "False"))
        assert boxes(mine) == [s for s in boxes(sk)], k        # as many boxes, as many of them cut
        plt.close("all")
