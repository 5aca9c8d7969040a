"""Chapter 15 shows R's rpart `summary()` from a stored file (the book builds without R): check that file against R.

`tools/rpart_summary.py` runs rpart on chapter 15's data (the breast-cancer data, a fifth of the entries hidden) and
stores what it prints in `nbs/data/rpart_summary_breast_cancer_holes.txt`. Here, where `Rscript` loads rpart:
- running it again prints exactly the stored text (same data, same rpart: nothing stale);
- our `grow_surrogate` tree has every split the summary prints: feature, threshold, which child the rows below it go
  to, each surrogate's agreement and adj (to the digits printed), the missing counts and the rows each surrogate places,
  and the primary improvements W_S (i(S) - i(s)) to the 7 digits printed;
- rpart's `variable.importance` (improve of each primary split, plus adj x improve for each surrogate) is what that
  rule gives on our tree, to 1e-9.
The stored file is also checked without R: it parses and matches our tree.
"""
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from rpart_oracle import rpart_available, rpart_skip_reason

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import rpart_summary as stored                                             # noqa: E402

from climbing_trees.criteria import vectorized_column_split                # noqa: E402
from climbing_trees.categorical_growth import column_searches              # noqa: E402
from climbing_trees.missing import (LEFT, RIGHT, UNDECIDED, grow_surrogate, majority_side,  # noqa: E402
                                    primary_split, route)
from climbing_trees.tree import Split                                      # noqa: E402


def needs_rpart():
    if rpart_available(): return
    if os.environ.get("CI"):        # `make test` installs R and rpart: in CI a skip would hide the check
        raise RuntimeError(rpart_skip_reason() + "; `make test` should have installed them (its `rpart` target)")
    pytest.skip(rpart_skip_reason())


@pytest.fixture(scope="module")
def ours():
    X, y, names, _ = stored.summary_data()
    tree = grow_surrogate(X, y, "gini", n_classes=2, **stored.RULES)
    return X, y, names, tree


def decimals(value):
    "Half a unit in the last digit R printed of a number (its format drops trailing zeros)."
    text = f"{value!r}"
    return 0.5 * 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def walk(tree, X, y, names, printed):
    """Our split nodes paired with rpart's numbers, checking each printed split; returns rpart's importance computed on
    our tree, {name: value}, and the per-node (improve, missing, surrogate counts) ours gives."""
    searches = column_searches(X.shape[1], (), vectorized_column_split)
    importance, stack, reached = {}, [(0, 1, np.arange(len(y)))], {}
    while stack:
        a, b, rows = stack.pop()
        if tree.is_leaf[a]:
            assert b not in printed, f"rpart splits node {b}, ours is a leaf"
            continue
        lines = printed[b]
        f, Xt = int(tree.feature[a]), X[rows]
        kind, name, threshold, below_to_rpart_left, _, _ = lines[0]
        assert kind == "primary" and name == names[f], (b, lines[0], names[f])
        assert abs(threshold - tree.threshold[a]) <= decimals(threshold) * 1.0001, (b, threshold, tree.threshold[a])
        found = primary_split(Xt, y[rows], np.ones(len(rows)), "gini", 2, searches, stored.RULES["min_samples_leaf"],
                              features=[f])
        importance[name] = importance.get(name, 0.0) + found.improvement
        side = Split(f, tree.threshold[a], 0.0).sides(Xt)
        missing, placed_counts = int(np.sum(side == UNDECIDED)), []
        surrogates = tree.surrogates.of(a)
        assert len(surrogates) == len(lines) - 1, (b, surrogates, lines)
        routed = side.copy()
        for s, (kind, s_name, s_threshold, s_below_left, agree, adj) in zip(surrogates, lines[1:]):
            assert kind == "surrogate" and s_name == names[s.feature], (b, s_name, names[s.feature])
            assert abs(s_threshold - s.threshold) <= decimals(s_threshold) * 1.0001, (b, s_threshold, s.threshold)
            assert s.below_left == (s_below_left == below_to_rpart_left), (b, s_name)     # the same rows the same way
            assert abs(agree - s.agree) <= decimals(agree) * 1.0001 and abs(adj - s.adj) <= decimals(adj) * 1.0001
            placed = (routed == UNDECIDED) & (s.sides(Xt) != UNDECIDED)
            routed[placed] = s.sides(Xt)[placed]
            placed_counts.append(int(placed.sum()))
            importance[s_name] = importance.get(s_name, 0.0) + s.adj * found.improvement
        reached[b] = (found.improvement, missing, placed_counts)
        routed = route(Xt, side, surrogates, majority_side(side, np.ones(len(rows))))
        ours_left, ours_right = rows[routed == LEFT], rows[routed == RIGHT]
        # rpart's left son (2b) takes x < c if the summary says "to the left", ours x <= c: the same rows (c a midpoint)
        left_b, right_b = (2 * b, 2 * b + 1) if below_to_rpart_left else (2 * b + 1, 2 * b)
        stack += [(tree.children_left[a], left_b, ours_left), (tree.children_right[a], right_b, ours_right)]
    return importance, reached


def check_against(text, ours):
    X, y, names, tree = ours
    printed, rpart_importance = stored.parse_summary(text)
    assert printed, "no split found in rpart's summary"
    importance, reached = walk(tree, X, y, names, printed)
    assert set(reached) == set(printed)
    for b, (improve, missing, placed) in reached.items():
        assert f"improve={improve:.7g}, ({missing} missing)" in text, (b, improve, missing)
    placed_printed = [int(v) for v in re.findall(r"\((\d+) split\)", text)]
    assert placed_printed == [n for b in sorted(reached) for n in reached[b][2]]
    assert set(importance) == set(rpart_importance)
    for name, value in rpart_importance.items():
        assert abs(importance[name] - value) <= 1e-9 * max(1.0, abs(value)), (name, importance[name], value)


def test_stored_summary_matches_our_tree(ours):
    check_against(stored.STORED.read_text(), ours)


def test_stored_summary_is_what_rpart_prints_now(ours):
    needs_rpart()
    text = stored.rpart_summary_text()
    assert text == stored.STORED.read_text(), "rerun `.venv/bin/python tools/rpart_summary.py` and commit the file"
    check_against(text, ours)
