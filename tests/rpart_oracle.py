"""R's rpart as an oracle: fit it through `Rscript` on numpy data and read back its tree, to the last bit.

The data go to R as little-endian float64 files (`readBin`: exact, unlike parsing decimal text);
categorical columns (level codes 0..L-1, NaN for missing) become R factors with levels "0".."L-1",
NaN becomes NA. rpart is grown with `rpart.control(cp = -1, xval = 0, maxcompete = 0, ...)`:
cp = -1 keeps every split, xval = 0 draws no random numbers. Everything comes back as text written
with `sprintf("%.17g")`, which Python parses exactly. Several fits share one `Rscript` run
(`fit_rpart_many`), since starting R costs about 0.3 s.

What comes back (`RpartTree`), in rpart's own terms:
- the frame, one row per node in rpart's order (pre-order): `node` (rpart's number: root 1, children
  2t and 2t + 1), `feature` (column index, -1 at a leaf), `n` (observations that reached the node at
  fit), `wt` (their weight), `dev` (risk: weighted misclassification or sum of squares), `yval`,
  `complexity`, `ncompete`, `nsurrogate`, and `value` (class probabilities (T, K), or means (T, 1));
- the splits table, one row per primary and surrogate split (`splits_node` says whose): `feature`,
  `primary`, `count`, `ncat` (numeric split: -1 if `x < index` goes left, +1 if it goes right;
  categorical: the number of levels), `improve` (primary: improvement; surrogate: agreement), `index`
  (threshold; for a categorical split, the row of `csplit`), `adj`; and `directions`, per split row, the
  level directions of a categorical split (-1 left, +1 right, 0 level absent from the node) or None;
- `where`, the node each training row ended in at fit (0 for rows rpart dropped: y or every x missing),
  and `fitted`, its value there;
- `predictions`, one array per matrix in `new`: `predict(type = "prob")` or `predict(type = "vector")`.
With `prune_cp`, all of it describes rpart's pruned tree `prune(fit, cp = prune_cp)`.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

METHODS = ("class", "anova")


@functools.lru_cache(maxsize=None)
def rpart_skip_reason():
    "None if `Rscript` runs and loads rpart, else a sentence saying what is missing and how to get it."
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "Rscript not found: install R and rpart (Debian: apt-get install r-base-core r-cran-rpart)"
    try:
        r = subprocess.run([rscript, "-e", "suppressMessages(library(rpart)); cat(as.character(packageVersion('rpart')))"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"Rscript did not run: {e}"
    if r.returncode != 0:
        return f"R's rpart package does not load (Debian: apt-get install r-cran-rpart): {r.stderr.strip()[-300:]}"
    return None


def rpart_available():
    "Whether R's rpart can be used as an oracle here."
    return rpart_skip_reason() is None


def rpart_version():
    "rpart's version string, e.g. '4.1.19' (None if unavailable)."
    if not rpart_available(): return None
    r = subprocess.run(["Rscript", "-e", "cat(as.character(packageVersion('rpart')))"], capture_output=True, text=True)
    return r.stdout.strip()


@dataclass
class RpartFit:
    "One rpart fit to run: the data, the options, and the new rows to predict."
    X: np.ndarray                     # (N, D) floats; categorical columns as codes 0..L-1; NaN: missing
    y: np.ndarray                     # (N,) class codes 0..K-1 ("class") or real values ("anova")
    method: str = "class"
    sample_weight: np.ndarray | None = None
    categorical: tuple = ()           # indices of the categorical columns
    n_levels: dict | None = None      # levels of each categorical column (default: largest code + 1, over X and new)
    n_classes: int | None = None      # default: largest class code + 1
    new: tuple = ()                   # matrices of new rows to predict
    minsplit: int = 2
    minbucket: int = 1
    maxdepth: int = 30
    maxsurrogate: int = 0
    usesurrogate: int = 2
    surrogatestyle: int = 0
    maxcompete: int = 0
    cp: float = -1.0
    prune_cp: float | None = None     # then the tree returned is rpart's `prune(fit, cp = prune_cp)`


@dataclass
class RpartTree:
    "What rpart grew (see the module docstring for every field)."
    node: np.ndarray
    feature: np.ndarray
    n: np.ndarray
    wt: np.ndarray
    dev: np.ndarray
    yval: np.ndarray
    complexity: np.ndarray
    ncompete: np.ndarray
    nsurrogate: np.ndarray
    value: np.ndarray
    splits_node: np.ndarray
    splits_feature: np.ndarray
    splits_primary: np.ndarray
    count: np.ndarray
    ncat: np.ndarray
    improve: np.ndarray
    index: np.ndarray
    adj: np.ndarray
    directions: list
    where: np.ndarray
    fitted: np.ndarray
    predictions: list = field(default_factory=list)

    @property
    def node_count(self): return len(self.node)

    @property
    def n_leaves(self): return int((self.feature < 0).sum())

    def row_of(self, node):
        "Row of rpart node number `node` in the frame."
        return int(np.flatnonzero(self.node == node)[0])

    def node_splits(self, node):
        "Indices of the split rows of rpart node `node`: the primary first, then its surrogates in rank order."
        return np.flatnonzero(self.splits_node == node)


_R_CODE = r"""
suppressMessages(library(rpart))
rd <- function(f, n) readBin(f, "double", n = n, size = 8, endian = "little")
num <- function(x) ifelse(is.na(x), "NA", sprintf("%.17g", x))
wm <- function(m, f) {
  m <- as.matrix(m)
  if (nrow(m) == 0L) { writeLines(character(0), f); return(invisible()) }
  writeLines(apply(m, 1L, function(r) paste(num(r), collapse = "\t")), f)
}
frame_of <- function(X, levels) {
  X[is.nan(X)] <- NA_real_
  df <- as.data.frame(X)
  names(df) <- paste0("x", seq_len(ncol(X)) - 1L)
  for (j in seq_along(levels)) if (levels[j] > 0L) df[[j]] <- factor(df[[j]], levels = seq_len(levels[j]) - 1L)
  df
}
run_fit <- function(dir, n, d, levels, method, K, n_new, ctrl, prune_cp = NA) {
  df <- frame_of(matrix(rd(file.path(dir, "X.bin"), n * d), n, d), levels)
  yy <- rd(file.path(dir, "y.bin"), n)
  df$y <- if (method == "class") factor(yy, levels = seq_len(K) - 1L) else yy
  w <- rd(file.path(dir, "w.bin"), n)
  f <- as.formula("y ~ .")
  fit <- rpart(f, data = df, weights = w, method = method, control = ctrl)
  if (!is.na(prune_cp)) fit <- prune(fit, cp = prune_cp)
  fr <- fit$frame
  feature <- match(as.character(fr$var), names(df)) - 1L
  feature[is.na(feature)] <- -1L
  value <- if (method == "class") fr$yval2[, 1L + K + seq_len(K), drop = FALSE] else matrix(fr$yval, ncol = 1L)
  wm(cbind(as.integer(rownames(fr)), feature, fr$n, fr$wt, fr$dev, fr$yval, fr$complexity, fr$ncompete,
           fr$nsurrogate, value), file.path(dir, "frame.txt"))
  if (!is.null(fit$splits)) {
    sf <- match(rownames(fit$splits), names(df)) - 1L
    wm(cbind(sf, fit$splits), file.path(dir, "splits.txt"))
  } else wm(matrix(0, 0, 6), file.path(dir, "splits.txt"))
  if (!is.null(fit$csplit)) wm(fit$csplit - 2L, file.path(dir, "csplit.txt")) else wm(matrix(0, 0, 1), file.path(dir, "csplit.txt"))
  where <- integer(n)
  where[as.integer(names(fit$where))] <- as.integer(rownames(fr))[fit$where]
  wm(matrix(where, ncol = 1L), file.path(dir, "where.txt"))
  for (k in seq_len(n_new)) {
    m <- scan(file.path(dir, sprintf("new%d.dim", k - 1L)), quiet = TRUE)
    nd <- frame_of(matrix(rd(file.path(dir, sprintf("new%d.bin", k - 1L)), m[1] * m[2]), m[1], m[2]), levels)
    p <- predict(fit, newdata = nd, type = if (method == "class") "prob" else "vector")
    wm(if (method == "class") p else matrix(p, ncol = 1L), file.path(dir, sprintf("pred%d.txt", k - 1L)))
  }
  writeLines("ok", file.path(dir, "done"))
}
"""


def _write(path, a):
    np.ascontiguousarray(a, dtype="<f8").tofile(path)


def _read(path, ncol=None):
    "A matrix written by the R code (tab-separated %.17g, NA as NaN); (0, ncol) if empty."
    lines = Path(path).read_text().splitlines()
    if not lines: return np.zeros((0, ncol or 0))
    return np.array([[float("nan") if v == "NA" else float(v) for v in line.split("\t")] for line in lines])


def _r_int(v): return f"{int(v)}L"


def _prepare(fit: RpartFit, directory: Path, i: int):
    "Write one fit's data into `directory` and return the R call that runs it."
    if fit.method not in METHODS: raise ValueError(f"method must be one of {METHODS}, got {fit.method!r}")
    X = np.asarray(fit.X, dtype=float)
    n, d = X.shape
    y = np.asarray(fit.y, dtype=float)
    w = np.ones(n) if fit.sample_weight is None else np.asarray(fit.sample_weight, dtype=float)
    new = [np.asarray(Z, dtype=float) for Z in fit.new]
    levels = np.zeros(d, dtype=int)
    for j in fit.categorical:
        if fit.n_levels is not None and j in fit.n_levels: levels[j] = fit.n_levels[j]
        else: levels[j] = int(np.nanmax(np.concatenate([X[:, j]] + [Z[:, j] for Z in new]))) + 1
    K = 0
    if fit.method == "class":
        K = fit.n_classes if fit.n_classes is not None else int(np.nanmax(y)) + 1
    directory.mkdir(parents=True, exist_ok=True)
    _write(directory / "X.bin", X.T)          # column-major, as R's matrix()
    _write(directory / "y.bin", y)
    _write(directory / "w.bin", w)
    for k, Z in enumerate(new):
        _write(directory / f"new{k}.bin", Z.T)
        (directory / f"new{k}.dim").write_text(f"{Z.shape[0]} {Z.shape[1]}\n")
    ctrl = (f"rpart.control(minsplit = {_r_int(fit.minsplit)}, minbucket = {_r_int(fit.minbucket)}, cp = {float(fit.cp)!r}, "
            f"maxcompete = {_r_int(fit.maxcompete)}, maxsurrogate = {_r_int(fit.maxsurrogate)}, "
            f"usesurrogate = {_r_int(fit.usesurrogate)}, surrogatestyle = {_r_int(fit.surrogatestyle)}, "
            f"xval = 0L, maxdepth = {_r_int(fit.maxdepth)})")
    lv = "c(" + ", ".join(_r_int(v) for v in levels) + ")"
    pruning = "" if fit.prune_cp is None else f", prune_cp = {float(fit.prune_cp)!r}"
    return (f'run_fit("{directory.as_posix()}", {n}L, {d}L, {lv}, "{fit.method}", {K}L, {len(new)}L, {ctrl}{pruning})', K, n)


def _collect(directory: Path, method, K, n, n_new):
    "Read one fit's results back into an `RpartTree`."
    frame = _read(directory / "frame.txt")
    width = K if method == "class" else 1
    value = frame[:, 9:9 + width]
    if method == "class" and value.shape[1] < K: value = np.pad(value, ((0, 0), (0, K - value.shape[1])))
    splits = _read(directory / "splits.txt", 6)
    csplit = _read(directory / "csplit.txt")
    node = frame[:, 0].astype(int)
    feature = frame[:, 1].astype(int)
    ncompete, nsurrogate = frame[:, 7].astype(int), frame[:, 8].astype(int)
    split_node, primary = [], []
    for t, f, c, s in zip(node, feature, ncompete, nsurrogate):   # rpart lists each split node's rows in frame order
        if f < 0: continue
        split_node += [t] * (1 + c + s)
        primary += [True] * (1 + c) + [False] * s
    if len(split_node) != len(splits):
        raise RuntimeError(f"rpart's splits table has {len(splits)} rows, the frame announces {len(split_node)}")
    ncat = splits[:, 2].astype(int)
    directions = [csplit[int(splits[r, 4]) - 1, :ncat[r]].astype(int) if ncat[r] > 1 else None for r in range(len(splits))]
    where = _read(directory / "where.txt")[:, 0].astype(int)
    rows = np.searchsorted(np.sort(node), where)
    order = np.argsort(node)
    fitted = np.full((n, value.shape[1]), np.nan)
    kept = where > 0
    fitted[kept] = value[order[rows[kept]]]
    predictions = []
    for k in range(n_new):
        p = _read(directory / f"pred{k}.txt")
        if method == "class" and p.shape[1] < K: p = np.pad(p, ((0, 0), (0, K - p.shape[1])))
        predictions.append(p if method == "class" else p[:, 0])
    return RpartTree(node=node, feature=feature, n=frame[:, 2].astype(int), wt=frame[:, 3], dev=frame[:, 4],
                     yval=frame[:, 5], complexity=frame[:, 6], ncompete=ncompete, nsurrogate=nsurrogate, value=value,
                     splits_node=np.array(split_node, dtype=int), splits_feature=splits[:, 0].astype(int),
                     splits_primary=np.array(primary, dtype=bool), count=splits[:, 1].astype(int), ncat=ncat,
                     improve=splits[:, 3], index=splits[:, 4], adj=splits[:, 5], directions=directions, where=where,
                     fitted=fitted if method == "class" else fitted[:, 0], predictions=predictions)


def fit_rpart_many(fits, timeout=600):
    "Run every `RpartFit` of `fits` in one `Rscript` process; return their `RpartTree`s in order."
    reason = rpart_skip_reason()
    if reason is not None: raise RuntimeError(reason)
    fits = list(fits)
    with tempfile.TemporaryDirectory(prefix="rpart-oracle-") as tmp:
        tmp = Path(tmp)
        calls, shapes = [], []
        for i, fit in enumerate(fits):
            call, K, n = _prepare(fit, tmp / f"fit{i}", i)
            calls.append(call)
            shapes.append((fit.method, K, n, len(fit.new)))
        script = tmp / "run.R"
        script.write_text(_R_CODE + "\n".join(calls) + "\n")
        r = subprocess.run(["Rscript", "--vanilla", str(script)], capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "LC_ALL": "C"})
        if r.returncode != 0:
            raise RuntimeError(f"Rscript failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
        return [_collect(tmp / f"fit{i}", *shape) for i, shape in enumerate(shapes)]


def fit_rpart(X, y, method="class", **options):
    "Fit one rpart tree (options: the fields of `RpartFit`); return its `RpartTree`."
    return fit_rpart_many([RpartFit(X, y, method, **options)])[0]
