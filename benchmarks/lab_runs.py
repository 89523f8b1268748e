"""The lab's own benchmark runs as the performance model sees them: the
entry this app adds to ``placement.lab_calibration.LAB_RUNS``, from which
placement re-fits its constants (``perfmodel.calibrate``).

Reads only: finished measured runs with a model and a one-stream decode
figure (TPOT or throughput of a single-stream run), or a decode figure over
several streams (their aggregate; a TPOT at several streams is not one
stream's speed), become ``perfmodel.LabRun`` records, as the variant that
ran (the format the run names, else the one its engine loads) in its
CUDA-graph mode (not known: CUDA graphs); a run naming a format the
catalogue has no variant of is left out (its weights are not known); a run
naming a repository other than the one the catalogue's variant loads is
read but marked not to be fitted on (``LabRun.not_fitted``), as is a run of
several copies measured together through a router (not one instance's
figure; shown beside a plan of as many copies), and a run decoded with
speculative decoding (the model predicts plain decoding: its figures are
shown beside a plan, saying so, never fitted on). The newest
``MAX_RUNS`` are used, so one request stays a handful of queries.
"""

from __future__ import annotations

import math

from placement.perfmodel import ENGINES, LabRun, Layout, compute_ceiling_tps
from placement.planner import launched_checkpoint

from .models import BenchmarkRun
from .scaling import DEFAULT_LEN, path_of, run_spec

MAX_RUNS = 200
# several copies behind a router: all of them together, not one instance's figure
COPIES_NOT_FITTED = "{copies} copies measured together through their router, not one instance"
# the performance model predicts plain decoding: a run that drafted tokens is another experiment
SPECULATIVE_NOT_FITTED = "decoded with {words}; the performance model predicts plain decoding"


def other_checkpoint(ran: str, launched: str) -> str:
    """Why a run is not fitted on, or "": it names a Hugging Face repository
    other than the one the catalogue's variant loads (two checkpoints of one
    format can decode 1.8x apart). A path, or no checkpoint, cannot be told
    apart from the catalogue's and is fitted on."""
    if not ran or ran.startswith("/") or not launched or ran.lower() == launched.lower():
        return ""
    return f"it ran {ran}, and the catalogue's {launched} is what plans launch"


# No Spark decodes one stream faster (the edge refuses a TPOT under 0.05 ms for this reason).
MAX_STREAM_TPS = 20_000.0


def _readable(figure: float | None, ceiling: float = math.inf) -> float | None:
    """A speed the fit can take (finite, above 0, below MAX_STREAM_TPS a stream), or None: a row
    stored before the edge refused it (a TPOT of 1e-320 ms is an infinite speed) is not fitted
    on, where it once made every plan answer 500."""
    if figure is None or not math.isfinite(figure) or not 0 < figure < ceiling:
        return None
    return figure


def lab_runs() -> list[LabRun]:
    rows = (
        BenchmarkRun.objects.filter(
            source=BenchmarkRun.Source.MEASURED,
            status=BenchmarkRun.Status.DONE,
            model__isnull=False,
            engine__in=ENGINES,
        )
        .select_related("model")
        .prefetch_related("model__variants")
        .order_by("-created_at", "-id")[:MAX_RUNS]
    )
    runs = []
    for row in rows:
        path = path_of(row.topology_kind, row.backend, row.tp * row.pp)
        # A TPOT measured at several streams is each stream's speed among the others, not one
        # stream's alone: above one stream the run speaks through its aggregate only.
        # Above what the nodes can compute for the model (the edge refuses it now): not fitted on.
        most = compute_ceiling_tps(row.model.spec(), row.node_count)  # type: ignore[union-attr]
        decode = _readable(row.stream_decode_tps if row.concurrency == 1 else None, min(MAX_STREAM_TPS, most))
        prefill = _readable(row.prefill_tps if row.concurrency == 1 else None)
        aggregate = _readable(row.decode_tps if row.concurrency > 1 else None, most)
        if path is None or (not decode and not prefill and not aggregate) or row.tp * row.pp > row.node_count:
            continue
        spec = run_spec(row.model.spec(), row.engine, row.quantization)  # type: ignore[union-attr]
        if spec is None:
            continue
        launched = launched_checkpoint(spec, row.engine)
        prompt = row.input_len or DEFAULT_LEN
        layout = Layout(
            tp=row.tp,
            pp=row.pp,
            path=path,
            link_gbps=row.link_gbps or 200.0,
            engine=row.engine,
            mode=row.mode or "graphs",
        )
        runs.append(
            LabRun(
                f"run {row.pk}: {row.model_name} on {row.node_count} node(s), {row.engine}",
                spec,
                layout,
                prompt + (row.output_len or DEFAULT_LEN) // 2,
                prompt,
                decode,
                prefill,
                row.concurrency,
                aggregate,
                row.checkpoint,
                f"/benchmarks/groups/{row.group_id}/?model={row.model_name}&concurrency={row.concurrency}"
                if row.group_id
                else "",
                SPECULATIVE_NOT_FITTED.format(words=row.speculative_words())
                if row.speculative
                else COPIES_NOT_FITTED.format(copies=row.copies)
                if row.copies > 1
                else other_checkpoint(row.checkpoint, launched),
                row.copies,
                row.speculative_method(),
            )
        )
    return runs
