"""core.hooks.Hook, the one way a higher floor extends a lower one."""

from core.hooks import Hook


def test_entries_come_in_order_once_each_and_blocks_restore_them():
    hook: Hook = Hook("test")

    def a():
        return "a"

    def b():
        return "b"

    hook.add(b, order=20)
    hook.add(a, order=10)
    hook.add(b)  # again: still one entry, in its first place
    assert [fn() for fn in hook] == ["a", "b"] and len(hook) == 2 and hook.first() is a
    version = hook.version
    with hook.added(lambda: "c", order=0) as c:
        assert list(hook) == [c, a, b] and hook.version > version
    assert list(hook) == [a, b]
    with hook.replaced():
        assert list(hook) == [] and hook.first() is None
    with hook.replaced(b):
        assert list(hook) == [b]
    assert list(hook) == [a, b] and a in hook and (lambda: "a") not in hook


def test_every_hook_of_the_product_is_filled_by_the_apps_that_extend_it():
    """The apps' ready() methods added their entries (Django is set up by pytest-django)."""
    from bookings.findings import busy_provider
    from core import live, panels
    from fabric.selectors import fabric_findings, measured_exchanges
    from inventory.services import AFTER_CHANGE
    from notifications.receivers import on_alerts_changed
    from placement.lab_calibration import LAB_RUNS
    from telemetry.services import ALERTS_CHANGED
    from telemetry.templatetags.telemetry_tags import software_panel, spark_panel
    from topology import live as topology_live
    from topology import observed
    from topology.engine import FINDING_CATALOGUES
    from topology.services import GROUP_FINDING_PROVIDERS, groups_sync_hook

    assert list(AFTER_CHANGE) == [groups_sync_hook]
    assert list(ALERTS_CHANGED) == [on_alerts_changed]
    assert live.SPARK_STATES.first() is topology_live.spark_states
    assert live.FLEET_STATE.first() is topology_live.fleet_snapshot
    assert set(GROUP_FINDING_PROVIDERS) == {observed.alert_findings, busy_provider, fabric_findings}
    assert list(topology_live.MEASURED_PROVIDERS) == [measured_exchanges]
    assert len(FINDING_CATALOGUES) == 3 and len(LAB_RUNS) == 1
    # the Spark page: its health box, then what it runs (telemetry)
    assert list(panels.slot("spark")) == [spark_panel, software_panel]
    assert [len(panels.slot(s)) for s in ("group", "group-exchange", "profile")] == [2, 1, 1]
