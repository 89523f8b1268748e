"""The benchmark charts (pure): value labels never overlap, bars are fastest first and say their source."""

from __future__ import annotations

import re

from benchmarks.charts import Bar, Point, Series, bar_chart, scaling_chart


def _labels(svg: str) -> list[tuple[float, float, str]]:
    return [
        (float(x), float(y), t)
        for x, y, t in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="10.5"[^>]*>([^<]+)</text>', svg)
    ]


def test_value_labels_at_eight_nodes_do_not_overlap():
    # four topologies ending within a few tok/s of each other at 8 nodes
    series = [
        Series(f"measured · {k}", "measured", "#123456", (Point(1, 11.9), Point(8, y)), group=k)
        for k, y in (("ring", 40.1), ("switched", 36.2), ("direct", 38.0), ("chain", 37.1))
    ]
    labels = _labels(scaling_chart(series, title="t"))
    assert len(labels) == 8
    at_eight = sorted(y for x, y, _ in labels if x > 500)
    assert all(b - a >= 11.9 for a, b in zip(at_eight, at_eight[1:], strict=False)), at_eight


def test_published_reference_is_faint_and_labelled_once():
    ref = Series(
        "published reference · ring",
        "published",
        "#c77700",
        (Point(1, 11.9), Point(4, 32.8), Point(8, 40.1)),
        group="ring",
        reference=True,
    )
    mine = Series("measured here · ring", "measured", "#c77700", (Point(4, 30.0),), group="ring")
    svg = scaling_chart([ref, mine], title="t")
    assert 'opacity="0.55"' in svg and "published (reference)" in svg
    assert [t for _, _, t in _labels(svg)] == ["40.1", "30.0"]  # the reference's last figure, and ours


def test_bar_chart_draws_each_run_with_its_source_and_link():
    svg = bar_chart(
        [
            Bar("group-a · 8 nodes · vLLM", 52.6, "measured", "measured here", "/benchmarks/groups/3/"),
            Bar("ring · 4 nodes · <vLLM>", 32.8, "published", "NVIDIA GTC"),
        ],
        title="Qwen: decode",
    )
    assert svg.count("<rect") == 2 and 'fill="#4f7d00"' in svg and 'fill="#2660c8"' in svg
    assert '<a href="/benchmarks/groups/3/">' in svg and "&lt;vLLM&gt;" in svg and "<vLLM>" not in svg
    assert ">52.6<" in svg and ">32.8<" in svg
