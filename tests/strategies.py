"""Random tree-growing problems for the property tests: ties, weights with zeros, 2 to 5 classes, regression.

`problems(extreme=True)` draws regression problems only, with targets that test the numerics of every search:
y * scale + shift + step * group, the group a function of the first feature (above its median or not)."""
import numpy as np
from hypothesis import strategies as st

EXTREME_SCALES = (1e-6, 1.0, 1e3, 1e150)
EXTREME_SHIFTS = (0.0, 1e8)
EXTREME_STEPS = (0.0, 1e8)



def float32_exact(rng, shape):
    "Uniform random numbers that float32 represents exactly, as float64 (so scikit-learn's float32 copy of X changes nothing)."
    return rng.random(shape).astype(np.float32).astype(np.float64)

def extreme_targets(y, X, scale=1.0, shift=0.0, step=0.0):
    "`y * scale + shift + step * group`, with group 1 for the rows whose first feature is above its median, else 0."
    group = X[:, 0] > np.median(X[:, 0])
    return y * scale + shift + step * group


def offset_to_spread(X, y):
    "The largest ratio, over the two groups of `extreme_targets`, of a group's largest |y| to its range of y (groups of one value skipped)."
    group = X[:, 0] > np.median(X[:, 0])
    ratios = [np.abs(y[g]).max() / np.ptp(y[g]) for g in (group, ~group) if g.any() and np.ptp(y[g]) > 0]
    return max(ratios, default=0.0)


def sample_weights(draw, rng, n, zero_share=0.2):
    "Weights for n rows, drawn three ways: all ones, integers 0..3 (repeats and dropped rows), or floats with about `zero_share` zeros; never all zero."
    kind = draw(st.sampled_from(["none", "integer", "float"]))
    if kind == "none": w = np.ones(n)
    elif kind == "integer": w = rng.integers(0, 4, size=n).astype(float)
    else: w = rng.random(n) * (rng.random(n) > zero_share)
    if w.sum() == 0: w[0] = 1.0
    return w


@st.composite
def problems(draw, max_n=30, extreme=False):
    "A random node: X with ties, a target (classes or real), weights with zeros, a criterion; `extreme`: regression with large shifts, scales and steps."
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    distinct = draw(st.sampled_from([2, 3, 5, 1000]))            # few distinct values: many ties
    X = rng.integers(0, distinct, size=(n, d)).astype(float)
    if draw(st.booleans()): X += rng.normal(size=(n, d)) * (distinct == 1000)
    task = "squared_error" if extreme else draw(st.sampled_from(["gini", "entropy", "squared_error"]))
    if task == "squared_error":
        n_classes = None
        y = np.round(rng.normal(size=n) * draw(st.sampled_from([1.0, 100.0])), draw(st.sampled_from([0, 3])))
        if extreme:
            y = extreme_targets(y, X, draw(st.sampled_from(EXTREME_SCALES)), draw(st.sampled_from(EXTREME_SHIFTS)),
                                draw(st.sampled_from(EXTREME_STEPS)))
    else:
        n_classes = draw(st.integers(2, 5))
        y = rng.integers(0, n_classes, size=n)
    return X, y, sample_weights(draw, rng, n), task, n_classes


def random_tree(rng, n_features, categorical, stop, limit, n_levels, surrogates=None):
    """A random `Tree` written through chapter 2's TreeBuilder: up to `limit` nodes, numeric splits on a half-unit grid and
    categorical ones on `n_levels` codes (some left unseen), each with a random side for missing values; a node stays a leaf
    with probability `stop`. `surrogates(rng, feature)`, if given, lists each split node's surrogates."""
    from climbing_trees.categorical import CategoricalSplit
    from climbing_trees.tree import Split
    from climbing_trees.tree_builder import TreeBuilder
    builder = TreeBuilder()
    open_nodes, count = [builder.add_node(-1, True, [.5, .5], .5, 4, 4.)], 1
    while open_nodes:
        t = open_nodes.pop(int(rng.integers(len(open_nodes))))
        if count + 2 > limit or rng.random() < stop: continue
        j, default = int(rng.integers(n_features)), bool(rng.random() < .5)
        if j in categorical:
            seen = rng.permutation(n_levels)[:rng.integers(2, n_levels + 1)]        # levels the node saw; the others are unseen
            k = int(rng.integers(1, len(seen)))
            builder.split_node(t, CategoricalSplit(j, frozenset(seen[:k].tolist()), frozenset(seen[k:].tolist()), 0., default))
        else:
            builder.split_node(t, Split(j, float(rng.integers(-2, 12)) / 2, 0., default))
        if surrogates is not None: builder.add_surrogates(t, surrogates(rng, j))
        open_nodes += [builder.add_node(t, True, [1., 0.], 0., 2, 2.), builder.add_node(t, False, [0., 1.], 0., 2, 2.)]
        count += 2
    return builder.build(n_levels)
