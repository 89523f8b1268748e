"""Time the calibration by the lab's own runs (``perfmodel.calibrate``), which
the plan pages, the plan API and the designer run on every request.

At 2, 10, 40 and 200 lab runs of Qwen3-32B on two Sparks over the direct cable:
vLLM's runs (each re-fits vLLM's bandwidth constants and the path's
collective latency) and SGLang's (which also re-fit SGLang's own
tensor-parallel costs: its extra latency per all-reduce and its prefill
all-reduce factor). Each run has a one-stream decode and a prefill figure.
A third series, "batches", is the lab's runs at several streams on one
node, dense (Qwen3-32B) and MoE (Qwen3.6-35B-A3B) in turn, at 4 to 64
streams: they re-fit vLLM's cost per extra stream and, since 2026-12-05,
its cost per expert slot. The baseline, timed in the same run on the same inputs, is one prediction
per run (what showing the lab's errors needs at least); the ratios say what
the re-fit costs.

    .venv/bin/python bench/calibrate.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import median_seconds  # noqa: E402 - bench/ is the script's own folder

# 200: the most runs lab_runs() reads (benchmarks.lab_runs.MAX_RUNS)
SIZES = (2, 10, 40, 200)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")
    from placement.model_catalogue import get_seed_model
    from placement.perfmodel import LabRun, Layout, calibrate, predict

    model = get_seed_model("qwen3-32b")
    print(f"python {platform.python_version()} on {platform.machine()}, {args.repeats} repeats, median")
    print(f"{'engine':<8}{'runs':>6}{'baseline':>12}{'calibrate':>12}{'ratio':>8}{'per run':>12}")
    moe = get_seed_model("qwen3.6-35b-a3b")
    for engine in ("vllm", "sglang", "batches"):
        layout = Layout(tp=2, path="direct", engine=engine) if engine != "batches" else Layout()
        for n in SIZES:
            if engine == "batches":
                runs = [
                    LabRun(f"r{i}", (model, moe)[i % 2], layout, 1024, 1024, None, None, 4 << (i % 5), 100.0 + i)
                    for i in range(n)
                ]
            else:
                runs = [LabRun(f"r{i}", model, layout, 1024 + 64 * i, 2048, 9.0 + 0.05 * i, 1500.0) for i in range(n)]

            def baseline(runs: list[LabRun] = runs) -> None:
                for r in runs:
                    predict(
                        r.model, r.layout, context_tokens=r.context, prompt_tokens=r.prompt, concurrency=r.concurrency
                    )

            base = median_seconds(baseline, args.repeats)
            cal = median_seconds(lambda runs=runs: calibrate(runs), args.repeats)
            print(
                f"{engine:<8}{n:>6}{base * 1e3:>10.2f}ms{cal * 1e3:>10.2f}ms{cal / base:>7.1f}x{cal / n * 1e3:>10.2f}ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
