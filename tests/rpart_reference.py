"""A numpy re-implementation of rpart 4.1.19's growth with missing values (primary split on the non-missing rows,
surrogates, majority rule), for method "class" (gini, default priors and losses) and "anova", cp = -1,
maxcompete = 0, usesurrogate = 2, surrogatestyle = 0. Written from rpart's C source (github.com/bethatkinson/rpart,
src/bsplit.c, gini.c, anova.c, surrogate.c, choose_surg.c, nodesplit.c, partition.c, pred_rpart.c) to check the
specification against rpart itself.

fit(...) returns a dict: frame rows per node number, the splits table in rpart's order, `where` for the training rows;
predict(tree, X) routes rows as pred_rpart.c does.
"""
import numpy as np

LEFT, RIGHT = -1, 1
TIES = []          # near-ties met while growing (rounding decides them in rpart)


def _near_tie(values, best, scale, larger_is_better):
    "Whether another candidate than the best is within 1e-9 * scale of it."
    values = np.sort(np.asarray(values, float))
    values = values[::-1] if larger_is_better else values
    return len(values) > 1 and abs(values[1] - values[0]) <= 1e-9 * scale


def _class_eval(y, w, K):
    counts = np.bincount(y, weights=w, minlength=K)
    W = counts.sum()
    dev = W - counts.max()                       # default losses and priors: weighted misclassification (ginidev)
    return dict(value=counts / W, dev=dev, yval=int(np.argmax(counts)) + 1)


def _anova_eval(y, w):
    W = w.sum()
    mean = (w * y).sum() / W
    return dict(value=np.array([mean]), dev=float((w * (y - mean) ** 2).sum()), yval=mean)


def _gini_total(counts):
    W = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(W > 0, W - (counts ** 2).sum(axis=-1) / np.where(W > 0, W, 1), 0.0)


def _class_split(x, y, w, K, ncat, edge):
    "gini.c: improvement (weighted units of the rows given), threshold or level directions, direction."
    onehot = np.eye(K)[y] * w[:, None]
    total = _gini_total(onehot.sum(0))
    if ncat == 0:
        order = np.argsort(x, kind="stable")
        x, onehot = x[order], onehot[order]
        n = len(x)
        left = np.cumsum(onehot, axis=0)[:-1]
        right = onehot.sum(0) - left
        ltot = np.arange(1, n)
        ok = (ltot >= edge) & (n - ltot >= edge) & (x[1:] != x[:-1])
        if not ok.any(): return 0.0, None
        temp = _gini_total(left) + _gini_total(right)
        temp = np.where(ok, temp, np.inf)
        i = int(np.argmin(temp))
        if not temp[i] < total: return 0.0, None
        if _near_tie(temp[np.isfinite(temp)], temp[i], total, False) and total - temp[i] > 1e-10 * onehot.sum():
            TIES.append("class cut")       # (in a pure node, where total is rounding, every cut ties and rpart makes none)
        pl, pr = left[i] / left[i].sum(), right[i] / right[i].sum()
        direction = LEFT if pl @ np.arange(K) < pr @ np.arange(K) else RIGHT
        return total - temp[i], dict(index=(x[i] + x[i + 1]) / 2, ncat=direction)
    codes = x.astype(int)
    cnt = np.bincount(codes, minlength=ncat)
    ccnt = np.zeros((ncat, K)); np.add.at(ccnt, codes, onehot)
    present = np.flatnonzero(cnt > 0)
    if K == 2:
        rate = ccnt[present, 0] / ccnt[present].sum(1)
        order = present[np.argsort(rate, kind="stable")]
        subsets = [order[:m] for m in range(1, len(order))]
    else:
        subsets = [present[[b for b in range(len(present)) if m >> b & 1]] for m in range(1, 2 ** len(present) - 1)]
    best, chosen, seen = total, None, []
    for s in subsets:
        lmask = np.zeros(ncat, bool); lmask[s] = True
        ltot, rtot = cnt[lmask].sum(), cnt[~lmask].sum()
        if ltot < edge or rtot < edge: continue
        l, r = ccnt[lmask].sum(0), ccnt[~lmask].sum(0)
        temp = _gini_total(l) + _gini_total(r)
        if lmask[present[0]]: seen.append(temp)      # a subset and its complement are one partition: not a tie
        if temp < best:
            best = temp
            direction = np.zeros(ncat, int)
            lmean, rmean = l / l.sum() @ np.arange(K), r / r.sum() @ np.arange(K)
            sign = 1 if lmean < rmean else -1
            direction[lmask & (cnt > 0)] = LEFT * sign
            direction[~lmask & (cnt > 0)] = RIGHT * sign
            chosen = dict(directions=direction, ncat=ncat)
    if chosen is not None and _near_tie(seen, best, total, False) and total - best > 1e-10 * onehot.sum():
        TIES.append("class partition")
    return total - best, chosen


def _anova_split(x, y, w, ncat, edge, node_risk):
    "anova.c: improvement = (SS of the rows given - SS_L - SS_R) / SS of the whole node."
    gm = (w * y).sum() / w.sum()
    z = (y - gm) * w
    if ncat == 0:
        order = np.argsort(x, kind="stable")
        x, z, w = x[order], z[order], w[order]
        n = len(x)
        ls, lw = np.cumsum(z)[:-1], np.cumsum(w)[:-1]
        rs, rw = -ls, w.sum() - lw
        ltot = np.arange(1, n)
        ok = (ltot >= edge) & (n - ltot >= edge) & (x[1:] != x[:-1])
        temp = np.where(ok, ls ** 2 / lw + rs ** 2 / rw, 0.0)
        i = int(np.argmax(temp))
        if _near_tie(temp[ok], temp[i], node_risk, True): TIES.append("anova cut")
        if not temp[i] > 0: return 0.0, None
        return temp[i] / node_risk, dict(index=(x[i] + x[i + 1]) / 2, ncat=LEFT if ls[i] < rs[i] else RIGHT)
    codes = x.astype(int)
    cnt = np.bincount(codes, minlength=ncat)
    wts = np.bincount(codes, weights=w, minlength=ncat)
    sums = np.bincount(codes, weights=z, minlength=ncat)
    present = np.flatnonzero(cnt > 0)
    order = present[np.argsort(sums[present] / wts[present], kind="stable")]
    best, chosen, seen = 0.0, None, []
    for m in range(1, len(order)):
        lmask = np.zeros(ncat, bool); lmask[order[:m]] = True
        ltot, rtot = cnt[lmask].sum(), cnt[~lmask].sum()
        if ltot < edge or rtot < edge: continue
        ls, lw = sums[lmask].sum(), wts[lmask].sum()
        rs, rw = sums[~lmask].sum(), wts[~lmask].sum()
        temp = ls ** 2 / lw + rs ** 2 / rw
        seen.append(temp)
        if temp > best:
            best = temp
            direction = np.zeros(ncat, int)
            sign = -1 if ls / lw > rs / rw else 1
            direction[lmask & (cnt > 0)] = LEFT * sign
            direction[~lmask & (cnt > 0)] = RIGHT * sign
            chosen = dict(directions=direction, ncat=ncat)
    if _near_tie(seen, best, node_risk, True): TIES.append("anova partition")
    return best / node_risk, chosen


def _goes(split, v):
    "Direction (LEFT/RIGHT, 0: none) a split sends value v (not NaN)."
    if "directions" in split: return int(split["directions"][int(v)])
    return split["ncat"] if v < split["index"] else -split["ncat"]


def _choose_surrogate(x, tempy, w, ncat, tleft, tright):
    "choose_surg.c: (agreement, adj, split) for one candidate column, rows of the node with x not missing."
    pos = w > 0
    if ncat == 0:
        order = np.argsort(x, kind="stable")
        x, t, w, pos = x[order], tempy[order], w[order], pos[order]
        if len(x) == 0: return 0.0, 0.0, None
        ll, rl = int(((t == LEFT) & pos).sum()), int(((t == RIGHT) & pos).sum())
        llwt, rlwt = w[t == LEFT].sum(), w[t == RIGHT].sum()
        agree = llwt if llwt > rlwt else rlwt
        lr = rr = 0; lrwt = rrwt = 0.0
        lastx, split, success = x[0], None, False
        for j in range(len(x)):
            if ll + rl < 2: break
            if lr + rr >= 2 and x[j] != lastx:
                if llwt + rrwt > agree:
                    success, agree, split = True, llwt + rrwt, dict(index=(x[j] + lastx) / 2, ncat=RIGHT)
                elif lrwt + rlwt > agree:
                    success, agree, split = True, lrwt + rlwt, dict(index=(x[j] + lastx) / 2, ncat=LEFT)
            if t[j] == LEFT:
                if pos[j]: ll -= 1; lr += 1
                llwt -= w[j]; lrwt += w[j]
            elif t[j] == RIGHT:
                if pos[j]: rl -= 1; rr += 1
                rlwt -= w[j]; rrwt += w[j]
            lastx = x[j]
    else:
        codes = x.astype(int)
        sel_l, sel_r = t_l, t_r = (tempy == LEFT), (tempy == RIGHT)
        left = np.bincount(codes[sel_l & pos], minlength=ncat)
        right = np.bincount(codes[sel_r & pos], minlength=ncat)
        lwt = np.bincount(codes[sel_l], weights=w[sel_l], minlength=ncat)
        rwt = np.bincount(codes[sel_r], weights=w[sel_r], minlength=ncat)
        defdir = LEFT if lwt.sum() > rwt.sum() else RIGHT
        direction = np.zeros(ncat, int)
        agree, disagreeing, agreeing = 0.0, 0, 0
        for k in range(ncat):
            if left[k] == 0 and right[k] == 0: continue
            if lwt[k] < rwt[k] or (lwt[k] == rwt[k] and defdir == RIGHT):
                agree += rwt[k]; direction[k] = RIGHT; disagreeing += left[k]; agreeing += right[k]
            else:
                agree += lwt[k]; direction[k] = LEFT; disagreeing += right[k]; agreeing += left[k]
        success = disagreeing > 1 and agreeing > 1      # choose_surg.c:190-200 (its lcount, rcount)
        split = dict(directions=direction, ncat=ncat)
    if not success: return 0.0, 0.0, None
    total = tleft + tright
    majority = (tleft if tleft > tright else tright) / total
    agreement = agree / total
    return agreement, (agreement - majority) / (1 - majority), split


def fit(X, y, method="class", sample_weight=None, ncat=None, minsplit=2, minbucket=1, maxdepth=30, maxsurrogate=5,
        n_classes=None):
    X = np.asarray(X, float)
    n, d = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    ncat = np.zeros(d, int) if ncat is None else np.asarray(ncat, int)
    K = n_classes if method == "class" else None
    kept = np.flatnonzero(~np.isnan(X).all(axis=1))            # na.rpart: drop rows missing every x
    miss = np.isnan(X)
    whole = bool(np.all(w == np.round(w)))                     # sums of whole weights are exact, in any order
    frame, splits, where = {}, [], np.zeros(n, int)
    state = dict(iscale=0.0)

    def evaluate(rows):
        return _class_eval(y[rows], w[rows], K) if method == "class" else _anova_eval(y[rows], w[rows])

    def partition(num, rows, info):
        frame[num] = dict(n=len(rows), wt=w[rows].sum(), **info, splits=[])
        where[rows] = num
        if len(rows) < minsplit or num > 2 ** maxdepth - 1: return
        best, improvements = None, []
        for j in range(d):                                        # bsplit.c
            s = rows[~miss[rows, j] & (w[rows] > 0)]
            if len(s) == 0 or (ncat[j] == 0 and X[s, j].min() == X[s, j].max()): continue
            if method == "class": improve, sp = _class_split(X[s, j], y[s], w[s], K, ncat[j], minbucket)
            else: improve, sp = _anova_split(X[s, j], y[s], w[s], ncat[j], minbucket, info["dev"])
            if improve > state["iscale"]: state["iscale"] = improve
            if sp is not None: improvements.append(improve)
            if sp is not None and improve > state["iscale"] * 1e-10 and (best is None or improve > best["improve"]):
                best = dict(feature=j, improve=improve, count=len(s), adj=0.0, primary=True, **sp)
        if best is None: return
        if _near_tie(improvements, best["improve"], best["improve"], True): TIES.append("features")
        j = best["feature"]
        tempy = np.zeros(n, int)                                  # surrogate.c
        nm = rows[~miss[rows, j]]
        tempy[nm] = [_goes(best, v) for v in X[nm, j]]
        tleft, tright = w[rows][tempy[rows] == LEFT].sum(), w[rows][tempy[rows] == RIGHT].sum()
        last = RIGHT if tleft < tright else (LEFT if tleft > tright else 0)
        surrogates = []
        for i in range(d):
            if i == j or maxsurrogate == 0: continue
            r = rows[~miss[rows, i]]
            agreement, adj, sp = _choose_surrogate(X[r, i], tempy[r], w[r], ncat[i], tleft, tright)
            if adj <= 1e-10: continue
            cand = dict(feature=i, improve=agreement, adj=adj, count=0, primary=False, **sp)
            pos = next((k for k, s in enumerate(surrogates) if agreement > s["improve"]), len(surrogates))
            if len(surrogates) == maxsurrogate and pos == len(surrogates): continue
            if any(abs(agreement - s["improve"]) <= 1e-9 and not (whole and agreement == s["improve"]) for s in surrogates):
                TIES.append("surrogate rank")      # equal agreements of whole weights are exact: column order decides
            surrogates.insert(pos, cand)
            del surrogates[maxsurrogate:]
        side = {}                                                 # nodesplit.c
        for r in rows:
            if not miss[r, j]:
                g = tempy[r]
                if g: side[r] = g
                continue
            for s in surrogates:
                if miss[r, s["feature"]]: continue
                g = _goes(s, X[r, s["feature"]])
                if g:
                    s["count"] += 1; side[r] = g; break
            else:
                if last: side[r] = last
        left = np.array([r for r in rows if side.get(r) == LEFT], int)
        right = np.array([r for r in rows if side.get(r) == RIGHT], int)
        frame[num]["splits"] = [best] + surrogates
        frame[num]["primary"] = best
        frame[num]["surrogates"] = surrogates
        frame[num]["last"] = last
        partition(2 * num, left, evaluate(left))
        partition(2 * num + 1, right, evaluate(right))

    partition(1, kept, evaluate(kept))
    nodes = sorted(frame, key=_preorder_key)
    for t in nodes:
        splits += [dict(node=t, **s) for s in frame[t]["splits"]]
    return dict(frame=frame, nodes=nodes, splits=splits, where=where, ncat=ncat, method=method)


def _preorder_key(num):
    "Pre-order position of rpart node number `num` (root 1, children 2t, 2t+1): its path of bits from the root."
    bits = bin(num)[3:]
    return tuple(int(b) + 1 for b in bits)


def predict(tree, X):
    "pred_rpart.c with usesurrogate = 2: primary, then surrogates in order, then the child with more rows (n)."
    frame = tree["frame"]
    out = []
    for x in np.asarray(X, float):
        t = 1
        while "primary" in frame[t]:
            g = 0
            for s in frame[t]["splits"]:
                v = x[s["feature"]]
                if np.isnan(v): continue
                g = _goes(s, v)
                if g: break
            if not g:
                nl, nr = frame[2 * t]["n"], frame[2 * t + 1]["n"]
                if nl == nr: break
                g = LEFT if nl > nr else RIGHT
            t = 2 * t if g == LEFT else 2 * t + 1
        out.append(frame[t]["value"])
    out = np.array(out)
    return out if tree["method"] == "class" else out[:, 0]
