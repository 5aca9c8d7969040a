"""Check that no line of code in the book's notebooks is wider than the page (88 characters).

    python tools/check_width.py                      # every notebook in nbs/
    python tools/check_width.py --only nbs/12_without_orders.ipynb nbs/17_selection.ipynb
    python tools/check_width.py --allow FILE         # skip the notebooks FILE lists

Prints each line too long as `notebook:cell N:line M: (length) text`, then a count per notebook
and in all; exits 1 if any. The `#|` lines at the top of a cell (nbdev and Quarto directives,
`#| fig-alt: ...`) are not counted: the book drops them from the page. Everything else is
counted, hidden cells (`#| hide`) included, since the package and the README are made from them.

`--only NOTEBOOK...` checks just those notebooks (to turn the check on one notebook at a time);
`--allow FILE` skips the notebooks named in FILE (one file name a line, `#` comments allowed).
`tools/wrap_code.py` wraps the lines this check finds.
"""
import argparse, json, sys
from pathlib import Path

WIDTH = 88
ROOT = Path(__file__).resolve().parents[1]


def code_cells(path):
    "The notebook's code cells as (index among all cells, source text)."
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def long_lines(source, width=WIDTH):
    "The lines of a cell's source wider than `width`, as (line number from 1, text); directives excepted."
    found, directives = [], True
    for n, line in enumerate(source.split("\n"), 1):
        directives = directives and line.startswith("#|")
        if not directives and len(line) > width: found.append((n, line))
    return found


def notebook_long_lines(path, width=WIDTH):
    "Every line too long in a notebook, as (cell index, line number, text)."
    return [(i, n, line) for i, source in code_cells(path) for n, line in long_lines(source, width)]


def read_allowance(path):
    "The notebook names listed in an allowance file (one a line; blank lines and `#` comments skipped)."
    names = [l.split("#", 1)[0].strip() for l in Path(path).read_text(encoding="utf-8").splitlines()]
    return {Path(n).name for n in names if n}


def report(paths, width=WIDTH, out=sys.stdout):
    "Print the lines too long in `paths` and a count; return how many there are."
    total, per_notebook = 0, []
    for path in paths:
        found = notebook_long_lines(path, width)
        for cell, n, line in found:
            print(f"{path}:cell {cell}:line {n}: ({len(line)}) {line}", file=out)
        if found: per_notebook.append((path, len(found)))
        total += len(found)
    for path, count in per_notebook: print(f"{count:6d} lines over {width} in {path}", file=out)
    print(f"{total} code lines over {width} characters in {len(per_notebook)} of {len(paths)} notebooks",
          file=out)
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NOTEBOOK", help="check only these notebooks")
    parser.add_argument("--allow", metavar="FILE", help="skip the notebooks named in FILE")
    parser.add_argument("--nbs", default=str(ROOT / "nbs"), help="the notebooks' folder (default: nbs/)")
    parser.add_argument("--width", type=int, default=WIDTH)
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.only] if args.only else sorted(Path(args.nbs).glob("*.ipynb"))
    if args.allow:
        allowed = read_allowance(args.allow)
        paths = [p for p in paths if p.name not in allowed]
    return 1 if report(paths, args.width) else 0


if __name__ == "__main__":
    sys.exit(main())
