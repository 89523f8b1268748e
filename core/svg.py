"""Small pieces every server-rendered SVG chart shares (no Django)."""

from __future__ import annotations

import math


def nice_max(value: float) -> float:
    """The round figure an axis ends at: the first of 1, 1.2, 1.5, 2, ... 10 x a power of ten at or above ``value``."""
    if value <= 0:
        return 1.0
    magnitude: float = 10 ** math.floor(math.log10(value))
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= step * magnitude:
            return step * magnitude
    return 10 * magnitude
