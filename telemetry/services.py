"""Writes of telemetry: store poll results with the health they imply, open
and close alerts, accept host keys, acknowledge alerts, mark stale nodes.

Each function runs in one transaction: a store that fails half-way (a worker
killed, the database gone) leaves nothing behind, and the retried task
starts clean. Storing is idempotent: a poll already stored (same node and
start time) is skipped. Callers (tasks, commands, views, API) stay thin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core.actor import Actor
from core.errors import BadInput
from core.health import HealthStatus
from core.hooks import Hook
from inventory.models import Change, Spark
from telemetry import conf, drift, health, software_store
from telemetry.expectations import Expectations, expectations_for
from telemetry.keys import fingerprint
from telemetry.models import TWIN_FIELDS, Alert, NodeSample, NodeState, SoftwarePin
from telemetry.poller import normalize_key
from telemetry.sample import PollResult, Sample
from telemetry.software import SoftwareReading

# Alerts the node rules own; ``mtu-mismatch`` is owned by the link rule,
# ``software-drift`` by the drift rule (``software_drift_sync``: a group's verdict).
LINK_CODES = frozenset({"mtu-mismatch"})
SOFTWARE_CODES = frozenset({drift.CODE})

# Told, inside the storing transaction, the ids of the alerts just opened and
# just closed (opened, closed); listeners act on commit (notifications do).
AlertsChanged = Callable[[list[int], list[int]], None]
ALERTS_CHANGED: Hook[AlertsChanged] = Hook("telemetry.alerts_changed")


class TelemetryError(BadInput):
    """Bad input a user can cause (accepting a key nobody presented, ...): 400."""


@dataclass
class StoreReport:
    stored: int = 0
    skipped: int = 0  # already stored (a retried task) or no longer in the inventory
    statuses: dict[str, str] = field(default_factory=dict)
    opened: int = 0
    closed: int = 0
    software: int = 0  # software readings stored
    software_changed: bool = False  # a reading differed from the last: judge the drift again

    def as_dict(self) -> dict[str, Any]:
        return {
            "stored": self.stored,
            "skipped": self.skipped,
            "statuses": self.statuses,
            "opened": self.opened,
            "closed": self.closed,
            "software": self.software,
        }


# ---------------------------------------------------------------- samples


def twin_pack(sample: Sample | None) -> list[list[Any]] | None:
    if sample is None or sample.twins is None:
        return None
    return [[getattr(t, f) if f != "addresses" else list(t.addresses) for f in TWIN_FIELDS] for t in sample.twins]


def process_pack(sample: Sample | None) -> list[list[Any]] | None:
    if sample is None or sample.processes is None:
        return None
    return [[p.pid, p.used_mib, p.name[:200], p.user] for p in sample.processes[:64]]


def _sample_row(spark: Spark, result: PollResult, status: str) -> NodeSample:
    sample = result.sample
    memory = sample.memory if sample else None
    gpu = sample.gpu if sample else None
    twins = sample.twins if sample else None
    return NodeSample(
        spark=spark,
        at=result.at,
        reachable=result.reachable,
        error=result.error[:500],
        duration_ms=result.duration_ms,
        status=status,
        mem_total_bytes=memory.total_bytes if memory else None,
        mem_available_bytes=memory.available_bytes if memory else None,
        mem_used_bytes=memory.used_bytes if memory else None,
        swap_total_bytes=memory.swap_total_bytes if memory else None,
        swap_free_bytes=memory.swap_free_bytes if memory else None,
        psi_full_avg10=memory.psi_full_avg10 if memory else None,
        gpu_util_pct=gpu.util_pct if gpu else None,
        gpu_temp_c=gpu.temp_c if gpu else None,
        gpu_power_w=gpu.power_w if gpu else None,
        load1=sample.load1 if sample else None,
        uptime_s=sample.uptime_s if sample else None,
        twins_up=sum(1 for t in twins if t.up) if twins is not None else None,
        twins=twin_pack(sample),
        errors=[e[:300] for e in (sample.errors if sample else ())][:20],
        processes=process_pack(sample),
    )


def sample_of(row: NodeSample) -> Sample | None:
    """The stored row back as a health-rule Sample (only what the rules read)."""
    if not row.reachable or (row.mem_total_bytes is None and row.twins is None):
        return None
    return Sample.from_dict(
        {
            "memory": None
            if row.mem_total_bytes is None
            else {
                "total_bytes": row.mem_total_bytes,
                "available_bytes": row.mem_available_bytes or 0,
                "used_bytes": row.mem_used_bytes or 0,
                "swap_total_bytes": row.swap_total_bytes,
                "swap_free_bytes": row.swap_free_bytes,
                "psi_some_avg10": None,
                "psi_full_avg10": row.psi_full_avg10,
            },
            "gpu": None,
            "processes": None,
            "twins": row.twin_list if row.twins is not None else None,
            "neighbours": None,
            "uptime_s": row.uptime_s,
            "load1": row.load1,
            "errors": row.errors,
        }
    )


# ---------------------------------------------------------------- alerts


def objects_key(objects: Iterable[str]) -> str:
    return "|".join(sorted(set(objects)))[:255]


def _alerts_sync(
    *,
    wanted_by_node: Mapping[int, Sequence[health.Verdict]],
    now: datetime,
    codes: frozenset[str] | None,
    exclude_codes: frozenset[str] = frozenset(),
    report: StoreReport,
) -> None:
    """Make the open alerts of each node (limited to ``codes``, or all but
    ``exclude_codes``) exactly the ones given: open new ones, refresh the rest,
    end the ones no longer firing. A fixed number of queries for any number
    of nodes (a poll round stores a whole chunk at once)."""
    if not wanted_by_node:
        return
    open_qs = Alert.objects.filter(spark_id__in=list(wanted_by_node), ended_at__isnull=True)
    open_qs = open_qs.exclude(code__in=exclude_codes) if exclude_codes else open_qs
    if codes is not None:
        open_qs = open_qs.filter(code__in=codes)
    open_now = {(a.spark_id, a.code, a.objects_key): a for a in open_qs}
    wanted = {
        (spark_id, a.code, objects_key(a.objects)): a for spark_id, alerts in wanted_by_node.items() for a in alerts
    }
    ended = [row.pk for key, row in open_now.items() if key not in wanted]
    changed, seen = [], []
    for key, alert in wanted.items():
        row = open_now.get(key)
        if row is None:
            continue
        if row.message != alert.message or row.severity != alert.severity:
            row.message, row.severity, row.last_seen_at = alert.message, alert.severity, now
            changed.append(row)
        else:
            seen.append(row.pk)
    new = [
        Alert(
            spark_id=key[0],
            code=a.code,
            severity=a.severity,
            objects_key=key[2],
            about=list(a.objects),
            message=a.message,
            started_at=now,
            last_seen_at=now,
        )
        for key, a in wanted.items()
        if key not in open_now
    ]
    if ended:
        Alert.objects.filter(pk__in=ended).update(ended_at=now)
    if seen:
        Alert.objects.filter(pk__in=seen).update(last_seen_at=now)
    if changed:
        Alert.objects.bulk_update(changed, ["message", "severity", "last_seen_at"], batch_size=200)
    if new:
        Alert.objects.bulk_create(new, batch_size=500)
    report.closed += len(ended)
    report.opened += len(new)
    if new or ended:
        opened_ids = [a.pk for a in new if a.pk is not None]
        if len(opened_ids) < len(new):  # a database that does not return ids from bulk inserts
            keys = {(a.spark_id, a.code, a.objects_key) for a in new}
            opened_ids = [
                pk
                for pk, *key in Alert.objects.filter(started_at=now, ended_at__isnull=True).values_list(
                    "pk", "spark_id", "code", "objects_key"
                )
                if tuple(key) in keys
            ]
        for listener in ALERTS_CHANGED:
            listener(opened_ids, list(ended))


def _status_from_open(spark_ids: Iterable[int], reachable: dict[int, bool | None]) -> dict[int, str]:
    """Node health from every open alert (node and link rules together)."""
    by_node: dict[int, list[health.Verdict]] = {i: [] for i in spark_ids}
    for row in Alert.objects.filter(spark_id__in=list(by_node), ended_at__isnull=True):
        by_node[row.spark_id].append(health.Verdict(row.code, row.severity, row.message, tuple(row.about)))  # type: ignore[arg-type]
    return {i: health.node_status(alerts, reachable.get(i)) for i, alerts in by_node.items()}


# ---------------------------------------------------------------- storing polls


def results_store(
    *, results: Sequence[PollResult], now: datetime | None = None, expectations: Expectations | None = None
) -> StoreReport:
    """Store one batch of poll results atomically: a sample row per node, the
    host key outcome, alerts opened and closed, each node's health."""
    now = now or timezone.now()
    report = StoreReport()
    interval = conf.poll_interval_s()
    with transaction.atomic():
        sparks = {s.name: s for s in Spark.objects.filter(name__in=[r.name for r in results])}
        report.skipped += sum(1 for r in results if r.name not in sparks)  # deleted since the poll began
        results = [r for r in results if r.name in sparks]
        ids = [sparks[r.name].pk for r in results]
        have = set(NodeState.objects.filter(spark_id__in=ids).values_list("spark_id", flat=True))
        NodeState.objects.bulk_create([NodeState(spark_id=i) for i in ids if i not in have], ignore_conflicts=True)
        states = {
            s.spark_id: s
            for s in NodeState.objects.select_for_update(of=("self",))
            .filter(spark_id__in=ids)
            .select_related("spark", "latest")
        }
        done = set(
            NodeSample.objects.filter(spark_id__in=ids, at__in=[r.at for r in results]).values_list("spark_id", "at")
        )
        expectations = expectations or expectations_for(ids)
        rows: list[NodeSample] = []
        node_alerts: dict[int, Sequence[health.Verdict]] = {}
        readings: list[tuple[int, datetime, float | None, SoftwareReading]] = []
        for result in results:
            spark = sparks[result.name]
            if (spark.pk, result.at) in done:
                report.skipped += 1
                continue
            state = states[spark.pk]
            _host_key_note(state, result)
            alerts = health.evaluate_node(
                spark.name,
                result,
                expectations.nodes.get(spark.name) or health.NodeExpectation(spark.name),
                now=now,
                last_sample_at=state.last_sample_at,
                interval_s=interval,
            )
            node_alerts[spark.pk] = alerts
            status = health.node_status(alerts, result.reachable)
            rows.append(_sample_row(spark, result, status))
            state.last_poll_at = result.at
            if result.sample is not None:
                state.last_sample_at = result.at
                if result.sample.software is not None:
                    readings.append((spark.pk, result.at, result.sample.uptime_s, result.sample.software))
        _alerts_sync(
            wanted_by_node=node_alerts, now=now, codes=None, exclude_codes=LINK_CODES | SOFTWARE_CODES, report=report
        )
        report.software = len(readings)
        report.software_changed = software_store.readings_store(readings, now=now)
        created = NodeSample.objects.bulk_create(rows, batch_size=500)
        report.stored = len(created)
        for row in created:
            state = states[row.spark_id]
            if row.pk is None:  # a backend that cannot return ids from a bulk insert
                row = NodeSample.objects.get(spark_id=row.spark_id, at=row.at)
            if state.latest is None or row.at >= state.latest.at:
                state.latest = row
        _links_check(expectations, states, now, report)
        reachable = {sid: (st.latest.reachable if st.latest else None) for sid, st in states.items()}
        for spark_id, overall in _status_from_open(ids, reachable).items():
            states[spark_id].status = overall
            report.statuses[states[spark_id].spark.name] = overall
        _states_save(list(states.values()))
    return report


_STATE_FIELDS = ("status", "latest", "last_poll_at", "last_sample_at", "presented_key", "key_status")


def _states_save(states: list[NodeState]) -> None:
    """One UPDATE per node in a single executemany: Django's bulk_update builds a
    CASE per field and row, which costs seconds for a thousand nodes."""
    if not states:
        return
    meta = NodeState._meta
    fields = [meta.get_field(name) for name in _STATE_FIELDS]
    quote = connection.ops.quote_name
    # Only names from the model's own metadata are interpolated; values are parameters.
    assignments = ", ".join(f"{quote(str(f.column))} = %s" for f in fields)  # type: ignore[union-attr]
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(str(meta.pk.column))} = %s"  # noqa: S608
    params = [
        [f.get_db_prep_save(getattr(st, f.attname), connection) for f in fields] + [st.pk]  # type: ignore[union-attr]
        for st in states
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _host_key_note(state: NodeState, result: PollResult) -> None:
    presented = normalize_key(result.host_key) or ""
    if result.host_key_status == "mismatch":
        # Remember the new key for the admin to compare; the accepted one stays.
        state.key_status = NodeState.KeyStatus.MISMATCH
        state.presented_key = presented
    elif result.host_key_status == "unknown" and presented:
        state.key_status = NodeState.KeyStatus.UNKNOWN
        state.presented_key = presented
    elif result.host_key_status == "ok" and state.host_key:
        state.key_status = NodeState.KeyStatus.OK
        state.presented_key = ""


def _links_check(expectations: Expectations, states: dict[int, NodeState], now: datetime, report: StoreReport) -> None:
    """The MTU rule on every Spark-to-Spark cable with an end among the polled
    nodes (``states``, with their new latest sample, not saved yet), against
    the latest stored sample of the other end."""
    polled = {st.spark.name: st for st in states.values()}
    links = expectations.links_touching(polled)
    if not links:
        return
    names = {n for link in links for n, _ in link}
    rows = {
        st.spark.name: st
        for st in NodeState.objects.filter(spark__name__in=names - set(polled)).select_related("spark", "latest")
    }
    rows.update(polled)
    samples = {name: sample_of(st.latest) if st.latest else None for name, st in rows.items()}
    by_owner: dict[str, list[health.Verdict]] = {}
    for alert in health.evaluate_links(samples, links):
        by_owner.setdefault(alert.objects[0].split(":")[0], []).append(alert)
    owners = {rows[a].spark_id: by_owner.get(a, []) for (a, _), _b in links if a in rows}
    # The first end (in name order) owns a link's alerts.
    _alerts_sync(wanted_by_node=owners, now=now, codes=LINK_CODES, report=report)


# ---------------------------------------------------------------- software drift

# One drift judgement at a time: two chunks stored at once must not both open one alert.
_DRIFT_LOCK = 0x5F1EE7D1


def software_drift_sync(*, now: datetime | None = None) -> StoreReport:
    """Make the open ``software-drift`` alerts exactly the drift rule's verdicts
    on the latest readings, groups and pins (after a chunk brought a changed
    reading, on the stale check's round for cabling changes, after a pin edit),
    and the health of the Sparks whose alert opened or ended with them."""
    now = now or timezone.now()
    report = StoreReport()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_DRIFT_LOCK])
        verdicts = software_store.drift_verdicts()
        ids = dict(Spark.objects.filter(name__in=list(verdicts)).values_list("name", "pk"))
        wanted: dict[int, Sequence[health.Verdict]] = {ids[n]: [v] for n, v in verdicts.items() if n in ids}
        for spark_id in Alert.objects.filter(code__in=SOFTWARE_CODES, ended_at__isnull=True).values_list(
            "spark_id", flat=True
        ):
            wanted.setdefault(spark_id, [])
        before = (report.opened, report.closed)
        _alerts_sync(wanted_by_node=wanted, now=now, codes=SOFTWARE_CODES, report=report)
        if (report.opened, report.closed) != before:
            states = list(
                NodeState.objects.select_for_update(of=("self",))
                .filter(spark_id__in=list(wanted))
                .select_related("spark", "latest")
            )
            reachable = {st.spark_id: (st.latest.reachable if st.latest else None) for st in states}
            statuses = _status_from_open([st.spark_id for st in states], reachable)
            for state in states:
                state.status = statuses[state.spark_id]
                report.statuses[state.spark.name] = state.status
            NodeState.objects.bulk_update(states, ["status"])
    return report


def software_pins_set(*, actor: Actor, values: Mapping[str, Any]) -> dict[str, str]:
    """Pin (or, with an empty value, unpin) the versions the lab expects, by
    quantity; bad input names its field and changes nothing. Judges the drift again."""
    problems = software_store.pin_problems(values)
    if problems:
        raise TelemetryError(problems)
    with transaction.atomic():
        before = software_store.pins()
        for quantity, value in values.items():
            text = (value or "").strip()
            if text:
                SoftwarePin.objects.update_or_create(
                    quantity=quantity,
                    defaults={"value": text, "set_at": timezone.now(), "set_by_name": actor.username or actor.source},
                )
            else:
                SoftwarePin.objects.filter(quantity=quantity).delete()
        after = software_store.pins()
        diff = {
            q: [before.get(q), after.get(q)] for q in sorted(set(before) | set(after)) if before.get(q) != after.get(q)
        }
        if diff:
            Change.objects.create(
                user=actor.known_user,
                username=actor.username,
                source=actor.source,
                action=Change.Action.UPDATE,
                object_type="software",
                object_name="expected versions",
                diff=diff,
            )
    software_drift_sync()
    return after


# ---------------------------------------------------------------- stale nodes


def stale_check(*, now: datetime | None = None) -> StoreReport:
    """Open ``stale`` for active nodes with no sample for three poll intervals.
    (A poll that brings a sample closes it.) Nodes waiting for a host key
    decision are left to their own alert."""
    now = now or timezone.now()
    report = StoreReport()
    interval = conf.poll_interval_s()
    cutoff = now - timedelta(seconds=health.Thresholds().stale_intervals * interval)
    with transaction.atomic():
        # One outage, one alert: a node whose unreachable (or host key) alert
        # is open already says why no sample comes.
        outage = Alert.objects.filter(
            spark_id=OuterRef("spark_id"), code__in=health.OUTAGE_CODES, ended_at__isnull=True
        )
        states = list(
            NodeState.objects.select_for_update(of=("self",))
            .filter(spark__status=Spark.Status.ACTIVE, last_sample_at__lt=cutoff)
            .exclude(key_status=NodeState.KeyStatus.MISMATCH)
            .exclude(Exists(outage))
            .select_related("spark", "latest")
        )
        stale = {
            state.spark_id: health.evaluate_node(
                state.spark.name, None, None, now=now, last_sample_at=state.last_sample_at, interval_s=interval
            )
            for state in states
        }
        _alerts_sync(wanted_by_node=stale, now=now, codes=frozenset({"stale"}), report=report)
        reachable = {st.spark_id: (st.latest.reachable if st.latest else None) for st in states}
        statuses = _status_from_open([st.spark_id for st in states], reachable)
        for state in states:
            state.status = statuses[state.spark_id]
            report.statuses[state.spark.name] = state.status
        NodeState.objects.bulk_update(states, ["status"])
    return report


# ---------------------------------------------------------------- host keys


def host_key_accept(*, actor: Actor, spark: Spark, key: str | None = None) -> NodeState:
    """Trust the key the node presented (trust on first use, after an admin
    looked). ``key``: the key the admin saw; refused if the node now presents
    another one, so a swap between looking and clicking is never trusted."""
    with transaction.atomic():
        state, _ = NodeState.objects.select_for_update().get_or_create(spark=spark)
        presented = normalize_key(state.presented_key)
        chosen = normalize_key(key) if key is not None else presented
        if chosen is None:
            raise TelemetryError(f"{spark.name} has not presented a host key yet: poll it first", "key")
        if key is not None and chosen != presented and chosen != normalize_key(state.host_key):
            raise TelemetryError(f"{spark.name} now presents another key than the one shown; review it again", "key")
        before = fingerprint(state.host_key)
        state.host_key = chosen
        state.presented_key = ""
        state.key_status = NodeState.KeyStatus.OK
        state.host_key_accepted_at = timezone.now()
        state.host_key_accepted_by = actor.username or actor.source
        if state.status == HealthStatus.DOWN:
            state.status = HealthStatus.UNKNOWN  # no longer down for its key; the next poll says more
        state.save()
        report = StoreReport()
        _alerts_sync(
            wanted_by_node={spark.pk: []},
            now=timezone.now(),
            codes=frozenset({"host-key-mismatch", "host-key-unknown"}),
            report=report,
        )
        Change.objects.create(
            user=actor.known_user,
            username=actor.username,
            source=actor.source,
            action=Change.Action.UPDATE,
            object_type="spark",
            object_id=spark.pk,
            object_name=spark.name,
            diff={"host_key": [before or None, fingerprint(chosen)]},
        )
    return state


# ---------------------------------------------------------------- acknowledgement


def alert_acknowledge(*, actor: Actor, alert: Alert) -> Alert:
    with transaction.atomic():
        alert = Alert.objects.select_for_update().get(pk=alert.pk)
        if alert.acknowledged_at is None:
            alert.acknowledged_at = timezone.now()
            alert.acknowledged_by = actor.known_user
            alert.acknowledged_by_name = actor.username or actor.source
            alert.save(update_fields=["acknowledged_at", "acknowledged_by", "acknowledged_by_name"])
    return alert
