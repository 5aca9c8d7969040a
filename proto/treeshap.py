"""Exact (path-dependent) TreeSHAP for the book's trees, in numpy: a prototype of a future chapter.

The value function (Lundberg et al. 2020, Algorithm 1, EXPVALUE) of a tree at row x and feature set S is the expected leaf
value when the features of S follow x and every split on a feature outside S sends the row both ways, weighted by the
children's `weighted_n_node_samples`. Reading it leaf by leaf: leaf l with value v_l contributes

    v_l * prod over the distinct features j on l's path of (o_j if j in S else z_j)

where z_j is the product of the cover fractions w_child / w_parent of the path's splits on j, and o_j (0 or 1) says whether x
satisfies all of them. Each leaf is a product game; a feature's Shapley value in it is (with the Beta integral
|S|! (d - |S| - 1)! / d! = integral of t^|S| (1 - t)^(d - |S| - 1) dt over [0, 1])

    phi_i = v_l * integral over [0, 1] of prod_{j != i} (z_j (1 - t) + o_j t) * (o_i - z_i) dt,

the integrand a polynomial of degree d - 1 (d the distinct features on the path, at most the tree's depth), which Gauss-Legendre
quadrature with ceil(d / 2) points integrates exactly. Every quantity is then a vector of values at those points, and sums over
leaves can be gathered node by node (the idea of Linear TreeSHAP, Yu et al. 2022): going down, the product P(t) of a node's
factors is its parent's times a ratio (the factor of the split's feature replaced); coming up, S(t), the sum of v_l P_l(t) over
the leaves below a node, is the sum of its children's; and an edge on feature i adds the integral of S(t) times
q_new(t) - q_old(t), q = (o - z) / (z (1 - t) + o t) being the feature's term now and at its previous split on the path (0 if none):
the terms telescope along a path to the last split's, the one in the leaf's product. Since o is 0 or 1, every ratio and every
q - q_old takes one of three vectors per node, tabulated once per tree; the rows only pick one: numpy works on (nodes of one
depth, rows, quadrature points) at a time, O(nodes x rows x points) in all, with one pass of Python per depth.

Layout for speed: nodes are renumbered level by level with the two children of a split side by side, so that going down is a
broadcast of each parent over its pair and going up is the sum of two strided views; rows are taken in blocks small enough that
the two working arrays (nodes x rows x points) stay in cache (`BLOCK_ELEMENTS`). One column of values: each leaf's value is
folded into its ratio, and S is built in P's own array.

Known gaps of the prototype: surrogate splits are ignored (a missing value follows `default_left`, so a surrogate tree's
prediction is not what is explained); shap's interventional mode and interaction values are not here.
"""
from __future__ import annotations
from itertools import combinations
from math import factorial
import numpy as np
from climbing_trees.tree import LEAF, flat_values, goes_left, nodes_by_depth

__all__ = ['tree_value_function', 'brute_force_shap', 'tree_structure', 'routed_left', 'tree_shap', 'forest_shap',
           'boosting_shap', 'edge_codes', 'BLOCK_ELEMENTS', 'ROUTE_ROWS']


# -- the definition: the value function and Shapley values by all subsets (the oracle)
def _go_left(tree, t, value):
    "Whether node `t` of `tree` sends a row whose value of its feature is `value` left: the library's rule, a missing value (NaN, or a level on neither side) to `default_left`; surrogates ignored."
    levels = (tree.left_levels, tree.right_levels) if tree.categorical[t] else None
    return bool(goes_left(value, tree.threshold[t], bool(tree.default_left[t]), True, levels, t))

def tree_value_function(tree, x, S):
    "EXPVALUE: the expected leaf value (one entry per column of `flat_values`) of `tree` at row `x` when the features in `S` follow `x` and a split on any other feature sends the row both ways, weighted by its children's `weighted_n_node_samples`."
    S, values, w = frozenset(S), flat_values(tree), tree.weighted_n_node_samples
    def g(t):
        if tree.children_left[t] == LEAF: return values[t].astype(float)
        left, right = tree.children_left[t], tree.children_right[t]
        if tree.feature[t] in S: return g(left if _go_left(tree, t, x[tree.feature[t]]) else right)
        return (w[left] * g(left) + w[right] * g(right)) / w[t]
    return g(0)

def brute_force_shap(tree, x, n_features=None):
    "Exact Shapley values of the value function `tree_value_function` at row `x` by summing over all subsets of the features: (n_features,) for one value column, (n_features, columns) for several; and the value of the empty set. Exponential: a handful of features only."
    D = len(x) if n_features is None else n_features
    if D > 12: raise ValueError(f"{D} features: 2^{D} subsets is too many for the oracle")
    f = {S: tree_value_function(tree, x, S) for k in range(D + 1) for S in combinations(range(D), k)}
    phi = np.zeros((D, f[()].shape[0]))
    for i in range(D):
        others = [j for j in range(D) if j != i]
        for k in range(D):
            weight = factorial(k) * factorial(D - k - 1) / factorial(D)
            for S in combinations(others, k): phi[i] += weight * (f[tuple(sorted(S + (i,)))] - f[S])
    return (phi[:, 0] if phi.shape[1] == 1 else phi), (f[()][0] if phi.shape[1] == 1 else f[()])


# -- the fast algorithm: tables of one tree (row-independent), then all rows at once
def tree_structure(tree):
    "Everything the fast algorithm needs of `tree` that does not depend on the rows: its depths, each node's parent and position in its depth, each edge's feature, previous split on that feature on the path, cover products z, the quadrature, and the ratio and term tables (T, 3, Q) indexed by code = o_previous + o_now."
    left, right, w = tree.children_left, tree.children_right, np.asarray(tree.weighted_n_node_samples, dtype=float)
    T = len(left)
    levels = nodes_by_depth(left, right)
    inner = np.flatnonzero(left != LEAF)
    parent = np.zeros(T, dtype=np.intp)                 # the root's: itself
    parent[left[inner]], parent[right[inner]] = inner, inner
    is_left = np.zeros(T, dtype=bool); is_left[left[inner]] = True
    position = np.zeros(T, dtype=np.intp)               # each node's place in its depth's list
    for nodes in levels: position[nodes] = np.arange(len(nodes))
    edge_feature = np.full(T, -1, dtype=np.intp)        # the feature of the split that leads to the node (root: none)
    edge_feature[1:] = tree.feature[parent[1:]]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(w[parent] > 0, w / w[parent], 0.0)
    # the previous edge on the same feature on the path (T: none); the edge into node c is named c
    previous, candidate, open_ = np.full(T, T, dtype=np.intp), parent.copy(), np.ones(T, dtype=bool)
    open_[0] = False
    while open_.any():
        open_ &= candidate != 0                         # the root has no edge into it
        hit = open_ & (edge_feature[candidate] == edge_feature)
        previous[hit] = candidate[hit]
        open_ &= ~hit
        candidate = parent[candidate]
    z, distinct = np.ones(T + 1), np.zeros(T, dtype=np.intp)   # z[T] = 1: "no previous split"
    for nodes in levels[1:]:
        z[nodes] = frac[nodes] * z[previous[nodes]]
        distinct[nodes] = distinct[parent[nodes]] + (previous[nodes] == T)
    U = int(distinct.max())                             # the most distinct features on a path: the degree bound + 1
    Q = max(1, -(-U // 2))                              # Gauss-Legendre with Q points is exact to degree 2Q - 1 >= U - 1
    roots, weights = np.polynomial.legendre.leggauss(Q)
    t, weights = (roots + 1) / 2, weights / 2
    zc, zp = z[:T, None], z[previous][:, None]
    a1c, a0c, a1p = zc * (1 - t) + t, zc * (1 - t), zp * (1 - t) + t
    ratio, term = np.zeros((T, 3, Q)), np.zeros((T, 3, Q))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio[:, 0] = np.where(zp > 0, zc / zp, 0.0)    # o 0 -> 0: the factor z (1 - t) becomes z' (1 - t); q unchanged (-1 / (1 - t))
        ratio[:, 1] = a0c / a1p                         # o 1 -> 0
        ratio[:, 2] = a1c / a1p                         # o 1 -> 1
        q1p = (1 - zp) / a1p
        term[:, 1] = (-1 / (1 - t) - q1p) * weights     # q of o = 0 is -1 / (1 - t) whatever z
        term[:, 2] = ((1 - zc) / a1c - q1p) * weights
    ratio[0], term[0] = 0, 0                            # the root: no edge
    leaf = left == LEAF
    expected = (flat_values(tree)[leaf] * w[leaf, None]).sum(axis=0) / w[0]   # the empty set: every split both ways
    # level order: each depth after the one above, the two children of a split side by side, in their parents' order
    order, starts, parents_inner = [np.zeros(1, dtype=np.intp)], [0, 1], []
    while True:
        inner_here = np.flatnonzero(left[order[-1]] != LEAF)      # positions (in the depth's list) of its split nodes
        if not len(inner_here): break
        parents_inner.append(inner_here)
        split = order[-1][inner_here]
        order.append(np.column_stack([left[split], right[split]]).ravel())
        starts.append(starts[-1] + len(order[-1]))
    order = np.concatenate(order)
    renumber = lambda table: table.reshape(T, 3, Q)[order].reshape(3 * T, Q)
    values = np.asarray(flat_values(tree), dtype=float)
    ratio_v = ratio * np.where(leaf, values[:, 0], 1.0)[:, None, None] if values.shape[1] == 1 else None   # leaf values folded in
    return dict(order=order, starts=starts, parents_inner=parents_inner, parent=parent, is_left=is_left, previous=previous,
                levels=levels, edge_feature=edge_feature[order], leaf_value=np.where(leaf[:, None], flat_values(tree), 0.0)[order],
                Q=Q, ratio=renumber(ratio), ratio_v=None if ratio_v is None else renumber(ratio_v), term=renumber(term), expected=expected)

def routed_left(tree, X):
    "(T, N) booleans: whether each split node sends each row of `X` (numeric, categorical columns as level codes) left, by the library's rule `goes_left` (a missing value, or a level on neither side, to `default_left`; surrogates ignored); False at leaves."
    left = np.zeros((tree.node_count, len(X)), dtype=bool)
    inner = tree.children_left != LEAF
    cat = inner & np.asarray(tree.categorical, dtype=bool)
    num = np.flatnonzero(inner & ~cat)
    XT = np.asarray(X, dtype=float).T
    if len(num):
        left[num] = goes_left(XT[tree.feature[num]], tree.threshold[num, None], tree.default_left[num, None])
    cat = np.flatnonzero(cat)
    if len(cat):
        left[cat] = goes_left(XT[tree.feature[cat]], default_left=tree.default_left[cat, None],
                              levels=(tree.left_levels, tree.right_levels), node=cat[:, None])
    return left

BLOCK_ELEMENTS = 1 << 17        # the arithmetic takes rows in blocks of about this many (node, row, point) numbers: 1 MB per array, in cache
ROUTE_ROWS = 4096               # the rows routed (their edge codes found) at a time

def edge_codes(tree, s, X):
    "(T, N) in level order: the row of the ratio and term tables each node (each edge into it) reads for each row of `X`, 3 node + code, code = o before + o now in (0, 0), (1, 0), (1, 1): whether the row followed every split on the edge's feature above the edge, and with this edge too."
    T, N = tree.node_count, len(X)
    went = routed_left(tree, X)[s["parent"]] == s["is_left"][:, None]   # (T, N): the row follows the edge into the node
    on, previous = np.ones((T + 1, N), dtype=bool), s["previous"]          # on[T]: no split on the feature above
    for nodes in s["levels"][1:]: on[nodes] = went[nodes] & on[previous[nodes]]
    code = on[previous].view(np.int8) + on[:T].view(np.int8)
    return (3 * np.arange(T))[:, None] + code[s["order"]]

def _tree_shap_block(s, index, n_features, buffers):
    "Shapley values (F, N, C) of one block of rows for one tree, from its `tree_structure` `s` and the rows' `edge_codes` `index`; `buffers`: two arrays of at least T N Q numbers, reused."
    (T, N), Q, starts, C = index.shape, s["Q"], s["starts"], s["leaf_value"].shape[1]
    P, R = (b[:T * N * Q].reshape(T, N, Q) for b in buffers[:2])
    one = C == 1                                        # one column: each leaf's value is folded into its ratio (P of a leaf is v P)
    np.take(s["ratio_v"] if one else s["ratio"], index, axis=0, out=R)   # each node's ratio, for each row
    P[0] = 1.0
    for d, inner in enumerate(s["parents_inner"]):      # down: the children of depth d's split nodes, in pairs
        here, below = P[starts[d]:starts[d + 1]], slice(starts[d + 1], starts[d + 2])
        pairs = (len(inner), 2, N, Q)
        np.multiply(here[inner][:, None], R[below].reshape(pairs), out=P[below].reshape(pairs))
    S = P if one else P[..., None] * s["leaf_value"][:, None, None, :]   # S of a leaf: v P (one column: P itself, in place)
    for d in range(len(s["parents_inner"]) - 1, -1, -1):  # S of a split node: its children's, from the bottom up
        kids = S[starts[d + 1]:starts[d + 2]]
        S[starts[d] + s["parents_inner"][d]] = kids[0::2] + kids[1::2]
    np.take(s["term"], index, axis=0, out=R)            # each edge's term q_now - q_before (times the quadrature weights)
    if one: contribution = np.multiply(R, S, out=R).reshape(-1, Q) @ np.ones(Q)    # the quadrature sums: a matrix-vector product
    else: contribution = np.einsum("tnq,tnqc->tnc", R, S)
    return (s["onehot"] @ contribution.reshape(T, -1)).reshape(n_features, N, C)

def _as_tree_and_rows(model, X):
    "A `Tree` and numeric rows: a fitted estimator's `tree_` and `X` coded as its `predict` codes it, or a tree and `X` as given."
    if hasattr(model, "tree_"): return model.tree_, model._validate_X_predict(X)
    return model, np.asarray(X, dtype=float)

def tree_shap(tree, X, n_features=None, block_elements=None):
    "Exact path-dependent Shapley values of `tree` (a `Tree`, or a fitted decision-tree estimator, whose coding of `X` is applied) for every row of `X`: (N, F) for one value column, (N, F, C) for several (outputs times classes), and the expected value (the empty set's value: a number, or (C,)). Missing values and unknown levels go to `default_left`; surrogates are ignored."
    tree, X = _as_tree_and_rows(tree, X)
    if X.ndim != 2: raise ValueError("X must be 2-D (rows x features)")
    N, F = X.shape[0], X.shape[1] if n_features is None else n_features
    s = tree_structure(tree)
    C = s["leaf_value"].shape[1]
    phi = np.zeros((F, N, C))
    if tree.children_left[0] != LEAF:
        T = tree.node_count
        block = min(N, max(1, (block_elements or BLOCK_ELEMENTS) // (T * s["Q"])))
        buffers = [np.empty(T * block * s["Q"]) for _ in range(2)]
        s["onehot"] = np.zeros((F, T))
        s["onehot"][s["edge_feature"][1:], np.arange(1, T)] = 1   # node 0 (the root) has no edge
        for chunk in range(0, N, ROUTE_ROWS):           # the rows' codes: T N integers at a time
            index = edge_codes(tree, s, X[chunk:chunk + ROUTE_ROWS])
            for start in range(0, index.shape[1], block):    # the arithmetic: blocks that stay in cache
                rows = index[:, start:start + block]
                phi[:, chunk + start:chunk + start + rows.shape[1]] = _tree_shap_block(s, rows, F, buffers)
    phi = phi.transpose(1, 0, 2)
    return (phi[..., 0], float(s["expected"][0])) if C == 1 else (phi, s["expected"])

def forest_shap(forest, X):
    "A forest's Shapley values and expected value: the mean of its trees' (the forest predicts the mean of their values)."
    X = forest._validate_X_predict(X)
    total, expected = 0.0, 0.0
    for estimator in forest.estimators_:
        phi, e = tree_shap(estimator.tree_, X, forest.n_features_in_)
        total, expected = total + phi, expected + e
    return total / len(forest.estimators_), expected / len(forest.estimators_)

def boosting_shap(model, X):
    "Gradient boosting's Shapley values of the raw score: `learning_rate` times each stage tree's, the initial raw score (a constant `init_`) added to the expected value; (N, F) and a number for one score per stage, (N, F, K) and (K,) for K class scores."
    from sklearn.dummy import DummyClassifier, DummyRegressor
    if not isinstance(model.init_, (str, DummyClassifier, DummyRegressor)):
        raise ValueError("init_ depends on the row: its raw score is no constant expected value")
    X = model._validate_X_predict(X)
    K, F = model.n_trees_per_iteration_, model.n_features_in_
    expected = model._init_raw(np.zeros((1, F)))[0].astype(float)
    phi = np.zeros((len(X), F, K))
    for stage in model.estimators_:
        for k, estimator in enumerate(stage):
            p, e = tree_shap(estimator.tree_, X, F)
            phi[:, :, k] += model.learning_rate * p
            expected[k] += model.learning_rate * e
    return (phi[..., 0], float(expected[0])) if K == 1 else (phi, expected)
