"""Write README.md from nbs/index.ipynb (Quarto cannot be installed here, so no nbdev_readme).

Hidden cells (`#| hide`, `#| default_exp`, tag remove-cell) are dropped; markdown cells are
copied; other code cells become fenced Python blocks. `--check` exits 1 if README.md is stale.
"""
import sys
from pathlib import Path
import nbformat

sys.path.insert(0, str(Path(__file__).parent))
from nbtags import wanted_tags

HEADER = "<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, then `make readme` -->\n\n"


def render(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source.strip())
        elif cell.cell_type == "code":
            if "remove-cell" in wanted_tags(cell) | set(cell.metadata.get("tags", [])): continue
            code = "\n".join(l for l in cell.source.splitlines() if not l.startswith("#|")).strip()
            if code: parts.append(f"```python\n{code}\n```")
    return HEADER + "\n\n".join(parts) + "\n"


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if not a.startswith("--")]
    nb_path, out = (Path(args[0]), Path(args[1])) if len(args) == 2 else (Path("nbs/index.ipynb"), Path("README.md"))
    text = render(nb_path)
    if check:
        if not out.exists() or out.read_text() != text:
            print(f"{out} is stale: run `make readme` (it is generated from {nb_path})")
            return 1
        return 0
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
