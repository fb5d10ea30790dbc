r"""Oh & Kwak (2016), Generalized mean for robust PCA: Figures 1 and 2 (toy data).

Figure 1 (sec. 3.1): 100 inliers from :math:`N(0, 0.5 I)` and 10 outliers from
:math:`N([5, 5]^\top, 0.3 I)` in the plane; the arithmetic sample mean against the
generalized sample mean :math:`m_G` (eq. 6, Algorithm 1) with ``p = 0.1`` and ``0.2``.

Figure 2 (sec. 3.2): 110 points :math:`(x_i, x_i + \epsilon_i)`, :math:`x_i \sim N(0, 1)`,
:math:`\epsilon_i \sim N(0, 0.5^2)` for 100 inliers and :math:`N(0, 3^2)` for 10
outliers; the direction of PCA (about 60 degrees in the paper) against that of PCA-GM
with ``p = 0.3`` (Algorithm 2, 48.9 degrees; 45 degrees without outliers), the objective
(9) against the angle, and one step of Algorithm 2 from 30 degrees (to 32.1).

Both figures use synthetic data: the experiments take no data set (``datasets=()``).
The paper's real-data experiments (sec. 4: face reconstruction, clustering, object
categorisation) are not in our copy of the text, so they are not reproduced here.
"""

from __future__ import annotations

from ._common import (  # noqa: F401 (re-exported, registers)
    FIGURE1_POWERS,
    FIGURE2_POWER,
    FIGURE2_POWERS,
    GRID_STEP,
    PAPER,
    PAPER_FIGURE2,
    SAMPLE_MEAN,
    _no_datasets,
)
from .figure1 import (  # noqa: F401 (re-exported, registers)
    _figure1_figure,
    _figure1_table,
    _figure1_tasks,
    _mean_label,
    _stats,
    figure1_samples,
    figure1_task,
)
from .figure2 import (  # noqa: F401 (re-exported, registers)
    _angles,
    _degrees,
    _figure2_figure,
    _figure2_table,
    _figure2_tasks,
    _squared_errors,
    figure2_objective,
    figure2_samples,
    figure2_task,
)

__all__ = [
    "figure1_samples",
    "figure1_task",
    "figure2_objective",
    "figure2_samples",
    "figure2_task",
]
