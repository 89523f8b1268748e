"""The software-drift rule: who differs, from what, and the fix (pure)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from telemetry.drift import differences, names, spark_verdicts

BASE = {
    "dgx_os": "7.3.1",
    "kernel": "6.17.0-1026-nvidia",
    "driver": "580.95.05",
    "cuda": "13.0",
    "connectx_firmware": "28.45.4028",
    "nccl": "2.28.9",
    "image:nvcr.io/nvidia/vllm:26.05-py3": "sha256:" + "ab" * 32,
}


def fleet(n=4, **odd):
    """n Sparks on BASE; odd: quantity -> value on the last one."""
    out = {f"spark-{i:02d}": dict(BASE) for i in range(1, n + 1)}
    out[f"spark-{n:02d}"].update(odd)
    return out


def test_a_group_that_agrees_has_no_finding():
    versions = fleet()
    assert differences(versions) == []
    assert spark_verdicts({"group-spark-01": list(versions)}, versions) == {}


def test_one_driver_behind_is_named_with_its_fix():
    versions = fleet(driver="580.82.09")
    verdicts = spark_verdicts({"group-spark-01": list(versions)}, versions)
    assert list(verdicts) == ["spark-04"]
    v = verdicts["spark-04"]
    assert v.code == "software-drift" and v.severity == "warning" and v.objects == ("spark-04",)
    assert v.message == (
        "spark-04 runs other software than the rest in group-spark-01: GPU driver 580.82.09 (580.95.05 on "
        "spark-01 to spark-03). Fix: update spark-04's driver to 580.95.05, as on spark-01 to spark-03."
    )


def test_every_quantity_that_differs_is_in_the_one_verdict():
    odd = {
        "dgx_os": "7.2.3",
        "kernel": "6.11.0-1016-nvidia",
        "driver": "580.82.09",
        "cuda": "12.9",
        "connectx_firmware": "28.43.1014",
        "nccl": "2.28.3 (dgxspark-3node-ring v2.28.3-1-17-g1a2b3c4)",
        "image:nvcr.io/nvidia/vllm:26.05-py3": "sha256:" + "cd" * 32,
    }
    versions = fleet(**odd)
    found = {d.quantity: d for d in differences(versions)}
    assert set(found) == set(odd)
    for quantity, diff in found.items():
        assert diff.target == BASE[quantity] and diff.odd == (("spark-04", odd[quantity]),)
        assert diff.holders == ("spark-01", "spark-02", "spark-03")
    message = spark_verdicts({"g": list(versions)}, versions)["spark-04"].message
    expected = (
        "DGX OS 7.2.3 (7.3.1",
        "kernel 6.11.0-1016-nvidia",
        "ConnectX-7 firmware 28.43.1014",
        "NCCL 2.28.3 (dgxspark-3node-ring",
        f"docker pull nvcr.io/nvidia/vllm@sha256:{'ab' * 32} && docker tag nvcr.io/nvidia/vllm@sha256:{'ab' * 32} "
        "nvcr.io/nvidia/vllm:26.05-py3` on spark-04",
        "sha256:cdcdcdcdcdcd",
    )
    for text in expected:
        assert text in message


def test_a_pair_that_disagrees_follows_the_newer_version():
    versions = fleet(2, driver="580.126.09")
    assert [(d.target, d.odd) for d in differences(versions)] == [("580.126.09", (("spark-01", "580.95.05"),))]


def test_a_tie_of_digests_names_every_spark():
    ref = "image:nvcr.io/nvidia/vllm:26.05-py3"
    versions = fleet(2, **{ref: "sha256:" + "cd" * 32})
    (diff,) = differences(versions)
    assert diff.target is None and diff.odd_names == ("spark-01", "spark-02")
    verdicts = spark_verdicts({"g": list(versions)}, versions)
    assert set(verdicts) == {"spark-01", "spark-02"}
    assert "pull nvcr.io/nvidia/vllm:26.05-py3 again on every node" in verdicts["spark-01"].message


def test_a_spark_without_the_image_is_told_to_pull_the_build_the_others_hold():
    """The value "absent" is never the target, even when it ties or is most
    common: the Sparks that hold a build are right, the ones without it pull it."""
    ref = "image:nvcr.io/nvidia/vllm:26.05-py3"
    build = BASE[ref]
    pair = fleet(2, **{ref: "absent"})
    (diff,) = differences(pair)
    assert (diff.target, diff.holders, diff.odd) == (build, ("spark-01",), (("spark-02", "absent"),))
    message = spark_verdicts({"g": list(pair)}, pair)["spark-02"].message
    assert message == (
        "spark-02 runs other software than the rest in g: image nvcr.io/nvidia/vllm:26.05-py3 absent "
        f"({build[:19]} on spark-01). Fix: run `docker pull nvcr.io/nvidia/vllm@{build} && docker tag "
        f"nvcr.io/nvidia/vllm@{build} nvcr.io/nvidia/vllm:26.05-py3` on spark-02 (digest {build[:19]}, as on "
        "spark-01)."
    )
    three = fleet(3, **{ref: "absent"})
    three["spark-02"][ref] = "absent"
    (diff,) = differences(three)
    assert (diff.target, diff.odd_names) == (build, ("spark-02", "spark-03"))
    assert differences(fleet(2, **{ref: "absent"}) | {"spark-01": dict(BASE, **{ref: "absent"})}) == []


def test_unknown_values_are_never_different():
    versions = fleet(driver=None, **{"image:nvcr.io/nvidia/vllm:26.05-py3": None})
    assert differences(versions) == []


def test_a_pin_flags_a_spark_even_when_its_group_agrees():
    versions = fleet()
    verdicts = spark_verdicts({"g": list(versions)}, versions, {"driver": "580.126.09"})
    assert set(verdicts) == set(versions)
    assert verdicts["spark-01"].message == (
        "spark-01 runs other software than the lab expects: GPU driver 580.95.05 (the lab expects 580.126.09). "
        "Fix: update spark-01's driver to 580.126.09."
    )


def test_a_spark_alone_is_checked_against_the_pins_only():
    versions = {"spark-09": dict(BASE, driver="580.82.09")}
    assert spark_verdicts({}, versions) == {}
    assert set(spark_verdicts({}, versions, {"driver": "580.95.05"})) == {"spark-09"}


def test_names():
    assert names(["spark-03", "spark-01", "spark-02"]) == "spark-01 to spark-03"
    assert names(["spark-01", "spark-03"]) == "spark-01 and spark-03"
    assert names(["a", "b", "c", "d", "e", "f", "g"]) == "a, b, c, d, e, f and 1 more"
    sparks = ["spark-07", "spark-08", "spark-09", "spark-11", "spark-12", "spark-13", "spark-14"]
    assert names(sparks) == "spark-07 to spark-09 and spark-11 to spark-14"
    assert names(["s1", "s2", "s4", "s5", "s6", "x"]) == "s1, s2, s4 to s6 and x"


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([f"spark-{i:02d}" for i in range(1, 9)]),
        st.fixed_dictionaries({"driver": st.sampled_from(["580.82.09", "580.95.05", "580.126.09", None])}),
        min_size=1,
    )
)
def test_drift_properties(versions):
    diffs = differences(versions)
    known = {n: v["driver"] for n, v in versions.items() if v["driver"] is not None}
    if len(set(known.values())) <= 1:
        assert diffs == []
        return
    (diff,) = diffs
    # the target is a value someone runs, at least as common as any other, and nobody odd runs it
    counts = {value: list(known.values()).count(value) for value in known.values()}
    assert counts[diff.target] == max(counts.values())
    assert all(value != diff.target for _, value in diff.odd)
    assert set(diff.holders) | set(diff.odd_names) == set(known)
    verdicts = spark_verdicts({"g": list(versions)}, versions)
    assert set(verdicts) == set(diff.odd_names)
