"""Sphinx extension for the Jupyter Book build of climbing-trees (nbs/_config.yml loads it).

What it does, and why:

1. MathJax offline. Jupyter Book loads MathJax from a CDN, so equations do not render without
   a network. `make mathjax` installs MathJax with npm (package.json) into node_modules/; this
   extension copies its es5/ folder into the built book as `mathjax/` and points `mathjax_path`
   there. (Not via `_static/`: Jupyter Book injects every .js file found there into every page.)
2. nbdev's `#|` lines are plumbing for nbdev and Quarto, not for readers: they are dropped from
   the displayed code. A cell marked `#| export` instead gets a small label naming the module it
   is exported to, and an anchor `cell-<cell id>` that the API reference links to.
   `#| hide` and `#| default_exp` cells are removed (as tools/nbtags.py's `remove-cell` tag does,
   so a notebook whose tags were not refreshed still renders cleanly).
3. Quarto's figure options work here too: `#| fig-alt: ...` sets the alt text of the cell's
   image output, `#| fig-cap: ...` wraps it in a figure with that caption. Without them the alt
   text says what the image is, instead of myst-nb's default, its file name.
4. A code cell tagged `book-sections` (the generated API and references pages) may print
   Markdown with headings: they become real sections of the page, so they appear in the page's
   table of contents and in search, instead of the bold rubrics myst-nb makes of them.
5. sphinx-thebe's inline script reaches each page twice, a JavaScript error on every page
   (`THEBE_JS_URL` declared twice): duplicates are dropped.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

MATHJAX_DIR = "mathjax"            # where the built book serves MathJax from
# `#| export`, `#| default_exp naive` (nbdev: arguments after a space), `#| fig-alt: text` (Quarto: YAML)
DIRECTIVE = re.compile(r"^#\|\s*(?P<key>[\w-]+)\s*(?::\s*(?P<value>.*)|\s+(?P<arg>.*))?$")
EXPORTS = {"export", "exports", "exporti"}
REMOVED = {"hide", "default_exp"}
DEFAULT_ALT = "Figure drawn by the code cell above."   # when the cell has no `#| fig-alt:`


# ---------------------------------------------------------------- MathJax, served from the book

def use_local_mathjax(app, config):
    # mathjax_path is relative to _static/; the copy sits beside it, at the root of the book.
    config.mathjax_path = f"../{MATHJAX_DIR}/{config.book_mathjax_file}"


def copy_mathjax(app):
    if app.builder.format != "html": return
    source = (Path(app.confdir) / app.config.book_mathjax_source).resolve()
    if not (source / app.config.book_mathjax_file).is_file():
        raise ExtensionError(f"MathJax is not installed at {source}: run `make mathjax` (npm ci) first, "
                             "so that the book renders equations without a network")
    shutil.copytree(source, Path(app.outdir) / MATHJAX_DIR, dirs_exist_ok=True)


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    # sphinx-thebe's inline configuration reaches the page twice (once with filename None, once
    # with ''), and the second `const THEBE_JS_URL` is a JavaScript error on every page.
    scripts, seen = context.get("script_files", []), set()
    unique = []
    for js in scripts:
        key = (getattr(js, "filename", js) or "", json.dumps(getattr(js, "attributes", {}), sort_keys=True))
        if key not in seen:
            seen.add(key); unique.append(js)
    scripts[:] = unique


# ---------------------------------------------------------------- nbdev directives in code cells

def directives(source):
    "The leading `#|` lines of a cell as (key, value) pairs, and the source without them."
    lines, found = source.splitlines(), []
    while lines and (m := DIRECTIVE.match(lines[0].strip())):
        value = (m["value"] or m["arg"] or "").strip()
        if value and value[0] in "\"'":
            try: value = str(yaml.safe_load(value))
            except yaml.YAMLError: pass
        found.append((m["key"].replace("_", "-") if m["key"].startswith("fig") else m["key"], value))
        lines.pop(0)
    return found, "\n".join(lines).strip("\n")


def is_cell(node, element="cell_code"):
    return isinstance(node, nodes.container) and node.get("nb_element") == element


def notebook_cells(app, docname):
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb": return None, None
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb.get("cells", [])
    default_exp = None
    for cell in cells:
        if cell.get("cell_type") != "code": continue
        for key, value in directives("".join(cell.get("source", "")))[0]:
            if key == "default_exp": default_exp = value.split()[0] if value else None
    return cells, default_exp


def tidy_code_cells(app, doctree):
    docname = app.env.docname
    cells, default_exp = notebook_cells(app, docname)
    if cells is None: return
    lib = app.config.book_lib_name
    for cell in list(doctree.findall(is_cell)):
        index = cell.get("cell_index")
        if index is None or index >= len(cells): continue
        raw = cells[index]
        found, code = directives("".join(raw.get("source", "")))
        keys = {k for k, _ in found}
        if keys & REMOVED:
            cell.parent.remove(cell)
            continue
        for block in list(cell.findall(nodes.literal_block)):
            if not is_cell(block.parent, "cell_code_source"): continue
            if not found: continue
            if not code:
                block.parent.parent.remove(block.parent)
                continue
            new = nodes.literal_block(code, code)
            new.update_all_atts(block)
            new.source, new.line = block.source, block.line
            block.replace_self(new)
        exported = [v for k, v in found if k in EXPORTS]
        if exported:
            module = exported[0].split()[0] if exported[0] else default_exp
            anchor = f"cell-{raw.get('id') or index}"
            cell["ids"].append(anchor)
            cell["classes"].append("nbdev-export")
            slugs = app.env.metadata[docname].setdefault("myst_slugs", {})
            slugs[anchor] = (cell.line, anchor, f"{lib}.{module}")
            source = next((c for c in cell.children if is_cell(c, "cell_code_source")), None)
            if source is not None and module:
                label = nodes.paragraph("", "", nodes.Text("exported to "),
                                        nodes.literal(f"{lib}.{module}", f"{lib}.{module}"),
                                        classes=["nbdev-export-label"])
                if "hide-input" in raw.get("metadata", {}).get("tags", []):
                    cell.insert(cell.index(source) + 1, label)   # a folded cell says what it holds under its "Show code" button
                else: source.insert(0, label)
        options = dict(found)
        for image in list(cell.findall(nodes.image)):
            # myst-nb's alt text is the image's file name; say at least what it is
            image["alt"] = options.get("fig-alt") or options.get("fig-cap") or DEFAULT_ALT
            if "fig-cap" in options:
                caption = nodes.caption(options["fig-cap"], options["fig-cap"])
                figure = nodes.figure("", image.deepcopy(), caption, classes=["nbdev-figure"])
                doctree.set_id(figure)        # Sphinx numbers and links figures by id
                image.replace_self(figure)


# ---------------------------------------------------------------- headings printed by a cell

def flatten_output(node):
    "Body nodes of a cell's output, taken out of myst-nb's containers (the Markdown of a mime bundle)."
    out = []
    for child in node.children:
        if not isinstance(child, nodes.container):
            out.append(child)
        elif child.get("nb_element") == "mime_bundle":
            markdown = [c for c in child.children if c.get("mime_type") == "text/markdown"]
            out += flatten_output(markdown[0]) if markdown else [child]
        elif child.get("nb_element") == "cell_code_output" or child.get("mime_type") == "text/markdown":
            out += flatten_output(child)
        else:
            out.append(child)
    return out


def promote_output_headings(app, doctree):
    for cell in list(doctree.findall(is_cell)):
        if "book-sections" not in cell.get("cell_metadata", {}).get("tags", []): continue
        parent = cell.parent
        if not isinstance(parent, (nodes.section, nodes.document)):
            logger.warning("a book-sections cell must sit directly in a section", location=cell)
            continue
        if parent.index(cell) != len(parent) - 1:
            logger.warning("a book-sections cell must be the last cell of its section", location=cell)
            continue
        outputs = [c for c in cell.children if is_cell(c, "cell_code_output")]
        body = flatten_output(outputs[0]) if outputs else []
        parent.remove(cell)
        base = max(1, int(next((r.get("level", 1) for r in body if isinstance(r, nodes.rubric)), 1)) - 1)
        stack = [(base, parent)]
        for child in body:
            if isinstance(child, nodes.rubric):
                level = int(child.get("level", base + 1))
                while len(stack) > 1 and stack[-1][0] >= level: stack.pop()
                section = nodes.section("", ids=list(child["ids"]), names=list(child["names"]),
                                        classes=["book-generated"])
                section.source, section.line = child.source, child.line
                section += nodes.title(child.rawsource, "", *[c.deepcopy() for c in child.children])
                stack[-1][1].append(section)
                stack.append((level, section))
            else:
                child.parent = None
                stack[-1][1].append(child)
        # the ids of the rubrics now name sections
        for section in parent.findall(nodes.section):
            for node_id in section["ids"]:
                doctree.ids[node_id] = section


# Two extensions Jupyter Book adds keep no state per page but do not say so, and Sphinx then reads the pages one at a
# time even when asked for several jobs (tools/build_book.py): sphinx_multitoc_numbering only replaces the section
# numbering that runs once every page has been read and merged; sphinx_jupyterbook_latex acts in LaTeX builds only.
UNDECLARED_PARALLEL_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")

def declare_parallel_reading(app, config):
    for name in UNDECLARED_PARALLEL_SAFE:
        extension = app.extensions.get(name)
        if extension is not None and extension.parallel_read_safe is None: extension.parallel_read_safe = True


def setup(app):
    app.connect("config-inited", declare_parallel_reading)
    app.add_config_value("book_mathjax_source", "../node_modules/mathjax/es5", "html")
    app.add_config_value("book_mathjax_file", "tex-chtml.js", "html")
    app.add_config_value("book_lib_name", "climbing_trees", "env")
    app.connect("config-inited", use_local_mathjax)
    app.connect("builder-inited", copy_mathjax)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    # before Sphinx's own doctree-read collectors (priority 500) build the page's table of contents
    app.connect("doctree-read", tidy_code_cells, priority=300)
    app.connect("doctree-read", promote_output_headings, priority=310)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
