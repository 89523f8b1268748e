"""What the benchmark scripts share: a median timer. Scripts run as
``python bench/NAME.py``, so this module is imported as ``common``."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls: robust to a noisy, shared machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
