"""Give notebook cells the Jupyter Book tags that match their nbdev directives.

nbdev reads `#|` directives; myst-nb (Jupyter Book) reads cell tags. This script keeps the
two in step so that a `#| hide` cell is also hidden in the Jupyter Book, and so on.
`python tools/nbtags.py nbs` rewrites the notebooks; `--check` only reports (exit 1 on drift).
"""
import re, sys
from pathlib import Path
import nbformat

# directive -> tag myst-nb understands
DIRECTIVE_TAGS = {
    "hide": "remove-cell",
    "default_exp": "remove-cell",
    "eval: false": "skip-execution",
    "echo: false": "remove-input",
    "output: false": "remove-output",
    "code-fold: true": "hide-input",     # plumbing: folded behind a "Show code" button (Quarto folds it too)
}
MANAGED = set(DIRECTIVE_TAGS.values())


def directives(source):
    "The `#|` directives at the top of a code cell, normalised ('eval:false' -> 'eval: false')."
    found = []
    for line in source.splitlines():
        if not line.startswith("#|"): break
        d = line[2:].strip()
        d = re.sub(r"\s*:\s*", ": ", d)
        found.append(d.lower())
    return found


def wanted_tags(cell):
    tags = set()
    for d in directives(cell.source):
        for key, tag in DIRECTIVE_TAGS.items():
            if d == key or d.startswith(key + " "): tags.add(tag)
    return tags


def retag(nb):
    "Set the managed tags of every code cell; return True if anything changed."
    changed = False
    for cell in nb.cells:
        if cell.cell_type != "code": continue
        old = list(cell.metadata.get("tags", []))
        new = [t for t in old if t not in MANAGED] + sorted(wanted_tags(cell))
        if new != old:
            changed = True
            if new: cell.metadata["tags"] = new
            else: cell.metadata.pop("tags", None)
    return changed


def main(argv):
    check = "--check" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or [Path("nbs")]
    nbs = [p for a in paths for p in (sorted(a.glob("*.ipynb")) if a.is_dir() else [a])]
    drift = []
    for path in nbs:
        nb = nbformat.read(path, as_version=4)
        if retag(nb):
            drift.append(path)
            if not check: nbformat.write(nb, path)
    if check and drift:
        print("cell tags out of step with #| directives in:", *map(str, drift))
        print("run: make tags")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
