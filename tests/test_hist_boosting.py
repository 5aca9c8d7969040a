"""Chapter 21's pieces of histogram boosting against scikit-learn's own code: baselines, weighted medians, bins past the
subsample, and the errors of bad input."""
import numpy as np
import pytest
from sklearn._loss.loss import AbsoluteError, HalfBinomialLoss, HalfMultinomialLoss, HalfPoissonLoss, HalfSquaredError
from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
from sklearn.utils.stats import _weighted_percentile

from climbing_trees.counting import BINNING_SUBSAMPLE
from climbing_trees.hist_boosting import baseline, bin_codes, fit_bins, gradients, weighted_median

LOSSES = {"squared_error": HalfSquaredError(), "absolute_error": AbsoluteError(), "poisson": HalfPoissonLoss(),
          "binary": HalfBinomialLoss(), "multinomial": HalfMultinomialLoss(n_classes=4)}


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_baseline_is_scikit_learns_intercept(loss, weighted):
    rng = np.random.default_rng(0)
    y = {"poisson": rng.poisson(1.5, 500).astype(float), "binary": rng.integers(0, 2, 500).astype(float),
         "multinomial": rng.integers(0, 4, 500).astype(float)}.get(loss, rng.normal(size=500))
    w = rng.uniform(0.2, 3, 500) if weighted else None
    theirs = LOSSES[loss].fit_intercept_only(y, w)
    np.testing.assert_allclose(baseline(loss, y, w, 4), np.ravel(theirs), rtol=1e-12, atol=1e-15)


def test_weighted_median_is_scikit_learns_weighted_percentile():
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 100):
        a, w = rng.normal(size=n), rng.integers(0, 4, n).astype(float)
        w[0] = max(w[0], 1.0)
        assert weighted_median(a, w) == _weighted_percentile(a, w, 50)


def test_bins_past_the_subsample_are_scikit_learns():
    "More rows than BINNING_SUBSAMPLE: the same rows drawn by the same seed, the same thresholds."
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=BINNING_SUBSAMPLE + 5_000), rng.exponential(size=BINNING_SUBSAMPLE + 5_000)])
    bins = fit_bins(X, 255, seed=7)
    mapper = _BinMapper(n_bins=256, subsample=BINNING_SUBSAMPLE, random_state=7).fit(X)
    for ours, theirs in zip(bins.edges, mapper.bin_thresholds_): np.testing.assert_array_equal(ours, theirs)


def test_unseen_categories_and_nan_go_to_the_missing_bin():
    X = np.array([[0.0, 1.5], [2.0, np.nan], [5.0, 0.5], [2.0, 2.5]])
    bins = fit_bins(X, 255, categorical=[0])
    codes = bin_codes(bins, np.array([[2.0, 1.0], [3.0, 1.0], [np.nan, np.nan]]))
    assert codes[0].tolist() == [1, 255, 255] and codes[1, 2] == 255


def test_bad_input_says_what_to_do():
    X = np.arange(600, dtype=float).reshape(300, 2)
    with pytest.raises(ValueError, match="more than max_bins=255: raise max_bins"):
        fit_bins(X, 255, categorical=[0])
    with pytest.raises(NotImplementedError, match="weighted percentiles"):
        fit_bins(X, 255, sample_weight=np.ones(300))
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        gradients("hinge", np.zeros(3), np.zeros((3, 1)))
