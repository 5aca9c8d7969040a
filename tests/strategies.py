"""Random tree-growing problems for the property tests: ties, weights with zeros, 2 to 5 classes, regression."""
import numpy as np
from hypothesis import strategies as st


@st.composite
def problems(draw, max_n=30):
    "A random node: X with ties, a target (classes or real), weights with zeros, a criterion."
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    distinct = draw(st.sampled_from([2, 3, 5, 1000]))            # few distinct values: many ties
    X = rng.integers(0, distinct, size=(n, d)).astype(float)
    if draw(st.booleans()): X += rng.normal(size=(n, d)) * (distinct == 1000)
    task = draw(st.sampled_from(["gini", "entropy", "squared_error"]))
    if task == "squared_error":
        n_classes = None
        y = np.round(rng.normal(size=n) * draw(st.sampled_from([1.0, 100.0])), draw(st.sampled_from([0, 3])))
    else:
        n_classes = draw(st.integers(2, 5))
        y = rng.integers(0, n_classes, size=n)
    kind = draw(st.sampled_from(["none", "integer", "float"]))
    if kind == "none": w = np.ones(n)
    elif kind == "integer": w = rng.integers(0, 4, size=n).astype(float)
    else: w = rng.random(n) * (rng.random(n) > 0.2)
    if w.sum() == 0: w[0] = 1.0
    return X, y, w, task, n_classes
