"""What :func:`robustpca.plotting.plot_outlier_map` draws, from the mutation audit of
``plotting.py``.

Its docstring: the score distance against the orthogonal distance with both cutoffs, the
flagged samples apart and labelled (by default the diagnostics' row labels: 1-based row
numbers, as rrcov); with no OD cutoff (``k`` equal to the rank) the score distances
against the sample number with the SD cutoff; lazy (Dask) diagnostics drawn computed; a
figure built without pyplot (no global backend state). The title names the quantile of
the cutoffs in percent.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import PCA
from robustpca.diagnostics import outlier_diagnostics
from robustpca.plotting import plot_outlier_map

pytest.importorskip("matplotlib")


def _diagnostics(k=2, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, k)) @ rng.normal(size=(k, d)) + 0.1 * rng.normal(size=(60, d))
    X[:3] += 8.0 * rng.normal(size=(3, d))  # off the subspace
    X[3:5] *= 10.0  # far along it
    return outlier_diagnostics(PCA(n_components=k).fit(X), X), X


def _lines(ax):
    vertical = [ln.get_xdata()[0] for ln in ax.lines if ln.get_xdata()[0] == ln.get_xdata()[1]]
    horizontal = [ln.get_ydata()[0] for ln in ax.lines if ln.get_ydata()[0] == ln.get_ydata()[1]]
    return vertical, horizontal


def test_the_map_is_sd_against_od_with_both_cutoffs():
    """Regular points grey, flagged red, at (SD, OD); the SD cutoff vertical, the OD
    cutoff horizontal; the axes named so."""
    diag, _ = _diagnostics()
    assert diag.orthogonal_cutoff > 0 and diag.outliers.any() and not diag.outliers.all()
    ax = plot_outlier_map(diag)
    regular, flagged = (c.get_offsets() for c in ax.collections)
    points = np.column_stack([diag.score_distances, diag.orthogonal_distances])
    np.testing.assert_allclose(flagged, points[diag.outliers])
    np.testing.assert_allclose(regular, points[~diag.outliers])
    assert _lines(ax) == ([diag.score_cutoff], [diag.orthogonal_cutoff])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("score distance", "orthogonal distance")
    assert "97.5% quantile" in ax.get_title()


def test_without_od_cutoff_the_sd_cutoff_is_drawn_across_the_samples():
    """k equal to the rank: the score distances by 1-based sample number, with the SD
    cutoff as a horizontal line (rrcov's plot)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    X[:2] *= 30.0
    diag = outlier_diagnostics(PCA(n_components=3).fit(X), X)
    assert diag.orthogonal_cutoff == 0.0
    ax = plot_outlier_map(diag)
    regular = ax.collections[0].get_offsets()
    np.testing.assert_array_equal(regular[:, 0], np.flatnonzero(~diag.outliers) + 1)
    np.testing.assert_allclose(regular[:, 1], diag.score_distances[~diag.outliers])
    assert _lines(ax) == ([], [diag.score_cutoff])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("sample", "score distance")


def test_default_labels_are_the_row_labels_of_the_flagged_samples_only():
    """Each flagged sample, and only those, is labelled with its 1-based row number at
    its point."""
    diag, _ = _diagnostics()
    ax = plot_outlier_map(diag)
    flagged = np.flatnonzero(diag.outliers)
    assert [t.get_text() for t in ax.texts] == [str(i + 1) for i in flagged]
    np.testing.assert_allclose(
        [t.xy for t in ax.texts],
        np.column_stack([diag.score_distances, diag.orthogonal_distances])[flagged],
    )


@pytest.mark.parametrize("labels", ["abc", True])
def test_labels_must_be_a_sequence_of_one_per_sample(labels):
    """A string or ``True`` is not a sequence of labels; more labels than samples is an
    error as fewer is."""
    diag, X = _diagnostics()
    with pytest.raises(TypeError, match="labels"):
        plot_outlier_map(diag, labels=labels)
    with pytest.raises(ValueError, match="one entry per sample"):
        plot_outlier_map(diag, labels=[str(i) for i in range(len(X) + 1)])


def test_lazy_diagnostics_draw_the_same_map():
    """Dask diagnostics are drawn computed: the same points as the in-memory ones."""
    da = pytest.importorskip("dask.array")
    diag, X = _diagnostics()
    model = PCA(n_components=2).fit(X)
    lazy = outlier_diagnostics(model, da.from_array(X, chunks=(20, 5)))
    eager = plot_outlier_map(diag).collections
    drawn = plot_outlier_map(lazy).collections
    for a, b in zip(eager, drawn, strict=True):
        np.testing.assert_allclose(b.get_offsets(), a.get_offsets(), rtol=1e-9)


def test_no_pyplot_figure_is_created():
    """The map is built without pyplot: no figure is registered with its global state."""
    plt = pytest.importorskip("matplotlib.pyplot")
    before = plt.get_fignums()
    diag, _ = _diagnostics()
    ax = plot_outlier_map(diag)
    assert plt.get_fignums() == before
    assert ax.figure is not None
