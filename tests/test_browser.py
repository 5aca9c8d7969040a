"""The published book, read in a real browser (headless Chromium).

Every page of the table of contents is opened the way a reader opens it (file://, no network),
after MathJax has typeset it: it must load without JavaScript errors or failed requests, show no
error output, traceback or nbdev `#|` line, render every equation, and display every figure (every
chapter has at least one).
The sidebar numbers the chapters, prev/next follow the table of contents, search finds a
function, and no link inside the book is dead. A screenshot of each page's first screen (and of
each chapter's first equation and figure) goes to tests/screenshots/ for a person to look at.

`make test` builds the book just before running this; alone, the `book` fixture builds it when
the build is missing or older than its sources.
"""
import importlib
import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"


def toc_pages():
    "The book's pages in reading order: (page name, chapter number or None)."
    toc = yaml.safe_load((NBS / "_toc.yml").read_text())
    pages, number = [(toc["root"], None)], 0
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        for c in part["chapters"]:
            if part.get("numbered"): number += 1
            pages.append((c["file"], number if part.get("numbered") else None))
            pages += [(section["file"], None) for section in c.get("sections", [])]
    return pages


def chapter_of_page():
    "Every page of a chapter (its section pages too) -> the chapter's first page."
    toc, of = yaml.safe_load((NBS / "_toc.yml").read_text()), {}
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        for c in part["chapters"]:
            for page in [c["file"]] + [section["file"] for section in c.get("sections", [])]: of[page] = c["file"]
    return of


PAGES = [name for name, _ in toc_pages()]
CHAPTERS = {name: n for name, n in toc_pages() if n}

# What the page shows once MathJax is done and every image decoded.
INSPECT = r"""
(async () => {
  const timeout = ms => new Promise(resolve => setTimeout(resolve, ms));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise)
    await Promise.race([MathJax.startup.promise, timeout(20000)]);
  const article = document.querySelector('article') || document.body;
  const images = [...article.querySelectorAll('img')];
  await Promise.all(images.map(i => { i.loading = 'eager'; return i.decode().catch(() => null); }));
  const texts = sel => [...article.querySelectorAll(sel)].map(e => e.textContent.trim().slice(0, 400));
  const math = [...article.querySelectorAll('span.math, div.math')];
  const link = sel => { const a = document.querySelector(sel); return a ? a.getAttribute('href') : null; };
  return {
    title: document.title,
    heading: (article.querySelector('h1') || {textContent: ''}).textContent.trim(),
    mathjax: !!(window.MathJax && MathJax.version),
    mathjaxScripts: [...document.scripts].map(s => s.src).filter(s => /mathjax/i.test(s)),
    math: math.length,
    mathRendered: math.filter(e => e.querySelector('mjx-container')).length,
    mathUnrendered: math.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 120)),
    mathErrors: [...article.querySelectorAll('mjx-merror, .MathJax_Error')].map(e => e.textContent),
    strayDollars: [...article.querySelectorAll('p, li')].map(e => {       // prose whose $...$ was not read as math
      const copy = e.cloneNode(true);
      copy.querySelectorAll('.math, mjx-container, code, pre').forEach(m => m.remove());
      return copy.textContent;
    }).filter(t => t.includes('$')).map(t => t.slice(0, 160)),
    images: images.map(i => ({src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth,
                              height: i.naturalHeight, alt: i.getAttribute('alt') || ''})),
    errorOutputs: texts('.cell_output .traceback, .cell_output .error, .output.traceback, .output.error'),
    stderr: texts('.cell_output .stderr, .output.stderr'),
    tracebacks: texts('.cell_output').filter(t => t.includes('Traceback (most recent call last)')),
    directives: texts('.cell_input pre').filter(t => /^#\|/m.test(t)).map(t => t.slice(0, 120)),
    exported: article.querySelectorAll('.cell.nbdev-export').length,
    sidebar: [...document.querySelectorAll('.bd-sidebar-primary a.reference.internal')]
               .map(a => ({href: a.getAttribute('href'), text: a.textContent.trim()})),
    prev: link('a.left-prev'), next: link('a.right-next'),
  };
})()
"""


@pytest.fixture(scope="module")
def visit(book, browser, screenshots):
    "Open a page once (screenshots included) and return what it shows."
    seen = {}

    def open_page(name):
        if name not in seen:
            url = (book / f"{name}.html").as_uri()
            browser.open(url)
            info = browser.evaluate(INSPECT)
            info["problems"] = browser.problems()        # everything since the page was opened
            stem = f"{PAGES.index(name):02d}-{name}"
            browser.screenshot(screenshots / f"{stem}.png")
            for what, selector in (("math", "article div.math"), ("figure", "article img")):
                if name in CHAPTERS and browser.evaluate(
                        f"(() => {{ const e = document.querySelector('{selector}'); if (!e) return false;"
                        f" e.scrollIntoView({{block: 'center'}}); return true; }})()"):
                    browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                    browser.screenshot(screenshots / f"{stem}-{what}.png")
            seen[name] = info
        return seen[name]

    return open_page


# ---------------------------------------------------------------- every page

def test_every_page_of_the_toc_is_built(book):
    missing = [p for p in PAGES if not (book / f"{p}.html").exists()]
    assert not missing, f"pages in nbs/_toc.yml that the build did not produce: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_cleanly(visit, page):
    info = visit(page)
    assert info["heading"], f"{page}: no title heading"
    assert not info["problems"], f"{page}: the browser reported problems: {info['problems']}"
    assert not info["errorOutputs"] and not info["tracebacks"], \
        f"{page}: error output on the page: {info['errorOutputs'] + info['tracebacks']}"
    assert not info["stderr"], f"{page}: a cell printed to stderr (warnings show in the book): {info['stderr']}"
    assert not info["directives"], f"{page}: nbdev `#|` lines are visible in code: {info['directives']}"


@pytest.mark.parametrize("page", PAGES)
def test_math_is_rendered_offline(visit, page):
    info = visit(page)
    if info["math"] == 0: return
    assert info["mathjax"], f"{page}: has {info['math']} equations but MathJax did not start"
    assert all(s.startswith("file://") for s in info["mathjaxScripts"]), \
        f"{page}: MathJax is not loaded from the book itself: {info['mathjaxScripts']}"
    assert not info["mathUnrendered"], f"{page}: equations MathJax did not typeset: {info['mathUnrendered'][:5]}"
    assert not info["mathErrors"], f"{page}: TeX errors: {info['mathErrors']}"
    assert not info["strayDollars"], f"{page}: dollar signs left in the prose (math not parsed): {info['strayDollars'][:3]}"


DEFAULT_ALT = "Figure drawn by the code cell above."   # tools/book_sphinx.py, for cells without #| fig-alt


@pytest.mark.parametrize("page", PAGES)
def test_figures_are_shown(visit, book, page):
    undescribed = 0
    for img in visit(page)["images"]:
        path = book / unquote(urlsplit(img["src"]).path)
        assert path.is_file() and path.stat().st_size > 0, f"{page}: image file missing or empty: {img['src']}"
        assert img["complete"] and img["width"] > 0 and img["height"] > 0, f"{page}: image not decoded: {img}"
        assert img["alt"] and Path(img["alt"]).name != path.name, f"{page}: image without alt text: {img['src']}"
        undescribed += img["alt"] == DEFAULT_ALT
    if undescribed:   # a reminder, not a failure: the chapter's author knows what the figure shows
        warnings.warn(f"{page}: {undescribed} figure(s) without `#| fig-alt:` (a description for screen readers)")


def exports_code(page):
    "Whether a chapter's notebook has cells that go to the library (chapter 9 only measures: it exports nothing)."
    cells = json.loads((NBS / f"{page}.ipynb").read_text())["cells"]
    return any(c["cell_type"] == "code" and "".join(c["source"]).startswith("#| export") for c in cells)


def test_chapters_have_content(visit):
    "Each chapter shows math, and the library code it exports labelled as such (the book's two halves)."
    for page in CHAPTERS:
        info = visit(page)
        assert info["math"] > 0, f"{page}: no equation rendered"
        if exports_code(page): assert info["exported"] > 0, f"{page}: no exported cell labelled"
    assert sum(map(exports_code, CHAPTERS)) >= len(CHAPTERS) - 1


def test_every_chapter_has_a_figure(visit):
    "Every numbered notebook's chapter (the chapters and the measuring preliminary) shows at least one figure, on one of its pages."
    of, drawn = chapter_of_page(), {}
    for page in (p for p in PAGES if re.match(r"\d\d_", p)):
        drawn[of[page]] = drawn.get(of[page], False) or bool(visit(page)["images"])
    assert all(drawn.values()), f"chapters with no figure (every chapter draws at least one): {[c for c, d in drawn.items() if not d]}"


# ---------------------------------------------------------------- navigation

def test_sidebar_numbers_the_chapters(visit):
    sidebar = {a["href"]: a["text"] for a in visit(PAGES[0])["sidebar"]}
    for page, number in CHAPTERS.items():
        text = sidebar.get(f"{page}.html")
        assert text is not None, f"{page} is not in the sidebar"
        assert text.startswith(f"{number}. "), f"sidebar shows {text!r} for chapter {number}"
    for page in PAGES[1:]:
        if page not in CHAPTERS: assert not re.match(r"\d+\. ", sidebar[f"{page}.html"]), page
    # The book numbers chapters by position; the prose cites them by file number ("chapter 5").
    shifted = [f"{p} is shown as chapter {n}" for p, n in CHAPTERS.items() if p[:2].isdigit() and int(p[:2]) != n]
    if shifted:   # e.g. while a chapter is still missing: worth knowing, not a broken book
        warnings.warn("chapter numbers differ from file numbers: " + "; ".join(shifted))


def test_prev_and_next_follow_the_toc(visit):
    for i, page in enumerate(PAGES):
        info = visit(page)
        expected_prev = f"{PAGES[i - 1]}.html" if i > 0 else None
        expected_next = f"{PAGES[i + 1]}.html" if i + 1 < len(PAGES) else None
        assert info["prev"] == expected_prev, f"{page}: previous is {info['prev']}, expected {expected_prev}"
        assert info["next"] == expected_next, f"{page}: next is {info['next']}, expected {expected_next}"


def test_search_finds_a_library_function(book, browser):
    "Sphinx's search (search.html, run in the browser from searchindex.js) finds an object of the API page."
    name = re.search(r"<h3>(\w+)<a", (book / "api.html").read_text(encoding="utf-8"))[1]
    problems = browser.open((book / "search.html").as_uri() + f"?q={name}")
    results = browser.evaluate(r"""
      (async () => {
        for (let i = 0; i < 200; i++) {      // until the search reports that it has finished
          const summary = document.querySelector('#search-results .search-summary');
          if (summary && /finished|did not match/.test(summary.textContent))
            return [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'));
          await new Promise(r => setTimeout(r, 100));
        }
        return null;
      })()""")
    assert not problems, problems
    assert results is not None, "the search page never finished"
    assert results, f"search for {name!r} found nothing"
    assert any(r.startswith("api.html") for r in results), f"search for {name!r} missed the API page: {results}"


# ---------------------------------------------------------------- links

class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.urls = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key): self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "a" and key == "src"): self.urls.append(a[key])


def parsed(path, cache={}):
    if path not in cache:
        p = Links(); p.feed(path.read_text(encoding="utf-8", errors="replace")); cache[path] = p
    return cache[path]


def test_no_dead_internal_links(book):
    pages = [p for p in book.rglob("*.html") if not {"mathjax", "_static", "_sources"} & set(p.relative_to(book).parts)]
    dead = []
    for page in pages:
        for url in parsed(page).urls:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith(("mailto:", "javascript:", "data:")): continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                dead.append(f"{page.name}: {url} (no file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parsed(target).ids:
                dead.append(f"{page.name}: {url} (no anchor)")
    assert not dead, f"{len(dead)} dead links inside the book:\n" + "\n".join(sorted(set(dead))[:40])


# ---------------------------------------------------------------- generated pages

def test_api_page_lists_every_public_object_with_a_link_to_its_cell(book):
    api = parsed(book / "api.html")
    html = (book / "api.html").read_text(encoding="utf-8")
    modidx = importlib.import_module("climbing_trees._modidx").d["syms"]
    for module in modidx:
        assert f">{module}<" in html, f"API page lacks module {module}"
        for name in getattr(importlib.import_module(module), "__all__", []):
            assert re.search(rf"<h3>{re.escape(name)}(<a| )", html), f"API page lacks {module}.{name}"
    cell_links = [u for u in api.urls if "#cell-" in u]
    assert cell_links, "API page links to no exported cell"


def test_references_page_gathers_every_chapter(book):
    html = (book / "references.html").read_text(encoding="utf-8")
    for page, number in CHAPTERS.items():
        assert f'href="{page}.html' in html, f"references page does not link to chapter {number} ({page})"
