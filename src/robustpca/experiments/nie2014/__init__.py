"""Nie, Yuan & Huang (2014), Optimal mean robust PCA: Table 1 and Figure 1.

Table 1 (sec. 5.1-5.2): in each of 12 face/object data sets, 20% of the images are
occluded by a randomly placed block of 1/4 of the image size; PCA, PCA-L1 (Kwak 2008),
R1-PCA (Ding et al. 2006) and RPCA-OM are fitted on the occluded images, and the error
:math:`\\sum_i \\lVert x^r_i - x^o_i \\rVert_2` of the reconstructions against the clean
images is reported at dimensions 10, 15, ..., 50.

Figure 1 (sec. 4, 5.3): the same occluded data, the convex robust PCA of problem (29)
(CRPCA, outlier pursuit on data centred by their arithmetic mean) against problem (30)
(CRPCA-OM, the mean optimised), with the reconstruction error of the recovered low-rank
part plotted against the nuclear-norm weight :math:`\\gamma`.
"""

from __future__ import annotations

from ._common import (  # noqa: F401 (re-exported, registers)
    OUR_DATASETS,
    PAPER,
    PAPER_DATASETS,
    PAPER_TABLE1,
    TABLE1_DIMENSIONS,
    TABLE1_METHODS,
    _occluded_data,
)
from .figure1 import (  # noqa: F401 (re-exported, registers)
    _GRID_NAMES,
    FIGURE1_BASELINE,
    FIGURE1_FRACTIONS,
    FIGURE1_METHODS,
    FIGURE1_PAPER_GAMMAS,
    _column_label,
    _figure1_claim_lines,
    _figure1_dataset_table,
    _figure1_figure,
    _figure1_means,
    _figure1_table,
    _figure1_tasks,
    _rises,
    figure1_task,
)
from .table1 import (  # noqa: F401 (re-exported, registers)
    _claim_lines,
    _paper_lines,
    _table1_figure,
    _table1_table,
    _table1_tasks,
    table1_task,
)

__all__ = [
    "FIGURE1_METHODS",
    "TABLE1_METHODS",
    "figure1_task",
    "table1_task",
]
