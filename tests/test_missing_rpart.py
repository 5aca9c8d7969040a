"""Chapter 15's surrogate grower against R's rpart: the same trees, surrogates and predictions on data with holes.

The claim: `grow_surrogate(X, y, "gini" | "squared_error", w, K, categorical=..., max_surrogates=5, min_samples_split=s,
min_samples_leaf=l, max_depth=d)`, asked for predictions with chapter 13's `apply`, grows the tree that rpart grows with
`rpart.control(cp = -1, xval = 0, maxcompete = 0, maxsurrogate = 5, usesurrogate = 2, minsplit = s, minbucket = l,
maxdepth = d)` and `method = "class"` or `"anova"`: node for node the same primary splits, counts, weights and values,
the same surrogates (features, thresholds or level sets, orientation, agreement and adj), and the same predictions (class
probabilities or means) to 1e-9 on the training rows and on new rows with more holes. Also: chapter 14's `prune` on
these trees is rpart's `prune(fit, cp)` (regression trees), and rpart's one different rule without surrogates
(maxsurrogate = 0 keeps the rows without the split's feature in the node) is pinned down.

The data: six columns in two correlated groups (so that surrogates exist), numeric only or with two categorical columns,
two and three classes or a regression target, with or without sample weights; holes missing completely at random
(MCAR: every entry with the same probability) or at random (MAR: the probability grows with a column that is always
observed). The rules are tests/rpart_rules.md; tests/rpart_reference.py re-implements them and flags the near-ties that
rounding decides inside rpart: a data set is used only when it has none (the next seed replaces it), as in
tests/test_rpart_oracle.py. One documented deviation remains: a row that no surrogate decides goes, at a node whose
children hold equally many training rows, to the right child here (chapter 2's `default_side`) and stops at the node in
rpart; `rpart_routing` below routes by rpart's rule, and the rows concerned are counted.
"""
import os
import time
from dataclasses import replace

import numpy as np
import pytest

from rpart_oracle import RpartFit, fit_rpart, fit_rpart_many, rpart_available, rpart_skip_reason

if not rpart_available():
    if os.environ.get("CI"):        # `make test` installs R and rpart: in CI a skip would hide the oracle
        raise RuntimeError(rpart_skip_reason() + "; `make test` should have installed them (its `rpart` target)")
    pytest.skip(rpart_skip_reason(), allow_module_level=True)

import rpart_reference as reference
from climbing_trees.inference import apply
from climbing_trees.missing import LEFT, RIGHT, grow_surrogate
from climbing_trees.tree import LEAF
from climbing_trees.growth import plan_growth
from climbing_trees.pruning import cost_complexity_path, prune

TOLERANCE = 1e-9
N, N_NEW = 300, 500
LEVELS = {4: 4, 5: 5}                      # the categorical columns of the "mixed" problems and their numbers of levels
TASKS = ("class2", "class3", "anova")
RULES = ((7, 20, None), (10, 25, 4), (15, 40, None))      # (min_samples_leaf, min_samples_split, max_depth)


def rules_for(task, weighted):
    """Two sets of stopping rules per configuration; unweighted classification grows to larger nodes, since ties between
    cuts of small nodes (impurities that are ratios of small counts) are the rule there, not the exception."""
    return RULES[1:] if task != "anova" and not weighted else RULES[:2]


def holey_data(seed, task, mixed, weighted, mechanism, rate=0.2):
    """Two groups of correlated columns, {0, 1, 4} and {2, 3, 5} (4 and 5 categorical if `mixed`, else numeric), holes
    MCAR or MAR (column 2 always observed, the others missing with probability 2 * rate * x2); new rows with 1.5x the holes."""
    rng = np.random.default_rng(seed)
    def draw(n):
        Z = rng.random((n, 6))
        Z[:, 1] = 0.7 * Z[:, 0] + 0.3 * Z[:, 1]
        Z[:, 3] = 0.6 * Z[:, 2] + 0.4 * Z[:, 3]
        for j, source in ((4, 0), (5, 2)):
            noisy = Z[:, source] + 0.15 * rng.normal(size=n)
            Z[:, j] = (np.clip(noisy, 0, 0.999) * LEVELS[j]).astype(int) if mixed else noisy
        return Z
    X, X_new = draw(N), draw(N_NEW)
    signal = np.sin(3 * X[:, 0]) + X[:, 2] + 0.4 * (X[:, 4] % 2 if mixed else X[:, 4])
    if task == "anova": y = signal + 0.3 * rng.normal(size=N)
    else:
        K = 2 if task == "class2" else 3
        y = np.digitize(signal + 0.4 * rng.normal(size=N), np.quantile(signal, np.linspace(0, 1, K + 1)[1:-1]))
    w = rng.uniform(0.5, 3.0, N) if weighted else None
    for Z, r in ((X, rate), (X_new, 1.5 * rate)):
        if mechanism == "MCAR": hole = rng.random(Z.shape) < r
        else:
            hole = rng.random(Z.shape) < 2 * r * Z[:, [2]]
            hole[:, 2] = False
        Z[hole] = np.nan
    return X, y, w, X_new, tuple(LEVELS) if mixed else ()


def criterion_of(task): return "squared_error" if task == "anova" else "gini"
def n_classes_of(task): return {"class2": 2, "class3": 3}.get(task)
def method_of(task): return "anova" if task == "anova" else "class"


def tie_free(X, y, w, categorical, task, rules, max_surrogates=5):
    "Whether rpart's rules, re-implemented in numpy, meet no near-tie on this problem (rounding would decide it in rpart)."
    leaf, split, depth = rules
    n_levels = np.array([LEVELS.get(j, 0) if j in categorical else 0 for j in range(X.shape[1])])
    reference.TIES.clear()
    reference.fit(X, y, method_of(task), w, n_levels, split, leaf, 30 if depth is None else depth, max_surrogates, n_classes_of(task))
    return not reference.TIES


def accepted(task, mixed, weighted, mechanism, rules, first, tries=30, max_surrogates=5):
    "The first tie-free problem from seed `first` on, with our tree."
    for seed in range(first, first + tries):
        X, y, w, X_new, categorical = holey_data(seed, task, mixed, weighted, mechanism)
        if not tie_free(X, y, w, categorical, task, rules, max_surrogates): continue
        leaf, split, depth = rules
        tree = grow_surrogate(X, y, criterion_of(task), w, n_classes_of(task), categorical=categorical,
                              max_surrogates=max_surrogates, min_samples_leaf=leaf, min_samples_split=split, max_depth=depth)
        return dict(task=task, mixed=mixed, weighted=weighted, mechanism=mechanism, rules=rules, seed=seed, X=X, y=y, w=w,
                    X_new=X_new, categorical=categorical, tree=tree, max_surrogates=max_surrogates)
    pytest.fail(f"no tie-free problem among {tries} seeds for {task}, mixed={mixed}, weighted={weighted}, {mechanism}, {rules}")


def rpart_fit_of(p):
    leaf, split, depth = p["rules"]
    return RpartFit(p["X"], p["y"], method_of(p["task"]), sample_weight=p["w"], categorical=p["categorical"],
                    n_levels={j: LEVELS[j] for j in p["categorical"]}, n_classes=n_classes_of(p["task"]),
                    new=(p["X"], p["X_new"]), minsplit=split, minbucket=leaf, maxdepth=30 if depth is None else depth,
                    maxsurrogate=p["max_surrogates"], usesurrogate=2, maxcompete=0)


CONFIGURATIONS = [(task, mixed, weighted, mechanism, rules, 1000 * i + 100 * k)
                  for i, task in enumerate(TASKS) for mixed in (False, True)
                  for weighted, mechanism in ((False, "MCAR"), (True, "MAR"))
                  for k, rules in enumerate(rules_for(task, weighted))]


@pytest.fixture(scope="module")
def fitted():
    "Every accepted problem with our tree and rpart's (one Rscript run for all): those with 5 surrogates, those with none."
    chosen = [accepted(*c) for c in CONFIGURATIONS]
    fits = [rpart_fit_of(p) for p in chosen]
    for p in chosen:                 # regression trees are also pruned, by chapter 14 and by rpart (see the pruning test)
        if p["task"] != "anova": continue
        path = cost_complexity_path(p["tree"])
        k = len(path.ccp_alphas) // 2
        p["alpha"] = float(np.sqrt(path.ccp_alphas[k] * path.ccp_alphas[k + 1]))
        p["pruned"] = prune(p["tree"], p["alpha"])
        fits.append(replace(rpart_fit_of(p), prune_cp=p["alpha"] / p["tree"].impurity[0]))
    bare = [accepted(task, True, True, "MAR", RULES[1], 5000 + 100 * i, max_surrogates=0) for i, task in enumerate(TASKS)]
    fits += [rpart_fit_of(p) for p in bare]
    start = time.perf_counter()
    fitted = fit_rpart_many(fits)
    print(f"rpart: {len(fits)} fits in {time.perf_counter() - start:.1f} s")
    for p, theirs in zip(chosen, fitted): p["rpart"] = theirs
    pruned = [p for p in chosen if "pruned" in p]
    for p, theirs in zip(pruned, fitted[len(chosen):]): p["rpart_pruned"] = theirs
    for p, theirs in zip(bare, fitted[len(chosen) + len(pruned):]): p["rpart"] = theirs
    return chosen, bare


@pytest.fixture(scope="module")
def grown(fitted): return fitted[0]


def describe(p):
    return (f"{p['task']}, {'mixed' if p['mixed'] else 'numeric'}, {'weighted' if p['weighted'] else 'unweighted'}, "
            f"{p['mechanism']}, rules {p['rules']}, seed {p['seed']}")


def paired_nodes(ours, theirs):
    "Pairs (our node, rpart's node number, rpart's left child is ours) walking both trees at once, while their splits agree."
    pairs, stack = [], [(0, 1)]
    row = {node: i for i, node in enumerate(theirs.node)}
    while stack:
        a, b = stack.pop()
        if ours.children_left[a] == LEAF or theirs.feature[row[b]] != ours.feature[a]: continue
        s = theirs.node_splits(b)[0]
        if theirs.directions[s] is None: same_left = theirs.ncat[s] == -1          # rpart's left child takes x < index
        else: same_left = bool(ours.left_levels[a, np.flatnonzero(theirs.directions[s] == -1)].all())
        pairs.append((a, b, same_left))
        left, right = (2 * b, 2 * b + 1) if same_left else (2 * b + 1, 2 * b)
        if left in row and right in row: stack += [(ours.children_left[a], left), (ours.children_right[a], right)]
    return pairs


def node_differences(ours, theirs):
    "Where the two trees differ: shape, primary feature, threshold or level sets, n, weight, value."
    found, row = [], {node: i for i, node in enumerate(theirs.node)}
    if ours.node_count != theirs.node_count: found.append(f"{ours.node_count} nodes (ours) vs {theirs.node_count} (rpart)")
    pairs = paired_nodes(ours, theirs)
    if len(pairs) != int((~ours.is_leaf).sum()): found.append(f"{len(pairs)} of {int((~ours.is_leaf).sum())} splits pair up")
    for a, b, same_left in pairs:
        s = theirs.node_splits(b)[0]
        if theirs.directions[s] is None and not np.isclose(ours.threshold[a], theirs.index[s], rtol=1e-15, atol=0):
            found.append(f"rpart node {b}: threshold {ours.threshold[a]!r} vs {theirs.index[s]!r}")
        for ours_child, b_child in zip((ours.children_left[a], ours.children_right[a]),
                                       ((2 * b, 2 * b + 1) if same_left else (2 * b + 1, 2 * b))):
            i = row[b_child]
            if ours.n_node_samples[ours_child] != theirs.n[i]: found.append(f"rpart node {b_child}: n {ours.n_node_samples[ours_child]} vs {theirs.n[i]}")
            if not np.isclose(ours.weighted_n_node_samples[ours_child], theirs.wt[i], rtol=TOLERANCE, atol=0):
                found.append(f"rpart node {b_child}: weight {ours.weighted_n_node_samples[ours_child]} vs {theirs.wt[i]}")
            if not np.allclose(ours.value[ours_child], theirs.value[i], rtol=0, atol=TOLERANCE):
                found.append(f"rpart node {b_child}: value {ours.value[ours_child]} vs {theirs.value[i]}")
    return found


def surrogate_differences(ours, theirs, nodes=None):
    "Where the surrogate lists differ (feature, orientation, threshold or level sets, agreement, adj), at every paired split node or at rpart node numbers `nodes`."
    found = []
    for a, b, same_left in paired_nodes(ours, theirs):
        if nodes is not None and b not in nodes: continue
        mine, rows = ours.surrogates.of(a), theirs.node_splits(b)[1:]
        if [s.feature for s in mine] != list(theirs.splits_feature[rows]):
            found.append(f"rpart node {b}: surrogate features {[s.feature for s in mine]} vs {list(theirs.splits_feature[rows])}")
            continue
        for s, r in zip(mine, rows):
            if not np.allclose([s.agree, s.adj], [theirs.improve[r], theirs.adj[r]], rtol=TOLERANCE, atol=1e-12):
                found.append(f"rpart node {b}, feature {s.feature}: agree, adj {s.agree, s.adj} vs {theirs.improve[r], theirs.adj[r]}")
            if theirs.directions[r] is None:
                rpart_below_left = (theirs.ncat[r] == -1) == same_left        # x < index goes rpart's left (-1) ...
                if s.below_left != rpart_below_left or not np.isclose(s.threshold, theirs.index[r], rtol=1e-15, atol=0):
                    found.append(f"rpart node {b}, feature {s.feature}: {s.threshold, s.below_left} vs {theirs.index[r], rpart_below_left}")
            else:
                to_left, to_right = (-1, 1) if same_left else (1, -1)
                theirs_levels = (tuple(np.flatnonzero(theirs.directions[r] == to_left)), tuple(np.flatnonzero(theirs.directions[r] == to_right)))
                if (s.left_levels, s.right_levels) != theirs_levels:
                    found.append(f"rpart node {b}, feature {s.feature}: levels {s.left_levels, s.right_levels} vs {theirs_levels}")
    return found


def rpart_routing(tree, X):
    """Walk `X` down our tree as rpart's predict does (pred_rpart.c, usesurrogate = 2): the split, then the surrogates in
    order, then the child with more training rows, stopping at the node when they hold equally many. Returns each row's
    node and whether it met such a tie."""
    node, tied = np.zeros(len(X), dtype=np.intp), np.zeros(len(X), dtype=bool)
    for r, x in enumerate(X):
        t = 0
        while tree.children_left[t] != LEAF:
            f = tree.feature[t]
            if tree.categorical[t]:
                code = -1 if np.isnan(x[f]) else int(x[f])
                side = LEFT if 0 <= code < tree.left_levels.shape[1] and tree.left_levels[t, code] else \
                       RIGHT if 0 <= code < tree.left_levels.shape[1] and tree.right_levels[t, code] else 0
            else: side = 0 if np.isnan(x[f]) else LEFT if x[f] <= tree.threshold[t] else RIGHT
            for s in tree.surrogates.of(t):
                if side: break
                side = int(s.sides(x[None])[0])
            left, right = tree.children_left[t], tree.children_right[t]
            if not side:
                if tree.n_node_samples[left] == tree.n_node_samples[right]:
                    tied[r] = True
                    break
                side = LEFT if tree.n_node_samples[left] > tree.n_node_samples[right] else RIGHT
            t = left if side == LEFT else right
        node[r] = t
    return node, tied


def predictions(tree, X, task, nodes=None):
    value = tree.value[apply(tree, X) if nodes is None else nodes]
    return value[:, 0] if task == "anova" else value


def test_same_trees(grown):
    "Node for node: primary features, thresholds or level sets, counts (every row that reached the node), weights and values."
    problems = [f"{describe(p)}: {d}" for p in grown for d in node_differences(p["tree"], p["rpart"])[:3]]
    assert not problems, "\n".join(problems)
    assert sum(p["tree"].node_count for p in grown) > 15 * len(grown)          # trees worth comparing


def test_same_surrogates(grown):
    "At the root, and at every split node: the same surrogates in the same order, with rpart's agreement and adj."
    problems = [f"{describe(p)}: {d}" for p in grown for d in surrogate_differences(p["tree"], p["rpart"], nodes={1})]
    assert not problems, "\n".join(problems)
    problems = [f"{describe(p)}: {d}" for p in grown for d in surrogate_differences(p["tree"], p["rpart"])[:3]]
    assert not problems, "\n".join(problems)
    kept = sum(len(p["tree"].surrogates.feature) for p in grown)
    categorical = sum(int(p["tree"].surrogates.categorical.sum()) for p in grown)
    at_root = sum(len(p["tree"].surrogates.of(0)) for p in grown)
    print(f"{kept} surrogates compared ({categorical} categorical, {at_root} at the roots)")
    assert kept > 100 and categorical > 10 and at_root >= len(grown)


def test_same_predictions(grown):
    """Class probabilities or means on the training rows and on new rows with 1.5 times the holes, to 1e-9: chapter 13's
    `apply` for every row that does not meet a tie of the children's counts, rpart's routing rule for all rows."""
    worst, rows, tied = 0.0, 0, 0
    for p in grown:
        tree, task = p["tree"], p["task"]
        for X, theirs in zip((p["X"], p["X_new"]), p["rpart"].predictions):
            nodes, met = rpart_routing(tree, X)
            np.testing.assert_allclose(predictions(tree, X, task, nodes), theirs, rtol=0, atol=TOLERANCE, err_msg=describe(p))
            ours = predictions(tree, X, task)
            np.testing.assert_allclose(ours[~met], theirs[~met], rtol=0, atol=TOLERANCE, err_msg=describe(p))
            worst = max(worst, float(np.abs(ours[~met] - theirs[~met]).max()))
            rows, tied = rows + len(X), tied + int(met.sum())
    holes = sum(int(np.isnan(p["X_new"]).any(axis=1).sum()) for p in grown)
    print(f"{len(grown)} trees, {rows} rows ({holes} new rows with holes) agree to {worst:.1e}; "
          f"{tied} rows met a node whose children hold equally many rows (routed by rpart's rule there)")
    assert rows == len(grown) * (N + N_NEW) and tied < rows / 100


def test_without_surrogates(fitted):
    """rpart with maxsurrogate = 0 does not send a row without the split's feature down at all while growing: the row
    stays in the node (partition.c calls surrogate(), which also sets the majority, only when maxsurrogate > 0), and only
    prediction sends it to the child with more rows. `grow_surrogate(max_surrogates=0)` sends it with the majority, as it
    does any row that no surrogate places (a deliberate difference). With that one rule changed, the trees are rpart's."""
    import climbing_trees.missing as missing
    differing = 0
    for p in fitted[1]:
        ours, theirs = p["tree"], p["rpart"]
        assert ours.surrogates is not None and len(ours.surrogates.feature) == 0
        differing += bool(node_differences(ours, theirs))
    assert differing                               # the difference shows
    for p in fitted[1]:
        leaf, split, depth = p["rules"]
        X, y, w, plan = plan_growth(p["X"], p["y"], criterion_of(p["task"]), p["w"], n_classes_of(p["task"]),
                                    categorical=p["categorical"], min_samples_leaf=leaf, min_samples_split=split, max_depth=depth)
        tree = missing.grow_surrogate_from_plan(replace(plan, missing="surrogate", max_surrogates=0), X, y, w,
                                                majority=lambda side, w: missing.UNDECIDED)   # rows no split places stay
        assert not node_differences(tree, p["rpart"]), describe(p)
        for X, predicted in zip((p["X"], p["X_new"]), p["rpart"].predictions):
            nodes, met = rpart_routing(tree, X)
            np.testing.assert_allclose(predictions(tree, X, p["task"], nodes), predicted, rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(predictions(tree, X, p["task"])[~met], predicted[~met], rtol=0, atol=TOLERANCE)


def test_perfect_categorical_surrogate_is_dropped():
    "rpart keeps a categorical surrogate only if at least two rows disagree with the split (choose_surg.c): ours too."
    rng = np.random.default_rng(7)
    n = 400
    truth = rng.random(n)
    x0 = np.where(rng.random(n) < 0.05, np.nan, truth)
    perfect = np.where(rng.random(n) < 0.1, np.nan, (truth > 0.5).astype(float))
    nearly = perfect.copy()
    flip = rng.choice(np.flatnonzero(~np.isnan(x0) & ~np.isnan(nearly)), 3, replace=False)
    nearly[flip] = 1 - nearly[flip]
    X = np.column_stack([x0, perfect, nearly, rng.random(n)])
    y = (truth > 0.5).astype(int)
    theirs = fit_rpart(X, y, "class", categorical=(1, 2), n_levels={1: 2, 2: 2}, n_classes=2, minsplit=2, minbucket=1,
                       maxdepth=1, maxsurrogate=5)
    ours = grow_surrogate(X, y, "gini", n_classes=2, categorical=(1, 2), max_depth=1)
    assert [s.feature for s in ours.surrogates.of(0)] == list(theirs.splits_feature[theirs.node_splits(1)[1:]])
    assert 1 not in [s.feature for s in ours.surrogates.of(0)] and 2 in [s.feature for s in ours.surrogates.of(0)]
    assert not surrogate_differences(ours, theirs)


def test_pruned_surrogate_trees_are_rpart_pruned(grown):
    """Chapter 14's `prune` on a surrogate tree keeps the surrogates of the splits it keeps. For a regression tree the
    risk R(t) = SS_t / W is rpart's over W, so `prune(tree, alpha)` is rpart's `prune(fit, cp = alpha / R(root))`:
    the same nodes, surrogates and predictions, with alpha halfway (geometrically) between two steps of the path."""
    compared = 0
    for p in grown:
        if "pruned" not in p: continue
        pruned, theirs = p["pruned"], p["rpart_pruned"]
        assert 1 < pruned.n_leaves < p["tree"].n_leaves and pruned.surrogates is not None
        assert not node_differences(pruned, theirs), describe(p)
        assert not surrogate_differences(pruned, theirs), describe(p)
        for X, predicted in zip((p["X"], p["X_new"]), theirs.predictions):
            nodes, met = rpart_routing(pruned, X)
            np.testing.assert_allclose(predictions(pruned, X, p["task"], nodes), predicted, rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(predictions(pruned, X, p["task"])[~met], predicted[~met], rtol=0, atol=TOLERANCE)
        compared += 1
    assert compared >= 4
