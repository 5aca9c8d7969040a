"""The book's configuration: the Quarto project and the Jupyter Book list the same chapters, and
cell tags follow the nbdev directives (tests/test_readme.py checks the README and prose in code cells)."""
import subprocess, sys
from pathlib import Path
import yaml

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"


def page_path(name):
    "A toc entry (no suffix) as a path: a Markdown page if nbs/<name>.md exists, else a notebook."
    return f"nbs/{name}.md" if (NBS / f"{name}.md").exists() else f"nbs/{name}.ipynb"


def jupyter_book_chapters():
    toc = yaml.safe_load((NBS / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        for c in part["chapters"]:                  # a chapter, then its section pages
            files += [c["file"]] + [section["file"] for section in c.get("sections", [])]
    return [page_path(f) for f in files]


def quarto():
    return yaml.safe_load((ROOT / "_quarto.yml").read_text())


def quarto_chapters():
    "Every page of the Quarto book in order: chapters (parts flattened), then appendices."
    entries = []
    book = quarto()["book"]
    for c in book["chapters"] + book.get("appendices", []):
        if isinstance(c, dict): entries += c.get("chapters", [])   # a Quarto part
        else: entries.append(c)
    return entries


def test_quarto_yml_parses_as_a_book_project():
    q = quarto()
    assert q["project"]["type"] == "book"
    assert q["book"]["title"]


def test_every_quarto_chapter_exists():
    missing = [c for c in quarto_chapters() if not (ROOT / c).exists()]
    assert not missing, f"_quarto.yml lists chapters that do not exist: {missing}"


def test_quarto_and_jupyter_book_list_the_same_chapters_in_order():
    assert quarto_chapters() == jupyter_book_chapters()


def test_quarto_and_jupyter_book_have_the_same_title():
    jb = yaml.safe_load((NBS / "_config.yml").read_text())
    assert quarto()["book"]["title"] == jb["title"]


def test_every_notebook_is_in_the_book():
    notebooks = sorted(f"nbs/{p.name}" for p in NBS.glob("*.ipynb"))
    assert notebooks == sorted(c for c in jupyter_book_chapters() if c.endswith(".ipynb"))


def test_every_markdown_page_is_in_the_book():
    pages = sorted(f"nbs/{p.name}" for p in NBS.glob("*.md"))
    assert pages == sorted(c for c in jupyter_book_chapters() if c.endswith(".md"))


def test_every_jupyter_book_page_exists():
    missing = [c for c in jupyter_book_chapters() if not (ROOT / c).exists()]
    assert not missing, f"nbs/_toc.yml lists pages that do not exist: {missing}"


def test_cell_tags_follow_nbdev_directives():
    r = subprocess.run([sys.executable, "tools/nbtags.py", "--check", "nbs"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_reading_paths_name_chapters_of_the_book_in_book_order():
    "The three reading paths (landing page, how to read) list pages of the book, in its order, with their times."
    sys.path.insert(0, str(ROOT / "tools"))
    from book_pages import READING_PATHS, reading_paths_markdown
    text = reading_paths_markdown(NBS)
    assert text.count("hours") == len(READING_PATHS) + 1                 # each path, and the whole book
    for name, _, stems in READING_PATHS:
        assert f"**{name}** ({len(stems)} chapters;" in text
        assert all(f"({stem}.ipynb)" in text for stem in stems)
    short = reading_paths_markdown(NBS, links=False, counts=False)
    assert ".ipynb" not in short and "words" not in short.split("The whole book")[0]
