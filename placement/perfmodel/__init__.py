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
- ``ranges``: the range around a predicted figure, from the model's errors on
  comparable runs it was not fitted on (leave one experiment out);
- ``fitted``: the fitted constants and residuals (generated);
- ``report``: the errors on the training and held-out points, the accuracy
  goals, and the tables of PERFORMANCE_MODEL.md (``python -m placement.perfmodel``).

Plain data in and out; no Django. See PERFORMANCE_MODEL.md.
"""

from placement.published import PUBLISHED_POINTS

from .calibration import Calibration, LabRun, calibrate
from .constants import (
    BORROWED,
    CALIBRATION_BOUNDS,
    DEFAULT_READING,
    ENGINES,
    MODES,
    PATHS,
    PREFILL_CHUNK,
    PUBLISHED_DECODE_CONTEXT,
    READINGS,
    EngineConstants,
    PerfConstants,
)
from .fitted import CONSTANTS_BY_READING, default_constants
from .fitting import fit
from .points import (
    FigureClass,
    PointError,
    aggregate_prediction,
    headline_class,
    known_formats,
    parallel_class,
    point_class,
    point_figures,
    point_layout,
    point_model,
    points_for,
    variant_spec,
)
from .prediction import (
    Layout,
    Prediction,
    batching_engine,
    compute_ceiling_tps,
    copies_aggregate_tps,
    expert_slots,
    per_stream_ms,
    predict,
    predict_prefill_tps,
    prediction_source,
    split_streams,
)
from .ranges import RANGE_WORDS, PredictedRange, predicted_range, single_source_alternative, spanning
from .report import FitReport, fit_report

__all__ = [
    "RANGE_WORDS",
    "BORROWED",
    "CALIBRATION_BOUNDS",
    "CONSTANTS_BY_READING",
    "DEFAULT_READING",
    "ENGINES",
    "MODES",
    "PATHS",
    "PREFILL_CHUNK",
    "PUBLISHED_DECODE_CONTEXT",
    "PUBLISHED_POINTS",
    "READINGS",
    "Calibration",
    "EngineConstants",
    "FigureClass",
    "FitReport",
    "LabRun",
    "Layout",
    "PerfConstants",
    "PointError",
    "PredictedRange",
    "Prediction",
    "aggregate_prediction",
    "calibrate",
    "copies_aggregate_tps",
    "default_constants",
    "expert_slots",
    "fit",
    "fit_report",
    "parallel_class",
    "per_stream_ms",
    "point_layout",
    "point_model",
    "points_for",
    "predict",
    "predict_prefill_tps",
    "compute_ceiling_tps",
    "predicted_range",
    "single_source_alternative",
    "spanning",
    "prediction_source",
    "split_streams",
    "batching_engine",
    "headline_class",
    "known_formats",
    "point_class",
    "point_figures",
    "variant_spec",
]
