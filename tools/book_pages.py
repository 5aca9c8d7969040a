"""Generate the book's back matter from the chapters, when the book is built.

`nbs/api.ipynb` and `nbs/references.ipynb` call these functions and display the Markdown they
return, so the two pages follow the chapters and the library as they change:

- `api_markdown(nbs)`: every public object of the library (nbdev's index `_modidx.py` lists the
  modules and their symbols; each module's `__all__` its public names), with its signature, its
  docstring and a link to the notebook cell that defines it. The link comes from the markers
  nbdev writes into the generated modules (`# %% ../nbs/02_naive_split.ipynb #f34b2ba0`).
- `references_markdown(nbs)`: the `## References` section of every chapter, in book order.

Both run in the notebooks' working directory, `nbs/` (nbdev_test, Jupyter Book and Quarto all
execute notebooks there).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from pathlib import Path

import yaml

MARKER = re.compile(r"^# %% (?P<nb>\S+\.ipynb) (?:#(?P<id>\S+)|(?P<index>\d+))\s*$")


# ---------------------------------------------------------------- the book's chapters

def toc_entries(nbs):
    """The pages of the book in order, as (file stem, chapter number or None). A chapter's
    section pages (`sections:` under it in the toc: the continuation of a chapter too long
    for one page) follow it, unnumbered."""
    toc = yaml.safe_load((Path(nbs) / "_toc.yml").read_text())
    entries, number = [(toc["root"], None)], 0
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        for chapter in part.get("chapters", []):
            if part.get("numbered"): number += 1
            entries.append((chapter["file"], number if part.get("numbered") else None))
            entries += [(section["file"], None) for section in chapter.get("sections", [])]
    return entries


def chapter_pages(nbs):
    "Each page of the toc that is not a section page, with its section pages: {stem: [stem, *sections]}."
    toc = yaml.safe_load((Path(nbs) / "_toc.yml").read_text())
    pages = {toc["root"]: [toc["root"]]}
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        for chapter in part.get("chapters", []):
            pages[chapter["file"]] = [chapter["file"]] + [s["file"] for s in chapter.get("sections", [])]
    return pages


def page_chapters(nbs):
    "The chapter number of every page of the book, a section page's being its chapter's (None: unnumbered)."
    numbers = dict(toc_entries(nbs))
    return {page: numbers[stem] for stem, pages in chapter_pages(nbs).items() for page in pages}


def markdown_cells(path):
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return ["".join(c.get("source", "")) for c in nb.get("cells", []) if c.get("cell_type") == "markdown"]


def notebook_title(path):
    "The text of the first `# ` heading of a notebook."
    for source in markdown_cells(path):
        for line in source.splitlines():
            if line.startswith("# "): return line[2:].strip()
    return Path(path).stem


def markdown_section(path, heading):
    "The Markdown under the level-2 heading `heading` of a notebook, up to the next heading of level 1 or 2."
    text = "\n\n".join(markdown_cells(path))
    out, inside = [], False
    for line in text.splitlines():
        if re.match(r"^#{1,2} ", line):
            if inside: break
            inside = line[3:].strip().lower() == heading.lower() and line.startswith("## ")
            continue
        if inside: out.append(line)
    return "\n".join(out).strip() if inside or out else None


# ---------------------------------------------------------------- references

def references_markdown(nbs="."):
    "Every chapter's `## References` section, one section per chapter, in book order."
    nbs, parts = Path(nbs).resolve(), []
    for stem, number in toc_entries(nbs):
        path = nbs / f"{stem}.ipynb"
        if number is None or not path.exists(): continue
        title = notebook_title(path)
        refs = markdown_section(path, "References")
        parts.append(f"## {number}. {title}\n\nAs listed at the end of [chapter {number}]({path.name}#references):\n\n{refs}"
                     if refs else f"## {number}. {title}\n\n[Chapter {number}]({path.name}) has no references section yet.")
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- reading paths

WORDS_A_MINUTE = 200        # prose read with care, as one reads a textbook
CODE_LINES_A_MINUTE = 10    # code read line by line, output included

READING_PATHS = [           # (who it is for, what the path gives them, the chapters in reading order)
    ("Learn the algorithm",
     "how CART chooses, grows, prunes, handles categories and holes, and how ensembles build on it",
     ["01_impurity", "02_tree", "03_naive_split", "04_growth", "05_incremental", "06_categorical",
      "13_inference", "14_pruning", "15_missing", "18_forests", "19_boosting", "21_explaining"]),
    ("Use trees well",
     "what a tree fits, how to size, prune, read, explain and save one, and when a forest or boosting does better",
     ["01_impurity", "04_growth", "13_inference", "14_pruning", "15_missing", "16_estimators",
      "17_selection", "18_forests", "19_boosting", "20_model_files", "21_explaining", "23_hist_estimators"]),
    ("Make numpy fast",
     "how an algorithm that looks sequential becomes a few array operations a depth, measured at every step",
     ["00_measuring", "03_naive_split", "05_incremental", "07_frontier", "08_levelwise", "09_complexity",
      "10_making_numpy_fast", "11_counting", "12_without_orders", "22_hist_boosting"]),
]


def notebook_size(path):
    "(words of prose, lines of code) of a notebook."
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    words = sum(len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
    lines = sum(len("".join(c["source"]).splitlines()) for c in cells if c["cell_type"] == "code")
    return words, lines


def reading_minutes(words, lines):
    "The reading time of `words` of prose and `lines` of code at the rates above."
    return words / WORDS_A_MINUTE + lines / CODE_LINES_A_MINUTE


def reading_paths_markdown(nbs=".", links=True, counts=True):
    """The three reading paths as Markdown: for each, its chapters in order (with their
    numbers, linked if `links`) and its reading time (and, if `counts`, its words and
    lines of code), counted from the notebooks as they are now; then the same for the
    whole book. The landing page, copied into the README, shows only the hours, which
    change far less often than the counts."""
    nbs = Path(nbs).resolve()
    numbers = dict(toc_entries(nbs))
    pages = chapter_pages(nbs)
    every = [stem for stem, _ in toc_entries(nbs) if stem in pages and (nbs / f"{stem}.ipynb").exists()
             and (numbers[stem] is not None or stem == "00_measuring")]
    def entry(stem):
        title, n = notebook_title(nbs / f"{stem}.ipynb"), numbers[stem]
        text = title if n is None else f"{n}. {title}"
        return f"[{text}]({stem}.ipynb)" if links else f"*{text}*"
    def length(stems):
        sizes = [notebook_size(nbs / f"{page}.ipynb") for s in stems for page in pages[s]]
        words, lines = map(sum, zip(*sizes))
        hours = reading_minutes(words, lines) / 60
        counted = f"{words:,} words and {lines:,} lines of code: " if counts else ""
        return f"{counted}about {hours:.0f} hours"
    parts = []
    for name, gives, stems in READING_PATHS:
        missing = [s for s in stems if s not in numbers]
        if missing: raise ValueError(f"reading path {name!r} names pages not in the book: {missing}")
        order = [numbers[s] or 0 for s in stems]
        if order != sorted(order): raise ValueError(f"reading path {name!r} is not in book order")
        parts.append(f"**{name}** ({len(stems)} chapters; {length(stems)}): {gives}.\n\n"
                     + " · ".join(entry(s) for s in stems))
    parts.append(f"The whole book: {len(every)} chapters; {length(every)}. Times are at "
                 f"{WORDS_A_MINUTE} words of prose and {CODE_LINES_A_MINUTE} lines of code a minute, "
                 "counted from the chapters when this page was built.")
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- API reference

class _Annotation(str):
    "An annotation kept as written (`from __future__ import annotations`), shown without quotes."
    def __repr__(self): return str(self)


def signature(obj):
    "The call signature of a function or class, with readable annotations and defaults."
    try: sig = inspect.signature(obj)
    except (TypeError, ValueError): return None
    params = list(sig.parameters.values())
    if params and params[0].name in ("self", "cls") and not inspect.isclass(obj): params = params[1:]
    for i, p in enumerate(params):
        if isinstance(p.annotation, str): p = p.replace(annotation=_Annotation(p.annotation))
        if p.default is not p.empty and callable(p.default) and hasattr(p.default, "__name__"):
            p = p.replace(default=_Annotation(p.default.__name__))
        params[i] = p
    ret = sig.return_annotation
    if inspect.isclass(obj): ret = inspect.Signature.empty
    elif isinstance(ret, str): ret = _Annotation(ret)
    return str(sig.replace(parameters=params, return_annotation=ret))


def definition_cells(module_file):
    "For each line of a generated module, the notebook cell it came from: a list of (notebook, cell anchor)."
    cells, current = [], (None, None)
    for line in Path(module_file).read_text(encoding="utf-8").splitlines():
        m = MARKER.match(line)
        if m: current = (Path(m["nb"]).name, f"cell-{m['id'] or m['index']}")
        cells.append(current)
    return cells


def defining_line(module, name, obj):
    "1-based line of `module`'s source where `name` is defined, or None."
    try:
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", None) == module.__name__:
            return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        pass
    for i, line in enumerate(Path(module.__file__).read_text(encoding="utf-8").splitlines(), 1):
        if re.match(rf"^{re.escape(name)}\s*(:[^=]*)?=", line): return i
    return None


def assignment(module, line, limit=100):
    "The assignment starting on a line of a module's source, on one line, and its trailing `# comment`."
    lines = Path(module.__file__).read_text(encoding="utf-8").splitlines()
    end = line
    try:
        tree = ast.parse("\n".join(lines))
        end = next((n.end_lineno for n in tree.body if n.lineno == line), line)
    except SyntaxError:
        pass
    parts, comment = [], None
    for text in lines[line - 1:end]:
        code, sep, note = text.partition("  # ")
        parts.append(code.strip())
        if sep and comment is None: comment = note.strip()
    code = re.sub(r"([\[({]) ", r"\1", " ".join(p for p in parts if p))
    code = re.sub(r",? ([\])}])", r"\1", code) if len(parts) > 1 else code
    return (code if len(code) <= limit else code[:limit - 1] + "…"), comment


def short_repr(obj, limit=80):
    r = repr(obj)
    return r if len(r) <= limit else r[:limit - 1] + "…"


def first_paragraph(doc):
    return doc.strip().split("\n\n")[0].replace("\n", " ") if doc else None


def slugify(text, seen):
    "The anchor MyST gives a heading (myst_parser's default_slugify and compute_unique_slug)."
    slug = re.sub(r"[^\w\u4e00-\u9fff\- ]", "", text.lower().replace(" ", "-"))
    i = 1
    while slug in seen: slug, i = f"{slug}-{i}", i + 1
    seen.add(slug)
    return slug


def api_markdown(nbs=".", lib_name=None):
    "Markdown for the API reference: one section per module (book order), one per public object."
    nbs = Path(nbs).resolve()
    modidx = importlib.import_module(f"{lib_name}._modidx") if lib_name else None
    if modidx is None:
        settings = (nbs.parent / "settings.ini").read_text()
        lib_name = re.search(r"^lib_name\s*=\s*(\S+)", settings, re.M)[1]
        modidx = importlib.import_module(f"{lib_name}._modidx")
    syms = modidx.d["syms"]
    order = {f"{stem}.ipynb": i for i, (stem, _) in enumerate(toc_entries(nbs))}
    numbers = {f"{stem}.ipynb": n for stem, n in page_chapters(nbs).items()}

    modules = []
    for modname in syms:
        module = importlib.import_module(modname)
        cells = definition_cells(module.__file__)
        notebook = next((nb for nb, _ in cells if nb), None)
        modules.append((order.get(notebook, len(order)), modname, module, cells, notebook))
    modules.sort(key=lambda m: (m[0], m[1]))

    parts = []
    package = importlib.import_module(lib_name)
    top = [n for n in getattr(package, "__all__", [n for n in vars(package) if not n.startswith("_")])
           if not inspect.ismodule(getattr(package, n, None))]
    if top:   # the names the package itself exports, linked to their entries below (anchors filled in at the end)
        lines = [f"- `from {lib_name} import {n}`: [{getattr(getattr(package, n), '__module__', lib_name)}.{n}]"
                 f"(#@{getattr(getattr(package, n), '__module__', '')}.{n}@)" for n in top]
        parts.append("## Importing from the package\n\n" + "\n".join(lines))

    for _, modname, module, cells, notebook in modules:
        title = notebook_title(nbs / notebook) if notebook and (nbs / notebook).exists() else None
        number = numbers.get(notebook)
        where = (f"Derived in {'chapter ' + str(number) + ', ' if number else ''}[{title}]({notebook})."
                 if title and notebook in numbers else f"Written in `nbs/{notebook}`, not in the book yet." if notebook else "")
        head = [f"## {modname}", " ".join(filter(None, [where, (module.__doc__ or "").strip()]))]
        parts.append("\n\n".join(head))

        public = list(getattr(module, "__all__", None) or
                      [k.rsplit(".", 1)[1] for k in syms[modname] if k.count(".") == modname.count(".") + 1])
        methods = {}
        for key in syms[modname]:
            rest = key[len(modname) + 1:].split(".")
            if len(rest) == 2 and not rest[1].startswith("_"): methods.setdefault(rest[0], []).append(rest[1])
        for cls in methods:                       # methods patched onto a class of another module
            if cls not in public and not cls.startswith("_"): public.append(cls)
            methods[cls].sort(key=lambda meth: source_line(getattr(getattr(module, cls, None), meth, None)))

        for name in public:
            if name.startswith("_"): continue
            obj = getattr(module, name, None)
            foreign = obj is None or getattr(obj, "__module__", modname) != modname
            if name in methods and foreign and name not in getattr(module, "__all__", []):
                # methods this module adds (fastcore's @patch) to a class defined in another module
                entry = [f"### {name} (methods added here)"]
                for meth in methods[name]:
                    entry.append(method_entry(module, name, meth, cells, numbers))
                parts.append("\n\n".join(entry))
                continue
            line = defining_line(module, name, obj)
            nb, anchor = cells[line - 1] if line and line <= len(cells) else (None, None)
            link = source_link(nb, anchor, numbers)
            if getattr(obj, "__module__", modname) not in (modname, None) and (inspect.isclass(obj) or inspect.isfunction(obj)):
                link = f"imported from `{obj.__module__}`"
            if inspect.isclass(obj) or inspect.isroutine(obj):
                kind = "class" if inspect.isclass(obj) else "function"
                sig = signature(obj) or "(…)"
                doc = inspect.getdoc(obj) if obj.__doc__ else None
                if inspect.isclass(obj) and doc and doc.startswith(f"{name}("): doc = None   # dataclass default
                entry = [f"### {name}",
                         f"*{kind}* `{name}{sig}` · {link}",
                         doc or "*No docstring.*"]
                for meth in methods.get(name, []):   # linked when defined in a later cell (@patch)
                    entry.append(method_entry(module, name, meth, cells, numbers, class_anchor=anchor))
            else:
                code, comment = assignment(module, line) if line else (f"{name} = {short_repr(obj)}", None)
                kind = "type" if getattr(obj, "__module__", None) == "typing" else "constant"
                entry = [f"### {name}", f"*{kind}* `{code}` · {link}"]
                if comment: entry.append(comment[0].upper() + comment[1:] + ("" if comment.endswith(".") else "."))
            parts.append("\n\n".join(entry))
    return link_entries("\n\n".join(parts) + "\n")


def link_entries(markdown, taken=("api-reference",)):
    "Replace `#@module.name@` placeholders by the anchor MyST gives that object's heading on the page."
    seen, module, anchors = set(taken), None, {}
    for line in markdown.splitlines():
        m = re.match(r"^(#{2,3}) (.+)$", line)
        if not m: continue
        slug = slugify(m[2], seen)
        if m[1] == "##": module = m[2]
        else: anchors.setdefault(f"{module}.{m[2].split()[0]}", slug)
    return re.sub(r"\[([^\]]*)\]\(#@([\w.]+)@\)",
                  lambda m: f"[{m[1]}](#{anchors[m[2]]})" if m[2] in anchors else m[1], markdown)


def source_line(obj):
    "Where `obj` starts in its source file (methods are listed in the order the chapter wrote them)."
    try: return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError): return 10**9


def source_link(notebook, anchor, numbers):
    "A link to the cell that defines an object; plain text if its notebook is not (yet) in the book."
    if not notebook: return ""
    if notebook not in numbers: return f"source in `nbs/{notebook}` (not in the book yet)"
    text = f"source in chapter {numbers[notebook]}" if numbers[notebook] else f"source in {notebook}"
    return f"[{text}]({notebook}#{anchor})"


def method_entry(module, cls_name, meth, cells, numbers, class_anchor=None):
    cls = getattr(module, cls_name, None)
    obj = getattr(cls, meth, None) if cls is not None else None
    if obj is None: return f"- `{cls_name}.{meth}`"
    sig = signature(obj) or "(…)"
    try: line = inspect.getsourcelines(obj)[1] if inspect.getsourcefile(obj) == module.__file__ else None
    except (OSError, TypeError): line = None
    nb, anchor = cells[line - 1] if line and line <= len(cells) else (None, None)
    link = f" ({source_link(nb, anchor, numbers)})" if nb and anchor != class_anchor else ""
    doc = first_paragraph(inspect.getdoc(obj)) or "*No docstring.*"
    return f"- `{cls_name}.{meth}{sig}`{link}: {doc}"
