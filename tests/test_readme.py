"""The book's text is where a reader looks for it: prose in markdown cells, not in code comments,
and a README that is what nbs/index.ipynb generates, with snippets that run and print what it shows.

The rule for prose in a code cell (after dropping nbdev's `#|` directives), checked on every notebook:
- a cell that has comments but no code at all is a markdown cell in disguise;
- three or more consecutive comment lines are a paragraph (comments say why in a line or two);
- a comment that is Markdown syntax (a heading `# ## ...`, a table row `# | ... |`, a code fence) is
  text written for the rendered page.
Comments are found with Python's tokenizer, so `#` inside strings (code run in a subprocess) is not a comment.
"""
import io, re, subprocess, sys, tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
sys.path.insert(0, str(ROOT / "tools"))
import readme  # noqa: E402  (tools/readme.py)

MAX_COMMENT_RUN = 2
MARKDOWN_COMMENT = re.compile(r"^#\s*(#{1,6}\s|\|.*\|\s*$|```)")


def comment_lines(source):
    "Line numbers (1-based) of the comments that stand alone on their line, and of the lines holding code."
    comments, code = set(), set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and not tok.line[:tok.start[1]].strip():
                comments.add(tok.start[0])
            elif tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENDMARKER):
                code.update(range(tok.start[0], tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError, IndentationError):   # not plain Python: fall back to lines
        for n, line in enumerate(source.splitlines(), 1):
            if line.strip().startswith("#"): comments.add(n)
            elif line.strip(): code.add(n)
    return comments, code


def prose_in_code(source):
    "Why the source of a code cell holds text that belongs in a markdown cell; None if it does not."
    source = "\n".join("" if l.startswith("#|") else l for l in source.splitlines())
    comments, code = comment_lines(source)
    if not comments: return None
    if not code: return "it holds comments and no code: make it a markdown cell"
    lines = source.splitlines()
    for n in sorted(comments):
        if MARKDOWN_COMMENT.match(lines[n - 1].strip()):
            return f"line {n} is Markdown in a comment ({lines[n - 1].strip()[:60]!r}): put it in a markdown cell"
    run = 0
    for n in range(1, len(lines) + 1):
        run = run + 1 if n in comments else 0
        if run > MAX_COMMENT_RUN:
            return f"lines {n - run + 1}-{n} are a paragraph of comments: put the prose in a markdown cell"
    return None


def test_the_rule_catches_prose_and_passes_code():
    assert prose_in_code("# How the repository is organised\n# | path | what |\n# |---|---|") is not None
    assert "no code" in prose_in_code("#| hide\n# just a note")
    assert "paragraph" in prose_in_code("x = 1\n# one\n# two\n# three\ny = 2")
    assert "Markdown" in prose_in_code("# ## A section\nx = 1")
    assert prose_in_code("#| export\ndef f(x):\n    # why, in a line\n    # or two\n    return x  # and here\n") is None
    assert prose_in_code('code = """\n# not a comment\n# inside a string\n# at all\n"""\nrun(code)') is None
    assert prose_in_code("#| hide\nfrom fastcore.test import *") is None


@pytest.mark.parametrize("path", sorted(NBS.glob("*.ipynb")), ids=lambda p: p.name)
def test_no_markdown_inside_code_cells(path):
    nb = nbformat.read(path, as_version=4)
    found = [f"cell {i} ({cell.get('id', '?')}): {why}" for i, cell in enumerate(nb.cells)
             if cell.cell_type == "code" and (why := prose_in_code(cell.source))]
    assert not found, f"{path.name} keeps prose in code cells:\n" + "\n".join(found)


def test_readme_is_generated_from_index():
    "README.md is exactly what tools/readme.py writes now: the notebook's text, and what its snippets print."
    expected = readme.render(NBS / "index.ipynb")
    actual = (ROOT / "README.md").read_text()
    assert actual == expected, "README.md is stale: run `make readme` (it is generated from nbs/index.ipynb)"


def test_readme_snippets_print_what_it_shows():
    "Read from README.md itself: its Python blocks run in order in a fresh process and print the blocks that follow them."
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", (ROOT / "README.md").read_text(), flags=re.S | re.M)
    snippets, shown = [], []
    for (lang, body), after in zip(blocks, blocks[1:] + [("python", "")]):
        if lang == "python":
            snippets.append(body.rstrip("\n"))
            shown.append(after[1].rstrip("\n") if after[0] == "" else "")
    assert snippets, "README.md has no Python snippets"
    printed = readme.run_snippets(snippets, cwd=NBS)
    for snippet, out, want in zip(snippets, printed, shown):
        assert out.rstrip("\n") == want, f"the snippet\n{snippet}\nprints\n{out}\nbut the README shows\n{want}"
