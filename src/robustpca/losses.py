r"""Robust losses on per-sample residual norms, as small frozen objects.

Every reweighting method in this package minimises

.. math:: \sum_i \rho(r_i), \qquad r_i = \lVert (I - UU^\top)(x_i - b) \rVert_2 ,

by iteratively solving weighted least-squares problems
:math:`\min \sum_i d_i r_i^2` (Nie et al. 2014, Algorithm 2). Writing
:math:`\rho(r) = h(r^2)` with :math:`h` concave, the weight of sample :math:`i` is the
supergradient :math:`d_i = h'(r_i^2) = \rho'(r_i) / (2 r_i)`. For the l2,1 loss this is
exactly the :math:`d_{ii} = 1 / (2 \lVert (I-UU^\top)(x_i-b) \rVert_2)` of Algorithm 1.

Each loss gives ``rho(r)`` (its contribution to the objective) and ``weights(r)`` (the
IRLS weights), following the pattern of ``statsmodels.robust.norms``. Losses whose
threshold is estimated from the data (Huber and Cauchy with ``threshold=None``, as in
R1-PCA) are made concrete for one set of residuals by :meth:`RobustLoss.resolve`.

The smoothing ``epsilon`` is the footnote of Nie et al. (2014, sec. 3): :math:`\lVert z
\rVert_2` is replaced by :math:`\sqrt{z^\top z + \epsilon}` so that a zero residual does
not produce an infinite weight.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "CappedL2Loss",
    "CauchyLoss",
    "HuberLoss",
    "L2pLoss",
    "L21Loss",
    "RobustLoss",
    "ScaledLoss",
    "WelschLoss",
    "make_loss",
]


def _check_parameter(
    value, name: str, *, positive: bool, upper: float | None = None, optional: bool = False
) -> None:
    """Validate a loss parameter: a finite real ``>= 0`` (``> 0`` when ``positive``, at
    most ``upper`` if given), or None when ``optional``.

    A ``TypeError`` naming ``name`` for what is not a real number (strings such as
    ``'auto'``, which only the estimators resolve, and bools included), a ``ValueError``
    for a value out of range. The field keeps the value given: its type decides the
    precision of ``rho`` and ``weights``, as before the check.
    """
    if value is None and optional:
        return
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        kind = "a real number or None" if optional else "a real number"
        raise TypeError(f"{name} must be {kind}, got {type(value).__name__} ({value!r}).")
    number = float(value)
    if upper is not None:
        if not (0 < number <= upper):  # NaN fails too
            raise ValueError(f"{name}={value!r} must be in (0, {upper:g}].")
    elif not (np.isfinite(number) and (number > 0 if positive else number >= 0)):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{name}={value!r} must be finite and {bound}.")


def _safe_reciprocal_norm(r: np.ndarray, epsilon: float) -> np.ndarray:
    """Return ``1 / sqrt(r**2 + epsilon)`` without division by zero.

    With ``epsilon = 0`` a zero residual would get an infinite weight. Following the
    spirit of the footnote of Nie et al. (2014), such residuals are floored at
    ``1e-12`` times the largest residual (or 1 when every residual is zero).
    """
    norm = np.sqrt(r * r + epsilon)
    if epsilon == 0:
        top = norm.max(initial=0.0)
        norm = np.maximum(norm, 1e-12 * top if top > 0 else 1.0)
    return 1.0 / norm


@dataclass(frozen=True)
class RobustLoss:
    """Base class: a loss :math:`\\rho` on residual norms and its IRLS weights."""

    def rho(self, r: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """Loss of each residual norm (the objective is ``rho(r).sum()``).

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms, nonnegative.
        """
        raise NotImplementedError

    def weights(self, r: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """Reweighting weights ``h'(r**2) = rho'(r) / (2 r)`` of each residual norm.

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms, nonnegative.
        """
        raise NotImplementedError

    def resolve(self, r: np.ndarray) -> RobustLoss:
        """Return a loss with every data-dependent parameter fixed for these residuals.

        Parameters
        ----------
        r : ndarray of shape (n_samples,)
            Residual norms the data-dependent parameters are estimated from (unused by a
            loss without such parameters, which returns itself).
        """
        return self

    @property
    def refitted(self) -> bool:
        """Whether a parameter is re-estimated from the residuals at every iteration, so
        that the objective is not one function from one iteration to the next."""
        return self.resolve(np.ones(1)) is not self

    @property
    def power(self) -> float:
        """The exponent ``q`` of the loss's growth, :math:`\\rho(r) \\sim r^q`.

        The power mean :math:`(\\sum_i \\rho(r_i) / n)^{1/q}` is in the residuals' units;
        its relative change is ``1/q`` times the objective's, which the loops' ``tol``
        takes into account where ``q`` differs from 1.
        """
        return 1.0


@dataclass(frozen=True)
class L21Loss(RobustLoss):
    r"""The l2,1 loss :math:`\rho(r) = \sqrt{r^2 + \epsilon}` (RPCA-OM, problem 13).

    Parameters
    ----------
    epsilon : float, default=0.0
        Smoothing of Nie et al. (2014), footnote 1.
    """

    epsilon: float = 0.0

    def __post_init__(self):
        _check_parameter(self.epsilon, "epsilon", positive=False)

    def rho(self, r):
        r = np.asarray(r)
        return np.sqrt(r * r + self.epsilon)

    def weights(self, r):
        return 0.5 * _safe_reciprocal_norm(np.asarray(r), self.epsilon)


@dataclass(frozen=True)
class L2pLoss(RobustLoss):
    r"""The l2,p loss :math:`\rho(r) = (r^2 + \epsilon)^{p/2}`, :math:`0 < p \le 2`.

    Parameters
    ----------
    p : float, default=1.0
        The exponent, in (0, 2]: ``p = 1`` is the l2,1 loss and ``p = 2`` the squared
        loss of PCA (all weights equal).
    epsilon : float, default=0.0
        Smoothing of Nie et al. (2014), footnote 1.
    """

    p: float = 1.0
    epsilon: float = 0.0

    def __post_init__(self):
        _check_parameter(self.p, "p", positive=True, upper=2.0)
        _check_parameter(self.epsilon, "epsilon", positive=False)

    @property
    def power(self) -> float:
        """``p``: as ``p`` tends to 0 the objective tends to ``n`` whatever the fit."""
        return float(self.p)

    def rho(self, r):
        r = np.asarray(r)
        return (r * r + self.epsilon) ** (self.p / 2)

    def weights(self, r):
        r = np.asarray(r)
        if self.p == 2:
            return np.ones_like(r)
        inv = _safe_reciprocal_norm(r, self.epsilon)
        return 0.5 * self.p * inv ** (2 - self.p)


@dataclass(frozen=True)
class CappedL2Loss(RobustLoss):
    r"""The capped l2 loss :math:`\rho(r) = \min(\sqrt{r^2 + \epsilon}, \theta)`.

    Samples whose residual reaches the threshold :math:`\theta` get weight zero: they no
    longer influence the subspace or the mean (Nie et al. 2014, sec. 3.2).

    Parameters
    ----------
    threshold : float, default=1.0
        The cap :math:`\theta`, positive.
    epsilon : float, default=0.0
        Smoothing of Nie et al. (2014), footnote 1.
    """

    threshold: float = 1.0
    epsilon: float = 0.0

    def __post_init__(self):
        _check_parameter(self.threshold, "threshold", positive=True)
        _check_parameter(self.epsilon, "epsilon", positive=False)

    def rho(self, r):
        r = np.asarray(r)
        return np.minimum(np.sqrt(r * r + self.epsilon), self.threshold)

    def weights(self, r):
        r = np.asarray(r)
        inside = np.sqrt(r * r + self.epsilon) < self.threshold
        return np.where(inside, 0.5 * _safe_reciprocal_norm(r, self.epsilon), 0.0)


def _median_scale(r: np.ndarray) -> float:
    """The median residual; a scale of rounding size where it is zero.

    The median is zero where more than half the residuals are (a subspace fitting most
    samples exactly). The scale is then ``eps`` times the largest residual, the limit
    ``c -> 0`` up to rounding: the samples off that fit keep a weight of rounding size,
    and the fit stays where it is. (Falling back to the smallest positive residual,
    an outlier's, gave them weight again: the subspace moved off the exact fit, the
    median returned, and R1-PCA cycled until ``max_iter``; see
    ``tests/test_r1pca.py``.) 1 where every residual is zero.
    """
    c = float(np.median(r))
    if c > 0:
        return c
    top = float(np.max(r)) if r.size else 0.0
    if top <= 0:
        return 1.0
    return max(top * float(np.finfo(np.float64).eps), float(np.finfo(np.float64).tiny))


@dataclass(frozen=True)
class ScaledLoss(RobustLoss):
    """A loss with a scale, re-estimated as the median residual where it is not given.

    Parameters
    ----------
    threshold : float or None, default=None
        The scale, positive; None re-estimates it from the residuals (see :meth:`resolve`).
    """

    threshold: float | None = None

    def __post_init__(self):
        _check_parameter(self.threshold, "threshold", positive=True, optional=True)

    def resolve(self, r):
        if self.threshold is not None:
            return self
        return replace(self, threshold=_median_scale(np.asarray(r)))


@dataclass(frozen=True)
class HuberLoss(ScaledLoss):
    r"""Huber's loss on residual norms (R1-PCA, Ding et al. 2006, eq. 11).

    :math:`\rho(r) = r^2/2` for :math:`r \le c` and :math:`c r - c^2/2` otherwise, so the
    IRLS weight is :math:`1/2` inside the cutoff and :math:`c / (2r)` beyond it.

    Parameters
    ----------
    threshold : float or None, default=None
        The cutoff :math:`c`. ``None`` uses the median residual norm at each
        iteration, the default of Ding et al. (2006).
    """

    def rho(self, r):
        r = np.asarray(r)
        c = self.resolve(r).threshold
        with np.errstate(over="ignore"):  # 0.5 r^2 beyond the floats: unused, or the loss's
            return np.where(r <= c, 0.5 * r * r, c * (r - 0.5 * c))

    def weights(self, r):
        r = np.asarray(r)
        c = self.resolve(r).threshold
        return 0.5 * np.where(r <= c, 1.0, c / np.maximum(r, c))


@dataclass(frozen=True)
class CauchyLoss(ScaledLoss):
    r"""Cauchy's loss :math:`\rho(r) = (c^2/2) \log(1 + (r/c)^2)`.

    The IRLS weight is :math:`1 / (2 (1 + (r/c)^2))`.

    Parameters
    ----------
    threshold : float or None, default=None
        The scale :math:`c`. ``None`` uses the median residual norm at each iteration,
        as for :class:`HuberLoss`.
    """

    def rho(self, r):
        # (r^2 / 2) log1p(u^2) / u^2 for u = |r| / c <= 1 (no c^2 that could overflow);
        # c^2 (log|r| - log c + log1p(u^-2) / 2) beyond, where u or u^2 could overflow:
        # finite wherever the loss is
        r = np.asarray(r)
        c = self.resolve(r).threshold
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            u = np.abs(r) / c
            u2 = u * u
            near = np.where(u2 > 0, np.log1p(u2) / u2, 1.0) * (0.5 * r * r)
            far = c * (c * (np.log(np.abs(r)) - np.log(c) + 0.5 * np.log1p(1.0 / u2)))
        return np.where(u <= 1, near, far)

    def weights(self, r):
        r = np.asarray(r)
        c = self.resolve(r).threshold
        with np.errstate(over="ignore"):  # (r / c)^2 beyond the floats: weight 0
            return 0.5 / (1.0 + (r / c) ** 2)


def _correntropy_kernel_width(r: np.ndarray) -> float:
    r"""He et al. (2011): :math:`\sigma^2 = \frac{1}{2n}\sum_i r_i^2` (1 if every r is 0).

    Computed as :math:`m \sqrt{\operatorname{mean}((r/m)^2) / 2}` with :math:`m` the
    largest residual, so that huge or tiny residuals neither overflow nor underflow.
    """
    if not np.all(np.isfinite(r)):
        raise ValueError("residuals r must be finite to estimate kernel_width.")
    top = float(np.max(np.abs(r))) if r.size else 0.0
    if top == 0:
        return 1.0
    width = top * float(np.sqrt(0.5 * np.mean((r / top) ** 2)))
    return max(width, float(np.finfo(np.float64).tiny))


@dataclass(frozen=True)
class WelschLoss(RobustLoss):
    r"""Welsch's loss, the correntropy (Gaussian-kernel) loss of HQ-PCA.

    .. math::
        \rho(r) = \sigma^2 \bigl(1 - e^{-r^2 / (2\sigma^2)}\bigr), \qquad
        h'(r^2) = \tfrac12 e^{-r^2 / (2\sigma^2)} ,

    i.e. Welsch's :math:`(c^2/2)(1 - e^{-(r/c)^2})` (Dennis & Welsch 1978) with
    :math:`c = \sqrt2\,\sigma`. Minimising :math:`\sum_i \rho(r_i)` maximises the
    correntropy :math:`\sum_i g(r_i)` with the Gaussian kernel
    :math:`g(r) = e^{-r^2/(2\sigma^2)}` of width :math:`\sigma` (He et al. 2011; Oh &
    Kwak 2016, eq. 2-3, where :math:`\rho_W = 1 - g`, here scaled by :math:`\sigma^2`
    so that :math:`\rho(r) \approx r^2/2` for small residuals, like
    :class:`HuberLoss` and :class:`CauchyLoss`). The IRLS weight is proportional to the
    half-quadratic auxiliary variable :math:`g(r_i)`; :math:`h(s) = \sigma^2(1 -
    e^{-s/(2\sigma^2)})` is concave in :math:`s = r^2`, so the reweighted loop never
    increases the objective for a fixed :math:`\sigma`.

    Parameters
    ----------
    kernel_width : float or None, default=None
        The kernel width :math:`\sigma` (data units). ``None`` re-estimates it from the
        residuals as :math:`\sigma^2 = \frac{1}{2n}\sum_i r_i^2` (He et al. 2011), at
        every iteration of a reweighting loop (see :meth:`resolve`); 1 when every
        residual is zero.

    References
    ----------
    R. He, B.-G. Hu, W.-S. Zheng and X.-W. Kong, "Robust principal component analysis
    based on maximum correntropy criterion", IEEE Trans. Image Process. 20(6), 2011.
    J. E. Dennis and R. E. Welsch, "Techniques for nonlinear least squares and robust
    regression", Commun. Stat. Simul. Comput. 7(4), 1978.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.losses import WelschLoss
    >>> loss = WelschLoss(kernel_width=1.0)
    >>> loss.weights(np.array([0.0, 1.0, 10.0])).round(4)
    array([0.5   , 0.3033, 0.    ])
    >>> float(WelschLoss().resolve(np.array([1.0, 3.0])).kernel_width)
    1.5811388300841898
    """

    kernel_width: float | None = None

    def __post_init__(self):
        _check_parameter(self.kernel_width, "kernel_width", positive=True, optional=True)

    def resolve(self, r):
        if self.kernel_width is not None:
            return self
        return replace(self, kernel_width=_correntropy_kernel_width(np.asarray(r, dtype=float)))

    def _exponent(self, r: np.ndarray, width: float) -> np.ndarray:
        """``r**2 / (2 sigma**2)``, computed as ``(r / sigma)**2 / 2`` (no overflow of sigma**2)."""
        with np.errstate(over="ignore"):
            z = r / width
            return 0.5 * z * z

    def rho(self, r):
        # sigma^2 (1 - e^{-q}) with q = r^2 / (2 sigma^2): as (r^2 / 2) (1 - e^{-q}) / q for
        # q <= 1 (no sigma^2 that could overflow or underflow, r^2 / 2 at q = 0), as
        # sigma^2 (1 - e^{-q}) beyond (no r^2 that could overflow: sigma^2 at r = inf)
        r = np.asarray(r, dtype=float)
        width = self.resolve(r).kernel_width
        q = self._exponent(r, width)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            near = 0.5 * r * r * np.where(q > 0, -np.expm1(-q) / q, 1.0)
            far = width * width * -np.expm1(-q)
        return np.where(q <= 1, near, far)

    def weights(self, r):
        r = np.asarray(r, dtype=float)
        return 0.5 * np.exp(-self._exponent(r, self.resolve(r).kernel_width))


def make_loss(
    loss: str | RobustLoss,
    *,
    p: float | None = None,
    threshold: float | None = None,
    epsilon: float = 0.0,
) -> RobustLoss:
    """Build a loss object from an estimator's ``loss=`` parameter.

    Parameters
    ----------
    loss : {'l21', 'l2p', 'capped', 'huber', 'cauchy'} or RobustLoss
        Name of the loss, or a ready loss object (returned unchanged).
    p : float, optional
        Exponent of ``'l2p'``; required for it, in (0, 2].
    threshold : float, optional
        Cap of ``'capped'`` (required, > 0) or cutoff of ``'huber'``/``'cauchy'``.
    epsilon : float
        Smoothing constant (squared units of the data).
    """
    if isinstance(loss, RobustLoss):
        return loss
    if loss == "l21":
        return L21Loss(epsilon=epsilon)
    if loss == "l2p":
        if p is None:
            raise ValueError("p must be given with loss='l2p' (a float in (0, 2]).")
        _check_parameter(p, "p", positive=True, upper=2.0)  # before float() can see a str
        return L2pLoss(p=float(p), epsilon=epsilon)
    if loss == "capped":
        if threshold is None:
            raise ValueError("threshold must be given with loss='capped' (a float > 0).")
        _check_parameter(threshold, "threshold", positive=True)
        return CappedL2Loss(threshold=float(threshold), epsilon=epsilon)
    if loss == "huber":
        return HuberLoss(threshold=threshold)
    if loss == "cauchy":
        return CauchyLoss(threshold=threshold)
    raise ValueError(
        f"loss={loss!r} is not supported; use 'l21', 'l2p', 'capped', 'huber', 'cauchy' "
        "or a RobustLoss instance."
    )
