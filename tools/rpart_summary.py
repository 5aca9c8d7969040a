"""R's rpart `summary()` of chapter 15's depth-2 surrogate tree, stored so that the book builds without R.

    .venv/bin/python tools/rpart_summary.py           # run R, (re)write nbs/data/rpart_summary_breast_cancer_holes.txt
    .venv/bin/python tools/rpart_summary.py check     # run R, exit 1 if the stored file differs

The data are chapter 15's: the breast-cancer data with each entry hidden with probability 0.2 (numpy's
`default_rng(5)`), the tree rpart's `method = "class"` with `maxdepth = 2`, `minbucket = 5`, `maxsurrogate = 3`,
`maxcompete = 0`, `cp = -1`, `xval = 0`: the tree `grow_surrogate(X, y, "gini", n_classes=2, max_depth=2,
min_samples_leaf=5, max_surrogates=3)` grows. The data reach R as tests/rpart_oracle.py sends them (float64 files read
by `readBin`: exact). The file holds what R prints: `summary(fit)`, then MARKER and `fit$variable.importance` to 17
significant digits (summary prints it as rounded percentages). tests/test_missing_stored_rpart.py checks the stored
file against a new run, and our tree against the splits it prints.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from rpart_oracle import _R_CODE, _write, rpart_skip_reason      # noqa: E402  (the oracle's data transfer, reused)

STORED = ROOT / "nbs" / "data" / "rpart_summary_breast_cancer_holes.txt"
MARKER = "variable.importance, to 17 significant digits:"
RULES = dict(max_depth=2, min_samples_leaf=5, max_surrogates=3)      # grow_surrogate's names
SEED, RATE = 5, 0.2


def summary_data():
    "X with chapter 15's holes, y (0 malignant, 1 benign), the column names R uses (spaces as underscores), the class names."
    cancer = load_breast_cancer()
    X = cancer.data.copy()
    X[np.random.default_rng(SEED).random(X.shape) < RATE] = np.nan
    return X, cancer.target, [n.replace(" ", "_") for n in cancer.feature_names], list(cancer.target_names)


def r_script(directory, n, d, names, classes):
    "The R code: the oracle's helpers, the data frame `cancer`, the fit, and what it prints."
    r_names = ", ".join(f'"{name}"' for name in names)
    r_classes = ", ".join(f'"{c}"' for c in classes)
    return _R_CODE + f"""
cancer <- frame_of(matrix(rd("{directory}/X.bin", {n * d}), {n}L, {d}L), integer({d}))
names(cancer) <- c({r_names})
cancer$diagnosis <- factor(rd("{directory}/y.bin", {n}), levels = 0:1, labels = c({r_classes}))
fit <- rpart(diagnosis ~ ., data = cancer, method = "class",
             control = rpart.control(maxdepth = {RULES["max_depth"]}, minbucket = {RULES["min_samples_leaf"]},
                                     minsplit = 2, maxsurrogate = {RULES["max_surrogates"]}, maxcompete = 0,
                                     usesurrogate = 2, cp = -1, xval = 0))
summary(fit)
cat("\\n{MARKER}\\n")
importance <- fit$variable.importance
cat(sprintf("%s %.17g", names(importance), importance), sep = "\\n")
"""


def rpart_summary_text(timeout=300):
    "Run R on chapter 15's data; return what it prints (raises with R's message if R or rpart is missing or fails)."
    reason = rpart_skip_reason()
    if reason is not None: raise RuntimeError(reason)
    X, y, names, classes = summary_data()
    with tempfile.TemporaryDirectory(prefix="rpart-summary-") as tmp:
        _write(Path(tmp) / "X.bin", X.T)          # column-major, as R's matrix()
        _write(Path(tmp) / "y.bin", y.astype(float))
        script = Path(tmp) / "summary.R"
        script.write_text(r_script(Path(tmp).as_posix(), *X.shape, names, classes))
        r = subprocess.run(["Rscript", "--vanilla", str(script)], capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "LC_ALL": "C"})
    if r.returncode != 0: raise RuntimeError(f"Rscript failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    return r.stdout


def parse_summary(text):
    """The splits `summary()` prints, node by node: {rpart node: [(kind, variable, threshold, below goes to rpart's left,
    agree or None, adj or None), ...]}, the primary first; and `variable.importance` after MARKER, {variable: value}."""
    printed, importance = text.split(MARKER)
    splits, node, kind = {}, None, None
    for line in printed.splitlines():
        if m := re.match(r"Node number (\d+):", line): node = int(m.group(1))
        elif line.strip() in ("Primary splits:", "Surrogate splits:"): kind = line.strip().split()[0].lower()
        elif m := re.match(r"\s+(\S+)\s+< (\S+)\s+to the (left|right),\s+(.*)", line):
            numbers = dict(re.findall(r"(agree|adj)=([-0-9.e]+)", m.group(4)))
            splits.setdefault(node, []).append((kind, m.group(1), float(m.group(2)), m.group(3) == "left",
                                                float(numbers["agree"]) if numbers else None,
                                                float(numbers["adj"]) if numbers else None))
        elif not line.startswith("      "): kind = None
    values = dict(line.split() for line in importance.strip().splitlines())
    return splits, {name: float(v) for name, v in values.items()}


def main(argv):
    text = rpart_summary_text()
    if argv[1:] == ["check"]:
        if STORED.read_text() != text:
            print(f"{STORED} differs from what rpart prints now: rerun without 'check' to rewrite it")
            return 1
        print(f"{STORED} is what rpart prints now")
        return 0
    STORED.write_text(text)
    print(f"wrote {STORED} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
