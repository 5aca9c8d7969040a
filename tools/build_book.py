"""`jupyter-book build` with Sphinx reading N pages at once: `python tools/build_book.py N <jupyter-book build arguments>`.

Reading a page executes its notebook, so with N = 2 two chapters run at the same time, one per core. Jupyter Book 1.x
has no option for Sphinx's parallel jobs; this passes one to the function its `build` command calls. Every extension
the book uses declares itself safe for parallel reading (Sphinx reads in order otherwise, and says so).
"""
import functools, sys

import jupyter_book.sphinx
from jupyter_book.cli.main import main

jobs = int(sys.argv.pop(1))
jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=jobs)
sys.argv[0] = "jupyter-book"
main(["build", *sys.argv[1:]])
