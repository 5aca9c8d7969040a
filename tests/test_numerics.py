"""Exact numerics of the level-wise grower (chapter 8): every frontier node is centred and scaled on its own, so a
regression tree does not change when y is shifted, scaled from 1e-6 to 1e150, or given a step of up to 1e8 between
two groups; nothing overflows, and a target too wide for float64 is refused with the reason."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from climbing_trees.tree import tree_differences
from climbing_trees.growth import grow_tree
from climbing_trees.criteria import SPLIT_SEARCHES
from climbing_trees.levelwise_trees import grow_levelwise
from strategies import EXTREME_SHIFTS, EXTREME_STEPS, extreme_targets, problems

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULES = (st.one_of(st.none(), st.integers(1, 5)), st.integers(1, 3))      # max_depth, min_samples_leaf


def same_splits(a, b):
    "Whether two trees have the same shape, split features and thresholds (values and impurities may differ)."
    return (a.node_count == b.node_count and (a.children_left == b.children_left).all()
            and (a.feature == b.feature).all() and np.array_equal(a.threshold, b.threshold))


def finite(tree):
    return np.isfinite(tree.value).all() and np.isfinite(tree.impurity).all()


def levelwise_and(search, problem, max_depth, min_samples_leaf):
    "The level-wise tree and the tree `search` (a name of SPLIT_SEARCHES) grows depth first, on the same problem."
    X, y, w, criterion, _ = problem
    rules = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    return grow_levelwise(X, y, criterion, w, **rules), grow_tree(X, y, criterion, w, find_split=SPLIT_SEARCHES[search], **rules)


@settings(max_examples=150, **SETTINGS)
@given(problems(max_n=50, extreme=True), *RULES)
def test_levelwise_grows_the_vectorized_tree_on_extreme_targets(problem, max_depth, min_samples_leaf):
    grown, expected = levelwise_and("vectorized", problem, max_depth, min_samples_leaf)
    assert finite(grown)
    assert tree_differences(grown, expected) == []


@settings(max_examples=100, **SETTINGS)
@given(problems(max_n=14, extreme=True), *RULES)
def test_levelwise_grows_the_naive_tree_on_extreme_targets(problem, max_depth, min_samples_leaf):
    assert tree_differences(*levelwise_and("naive", problem, max_depth, min_samples_leaf)) == []


@st.composite
def regression_problems(draw, max_n=40):
    "X with ties, a target with a step of 0 or 1e8 between two groups (by the first feature), weights with zeros."
    n, d = draw(st.integers(2, max_n)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.integers(0, draw(st.sampled_from([2, 3, 5, 1000])), size=(n, d)).astype(float)
    y = np.round(rng.normal(size=n) * draw(st.sampled_from([1.0, 100.0])), draw(st.sampled_from([0, 3])))
    y = extreme_targets(y, X, step=draw(st.sampled_from(EXTREME_STEPS)))
    w = rng.integers(0, 4, size=n).astype(float) if draw(st.booleans()) else np.ones(n)
    if w.sum() == 0: w[0] = 1.0
    return X, y, w


# Powers of two from 2**-20 (1e-6) to 2**498 (1.6e150), and 1e3: scalings that leave every target exactly the same
# number times the factor. A power of ten would round each value, and a rounding of 1e-16 relative to |y| is 1e-8 relative
# to a spread of 1 next to a shift of 1e8: enough to break the exact ties between cuts that few-valued targets have (the
# oracle tests above cover inexact factors, comparing searches on the same rounded targets).
EXACT_SCALES = st.one_of(st.integers(-20, 498), st.just(None))


@settings(max_examples=150, **SETTINGS)
@given(regression_problems(), st.sampled_from(EXTREME_SHIFTS), EXACT_SCALES, *RULES)
def test_shifting_and_scaling_y_leaves_the_splits(problem, shift, exponent, max_depth, min_samples_leaf):
    X, y, w = problem
    y = np.round(y)                                        # integers: the shift by 1e8 is exact too
    largest = int(np.floor(np.log2(1e152 / max(np.abs(y + shift).max(), 1.0))))   # a step of 1e8 times 1e150 is too wide
    scale = 1e3 if exponent is None else 2.0 ** min(exponent, largest)
    rules = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    reference = grow_levelwise(X, y, "squared_error", w, **rules)
    moved = grow_levelwise(X, (y + shift) * scale, "squared_error", w, **rules)
    assert finite(moved)
    assert same_splits(moved, reference)
    np.testing.assert_allclose(moved.impurity, reference.impurity * scale ** 2, rtol=1e-6,
                               atol=1e-9 * reference.impurity[0] * scale ** 2)


def step_example():
    rng = np.random.default_rng(0)
    X = rng.random((600, 3))
    return X, np.sin(6 * X[:, 1]) + 0.3 * X[:, 2] + 1e8 * (X[:, 0] > 0.5)


def test_the_step_example_grows_the_vectorized_and_naive_tree():
    X, y = step_example()
    grown = grow_levelwise(X, y, "squared_error", max_depth=5)
    for search in ("vectorized", "naive"):
        assert tree_differences(grown, grow_tree(X, y, "squared_error", find_split=SPLIT_SEARCHES[search], max_depth=5)) == []
    upper = grown.children_right[0]                               # x0 > 0.5: its variance, exact beside the 1e8 step
    np.testing.assert_allclose(grown.impurity[upper], y[X[:, 0] > 0.5].var(), rtol=1e-12)


def test_the_step_example_grows_63_nodes():
    "A step of 1e8 between two groups: a grower that centred y once, at the root, grew 25 nodes here instead of 63."
    X, y = step_example()
    assert grow_levelwise(X, y, "squared_error", max_depth=5).node_count == 63


@pytest.mark.filterwarnings("error")
def test_targets_near_1e160():
    rng = np.random.default_rng(1)
    X = rng.random((300, 2))
    base = np.sin(6 * X[:, 0]) + X[:, 1] ** 2
    near = 1e160 + 1e153 * base                          # far from zero, spread 1e153: every variance is a float
    grown = grow_levelwise(X, near, "squared_error", max_depth=4)
    assert finite(grown) and grown.node_count > 1
    unshifted = grow_levelwise(X, 1e153 * base, "squared_error", max_depth=4)
    assert same_splits(grown, unshifted)
    np.testing.assert_allclose(grown.impurity, unshifted.impurity, rtol=1e-6)        # the shift leaves the variances
    np.testing.assert_allclose(grown.value[0], [near.mean()], rtol=1e-15)
    with pytest.raises(ValueError, match="rescale y"):   # spread 1e160: a variance of 1e320 cannot be represented
        grow_levelwise(X, 1e160 * base, "squared_error")
    with pytest.raises(ValueError, match="rescale y"):
        grow_levelwise(X, np.where(X[:, 0] > 0.5, 1.7e308, -1.7e308), "squared_error")


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weight", [1.0, 3.0, 2.0 ** 25, 2.0 ** 28, 2.0 ** 40])
def test_class_counts_as_integers_or_floats_grow_one_tree(criterion, weight):
    "Whole-number weights are summed as 32-bit class counts while their total stays below 2**31, and as floats above it: a uniform weight, small or huge, grows the unit-weight tree (2**25 x 40 rows stays below the bound, 2**28 x 40 passes it; a wrong bound would overflow 32 bits)."
    rng = np.random.default_rng(7)
    X = rng.integers(0, 6, size=(40, 3)).astype(float)          # ties: the admissible cuts matter
    y = (X[:, 0] + rng.integers(0, 3, 40) > 3).astype(int) + (X[:, 1] > 4)
    reference = grow_levelwise(X, y, criterion, n_classes=3)
    weighted = grow_levelwise(X, y, criterion, np.full(40, weight), n_classes=3)
    assert [d for d in tree_differences(reference, weighted) if ": weight " not in d] == []
    np.testing.assert_array_equal(weighted.weighted_n_node_samples, weight * reference.weighted_n_node_samples)
