"""The corpus of fits (tools/fit_corpus.py): every fit must grow, bit for bit, the trees and predictions recorded in
tests/fit_corpus.json. After a deliberate change of the trees, re-record with `python tools/fit_corpus.py record`."""
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("fit_corpus", Path(__file__).resolve().parents[1] / "tools" / "fit_corpus.py")
fit_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_corpus)

FITS = fit_corpus.all_fits()
RECORDED = {e["name"]: e for e in fit_corpus.load_corpus()["fits"]}


def test_corpus_names_match():
    assert sorted(RECORDED) == sorted(f.name for f in FITS), "fits added or removed: re-record the corpus"


@pytest.mark.parametrize("fit", FITS, ids=[f.name for f in FITS])
def test_fit_matches_corpus(fit):
    if fit.name not in RECORDED: pytest.fail(f"{fit.name} is not recorded: run tools/fit_corpus.py record")
    now = fit_corpus.describe(fit)
    assert now["digest"] == RECORDED[fit.name]["digest"], "\n".join(fit_corpus.differences(RECORDED[fit.name], now))
