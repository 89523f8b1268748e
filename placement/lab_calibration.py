"""The performance model's constants re-fitted on the lab's own runs
(``perfmodel.calibrate``), for the plan pages, the API and the designer.

The runs come from the apps that hold them: each adds a reader to
``LAB_RUNS`` from its ``AppConfig.ready`` (the benchmarks app does), so this
floor never imports the records. Without a reader the published fit is used
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

from core.hooks import Hook

from .perfmodel import Calibration, LabRun, calibrate

LabRuns = Callable[[], list[LabRun]]
LAB_RUNS: Hook[LabRuns] = Hook("placement.lab_runs")


def lab_runs() -> list[LabRun]:
    """Every reader's runs, in the readers' order."""
    return [run for reader in LAB_RUNS for run in reader()]


def lab_calibration() -> Calibration:
    """The published fit re-fitted on the lab's runs (unchanged without runs)."""
    return calibrate(lab_runs())
