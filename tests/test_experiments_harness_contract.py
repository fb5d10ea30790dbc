"""The documented contract of the experiment harness (``_core``, ``_data``, ``_runner``).

Each test pins a sentence of a docstring that no other test checks: what a quick run
uses when no data set is named, the order and the parameters of the usual task grid,
the seed and data folder a run hands to its tasks, the read-only data, and the
pixel scale the errors are divided by. The experiments here are toys (no data are
read), so every test takes a fraction of a second.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import experiments
from robustpca.experiments._core import registrar, seeds_for, trial_tasks
from robustpca.experiments._data import pixel_range


def _echo(dataset, seed, method, data_home, **params):
    """A task that returns what it was called with, as one tidy row."""
    return [{"dataset": dataset, "seed": seed, "method": method, "data_home": data_home, **params}]


def _config_task(seed, data_home, dataset):
    return [{"seed": seed, "data_home": data_home, "dataset": dataset, "x": 1.0, "y": 2.0}]


def _toy(datasets=("digits", "orl"), quick_datasets=(), claim="the toy claim"):
    """An experiment whose single task reports the run's seed, data folder and data sets."""

    def tasks(config):
        return [
            experiments.Task(
                _config_task,
                {"seed": config.seed, "data_home": config.data_home, "dataset": ds},
            )
            for ds in config.datasets
        ]

    return experiments.Experiment(
        name="toy-contract",
        paper="Toy (2026)",
        exhibit="Figure 1",
        summary="echo",
        paper_datasets=("none",),
        datasets=datasets,
        tasks=tasks,
        table=lambda rows, config: experiments.markdown_table(rows, "dataset", "x", "y"),
        figure=lambda rows, config: experiments.line_plot(rows, "x", "y", "dataset"),
        notes="A toy.",
        claim=claim,
        quick_datasets=quick_datasets,
    )


def test_quick_run_defaults_to_the_first_data_set_only():
    """``quick_datasets`` empty: a quick run uses the first of ``datasets`` and no more
    (a smoke run on every data set would take the full run's time)."""
    toy = _toy(datasets=("digits", "orl", "yale"))
    assert toy.default_datasets(quick=True) == ("digits",)
    assert toy.default_datasets(quick=False) == ("digits", "orl", "yale")
    assert _toy(quick_datasets=("orl",)).default_datasets(quick=True) == ("orl",)


def test_registrar_fields_given_to_the_call_override_the_shared_ones():
    """registrar's docstring: "a field given to the call overrides the shared one"."""
    shared = dict(
        paper="Toy (2026)",
        summary="shared summary",
        paper_datasets=("none",),
        datasets=("digits",),
        tasks=lambda config: [],
        table=lambda rows, config: "",
        figure=lambda rows, config: None,
    )
    register_exhibit = registrar(**shared)
    try:
        experiment = register_exhibit(
            name="toy-override-figure9", exhibit="Figure 9", datasets=("orl", "yale")
        )
        assert experiment.datasets == ("orl", "yale")
        assert experiment.summary == "shared summary"
        assert experiments.get_experiment("toy-override-figure9") is experiment
    finally:
        experiments.EXPERIMENTS.pop("toy-override-figure9", None)


def test_registry_refuses_a_name_twice_and_lists_by_name():
    """register: "ValueError if an experiment of the same name is already registered"
    (a second paper module reusing a name would silently replace the first);
    list_experiments: "sorted by name"."""
    first = experiments.list_experiments()[0]
    with pytest.raises(ValueError, match="registered twice"):
        experiments.register(first)
    assert experiments.get_experiment(first.name) is first
    names = [e.name for e in experiments.list_experiments()]
    assert names == sorted(names) == sorted(experiments.EXPERIMENTS)


def test_trial_tasks_grid_order_and_parameters():
    """One task per (data set, seed, method) in that order, each called with the run's
    data folder and the shared parameters; ``datasets`` replaces the run's own."""
    config = experiments.RunConfig(datasets=("orl", "yale"), seed=4, data_home="/somewhere")
    seeds = seeds_for(config, n_full=2)
    assert seeds == [4, 5]
    tasks = trial_tasks(_echo, config, seeds=seeds, methods=["A", "B"], label="20%", k=3)
    rows = [row for task in tasks for row in task()]
    assert [(r["dataset"], r["seed"], r["method"]) for r in rows] == [
        (ds, seed, method) for ds in ("orl", "yale") for seed in (4, 5) for method in ("A", "B")
    ]
    assert {r["data_home"] for r in rows} == {"/somewhere"} and {r["k"] for r in rows} == {3}
    assert tasks[0].label == "orl 20% A seed 4"
    only = trial_tasks(_echo, config, seeds=[4], methods=["A"], datasets=["digits"])
    assert [t.params["dataset"] for t in only] == ["digits"]


def test_run_hands_its_seed_and_data_folder_to_the_tasks(tmp_path):
    """run_experiment: "the same seed gives the same numbers" needs the seed to reach the
    tasks; ``data_home`` must reach them too (else the data come from elsewhere)."""
    result = experiments.run_experiment(_toy(), seed=7, data_home=tmp_path)
    assert {row["seed"] for row in result.rows} == {7}
    assert {row["data_home"] for row in result.rows} == {str(tmp_path)}
    assert result.config.seed == 7 and result.config.data_home == str(tmp_path)


def test_an_empty_datasets_list_means_the_default():
    """``datasets`` empty is "none named": the experiment's own, as for None (the CLI
    passes an empty list when --datasets is not given)."""
    rows = experiments.run_experiment(_toy(), datasets=[]).rows
    assert [row["dataset"] for row in rows] == ["digits", "orl"]
    quick = experiments.run_experiment(_toy(), datasets=(), quick=True).rows
    assert [row["dataset"] for row in quick] == ["digits"]


def test_the_runner_refuses_data_sets_for_any_synthetic_experiment():
    """run_experiment refuses data sets for an experiment that has none (synthetic data
    from the seed), itself: not only when the experiment's own tasks happen to check."""
    synthetic = _toy(datasets=())
    with pytest.raises(ValueError, match="synthetic data generated from the seed"):
        experiments.run_experiment(synthetic, datasets=["orl"])


def test_report_header_states_the_claim():
    """The report prints the paper's claim under the header, when there is one."""
    md = experiments.run_experiment(_toy(claim="b is best.")).markdown
    assert "- The paper's claim: b is best." in md
    assert "The paper's claim" not in experiments.run_experiment(_toy(claim="")).markdown


def test_loaded_targets_are_read_only_too():
    """load_dataset: "read-only arrays", the labels as well as the images."""
    digits = experiments.load_dataset("digits")
    with pytest.raises(ValueError, match="read-only"):
        digits.target[0] = 1


@pytest.mark.parametrize(
    "top, expected", [(0.5, 1.0), (1.0, 1.0), (1.5, 16.0), (16.0, 16.0), (16.5, 255.0)]
)
def test_pixel_range_includes_the_top_of_each_scale(top, expected):
    """Data in [0, 1] reach 1 exactly (COIL-20), digits reach 16 exactly: the maximum of a
    scale belongs to it (``at most 1``, ``at most 16``)."""
    images = np.array([[0.0, top]])
    assert pixel_range(images) == expected
