"""Wrap the code cells of notebooks so that no line is wider than the page (88 characters).

    python tools/wrap_code.py nbs/12_without_orders.ipynb ... [--check] [--width 88]
                              [--formatter yapf|ruff]

Only the lines that are too long change, each by the smallest of these that makes it fit:
1. a trailing comment moves onto its own line(s) just above the line, at its indentation,
   wrapped at the width (found with `tokenize`: a `#` inside a string is no comment), with
   the comment-only lines under it that continue it at its column;
2. a function's or class's docstring becomes a triple-quoted docstring wrapped at the width
   (its text kept; the first line right after the quotes, the closing quotes on their own line,
   or with `--close-quotes last-line` after the last words when they fit);
   a long line of a docstring already triple-quoted is wrapped where it is;
3. a full-line comment is re-wrapped at its indentation, with the rest of its paragraph;
4. a long `from ... import a, b` gets parentheses and its names on lines indented by four;
   another code line: the statement that holds it, and only it, goes through a formatter (yapf with
   `--lines`, or `ruff format --range`); if that is not enough, a string literal still too long
   is split into adjacent literals (implicit concatenation; in parentheses where it is not
   inside brackets) and an assignment's or return's value is put in parentheses, and the
   statement is formatted again.
These repeat until nothing changes, so a second run changes nothing. `#|` lines (nbdev
directives) are left alone; a cell that is not Python (IPython magics) is skipped with a message.
Before a cell is written its AST (`ast.dump`, docstrings compared with their whitespace
normalised) is compared with the original's: a cell whose AST would change is not written.

`--check` writes nothing: it lists the lines too long and exits 1 if there are any.
The formatters: yapf (the default: pep8 style, arguments packed onto lines aligned with their
bracket, as the book wraps by hand; where its continuation lines pile up past the middle of the
page, ruff's layout of that statement is taken if ruff is installed) or ruff (black's style:
one argument a line once a call does not fit; about twice the lines yapf adds).
"""
import argparse, ast, difflib, io, json, re, shutil, subprocess, sys, textwrap, tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_width import WIDTH, long_lines  # noqa: E402

PRAGMA = re.compile(r"#\s*(noqa|type:|fmt:|pragma|yapf:|!)")
MAX_ROUNDS = 12


class ASTChanged(Exception):
    "The wrapped cell does not parse to the same AST as the original."


# ---------------------------------------------------------------- helpers

def tokens(src):
    return list(tokenize.generate_tokens(io.StringIO(src).readline))


def excess(src, width):
    "How far, in characters, the cell's lines reach past the width (directives excepted)."
    return sum(len(line) - width for _, line in long_lines(src, width))


def is_directive(line):
    return line.lstrip().startswith("#|")


def docstring_exprs(tree):
    "The docstring statements of the functions and classes of a tree."
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                yield first


def normalised_dump(src):
    "`ast.dump` of a cell, with each docstring's whitespace collapsed to single spaces."
    tree = ast.parse(src)
    for expr in docstring_exprs(tree): expr.value.value = " ".join(expr.value.value.split())
    return ast.dump(tree)


def unsafe_rows(src, toks):
    "Rows (from 1) before which no line may be inserted: inside a string, after a backslash."
    bad = set()
    for t in toks:
        if t.end[0] > t.start[0]: bad.update(range(t.start[0] + 1, t.end[0] + 1))
    comment_rows = {t.start[0] for t in toks if t.type == tokenize.COMMENT}
    for r, line in enumerate(src.split("\n"), 1):
        if line.endswith("\\") and r not in comment_rows: bad.add(r + 1)
    return bad


def wrap_comment(indent, comment, width):
    "A comment as lines at `indent`, wrapped at the width (a word longer than that stays whole)."
    prefix = re.match(r"#+ ?", comment).group()
    body = comment[len(prefix):]
    lead = len(body) - len(body.lstrip(" "))
    prefix, body = prefix + body[:lead], body[lead:]
    room = max(width - len(indent) - len(prefix), 20)
    pieces = textwrap.wrap(body, room, break_long_words=False, break_on_hyphens=False)
    return [(indent + prefix + p).rstrip() for p in pieces or [""]]


def split_words(body, fstring=False):
    """The pieces of a string literal's source between which a line may break: after a space
    that is neither escaped, nor inside an `\\N{...}` escape, nor inside an f-string's braces."""
    pieces, start, i, depth = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if body.startswith("N{", i + 1): i = body.find("}", i) + 1 or len(body)
            else: i += 2
            continue
        if fstring and c in "{}":
            if depth == 0 and body.startswith(c * 2, i): i += 2; continue
            depth += 1 if c == "{" else -1
        elif c == " " and depth == 0:
            j = i
            while j < len(body) and body[j] == " ": j += 1
            pieces.append(body[start:j]); start = i = j
            continue
        i += 1
    if start < len(body): pieces.append(body[start:])
    return pieces


def group_words(words, first_room, room):
    """Words (each with the spaces after it) packed greedily into groups, a group's text
    without its last spaces at most `first_room` wide for the first group, `room` after."""
    groups, current, limit = [], "", first_room
    for w in words:
        if current and len((current + w).rstrip()) > limit:
            groups.append(current); current, limit = "", room
        current += w
    if current or not groups: groups.append(current)
    return groups


def fill(words, first_room, room):
    "The lines of words packed greedily: the first `first_room` wide, the others `room`."
    return [g.rstrip() for g in group_words(words, first_room, room)]


STRING_PREFIX = re.compile(r"([a-zA-Z]*)('''|\"\"\"|'|\")")


# ---------------------------------------------------------------- 1. trailing comments

def move_trailing_comments(src, width):
    """Move each trailing comment of a line too long onto its own lines above that line; the
    comment-only lines right below it that start at its column, give or take two (its
    continuation), go with it."""
    lines, toks = src.split("\n"), tokens(src)
    unsafe = unsafe_rows(src, toks)
    comments = [t for t in toks if t.type == tokenize.COMMENT]
    alone = {t.start[0]: t for t in comments if not lines[t.start[0] - 1][:t.start[1]].strip()}
    for t in reversed(comments):
        r, c = t.start
        line = lines[r - 1]
        if not line[:c].strip() or PRAGMA.match(t.string) or is_directive(t.string): continue
        more = r + 1                                 # the comment's continuation lines
        while (more in alone and abs(alone[more].start[1] - c) <= 2
               and not is_directive(alone[more].string)):
            more += 1
        if all(len(l) <= width for l in lines[r - 1:more - 1]): continue
        text = " ".join([t.string] + [re.sub(r"^#+ ?", "", alone[k].string)
                                      for k in range(r + 1, more)])
        anchor = r
        while anchor in unsafe: anchor -= 1
        above = lines[anchor - 1]
        indent = above[:len(above) - len(above.lstrip())]
        lines[r - 1:more - 1] = [line[:c].rstrip()]
        lines[anchor - 1:anchor - 1] = wrap_comment(indent, text, width)
    return "\n".join(lines)


# ---------------------------------------------------------------- 2. docstrings

def wrap_docstrings(src, width, close="own-line"):
    lines, toks = src.split("\n"), tokens(src)
    exprs = sorted(docstring_exprs(ast.parse(src)), key=lambda e: e.lineno, reverse=True)
    for expr in exprs:
        first, last = expr.lineno, expr.end_lineno
        if all(len(lines[r - 1]) <= width for r in range(first, last + 1)): continue
        strings = [t for t in toks if t.type == tokenize.STRING
                   and first <= t.start[0] and t.end[0] <= last]
        if len(strings) != 1: continue
        t = strings[0]
        before, after = lines[first - 1][:t.start[1]], lines[last - 1][t.end[1]:]
        if before.strip() or after.strip(): continue
        prefix, quote = STRING_PREFIX.match(t.string).groups()
        if "b" in prefix.lower() or "f" in prefix.lower(): continue
        if t.start[0] == t.end[0]:
            body = t.string[len(prefix) + len(quote):-len(quote)]
            new = next((q for q in ('"""', "'''") if q not in body), None)
            if new is None or body.endswith("\\"): continue
            words = split_words(body)
            head = before + prefix + new
            text = fill(words, width - len(head), width - len(before))
            wrapped = [head + text[0]] + [before + l for l in text[1:]]
            if (close == "last-line" and len(wrapped[-1]) + 3 <= width
                    and not body.endswith(new[0])):
                wrapped[-1] += new                  # the closing quotes after the last words
            else: wrapped.append(before + new)      # PEP 257: on a line of their own
            lines[first - 1:first] = wrapped
        else:                                       # already triple-quoted: wrap its long lines
            for r in range(last, first - 1, -1):
                line = lines[r - 1]
                if len(line) <= width: continue
                if r == first: head, indent = before + prefix + quote, before
                else:
                    indent = line[:len(line) - len(line.lstrip(" "))]
                    head = indent
                words = split_words(line[len(head):])
                text = fill(words, width - len(head), width - len(indent))
                lines[r - 1:r] = [head + text[0]] + [indent + l for l in text[1:]]
    return "\n".join(lines)


# ---------------------------------------------------------------- 3. full-line comments

def wrap_full_line_comments(src, width):
    """Re-wrap each comment-only line too long, with the comment lines of its paragraph below
    it (same column and prefix, up to an empty comment or a list item), at its indentation, or
    at the indentation of the code below it if it starts further right (a trailing comment's
    continuation)."""
    lines, out, r = src.split("\n"), [], 1
    alone = {t.start[0]: t for t in tokens(src) if t.type == tokenize.COMMENT
             and not lines[t.start[0] - 1][:t.start[1]].strip()}
    while r <= len(lines):
        t, line = alone.get(r), lines[r - 1]
        if (t is None or len(line) <= width or is_directive(line) or PRAGMA.match(t.string)):
            out.append(line); r += 1
            continue
        prefix = re.match(r"#+ ?", t.string).group()
        more = r + 1
        while more in alone and alone[more].start[1] == t.start[1]:
            body = alone[more].string
            rest = body[len(prefix):]
            if not body.startswith(prefix) or re.match(r"(\s|#|[-*]\s|\d+[.)]\s|$)", rest): break
            more += 1
        text = " ".join([t.string] + [alone[k].string[len(prefix):] for k in range(r + 1, more)])
        below = next((l for l in lines[more - 1:] if l.strip() and not l.lstrip().startswith("#")),
                     "")
        indent = line[:t.start[1]]
        if len(indent) > len(below) - len(below.lstrip()) + 8:
            indent = below[:len(below) - len(below.lstrip())]
        out += wrap_comment(indent, text, width)
        r = more
    return "\n".join(out)


# ---------------------------------------------------------------- 4. code

YAPF_STYLE = ("{based_on_style: pep8, column_limit: %d, split_before_named_assigns: false, "
              "split_before_logical_operator: true, split_before_arithmetic_operator: true, "
              "join_multiple_lines: false, blank_lines_around_top_level_definition: 0, "
              "blank_line_before_nested_class_or_def: false, spaces_before_comment: 2, "
              "each_dict_entry_on_separate_line: false, split_before_dict_set_generator: false, "
              "allow_split_before_dict_value: false, spaces_around_power_operator: true}")


def format_yapf(src, first, last, width):
    from yapf.yapflib.yapf_api import FormatCode
    out, _ = FormatCode(src + "\n", style_config=YAPF_STYLE % width, lines=[(first, last)])
    return keep_blank_lines(src, out[:-1] if out.endswith("\n") else out)


def ruff_path():
    here = Path(sys.executable).parent / "ruff"
    return str(here) if here.exists() else shutil.which("ruff")


def format_ruff(src, first, last, width):
    lines = src.split("\n")
    cmd = [ruff_path(), "format", "--isolated", "--line-length", str(width),
           "--target-version", "py311", "--config", "format.quote-style='preserve'",
           "--range", f"{first}:1-{last}:{len(lines[last - 1]) + 1}",
           "--stdin-filename", "cell.py", "-"]
    done = subprocess.run(cmd, input=src + "\n", capture_output=True, text=True)
    if done.returncode: return src
    out = done.stdout
    return keep_blank_lines(src, out[:-1] if out.endswith("\n") else out)


FORMATTERS = {"yapf": format_yapf, "ruff": format_ruff}


def keep_blank_lines(old, new):
    "`new` with the blank lines a formatter added or removed put back as they were in `old`."
    a, b = old.split("\n"), new.split("\n")
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        hunk = b[j1:j2]
        if op == "delete" and not "".join(a[i1:i2]).strip(): hunk = a[i1:i2]
        extra = sum(not l.strip() for l in hunk) - sum(not l.strip() for l in a[i1:i2])
        while extra > 0:
            hunk.remove(next(l for l in hunk if not l.strip())); extra -= 1
        out += hunk
    return "\n".join(out)


def statement_spans(tree):
    "(first row, last row) of every simple statement, compound statement header and decorator."
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.stmt, ast.excepthandler)): continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = max(node.lineno, body[0].lineno - 1)
            spans.append((node.lineno, end))
            spans += [(d.lineno, d.end_lineno) for d in getattr(node, "decorator_list", [])]
        elif not isinstance(node, ast.excepthandler):
            spans.append((node.lineno, node.end_lineno))
    return spans


def span_of(row, spans):
    "The rows of the statement(s) holding `row`."
    mine = [s for s in spans if s[0] <= row <= s[1]]
    if not mine: return row, row
    inner = min(s[1] - s[0] for s in mine)
    mine = [s for s in mine if s[1] - s[0] == inner]
    return min(s[0] for s in mine), max(s[1] for s in mine)


def code_rows(src, width):
    "Rows too long that hold code (not only a comment, and not only a part of a long string)."
    toks = tokens(src)
    inside = set()
    for t in toks:
        if t.end[0] > t.start[0]: inside.update(range(t.start[0] + 1, t.end[0]))
    comment_only = {t.start[0] for t in toks if t.type == tokenize.COMMENT
                    and not src.split("\n")[t.start[0] - 1][:t.start[1]].strip()}
    return [r for r, _ in long_lines(src, width) if r not in inside and r not in comment_only]


def split_long_strings(src, rows, width):
    """Split the one-line string literals that reach past the width on `rows` into adjacent
    literals (the same string to Python); in parentheses where they are not in brackets."""
    lines, toks = src.split("\n"), tokens(src)
    depth, depths = 0, []
    for t in toks:
        depths.append(depth)
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        elif t.type == tokenize.OP and t.string in ")]}": depth -= 1
    edits, k = [], 0                        # edits: (row, first column, last column, new text)
    while k < len(toks):
        t = toks[k]
        if t.type != tokenize.STRING or t.start[0] not in rows or t.end[0] != t.start[0]:
            k += 1; continue
        run = [k]                           # the literals already side by side on this row
        while (run[-1] + 1 < len(toks) and toks[run[-1] + 1].type == tokenize.STRING
               and toks[run[-1] + 1].start[0] == t.start[0]):
            run.append(run[-1] + 1)
        k = run[-1] + 1
        line = lines[t.start[0] - 1]
        room = max(width - (len(line) - len(line.lstrip())) - 12, 24)
        parts = [split_literal(toks[j].string, room) if toks[j].end[1] > width - 4
                 else [toks[j].string] for j in run]
        if all(len(p) == 1 for p in parts): continue
        text = " ".join(piece for p in parts for piece in p)
        if depths[run[0]] == 0: text = "(" + text + ")"
        edits.append((t.start[0], t.start[1], toks[run[-1]].end[1], text))
    for r, c1, c2, text in reversed(edits):
        lines[r - 1] = lines[r - 1][:c1] + text + lines[r - 1][c2:]
    return "\n".join(lines)


def split_literal(literal, room):
    """A one-line string literal as adjacent literals, each at most `room` wide where its words
    allow (an f-string's pieces without braces lose their `f`); `[literal]` if it cannot split."""
    prefix, quote = STRING_PREFIX.match(literal).groups()
    if len(quote) == 3 or len(literal) <= room: return [literal]
    body, fstring = literal[len(prefix) + len(quote):-len(quote)], "f" in prefix.lower()
    inner = room - len(prefix) - 2 * len(quote)
    groups = group_words(split_words(body, fstring), inner, inner)
    if len(groups) < 2: return [literal]
    plain = prefix.replace("f", "").replace("F", "")
    return [(prefix if fstring and re.search(r"[{}]", g) else plain if fstring else prefix)
            + quote + g + quote for g in groups]


VALUE_KINDS = (ast.Tuple, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.UnaryOp)


def bracketable(node):
    "The expression of a statement that may be put in parentheses, or None."
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)):
        return node.value
    if isinstance(node, (ast.If, ast.While, ast.Assert)): return node.test
    return None


def parenthesise_values(src, rows, width=None):
    """Put in parentheses, on `rows`, the names a `from ... import` brings, the targets of an
    assignment to a tuple, and the value of an assignment, `return` or expression statement or
    the test of an `if`, `while` or `assert`, when it is an operation or a tuple written on one
    line outside any bracket."""
    tree, lines = ast.parse(src), src.split("\n")
    edits = []                                  # (row, first column, last column)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.lineno not in rows: continue
        line = lines[node.lineno - 1]
        if isinstance(node, ast.ImportFrom) and node.lineno == node.end_lineno:
            end = len(line.encode()[:node.end_col_offset].decode())
            match = re.search(r"\bimport\s+", line)
            if match and "(" not in line[match.end():end] and "*" not in line[match.end():end]:
                edits.append((node.lineno, match.end(), end))
            continue
        targets = node.targets if isinstance(node, ast.Assign) else []
        for value in [bracketable(node)] + [t for t in targets if isinstance(t, ast.Tuple)]:
            if not isinstance(value, VALUE_KINDS) or value.lineno != value.end_lineno: continue
            start = len(line.encode()[:value.col_offset].decode())
            end = len(line.encode()[:value.end_col_offset].decode())
            if isinstance(value, ast.Tuple) and line[start] == "(": continue
            edits.append((value.lineno, start, end))
    for r, c1, c2 in sorted(edits, reverse=True):
        line = lines[r - 1]
        lines[r - 1] = line[:c1] + "(" + line[c1:c2] + ")" + line[c2:]
    return "\n".join(lines)


def wrap_imports(src, width):
    """Each `from ... import a, b` on one line too long, as `from ... import (` and the names
    packed on lines indented by four (the same after nbdev turns the module into `.module`)."""
    lines = src.split("\n")
    for node in sorted(ast.parse(src).body, key=lambda n: -n.lineno):
        if not isinstance(node, ast.ImportFrom) or node.lineno != node.end_lineno: continue
        line = lines[node.lineno - 1]
        end = len(line.encode()[:node.end_col_offset].decode())
        if len(line) <= width or line[end:].strip(): continue
        match = re.search(r"\bimport\s+", line)
        names = line[match.end():end]
        if "(" in names or "*" in names: continue
        indent = line[:len(line) - len(line.lstrip())]
        words = [n.strip() + ", " for n in names.split(",")]
        words[-1] = words[-1][:-2] + ")"
        room = width - len(indent) - 4
        body = [indent + "    " + g.rstrip() for g in group_words(words, room, room)]
        lines[node.lineno - 1:node.lineno] = [line[:match.end()] + "("] + body
    return "\n".join(lines)


def format_long_statements(src, width, formatter):
    "Reformat, one statement at a time from the bottom up, the statements with long code lines."
    fmt, tried = FORMATTERS[formatter], set()
    src = wrap_imports(src, width)
    while True:
        lines, spans = src.split("\n"), statement_spans(ast.parse(src))
        todo = [s for s in map(lambda r: span_of(r, spans), code_rows(src, width))
                if tuple(lines[s[0] - 1:s[1]]) not in tried]
        if not todo: return src
        first, last = todo[-1]
        tried.add(tuple(lines[first - 1:last]))
        src = improve(src, first, last, width, fmt)


def awkward(src, first, last, width):
    """How awkward the statement on rows `first` to `last` reads: how many of its continuation
    lines, past the first one, start beyond the middle of the page (yapf's alignment under a
    far bracket), and how many start with `as`, `is` or `in` (a break inside a phrase)."""
    lines = [l for l in src.split("\n")[first:last] if l.strip()]
    deep = sum(len(l) - len(l.lstrip()) > width // 2 for l in lines)
    torn = sum(l.lstrip().startswith(("as ", "is ", "in ")) for l in lines)
    return max(deep - 1, 0) + torn


def improve(src, first, last, width, fmt):
    """The best (least past the width, then no staircase, then fewest lines; same AST) of: the
    statement on rows `first` to `last` as it is, or formatted: as it is, with its long strings
    split, with its value in parentheses, or both. With yapf, a variant whose continuation
    lines pile up past the middle of the page is formatted by ruff as well."""
    reference, n_lines = normalised_dump(src), len(src.split("\n"))
    rows = set(range(first, last + 1))
    split = split_long_strings(src, rows, width)
    variants = [src, split, parenthesise_values(src, rows), parenthesise_values(split, rows)]
    best, best_key = src, (excess(src, width), 0, n_lines)
    for k, variant in enumerate(variants):
        if k and variant in variants[:k]: continue
        end = last + len(variant.split("\n")) - n_lines
        candidates = [fmt(variant, first, end, width)]
        if fmt is format_yapf and ruff_path():
            grown = len(candidates[0].split("\n")) - n_lines
            if awkward(candidates[0], first, last + grown, width):
                candidates.append(format_ruff(variant, first, end, width))
        for candidate in candidates:
            try: same = normalised_dump(candidate) == reference
            except SyntaxError: continue
            grown = len(candidate.split("\n")) - n_lines
            key = (excess(candidate, width), awkward(candidate, first, last + grown, width),
                   n_lines + grown)
            if same and key < best_key: best, best_key = candidate, key
    return best


# ---------------------------------------------------------------- cells and notebooks

def is_python(src):
    "Whether a cell is plain Python (IPython magics are not)."
    try: ast.parse(src)
    except SyntaxError: return False
    return True


def wrap_source(src, width=WIDTH, formatter="yapf", close="own-line"):
    "A cell's source with its long lines wrapped; raises ASTChanged rather than change the AST."
    if not long_lines(src, width): return src
    original = normalised_dump(src)
    for _ in range(MAX_ROUNDS):
        before = src
        src = move_trailing_comments(src, width)
        src = wrap_docstrings(src, width, close)
        src = wrap_full_line_comments(src, width)
        src = format_long_statements(src, width, formatter)
        if src == before: break
    if normalised_dump(src) != original: raise ASTChanged()
    return src


def wrap_notebook(path, width=WIDTH, formatter="yapf", write=True, out=None, close="own-line"):
    "Wrap a notebook's code cells in place; return (cells changed, lines still too long)."
    out = out or sys.stdout
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    changed, remaining = 0, []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code": continue
        src = "".join(cell["source"])
        if not long_lines(src, width): continue
        if not is_python(src):
            print(f"{path}: cell {i} skipped: not Python (IPython magics?)", file=out)
            remaining += [(i, n, l) for n, l in long_lines(src, width)]
            continue
        try: new = wrap_source(src, width, formatter, close)
        except ASTChanged:
            print(f"{path}: cell {i} not written: wrapping would change its AST", file=out)
            new = src
        if new != src:
            changed += 1
            cell["source"] = [l + "\n" for l in new.split("\n")]
            cell["source"][-1] = cell["source"][-1][:-1]
            if not cell["source"][-1]: cell["source"].pop()
        remaining += [(i, n, l) for n, l in long_lines(new, width)]
    if write and changed:
        Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed, remaining


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a line is too long")
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--formatter", choices=sorted(FORMATTERS), default="yapf")
    parser.add_argument("--close-quotes", choices=["own-line", "last-line"], default="own-line",
                        help="where a wrapped docstring's closing quotes go (default: PEP 257's "
                             "own line; last-line saves a line a docstring)")
    args = parser.parse_args(argv)
    total = 0
    for path in args.notebooks:
        if args.check:
            from check_width import notebook_long_lines
            remaining = notebook_long_lines(path, args.width)
        else:
            changed, remaining = wrap_notebook(path, args.width, args.formatter,
                                               close=args.close_quotes)
            print(f"{path}: {changed} cells wrapped, {len(remaining)} lines still too long")
        for cell, n, line in remaining:
            print(f"{path}:cell {cell}:line {n}: ({len(line)}) {line}")
        total += len(remaining)
    if args.check: print(f"{total} code lines over {args.width} characters")
    return 1 if args.check and total else 0


if __name__ == "__main__":
    sys.exit(main())
