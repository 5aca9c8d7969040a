"""Fail the book build if any notebook failed to execute.

Jupyter Book 1.x only warns when a cell raises; it writes a log per failing notebook to
`_build/html/reports/`. This turns those logs into a failing exit code with the error shown.
"""
import sys
from pathlib import Path

html = Path(sys.argv[1] if len(sys.argv) > 1 else "nbs/_build/html")
if not (html / "index.html").exists():
    sys.exit(f"no book at {html}: the build did not produce index.html")
reports = sorted((html / "reports").rglob("*.log")) if (html / "reports").exists() else []
if reports:
    for log in reports:
        print(f"--- {log.name}")
        print(log.read_text()[-3000:])
    sys.exit(f"{len(reports)} notebook(s) failed to execute; see the logs above")
pages = sorted(p.relative_to(html) for p in html.glob("*.html") if p.name not in {"genindex.html", "search.html"})
print(f"built {len(pages)} pages: " + ", ".join(map(str, pages)))
