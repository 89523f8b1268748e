"""Software over real SSH from simulated Sparks, through the poll round into the
database: due Sparks read it, changes are kept, a group whose nodes differ gets
``software-drift`` naming every quantity, the versions and the fix; a group that
agrees gets none; pins apply to every Spark; odd tools still poll cleanly."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.actor import Actor
from simfleet.simulator import SimNode
from telemetry.models import Alert, NodeState, SoftwareChange, SoftwareState
from telemetry.poll_round import poll_and_store, targets_for
from telemetry.services import software_drift_sync, software_pins_set
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key
VLLM = "nvcr.io/nvidia/vllm:26.05-py3"
ODD = {
    "dgx_os": "7.2.3",
    "kernel": "6.11.0-1016-nvidia",
    "driver": "580.82.09",
    "cuda": "12.9",
    "connectx_firmware": "28.43.1014",
    "nccl": "2.27.7",
    "nccl_build": "v2.27.7-1",
    "image_digest": "sha256:" + "cd" * 32,
}
NAMES = ("s1", "s2", "s3", "s4", "s5")


def _nodes() -> list[SimNode]:
    ring = {
        "s1": {"p0": ("s2", "p0"), "p1": ("s3", "p1")},
        "s2": {"p0": ("s1", "p0"), "p1": ("s3", "p0")},
        "s3": {"p0": ("s2", "p1"), "p1": ("s1", "p1")},
    }
    return [
        SimNode("s1", cabled_ports=ring["s1"]),
        SimNode("s2", cabled_ports=ring["s2"]),
        SimNode("s3", cabled_ports=ring["s3"], software=dict(ODD)),
        # a pair that agrees: one whose driver was updated without a reboot, one
        # without Docker whose nvidia-smi answers [N/A] for every gauge
        SimNode("s4", cabled_ports={"p0": ("s5", "p0")}, faults={"smi-mismatch"}),
        SimNode("s5", cabled_ports={"p0": ("s4", "p0")}, faults={"no-docker", "gpu-na"}),
    ]


def _open_drift() -> dict[str, str]:
    return dict(Alert.objects.filter(code="software-drift", ended_at=None).values_list("spark__name", "message"))


@pytest.mark.django_db
def test_a_group_that_differs_gets_the_finding_and_one_that_agrees_none(fleet_key, tmp_path, settings):
    settings.FLEET_SOFTWARE_INTERVAL_S = 3600
    with sim_lab(_nodes(), fleet_key, tmp_path, settings) as fleet:
        targets, _, _ = targets_for(ids(*NAMES))
        assert all(t.software for t in targets)  # never read: due
        report = poll_and_store(spark_ids=ids(*NAMES))
        assert report.software == 5

        drift = _open_drift()
        assert set(drift) == {"s3"}
        message = drift["s3"]
        for part in (
            "DGX OS 7.2.3 (7.3.1 on s1 and s2)",
            "kernel 6.11.0-1016-nvidia (6.17.0-1026-nvidia on s1 and s2)",
            "GPU driver 580.82.09 (580.95.05 on s1 and s2)",
            "CUDA version 12.9 (13.0 on s1 and s2)",
            "ConnectX-7 firmware 28.43.1014 (28.45.4028 on s1 and s2)",
            "NCCL 2.27.7 (2.28.9 on s1 and s2)",
            f"image {VLLM} sha256:cdcdcdcdcdcd (sha256:4f4f4f4f4f4f on s1 and s2)",
            "update s3's driver to 580.95.05, as on s1 and s2",
            f"run `docker pull {VLLM.rsplit(':', 1)[0]}@sha256:{'4f' * 32} && docker tag "
            f"{VLLM.rsplit(':', 1)[0]}@sha256:{'4f' * 32} {VLLM}` on s3",
        ):
            assert part in message, (part, message)
        states = dict(NodeState.objects.values_list("spark__name", "status"))
        assert states == {"s1": "ok", "s2": "ok", "s3": "degraded", "s4": "ok", "s5": "ok"}
        # the odd tools polled cleanly: no parse error, the pair's versions read or unknown
        assert not Alert.objects.filter(ended_at=None).exclude(code="software-drift").exists()
        s4 = SoftwareState.objects.get(spark__name="s4")
        s5 = SoftwareState.objects.get(spark__name="s5")
        assert s4.known["driver"] == "580.95.05" and "cuda" not in s4.known
        assert s5.reading["docker"] == "absent" and f"image:{VLLM}" not in s5.known
        assert s5.known["driver"] == "580.95.05" and s5.known["cuda"] == "13.0"
        na = NodeState.objects.get(spark__name="s5").latest
        assert na.gpu_util_pct is None and na.gpu_power_w is None and na.errors == []

        # Not due again: the next round sends the plain poll and the reading stays.
        read_at = s4.read_at
        assert not any(t.software for t in targets_for(ids(*NAMES))[0])
        assert poll_and_store(spark_ids=ids(*NAMES)).software == 0
        assert SoftwareState.objects.get(spark__name="s4").read_at == read_at

        # s3 is updated; its next reading (due again) closes the finding and keeps the changes.
        fleet.set_software("s3", {})
        SoftwareState.objects.filter(spark__name="s3").update(read_at=read_at - timedelta(hours=2))
        assert poll_and_store(spark_ids=ids("s3")).software == 1
        assert _open_drift() == {}
        changed = dict(SoftwareChange.objects.filter(spark__name="s3").values_list("quantity", "after"))
        assert changed["driver"] == "580.95.05" and changed["kernel"] == "6.17.0-1026-nvidia"
        assert len(changed) == 7 and not SoftwareChange.objects.exclude(spark__name="s3").exists()
        assert NodeState.objects.get(spark__name="s3").status == "ok"

        # A pinned driver applies to every Spark, even in groups that agree.
        software_pins_set(actor=Actor(source="command"), values={"driver": "580.126.09"})
        drift = _open_drift()
        assert set(drift) == set(NAMES)
        assert "GPU driver 580.95.05 (the lab expects 580.126.09)" in drift["s4"]
        software_pins_set(actor=Actor(source="command"), values={"driver": ""})
        assert _open_drift() == {}


@pytest.mark.django_db
def test_a_reboot_makes_the_software_due(fleet_key, tmp_path, settings):
    with sim_lab([SimNode("r1")], fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("r1"))
        assert not targets_for(ids("r1"))[0][0].software
        # The node booted after the reading: its uptime went back.
        SoftwareState.objects.update(boot_at=SoftwareState.objects.get().boot_at - timedelta(hours=1))
        assert targets_for(ids("r1"))[0][0].software
        assert software_drift_sync().opened == 0


@pytest.mark.django_db
def test_a_chunk_judges_the_drift_of_its_own_sparks_groups_and_leaves_the_others_alone(
    fleet_key, tmp_path, settings, django_assert_max_num_queries
):
    """A first round brings readings in every chunk: each chunk's judgement covers its
    Sparks and their groups (whatever the chunk's size), and every chunk done gives the
    fleet-wide judgement's findings."""
    settings.FLEET_SOFTWARE_INTERVAL_S = 3600
    with sim_lab(_nodes(), fleet_key, tmp_path, settings):
        # The pair's chunk first: s4 and s5 agree, and the ring (not read yet) is not judged.
        report = poll_and_store(spark_ids=ids("s4", "s5"))
        assert report.software == 2 and report.software_changed
        assert _open_drift() == {}
        # One of the ring: judged with the rest of its group, which has no reading yet.
        poll_and_store(spark_ids=ids("s3"))
        assert _open_drift() == {}
        # The rest of the ring: s3 differs from s1 and s2.
        poll_and_store(spark_ids=ids("s1", "s2"))
        assert set(_open_drift()) == {"s3"}
        per_chunk = _open_drift()
        # The fleet-wide judgement (the stale check's) finds the same, and changes nothing.
        assert software_drift_sync().opened == 0
        assert _open_drift() == per_chunk
        # A chunk's judgement reads its own Sparks' groups, not the fleet's.
        from telemetry.models import SoftwareState

        ring = ids("s1", "s2", "s3")
        with django_assert_max_num_queries(12) as pair_queries:
            software_drift_sync(spark_ids=ids("s4"))
        with django_assert_max_num_queries(12) as ring_queries:
            software_drift_sync(spark_ids=ring)

        def reads(queries):
            return [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]

        assert not [q for q in reads(ring_queries) if "'s4'" in q or "'s5'" in q]
        assert not [q for q in reads(pair_queries) if "'s1'" in q or "'s2'" in q or "'s3'" in q]
        assert [q for q in reads(pair_queries) if "'s4', 's5'" in q or "'s5', 's4'" in q]  # its group, both
        assert SoftwareState.objects.count() == 5
