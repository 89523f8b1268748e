"""Time the re-fit of the performance model on the published training runs
(``perfmodel.fitting.fit``): what ``python -m placement.perfmodel --write``
runs once per reading and once per origin left out (the ranges'
leave-one-origin-out residuals), and what the test that checks the stored
residuals repeats. Two sizes: every training experiment, and half of them
(every other origin left out). The baseline, timed in the same run on the
same points, is one prediction of every training figure with the fitted
constants; the ratio says what a re-fit costs in predictions.

    .venv/bin/python bench/refit.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import bench_var_dir, median_seconds  # noqa: E402 - bench/ is the script's own folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")
    bench_var_dir("fleet-bench-refit-")
    import django

    django.setup()
    from placement.perfmodel.constants import DEFAULT_READING
    from placement.perfmodel.fitting import fit
    from placement.perfmodel.points import point_figures, points_for

    train = points_for(DEFAULT_READING, roles=("train",))
    origins = sorted({p.source_id for p in train})
    print(f"python {platform.python_version()} on {platform.machine()}, {args.repeats} repeats, median")
    print(f"{'experiments':>11} {'points':>7} {'baseline':>10} {'re-fit':>10} {'ratio':>9}")
    for left_out in (frozenset(), frozenset(origins[1::2])):
        kept = [p for p in train if p.source_id not in left_out]
        constants = fit(exclude=left_out)
        baseline = median_seconds(lambda: [point_figures(p, constants) for p in kept], args.repeats)  # noqa: B023
        refit = median_seconds(lambda: fit(exclude=left_out), args.repeats)  # noqa: B023
        print(
            f"{len(origins) - len(left_out):>11} {len(kept):>7} {baseline * 1e3:>8.1f}ms {refit * 1e3:>8.0f}ms "
            f"{refit / baseline:>8.0f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
