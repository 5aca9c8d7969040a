"""tools/wrap_code.py and tools/check_width.py on small notebooks written for each test.

Nothing here reads nbs/: the notebooks are made in pytest's tmp_path.
"""
import ast, json, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import check_width, wrap_code  # noqa: E402

WIDTH = 88
FORMATTERS = [f for f in ("yapf", "ruff")
              if (f == "ruff" and wrap_code.ruff_path())
              or (f == "yapf" and __import__("importlib").util.find_spec("yapf"))]
if not FORMATTERS: pytest.skip("neither yapf nor ruff is installed", allow_module_level=True)


def notebook(path, *cells):
    "Write a notebook whose cells are the given sources (code) or ('markdown', text)."
    def cell(c):
        kind, src = c if isinstance(c, tuple) else ("code", c)
        lines = [l + "\n" for l in src.split("\n")]
        lines[-1] = lines[-1][:-1]
        extra = {"outputs": [], "execution_count": None} if kind == "code" else {}
        return {"cell_type": kind, "id": "0123abcd", "metadata": {}, "source": lines, **extra}
    nb = {"cells": [cell(c) for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def sources(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"]]


def run(tool, *args):
    return subprocess.run([sys.executable, str(ROOT / "tools" / tool), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def widest(src): return max(len(l) for l in src.split("\n"))


LONG_CALL = ("result = combine(first_argument, second_argument, third_argument, "
             "fourth_argument, fifth=5, sixth=6)")
TRAILING = ("x = compute(1, 2)" + " " * 20
            + "# a comment that explains why the numbers are one and two, long enough")
DOCSTRING = ('def grow(X, y):\n    "Grow a tree on `X` and `y`, one node at a time, depth first, '
             'until the leaves are pure or the limits stop it."\n    return X')
HASH_STRING = 's = "a # in a string is no comment"   # the real comment'


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_trailing_comment_moves_above(formatter):
    out = wrap_code.wrap_source("def f():\n    " + TRAILING.replace("\n", "\n    "),
                                WIDTH, formatter)
    assert out.split("\n")[1:] == [
        "    # a comment that explains why the numbers are one and two, long enough",
        "    x = compute(1, 2)"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_trailing_comment_in_brackets_stays_in_its_bracket(formatter):
    src = ("values = [1,\n          2" + " " * 60 + "# two: the second value, and a comment "
           "long enough to wrap\n          ]")
    out = wrap_code.wrap_source(src, WIDTH, formatter)
    assert widest(out) <= WIDTH
    namespace = {}
    exec(out, namespace)
    assert namespace["values"] == [1, 2]
    assert "# two: the second value" in out


def test_trailing_comment_takes_its_continuation_along():
    src = ("def f():\n    proxy = split_proxy(left, right)" + " " * 30 + "# the caller's sums: "
           "it writes into them\n" + " " * 64 + "# (0 / 0 where no cut: under its errstate)\n"
           "    return proxy")
    assert wrap_code.wrap_source(src, WIDTH).split("\n") == [
        "def f():",
        "    # the caller's sums: it writes into them (0 / 0 where no cut: under its errstate)",
        "    proxy = split_proxy(left, right)",
        "    return proxy"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_docstring_wrapped(formatter):
    out = wrap_code.wrap_source(DOCSTRING, WIDTH, formatter)
    lines = out.split("\n")
    assert lines[1].startswith('    """Grow a tree on `X` and `y`')
    assert lines[-2] == '    """' and lines[-1] == "    return X"
    assert widest(out) <= WIDTH
    docstring = lambda src: " ".join(ast.get_docstring(ast.parse(src).body[0]).split())
    assert docstring(out) == docstring(DOCSTRING)


def test_docstring_closing_quotes_after_the_last_words():
    out = wrap_code.wrap_source(DOCSTRING, WIDTH, FORMATTERS[0], close="last-line")
    assert out.split("\n")[2] == '    pure or the limits stop it."""'


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_triple_quoted_docstring_line_wrapped(formatter):
    src = ('class A:\n    """First line.\n    ' + "word " * 20 + 'end.\n    """')
    out = wrap_code.wrap_source(src, WIDTH, formatter)
    assert widest(out) <= WIDTH and out.startswith('class A:\n    """First line.\n    word')


def test_full_line_comment_rewrapped():
    src = "    # " + " ".join(["word"] * 30)
    out = wrap_code.wrap_source("if True:\n" + src + "\n    pass", WIDTH)
    comments = out.split("\n")[1:-1]
    assert len(comments) == 2 and all(l.startswith("    # ") for l in comments)
    assert widest(out) <= WIDTH


def test_comment_paragraph_rewrapped_together():
    src = ("# " + "word " * 20 + "end of a line\n# and its next line\n#\n# - a list item\nx = 1")
    out = wrap_code.wrap_source(src, WIDTH).split("\n")
    assert out[:2] == ["# " + "word " * 16 + "word", "# word word word end of a line and its next line"]
    assert out[2:] == ["#", "# - a list item", "x = 1"]


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_imports_get_a_hanging_indent(formatter):
    src = "from climbing_trees.forests import " + ", ".join(f"Name{k}" for k in range(15))
    out = wrap_code.wrap_source(src, WIDTH, formatter).split("\n")
    assert out[0] == "from climbing_trees.forests import ("
    assert all(l.startswith("    Name") for l in out[1:]) and out[-1].endswith("Name14)")


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_long_call_reformatted(formatter):
    out = wrap_code.wrap_source(LONG_CALL, WIDTH, formatter)
    assert out != LONG_CALL and widest(out) <= WIDTH
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(LONG_CALL))


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_only_the_long_statement_changes(formatter):
    short = "y = {'a':1}   # odd spacing a formatter would change"
    out = wrap_code.wrap_source(short + "\n" + LONG_CALL + "\n" + short, WIDTH, formatter)
    assert out.split("\n")[0] == short and out.split("\n")[-1] == short


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_long_string_split_into_adjacent_literals(formatter):
    src = ('message = "' + "a sentence of words " * 6 + 'end"\n'
           'print(f"{len(message)} characters: ' + "more words here " * 5 + '{message!r}")')
    out = wrap_code.wrap_source(src, WIDTH, formatter)
    assert widest(out) <= WIDTH
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(src))


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_hash_in_string_is_not_a_comment(formatter):
    src = HASH_STRING.replace("the real comment", "the real comment " + "x" * 60)
    out = wrap_code.wrap_source(src, WIDTH, formatter)
    assert out.split("\n") == ["# the real comment " + "x" * 60,
                               's = "a # in a string is no comment"']


def test_directives_and_short_lines_untouched():
    src = "#| fig-alt: " + "a long description of the figure " * 4 + "\nx = 1  # short"
    assert wrap_code.wrap_source(src, WIDTH) == src


@pytest.mark.parametrize("formatter", FORMATTERS)
def test_idempotent_and_same_ast(formatter, tmp_path):
    cells = [LONG_CALL, TRAILING, DOCSTRING, HASH_STRING + " " * 60 + "and more words",
             "#| export\n" + DOCSTRING.replace("grow", "grow_more")]
    path = notebook(tmp_path / "nb.ipynb", *cells, ("markdown", "x " * 80))
    changed, remaining = wrap_code.wrap_notebook(path, WIDTH, formatter, out=open("/dev/null", "w"))
    assert changed == 5 and remaining == []
    once = path.read_text(encoding="utf-8")
    for before, after in zip(cells, sources(path)):
        assert wrap_code.normalised_dump(before) == wrap_code.normalised_dump(after)
    assert sources(path)[-1] == "x " * 80                            # markdown left alone
    assert wrap_code.wrap_notebook(path, WIDTH, formatter)[0] == 0
    assert path.read_text(encoding="utf-8") == once


def test_cell_whose_ast_would_change_is_not_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(wrap_code, "move_trailing_comments", lambda src, width: src + "\nz = 1")
    path = notebook(tmp_path / "nb.ipynb", TRAILING)
    before = path.read_text(encoding="utf-8")
    changed, remaining = wrap_code.wrap_notebook(path, WIDTH, FORMATTERS[0])
    assert changed == 0 and len(remaining) == 1
    assert "would change its AST" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == before


def test_magic_cell_skipped(tmp_path, capsys):
    magic = "%timeit " + LONG_CALL
    path = notebook(tmp_path / "nb.ipynb", magic, LONG_CALL)
    changed, remaining = wrap_code.wrap_notebook(path, WIDTH, FORMATTERS[0])
    assert changed == 1 and sources(path)[0] == magic and len(remaining) == 1
    assert "not Python" in capsys.readouterr().out


def test_check_exit_codes(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", LONG_CALL, "x = 1")
    before = path.read_text(encoding="utf-8")
    done = run("wrap_code.py", path, "--check")
    assert done.returncode == 1 and "cell 0:line 1" in done.stdout
    assert path.read_text(encoding="utf-8") == before                # --check writes nothing
    assert run("wrap_code.py", path, "--formatter", FORMATTERS[0]).returncode == 0
    assert run("wrap_code.py", path, "--check").returncode == 0
    assert run("wrap_code.py", path, "--check", "--width", "20").returncode == 1


def test_check_width(tmp_path):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    notebook(nbs / "01_good.ipynb", "#| fig-alt: " + "x" * 100 + "\nx = 1")
    notebook(nbs / "02_bad.ipynb", "x = 1", "#| hide\n" + LONG_CALL)
    done = run("check_width.py", "--nbs", nbs)
    assert done.returncode == 1
    assert "02_bad.ipynb:cell 1:line 2: (100)" in done.stdout and "01_good" not in done.stdout
    assert "1 code lines over 88 characters in 1 of 2 notebooks" in done.stdout
    assert run("check_width.py", "--only", nbs / "01_good.ipynb").returncode == 0
    allowance = tmp_path / "allow.txt"
    allowance.write_text("# not yet wrapped\n02_bad.ipynb\n")
    assert run("check_width.py", "--nbs", nbs, "--allow", allowance).returncode == 0
    assert check_width.long_lines("x\n#| not a directive below code " + "y" * 80) == [
        (2, "#| not a directive below code " + "y" * 80)]
