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


def test_a_flagged_bar_keeps_its_flag_inside_the_chart_however_long_the_label():
    """A speculative run's method is drawn after its figure, where no label is
    cut: the plot narrows so the fastest bar's figure and flag fit the width."""
    long = "single · 1 node · vLLM nvfp4 · read as something long enough to be cut"
    plain = bar_chart([Bar(long, 100.0, "published")], title="t", width=540, left=230)
    flagged = bar_chart([Bar(long, 100.0, "published", flag="+ EAGLE-3")], title="t", width=540, left=230)
    assert "…</text>" in flagged and "+ EAGLE-3</tspan>" in flagged  # the label cut, the flag whole
    bar_end = [float(w) + 230 for w in re.findall(r'<rect x="230" y="[\d.]+" width="([\d.]+)"', flagged)]
    figure_x = float(re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="11" font-weight="600"', flagged)[0])
    assert figure_x == bar_end[0] + 5
    # "100.0 + EAGLE-3": 15 characters of about 6.6 px at 11 px
    assert figure_x + 15 * 6.6 <= 540
    assert 'width="250.0"' in plain and 'width="178.0"' in flagged  # the plot gave the flag its room


def test_a_phones_chart_keeps_every_label_and_legend_entry_inside_its_width():
    """The narrow chart puts its legend under the plot in two columns (the
    chart grows by its rows), and the values at the last node count go left
    of their points, so nothing is cut at the right edge."""
    series = [
        Series("measured here · direct", "measured", "#2f6fde", (Point(1, 4.1), Point(2, 6.4)), group="direct"),
        Series("measured here · sockets", "measured", "#8a8f99", (Point(2, 3.1),), group="direct (TCP sockets)"),
        Series("predicted", "predicted", "#2f6fde", (Point(2, 9.5),), group="direct"),
        Series("ideal", "ideal", "#8a8f99", (Point(1, 4.1), Point(2, 8.2))),
    ]
    svg = scaling_chart(series, title="t", width=400, height=300, legend_below=True)
    assert 'class="chart narrow" viewBox="0 0 400 371"' in svg  # 300 + 14 + three rows of 19 (5 entries)
    legend = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="11.5"[^>]*>([^<]+)</text>', svg)
    assert [t for _, _, t in legend] == ["direct", "direct (TCP sockets)", "measured here", "predicted", "ideal"]
    assert all(float(y) > 300 for _, y, _ in legend)  # under the plot
    # two columns from x 58 and 229: a colour's text 20 to the right of its swatch, a style's 30
    assert [x for x, _, _ in legend] == ["78.0", "249.0", "88.0", "259.0", "88.0"]
    at_two = [(x, t) for x, _, t in _labels(svg) if t in ("6.4", "3.1")]
    assert len(at_two) == 2 and all(
        re.search(rf'x="{x}" y="[\d.]+" font-size="10.5" text-anchor="end"', svg) for x, _ in at_two
    )
    wide = scaling_chart(series, title="t")
    assert 'class="chart" viewBox="0 0 760 380"' in wide


def test_a_series_predicted_point_is_the_prediction_of_the_run_it_draws():
    """At each node count the diamond is the prediction of the run the chart
    draws there: the best measured here, else the best published; never
    whichever run the rows listed last."""
    from benchmarks.scaling import RunPoint, ScalingRow, chart_series

    def row(pk, source, nodes, tps, predicted):
        point = RunPoint(pk, source, "direct", "nccl", nodes, nodes, 1, "vllm", 1, 128, 128, tps, 200.0, f"run {pk}")
        return ScalingRow(point, 1.0, tps, predicted)

    rows = [
        row(1, "measured", 1, 40.0, 42.0),
        row(2, "measured", 1, 30.0, 25.0),  # slower: not drawn
        row(3, "published", 1, 45.0, 41.0),
        row(4, "published", 2, 60.0, 66.0),  # nothing measured at two nodes: the published run's
        row(5, "published", 2, 20.0, 19.0),  # slower, listed last
    ]
    (predicted,) = [s for s in chart_series(rows) if s.kind == "predicted"]
    assert [(p.x, p.y) for p in predicted.points] == [(1, 42.0), (2, 66.0)]
    assert predicted.points[1].note == (
        "66.0 tok/s predicted by placement.perfmodel for the run drawn there, 60.0 tok/s (run 4)"
    )
