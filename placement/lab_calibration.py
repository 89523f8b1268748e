"""The performance model's constants re-fitted on the lab's own runs
(``perfmodel.calibrate``), for the plan pages, the API and the designer.

The runs come from the apps that hold them: each adds a reader to
``LAB_RUNS`` from its ``AppConfig.ready`` (the benchmarks app does), so this
floor never imports the records. Without a reader the published fit is used
unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from core.hooks import Hook

from .perfmodel import Calibration, LabRun, calibrate

LabRuns = Callable[[], list[LabRun]]
LAB_RUNS: Hook[LabRuns] = Hook("placement.lab_runs")


def lab_runs() -> list[LabRun]:
    """Every reader's runs, in the readers' order."""
    return [run for reader in LAB_RUNS for run in reader()]


@functools.lru_cache(maxsize=4)
def _calibrated(runs: tuple[LabRun, ...]) -> Calibration:
    return calibrate(list(runs))


def lab_calibration(runs: list[LabRun] | None = None) -> Calibration:
    """The published fit re-fitted on the lab's runs (unchanged without runs),
    those the re-fit may read (``LabRun.not_fitted`` empty: not a checkpoint
    other than the one the catalogue launches, not copies measured
    together). ``runs``: the lab's runs a caller already read, else they
    are read now; the re-fit, a few milliseconds a run, only when they
    differ from a recent call's (a benchmark finished, a run was edited):
    the plan pages and APIs ask on every request."""
    runs = lab_runs() if runs is None else runs
    return _calibrated(tuple(r for r in runs if not r.not_fitted))
