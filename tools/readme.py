"""Write README.md from nbs/index.ipynb (Quarto cannot be installed here, so no nbdev_readme).

Hidden cells (`#| hide`, `#| default_exp`, tag remove-cell) are dropped; markdown cells are
copied; a cell marked `#| echo: false` shows only what it displays, as Markdown (the reading
paths' table, counted from the chapters); other code cells become fenced Python blocks, each
followed by the text it prints.
The outputs are computed here, not copied from the notebook (which is committed without outputs):
the visible code cells run in order, in one fresh Python process started from `nbs/` (where the
book runs them), without the hidden cells, so the README's snippets are exactly what a reader can
paste into a fresh interpreter. As in a notebook, a cell whose last statement is an expression also
shows that expression's value. Figures are not shown (the book has them).

`--check` exits 1 if README.md is not what the notebook generates now (the snippets are run again).
"""
import json, os, subprocess, sys
from pathlib import Path
import nbformat

sys.path.insert(0, str(Path(__file__).parent))
from nbtags import wanted_tags

HEADER = "<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, then `make readme` -->\n\n"

# Runs in the child: execute each cell, capture what it prints, show a final expression's value.
RUNNER = r'''
import ast, contextlib, io, json, sys
cells, namespace, outputs = json.load(sys.stdin), {"__name__": "__main__"}, []
for i, source in enumerate(cells):
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(tree, f"<README snippet {i + 1}>", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), f"<README snippet {i + 1}>", "eval"), namespace)
                if hasattr(value, "_repr_markdown_"): print(value._repr_markdown_())   # Markdown(...)
                elif value is not None: print(repr(value))
    except BaseException:
        import traceback
        sys.stderr.write(f"README snippet {i + 1} failed:\n{source}\n\n{traceback.format_exc()}")
        sys.exit(1)
    outputs.append(out.getvalue())
sys.__stdout__.write(json.dumps(outputs))
'''


def visible_cells(nb_path):
    "The notebook's cells as the README shows them: ('markdown', text) or ('code', source without `#|` lines)."
    nb = nbformat.read(nb_path, as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cells.append(("markdown", cell.source.strip()))
        elif cell.cell_type == "code":
            if "remove-cell" in wanted_tags(cell) | set(cell.metadata.get("tags", [])): continue
            code = "\n".join(l for l in cell.source.splitlines() if not l.startswith("#|")).strip()
            shown = "#| echo: false" in cell.source.splitlines()       # only its output, as Markdown
            if code: cells.append(("output" if shown else "code", code))
    return cells


def run_snippets(snippets, cwd, python=sys.executable):
    "What each snippet prints when they run in order in one fresh Python process (RuntimeError if one fails)."
    env = dict(os.environ, MPLBACKEND="Agg")
    r = subprocess.run([python, "-c", RUNNER], input=json.dumps(snippets), cwd=cwd, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-4000:] or f"the README snippets exited with code {r.returncode}")
    return json.loads(r.stdout)


def render(nb_path):
    "The README text: markdown cells as they are, each code cell fenced with its printed output below it."
    nb_path = Path(nb_path)
    cells = visible_cells(nb_path)
    outputs = iter(run_snippets([text for kind, text in cells if kind != "markdown"], cwd=nb_path.parent))
    parts = []
    for kind, text in cells:
        if kind == "markdown":
            parts.append(text)
            continue
        if kind == "output":                 # an `#| echo: false` cell: what it displays, as Markdown
            parts.append(next(outputs).strip())
            continue
        parts.append(f"```python\n{text}\n```")
        printed = next(outputs).rstrip()
        if printed: parts.append(f"```\n{printed}\n```")
    return HEADER + "\n\n".join(parts) + "\n"


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    nb_path, out = (Path(args[0]), Path(args[1])) if len(args) == 2 else (Path("nbs/index.ipynb"), Path("README.md"))
    text = render(nb_path)
    if check:
        if not out.exists() or out.read_text() != text:
            print(f"{out} is stale: run `make readme` (it is generated from {nb_path}, snippet outputs included)")
            return 1
        return 0
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
