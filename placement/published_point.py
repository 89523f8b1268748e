"""One published figure of a Spark run, as ``placement.published`` lists them.

Plain data. ``role`` says what the performance model does with a figure:
"train" (the fit uses it), "holdout" (never used by the fit; the accuracy
check, each with the address it was read from) or "reference" (kept as a
published benchmark, modelled by neither: an architecture not published, or
the same figure as a held-out one quoted by a secondary source).

``decode_tps`` is output tokens/s over all streams, as a benchmark run
stores it: one stream's speed at concurrency 1, the aggregate above it.
``replicas`` independent copies share the streams through ``router``
("even": kept equally loaded; "random": each request to a copy at random, as
LiteLLM's simple-shuffle does).

``origin`` names the experiment a figure belongs to (one source's one
series): the performance model's ranges come from leaving out one origin at
a time, and a whole origin is either trained on or held out.

Conditions not stated by a source are assumptions, written in ``note``.
``context`` is the decode context (tokens already in the cache, the prompt
plus half the output); ``prompt`` the prompt length behind a prefill figure.
``mode`` is the CUDA-graph mode the run used ("graphs", "eager"; empty: not
stated, predicted as the engines' default, graphs). ``speculative`` names the
speculative decoding a run used ("mtp", "eagle", "nextn", "dflash", "ngram";
empty: none): the model predicts plain decoding, so a speculative run's decode
figures are kept on the record but not compared with its predictions (its
prefill still is), and the evidence is written in ``note``.

``collected`` is the date a held-out figure was collected on when it was
collected after the model was frozen (``placement.perfmodel.report.FRESH``
names the commit): such a figure was never seen while the model, its
constants or its ranges were designed, and was predicted once. Empty for the
figures collected before (the held-out runs of issue 23's first set, read
again over several rounds of the model's design).

``checkpoint`` is the Hugging Face repository that ran, where the source
names it (``placement.published_checkpoints``); empty: not named.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedPoint:
    """One published figure. ``reading`` is None when the point belongs to both
    readings of the disputed table row; ``derived`` marks points computed from
    a published ratio rather than quoted directly; ``quantization`` names the
    variant that ran (None: the model's default form)."""

    key: str
    model_slug: str
    nodes: int
    topology: str  # "single" | "direct" | "ring" | "switched"
    backend: str  # "none" | "nccl" | "rocenante"
    tp: int
    pp: int
    engine: str
    concurrency: int
    decode_tps: float | None
    prefill_tps: float | None
    source: str
    role: str  # "train" | "holdout" | "reference"
    reading: str | None = None
    derived: bool = False
    note: str = ""
    quantization: str | None = None
    ep: int = 1
    link_gbps: float = 200.0
    context: int = 256
    prompt: int = 2048
    url: str = ""
    replicas: int = 1
    router: str = "even"
    mode: str = ""
    origin: str = ""
    speculative: str = ""
    collected: str = ""
    checkpoint: str = ""

    @property
    def path(self) -> str:
        if self.topology == "single":
            return "none"
        if self.topology == "switched":
            return "switched-rocenante" if self.backend == "rocenante" else "switched-nccl"
        return self.topology

    @property
    def compared_decode_tps(self) -> float | None:
        """The decode figure the model is fitted on and judged against: none for a
        run with speculative decoding (the model predicts plain decoding)."""
        return None if self.speculative else self.decode_tps

    @property
    def source_id(self) -> str:
        """The experiment this figure belongs to (its origin, else its address or source)."""
        return self.origin or self.url or self.source
