"""The noise level and repeats of Guo's (2013) Table 1 and Figure 2 task lists.

``test_full_grids`` checks the pairs, settings, scales and Table 2's levels and
repeats, not Table 1's noise level (sec. 5.1: 5% of the pixels) nor Figure 2's draws
per point (``FIGURE2_REPEATS`` in a full run, one in a quick run).
"""

import pytest

from robustpca.experiments import RunConfig, get_experiment
from robustpca.experiments.guo2013 import FIGURE2_REPEATS

SPEC = "yale:64x64"


@pytest.mark.realdata
def test_table1_is_at_five_percent_and_figure2_repeats(shared_data):
    full = RunConfig(datasets=(SPEC,), data_home=str(shared_data))
    quick = RunConfig(datasets=(SPEC,), data_home=str(shared_data), quick=True)
    assert {t.params["noise"] for t in get_experiment("guo2013-table1").tasks(full)} == {0.05}
    f2 = get_experiment("guo2013-figure2").tasks(full)
    assert {t.params["noise"] for t in f2} == {0.05}
    assert {len(t.params["repeats"]) for t in f2} == {FIGURE2_REPEATS}
    assert FIGURE2_REPEATS > 1
    f2_quick = get_experiment("guo2013-figure2").tasks(quick)
    assert {len(t.params["repeats"]) for t in f2_quick} == {1}
