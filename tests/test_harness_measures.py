"""benchmarks/_harness.py measures what its docstrings say, checked on a fake clock (no
timing is asserted): the steady time per iteration excludes the first, ``timed`` keeps
the best of its calls and leaves ``before`` off the clock, short calls are averaged over
a loop, the CPU median runs one seed per repeat, the time box runs floor(budget / pilot)
iterations, and the page and table helpers keep the rest of a page and their layout."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import _harness


class FakeClock:
    """Stands in for ``time.perf_counter`` and ``time.process_time``: only ``advance``
    moves it."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(_harness.time, "perf_counter", fake)
    monkeypatch.setattr(_harness.time, "process_time", fake)
    return fake


def test_steady_seconds_is_the_mean_of_iterations_two_to_n(clock):
    """Stamps after iterations 1-4 at 5, 6, 8, 9 s: iteration 1 carries the set-up; the
    others take 1, 2 and 1 s."""
    it = _harness.IterationClock()
    for t in (5.0, 6.0, 8.0, 9.0):
        clock.now = t
        assert it(0, None) is False  # never stops a fit
    assert it.steady_seconds() == pytest.approx(4.0 / 3.0)
    it.reset()
    it(0, None)
    assert it.steady_seconds() is None  # one stamp: no steady iteration


def test_timed_keeps_the_best_call_and_leaves_before_off_the_clock(clock):
    durations = iter([3.0, 1.0, 2.0])

    def fn():
        clock.advance(next(durations))
        return "result"

    timing = _harness.timed(fn, repeat=3, before=lambda: clock.advance(100.0))
    assert (timing.wall, timing.cpu, timing.result) == (1.0, 1.0, "result")
    calls = []
    _harness.timed(lambda: calls.append(1), repeat=0)
    assert calls == [1]  # at least one call


def test_cpu_per_call_averages_short_calls_and_times_long_ones_once(clock):
    calls = []

    def short():
        calls.append(1)
        clock.advance(0.05)
        return len(calls)

    seconds, result = _harness.cpu_per_call(short, min_seconds=0.2)
    assert seconds == pytest.approx(0.05) and len(calls) >= 1 + 4 and result == len(calls)
    calls.clear()

    def long():
        calls.append(1)
        clock.advance(0.3)

    assert _harness.cpu_per_call(long, min_seconds=0.2)[0] == pytest.approx(0.3)
    assert len(calls) == 1


def test_median_cpu_fit_runs_seed_r_at_repeat_r_and_takes_the_median(clock):
    seeds = []

    class Model:
        def __init__(self, r):
            self.r = r

        def fit(self, X):
            clock.advance([3.0, 1.0, 2.0][self.r])
            return self

    def make(r):
        seeds.append(r)
        return Model(r)

    seconds, model = _harness.median_cpu_fit(make, None, repeat=3)
    assert seeds == [0, 1, 2] and seconds == 2.0 and model.r == 2


def _iterations(clock, setup=0.0, per_iteration=1.0):
    made = []

    def call(n):
        made.append(n)
        clock.advance(setup + per_iteration * n)
        return n

    return call, made


def test_time_box_runs_as_many_iterations_as_the_pilot_says_fit(clock):
    call, made = _iterations(clock)
    run = _harness.run_time_boxed(call, lambda n: n, requested=10, budget=5.5)
    assert made == [1, 5] and run.n_iter == 5 and run.time_boxed  # floor(5.5 / 1)
    call, made = _iterations(clock)
    run = _harness.run_time_boxed(call, lambda n: n, requested=10, budget=1.5)
    assert made == [1] and run.n_iter == 1 and run.time_boxed  # m = 1: the pilot
    call, made = _iterations(clock)
    run = _harness.run_time_boxed(call, lambda n: n, requested=1, budget=0.5)
    assert made == [1] and run.n_iter == 1 and not run.time_boxed  # one was asked


def test_subspace_sin_is_the_sine_of_the_largest_principal_angle():
    theta = 0.3
    U = np.eye(4)[:, :2]
    V = np.column_stack([[1.0, 0, 0, 0], [0, np.cos(theta), np.sin(theta), 0]])
    assert _harness.subspace_sin(U, 5.0 * V) == pytest.approx(np.sin(theta))
    assert np.isnan(_harness.subspace_sin(U, np.eye(4)[:, :3]))  # ranks differ


def test_relative_difference_is_symmetric():
    assert _harness.relative_difference(1.0, 3.0) == _harness.relative_difference(3.0, 1.0)
    assert _harness.relative_difference(-2.0, 2.0) == 2.0
    assert _harness.relative_difference(0.0, 0.0) == 0.0


def test_markdown_table_right_aligns_all_but_the_first_column():
    text = _harness.markdown_table(["name", "a", "b"], [["x", "1", "2"]])
    assert text.splitlines() == ["| name | a | b |", "|---|---:|---:|", "| x | 1 | 2 |"]


def test_write_between_replaces_only_the_block_and_can_write_again(tmp_path):
    page = tmp_path / "page.md"
    begin, end = "<!-- b -->", "<!-- e -->"
    page.write_text(f"# Head\n\n{begin}\nold\n{end}\n\ntail\n")
    _harness.write_between(page, begin, end, "first")
    _harness.write_between(page, begin, end, "second")
    assert page.read_text() == f"# Head\n\n{begin}\n\nsecond\n\n{end}\n\ntail\n"
    new = tmp_path / "new.md"
    _harness.write_between(new, begin, end, "block")
    assert new.read_text() == f"{begin}\n\nblock\n\n{end}\n"


def test_write_markdown_keeps_the_page_around_its_block(tmp_path):
    page = tmp_path / "perf.md"
    page.write_text(f"# Mine\n\nintro\n{_harness.MARK_BEGIN}\nold\n{_harness.MARK_END}\nend\n")
    _harness.write_markdown(page, "new")
    assert page.read_text() == (
        f"# Mine\n\nintro\n{_harness.MARK_BEGIN}\nnew\n{_harness.MARK_END}\nend\n"
    )


def test_benchmark_parser_defaults_to_the_scripts_blas_threads():
    assert _harness.benchmark_parser("doc", blas_threads=1).parse_args([]).blas_threads == 1
    assert _harness.benchmark_parser("doc").parse_args([]).blas_threads is None


def test_peak_memory_counts_only_the_call_even_with_tracing_already_on():
    """The peak of one call above what was allocated before: a larger array freed earlier
    and one still held, both traced, do not count."""
    import tracemalloc

    tracemalloc.start()
    scratch = np.ones(4 * 10**6)
    del scratch
    held = np.ones(10**6)
    peak = _harness.peak_memory(lambda: np.ones(10**5).sum())
    assert 8 * 10**5 <= peak < 8 * 10**5 + 10**5
    assert held.sum() == 10**6


def test_machine_description_reports_uncommitted_changes_in_src(monkeypatch):
    answers = {"rev-parse": "abc1234", "status": " M src/robustpca/x.py", "diff": "+ change"}
    monkeypatch.setattr(_harness, "_git", lambda *args: answers[args[0]])
    info = _harness.machine_description()
    assert info["git_commit"] == "abc1234" and info["git_src_modified"] is True
    assert info["git_src_status"] == [" M src/robustpca/x.py"]
    answers.update(status="", diff="")
    assert _harness.machine_description()["git_src_modified"] is False


def test_lscpu_keeps_the_listed_fields_and_only_the_simd_flags(monkeypatch):
    out = "Model name:  Some CPU\nFlags:  fpu sse4_2 avx avx2 fma avx512f\nBogoMIPS: 4000\n"

    class Done:
        stdout = out

    monkeypatch.setattr(_harness.subprocess, "run", lambda *a, **k: Done())
    assert _harness._lscpu() == {"Model name": "Some CPU", "Flags": "avx avx2 fma avx512f"}


def _significant_digits(text):
    digits = text.rstrip("x").replace(".", "").lstrip("0")
    return len(digits)


def test_seconds_and_ratios_keep_their_significant_digits():
    """Times from a millisecond up keep at least two significant digits (three from a
    second up), and a ratio below 0.1 is not rounded to 0.0x."""
    for value in (1.234, 12.34, 123.4, 1234.5):
        assert _significant_digits(_harness.fmt_seconds(value)) >= 3, value
    assert _significant_digits(_harness.fmt_seconds(0.01234)) >= 2
    assert _harness.fmt_seconds(None) == "-"
    for value in (0.01234, 0.05, 0.0999):
        assert _significant_digits(_harness.fmt_ratio(value)) >= 2, value
    assert _harness.fmt_ratio(float("nan")) == "-"


def test_data_home_without_needs_fetches_the_image_sets_and_copies_rrcov(monkeypatch, tmp_path):
    """No local data and no ``needs``: the fetchers get the default sets (rrcov is not
    theirs to fetch) and the committed rrcov tables are copied beside them."""
    from robustpca.datasets import _download

    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)
    monkeypatch.setattr(_harness, "REPO", tmp_path / "clone")
    asked = []

    def fetch(keys):
        asked.extend(keys)
        return tmp_path / "cache"

    monkeypatch.setattr(_download, "_fetch_data_sets", fetch)
    home = _harness.data_home()
    assert home == tmp_path / "cache"
    assert sorted(asked) == sorted(_download._NEEDS) and "rrcov" not in asked
    copied = sorted(p.name for p in (home / "rrcov").iterdir())
    assert copied == sorted(p.name for p in _harness.RRCOV_FIXTURES.iterdir())
