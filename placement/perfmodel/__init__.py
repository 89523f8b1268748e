"""Performance model: predicted decode, aggregate and prefill speed of a layout.

Owns the numbers the planner shows as "predicted". Split by concept:

- ``constants``: published hardware facts, estimated engine figures and the
  fitted constants (stored as literals, one set per reading of NVIDIA's
  disputed table row; ``DEFAULT_READING`` says which one the product uses);
- ``prediction``: the model itself (``predict``, ``Layout``);
- ``points``: the published points (``placement.published``) as the model sees them;
- ``fitting``: ``fit()``, which recomputes the stored constants (a test keeps
  the two in step);
- ``calibration``: ``calibrate()``, the re-fit of an engine's constants, within
  documented bounds, on the lab's own runs;
- ``report``: the errors on the training and held-out points, and the tables of
  PERFORMANCE_MODEL.md (``python -m placement.perfmodel``).

Plain data in and out; no Django. See PERFORMANCE_MODEL.md.
"""

from .calibration import Calibration, LabRun, calibrate
from .constants import (
    CALIBRATION_BOUNDS,
    CONSTANTS_BY_READING,
    DEFAULT_READING,
    ENGINES,
    PATHS,
    PREFILL_CHUNK,
    PUBLISHED_DECODE_CONTEXT,
    READINGS,
    EngineConstants,
    PerfConstants,
    default_constants,
)
from .fitting import fit
from .points import PUBLISHED_POINTS, PointError, aggregate_prediction, point_layout, point_model, points_for
from .prediction import Layout, Prediction, predict, predict_prefill_tps, prediction_source, split_streams
from .report import FitReport, fit_report

__all__ = [
    "CALIBRATION_BOUNDS",
    "CONSTANTS_BY_READING",
    "DEFAULT_READING",
    "ENGINES",
    "PATHS",
    "PREFILL_CHUNK",
    "PUBLISHED_DECODE_CONTEXT",
    "PUBLISHED_POINTS",
    "READINGS",
    "Calibration",
    "EngineConstants",
    "FitReport",
    "LabRun",
    "Layout",
    "PerfConstants",
    "PointError",
    "Prediction",
    "aggregate_prediction",
    "calibrate",
    "default_constants",
    "fit",
    "fit_report",
    "point_layout",
    "point_model",
    "points_for",
    "predict",
    "predict_prefill_tps",
    "prediction_source",
    "split_streams",
]
