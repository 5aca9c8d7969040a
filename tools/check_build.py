"""Fail the book build if any notebook failed to execute; say what was built.

Jupyter Book 1.x only warns when a cell raises; it writes a log per failing notebook to
`_build/html/reports/`. This turns those logs into a failing exit code with the error shown.
It also fails if MathJax was not copied into the book (equations would not render offline),
lists the build's Sphinx warnings (given the build log as second argument), and prints the
number of pages and figures and the build time (from `make`'s `.build-started` stamp).

Usage: python tools/check_build.py [nbs/_build/html] [nbs/_build/build.log]
"""
import re, sys, time
from pathlib import Path

html = Path(sys.argv[1] if len(sys.argv) > 1 else "nbs/_build/html")
log = Path(sys.argv[2]) if len(sys.argv) > 2 else None
if not (html / "index.html").exists():
    sys.exit(f"no book at {html}: the build did not produce index.html")
reports = sorted((html / "reports").rglob("*.log")) if (html / "reports").exists() else []
if reports:
    for report in reports:
        print(f"--- {report.name}")
        print(report.read_text()[-3000:])
    sys.exit(f"{len(reports)} notebook(s) failed to execute; see the logs above")
if not (html / "mathjax").is_dir():
    sys.exit(f"no mathjax/ in {html}: the book would need a network to render equations (see tools/book_sphinx.py)")

if log and log.exists():
    text = re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(errors="replace"))
    warnings = [l for l in text.splitlines() if "WARNING:" in l and "[IPKernelApp]" not in l]
    if warnings:
        print(f"{len(warnings)} Sphinx warning(s) (they do not fail the build; the browser test checks the pages):")
        print("\n".join(f"  {w}" for w in warnings[:50]))

pages = sorted(p.relative_to(html) for p in html.glob("*.html") if p.name not in {"genindex.html", "search.html"})
figures = [p for p in (html / "_images").glob("*") if p.is_file()] if (html / "_images").exists() else []
started = html.parent / ".build-started"
took = f" in {time.time() - started.stat().st_mtime:.0f} s" if started.exists() else ""
print(f"built {len(pages)} pages and {len(figures)} figures{took}: " + ", ".join(map(str, pages)))
