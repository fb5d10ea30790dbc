"""The detectors of the outlier benchmarks: robustpca's estimators, pyod's, and the
rankings of a robustpca fit by rules of their own (``bench_outliers.py`` runs them)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: robustpca's estimators run here (the 2-D ones take images; RobustTransferPCA needs a
#: source domain; KernelL21PCA forms an n x n kernel)
OURS = (
    "ROBPCA",
    "PCA",
    "OptimalMeanPCA",
    "HQPCA",
    "PrincipalComponentPursuit",
    "SphericalPCA",
    "CovariancePCA",
    "GoDec",
    "AccAltProj",
    "L21PCA",
    "L1PCA",
    "R1PCA",
    "GeneralizedMeanPCA",
    "AdaptiveNeighborsPCA",
    "OutlierPursuit",
    "ConvexOptimalMeanPCA",
    "RankConstrainedRobustPCA",
    "ProjectionPursuitPCA",
    "OnlineRobustPCA",
    "GRASTA",
)
#: pyod's detectors (class name, module), each with its defaults
PYOD = {
    "IForest": "pyod.models.iforest",
    "KNN": "pyod.models.knn",
    "LOF": "pyod.models.lof",
    "COPOD": "pyod.models.copod",
    "ECOD": "pyod.models.ecod",
    "HBOS": "pyod.models.hbos",
    "PCA": "pyod.models.pca",
    "OCSVM": "pyod.models.ocsvm",
    "MCD": "pyod.models.mcd",
}
SEED = 0


# ------------------------------------------------------------------------- detectors
def robustpca_factory(name: str, **params) -> Callable[[], object]:
    """A maker of robustpca's ``name`` with its defaults (``random_state=0``) and
    ``params``."""

    def make():
        import robustpca

        cls = getattr(robustpca, name)
        if "random_state" in cls().get_params():
            params.setdefault("random_state", SEED)
        return cls(**params)

    return make


def pyod_factory(name: str) -> Callable[[], object]:
    """A maker of pyod's detector ``name`` with its defaults (``random_state=0`` where
    it takes one)."""

    def make():
        import importlib

        cls = getattr(importlib.import_module(PYOD[name]), name)
        model = cls()
        if "random_state" in model.get_params():
            model.set_params(random_state=SEED)
        return model

    return make


class _Ranking:
    """A detector that ranks the rows of a fitted robustpca ``estimator`` by a rule of
    its own (``decision_function``, higher = more normal); there is no ``predict``
    (the labels stay the estimator's own)."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y=None):
        self.estimator.fit(X)
        self.n_components_ = int(getattr(self.estimator, "n_components_", 0) or 0)
        return self


class LikelihoodOutlyingness(_Ranking):
    r"""Rows ranked by their squared Mahalanobis distance under the fit's probabilistic
    PCA model (Tipping & Bishop 1999), the model of the estimators' ``score``:
    ``estimator.mahalanobis(X)``, :math:`m^2 = SD^2 + OD^2 / \sigma^2`, with :math:`SD`
    the score distance of the diagnostics (the robust eigenvalues) and :math:`\sigma^2`
    the median training :math:`OD^2` over the median of :math:`\chi^2_{d-k}`. Minus the
    row's log-likelihood up to a constant, so the two distances are weighed by one model
    rather than by their separate cutoffs (``decision_function``'s maximum of two
    ratios). ``decision_function`` is :math:`-m^2`."""

    def decision_function(self, X):
        return -self.estimator.mahalanobis(X)


class NormalScoreOutlyingness(_Ranking):
    """Rows ranked by the larger of their two distances as normal scores under the
    models of the cutoffs (:attr:`robustpca.diagnostics.OutlierDiagnostics.
    normal_outlyingness`): the smaller of the two tail probabilities, where the
    estimator's ``decision_function`` compares ratios to the cutoffs.
    ``decision_function`` is minus it."""

    def decision_function(self, X):
        from robustpca.diagnostics import outlier_diagnostics

        return -outlier_diagnostics(self.estimator, X).normal_outlyingness


#: ROBPCA with two components, rows ranked by the likelihood of its probabilistic PCA
#: model: the recommended configuration until 2026-12-05, chosen on the 25 tables by
#: leave-one-table-out cross-validation (``docs/design-notes/outlier-recommendation.md``,
#: "The earlier recommendation"); it did not carry over to the held-out tables.
LIKELIHOOD = "robustpca ROBPCA(n_components=2), likelihood"
#: ROBPCA with the components of 95% of the h-subset's variance at its default
#: outlyingness (the recommended configuration), and with the rows ranked by their
#: normal scores (:class:`NormalScoreOutlyingness`): the two best configurations of
#: ``bench_outlier_family.py``'s family on the 36 tables of the 25 and the 11 held-out
#: ones, then tested on the 7 others (``docs/design-notes/outlier-recommendation.md``).
VARIANCE_95 = "robustpca ROBPCA(n_components=0.95)"
NORMAL_SCORES = "robustpca ROBPCA(n_components=0.95), normal scores"
RECOMMENDED = VARIANCE_95
#: The recommendation with ROBPCA for skewed data (Hubert, Rousseeuw & Verdonck 2009):
#: the fourth test of ``docs/design-notes/outlier-recommendation.md``
SKEW_95 = "robustpca ROBPCA(n_components=0.95, skew=True)"


def likelihood_factory() -> Callable[[], object]:
    """A maker of :data:`LIKELIHOOD`."""

    def make():
        import robustpca

        return LikelihoodOutlyingness(robustpca.ROBPCA(n_components=2, random_state=SEED))

    return make


def normal_scores_factory() -> Callable[[], object]:
    """A maker of :data:`NORMAL_SCORES`."""

    def make():
        import robustpca

        return NormalScoreOutlyingness(robustpca.ROBPCA(n_components=0.95, random_state=SEED))

    return make


def detectors() -> dict[str, Callable[[], object]]:
    """Every detector of the benchmark: ``"robustpca X"`` and ``"pyod Y"`` -> maker."""
    out = {
        VARIANCE_95: robustpca_factory("ROBPCA", n_components=0.95),
        SKEW_95: robustpca_factory("ROBPCA", n_components=0.95, skew=True),
        NORMAL_SCORES: normal_scores_factory(),
        LIKELIHOOD: likelihood_factory(),
    }
    out.update({f"robustpca {n}": robustpca_factory(n) for n in OURS})
    out.update({f"pyod {n}": pyod_factory(n) for n in PYOD})
    return out


def outlyingness(model, X: np.ndarray) -> np.ndarray:
    """Higher = more outlying: pyod's training scores, else ``-decision_function``."""
    if hasattr(model, "decision_scores_"):  # pyod, fitted on X
        return np.asarray(model.decision_scores_, dtype=np.float64)
    return -np.asarray(model.decision_function(X), dtype=np.float64)
