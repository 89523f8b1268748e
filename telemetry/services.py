"""Writes of telemetry: store poll results with the health they imply, open
and close alerts, accept host keys, acknowledge alerts, mark stale nodes.

Each function runs in one transaction: a store that fails half-way (a worker
killed, the database gone) leaves nothing behind, and the retried task
starts clean. Storing is idempotent: a poll already stored (same node and
start time) is skipped. Callers (tasks, commands, views, API) stay thin.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
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
from telemetry import conf, drift, health, sample_rows, software_store
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
    software_ids: list[int] = field(default_factory=list)  # the Sparks whose software this store read
    handed_on: list[int] = field(default_factory=list)  # Spark ids not started before the chunk's time ran out
    polled_already: int = 0  # polled since the chunk's round began (by a chunk handed on, or a later round)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stored": self.stored,
            "skipped": self.skipped,
            "statuses": self.statuses,
            "opened": self.opened,
            "closed": self.closed,
            "software": self.software,
            "handed_on": len(self.handed_on),
            "polled_already": self.polled_already,
        }


# ---------------------------------------------------------------- samples

twin_pack = sample_rows.twin_pack
process_pack = sample_rows.process_pack


def _sample_row(spark: Spark, result: PollResult, status: str) -> NodeSample:
    """One poll as an unsaved row (benches and tests build rows with it); its twin set is stored."""
    values = sample_rows.sample_values(spark.pk, result, status)
    sample_rows.twin_sets_ensure(sample_rows.twin_sets_of([values]), now=timezone.now())
    return sample_rows.sample_row(values)


def _link_sample(reachable: bool, mem_total_bytes: int | None, twins: list[list[Any]] | None) -> Sample | None:
    """What the link rule reads of a stored row (its twins), as a Sample; None
    when the row says nothing (unreachable, or neither memory nor twins)."""
    if not reachable or (mem_total_bytes is None and twins is None):
        return None
    rows = [dict(zip(TWIN_FIELDS, row, strict=False)) for row in twins] if twins is not None else None
    return Sample.from_dict(
        {"memory": None, "gpu": None, "processes": None, "twins": rows, "neighbours": None, "uptime_s": None,
         "load1": None, "errors": []}
    )  # fmt: skip


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

# An open alert as read for a sync: (spark id, code, objects key) -> (pk, severity, message, about).
AlertKey = tuple[int, str, str]
OpenAlert = tuple[int, str, str, list[str]]


def objects_key(objects: Iterable[str]) -> str:
    return "|".join(sorted(set(objects)))[:255]


def _open_alerts(spark_ids: Iterable[int]) -> dict[AlertKey, OpenAlert]:
    """The open alerts of these nodes, every code, in one query of plain values."""
    rows = Alert.objects.filter(spark_id__any_of=frozenset(spark_ids), ended_at__isnull=True).values_list(
        "spark_id", "code", "objects_key", "pk", "severity", "message", "about"
    )
    return {(sid, code, key): (pk, severity, message, about) for sid, code, key, pk, severity, message, about in rows}


def _alerts_sync(
    *,
    wanted_by_node: Mapping[int, Sequence[health.Verdict]],
    now: datetime,
    codes: frozenset[str] | None,
    exclude_codes: frozenset[str] = frozenset(),
    report: StoreReport,
    known: dict[AlertKey, OpenAlert] | None = None,
    known_ids: frozenset[int] = frozenset(),
) -> None:
    """Make the open alerts of each node (limited to ``codes``, or all but
    ``exclude_codes``) exactly the ones given: open new ones, refresh the rest,
    end the ones no longer firing. A fixed number of queries for any number
    of nodes (a poll round stores a whole chunk at once). ``known``: the open
    alerts of the nodes ``known_ids`` already read (``_open_alerts``); it is
    kept up to date with what this sync opens, changes and ends."""
    if not wanted_by_node:
        return
    known = {} if known is None else known
    unknown = [i for i in wanted_by_node if i not in known_ids]
    if unknown:
        known.update({k: v for k, v in _open_alerts(unknown).items() if k not in known})

    def mine(key: AlertKey) -> bool:
        return key[0] in wanted_by_node and (key[1] in codes if codes is not None else key[1] not in exclude_codes)

    open_now = {key: row for key, row in known.items() if mine(key)}
    wanted = {
        (spark_id, a.code, objects_key(a.objects)): a for spark_id, alerts in wanted_by_node.items() for a in alerts
    }
    ended = [(key, row[0]) for key, row in open_now.items() if key not in wanted]
    changed, seen = [], []
    for key, alert in wanted.items():
        row = open_now.get(key)
        if row is None:
            continue
        if row[2] != alert.message or row[1] != alert.severity:
            changed.append(Alert(pk=row[0], message=alert.message, severity=alert.severity, last_seen_at=now))
            known[key] = (row[0], alert.severity, alert.message, row[3])
        else:
            seen.append(row[0])
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
        Alert.objects.filter(pk__any_of=[pk for _, pk in ended]).update(ended_at=now)
        for key, _ in ended:
            del known[key]
    if seen:
        Alert.objects.filter(pk__any_of=frozenset(seen)).update(last_seen_at=now)
    if changed:
        Alert.objects.bulk_update(changed, ["message", "severity", "last_seen_at"], batch_size=200)
    if new:
        Alert.objects.bulk_create(new, batch_size=500)
    report.closed += len(ended)
    report.opened += len(new)
    if new or ended:
        opened_ids = _opened_ids(new, now)
        for a in new:
            known[(a.spark_id, a.code, a.objects_key)] = (a.pk, a.severity, a.message, a.about)
        for listener in ALERTS_CHANGED:
            listener(opened_ids, [pk for _, pk in ended])


def _opened_ids(new: list[Alert], now: datetime) -> list[int]:
    """The ids of the alerts just created (read back where the database does not return them)."""
    opened_ids = [a.pk for a in new if a.pk is not None]
    if len(opened_ids) == len(new):
        return opened_ids
    keys = {(a.spark_id, a.code, a.objects_key) for a in new}
    found = {
        tuple(key): pk
        for pk, *key in Alert.objects.filter(started_at=now, ended_at__isnull=True).values_list(
            "pk", "spark_id", "code", "objects_key"
        )
        if tuple(key) in keys
    }
    for a in new:
        a.pk = found.get((a.spark_id, a.code, a.objects_key))
    return list(found.values())


def _statuses(
    spark_ids: Iterable[int], reachable: Mapping[int, bool | None], known: Mapping[AlertKey, OpenAlert]
) -> dict[int, str]:
    """Node health from every open alert (node and link rules together), as read and synced in ``known``."""
    by_node: dict[int, list[health.Verdict]] = {i: [] for i in spark_ids}
    for (spark_id, code, _key), (_pk, severity, message, about) in known.items():
        if spark_id in by_node:
            by_node[spark_id].append(health.Verdict(code, severity, message, tuple(about)))  # type: ignore[arg-type]
    return {i: health.node_status(alerts, reachable.get(i)) for i, alerts in by_node.items()}


def _status_from_open(spark_ids: Iterable[int], reachable: dict[int, bool | None]) -> dict[int, str]:
    """Node health from every open alert, read from the database."""
    ids = list(spark_ids)
    return _statuses(ids, reachable, _open_alerts(ids))


# ---------------------------------------------------------------- storing polls


@dataclass(slots=True)
class _State:
    """A node's state as the store reads and writes it (plain values, no model instance)."""

    spark_id: int
    name: str
    status: str
    latest_id: int | None
    latest_at: datetime | None
    latest_reachable: bool | None
    last_poll_at: datetime | None
    last_sample_at: datetime | None
    host_key: str
    presented_key: str
    key_status: str
    boot_at: datetime | None = None
    new_sample: Sample | None = None  # the poll that became its latest in this store, for the link rule
    new_latest: bool = False
    newer: bool = False  # this store brings a poll newer than every stored one (the usual case)
    read_as: tuple[Any, ...] = ()  # ``written()`` as read: a row that did not change is not written

    def written(self) -> tuple[Any, ...]:
        return (self.spark_id, self.status, self.latest_id, self.last_poll_at, self.last_sample_at,
                self.presented_key, self.key_status, self.boot_at)  # fmt: skip


def _states_lock(ids: list[int], names: Mapping[int, str]) -> dict[int, _State]:
    """Lock (creating the missing) node states of ``ids``: plain values, two queries (three for new nodes)."""

    def read() -> dict[int, _State]:
        rows = (
            NodeState.objects.select_for_update(of=("self",))
            .filter(spark_id__any_of=frozenset(ids))
            .values_list("spark_id", "status", "latest_id", "last_poll_at", "last_sample_at", "host_key",
                         "presented_key", "key_status", "boot_at")
        )  # fmt: skip
        # The latest row's time and reachability are read only where a poll does not replace it (``_latest_read``).
        out = {row[0]: _State(row[0], names[row[0]], row[1], row[2], None, None, *row[3:]) for row in rows}
        for state in out.values():
            state.read_as = state.written()
        return out

    states = read()
    missing = [i for i in ids if i not in states]
    if missing:
        NodeState.objects.bulk_create([NodeState(spark_id=i) for i in missing], ignore_conflicts=True)
        states = read()
    return states


def _latest_read(states: Iterable[_State]) -> None:
    """The time and reachability of these nodes' latest rows (nodes whose poll here
    is no newer than their last stored one: a retried or late chunk). One query, rarely."""
    by_latest = {st.latest_id: st for st in states if st.latest_id is not None}
    if by_latest:
        rows = NodeSample.objects.filter(pk__any_of=list(by_latest)).values_list("pk", "at", "reachable")
        for pk, at, reachable in rows:
            by_latest[pk].latest_at, by_latest[pk].latest_reachable = at, reachable


def results_store(
    *, results: Sequence[PollResult], now: datetime | None = None, expectations: Expectations | None = None
) -> StoreReport:
    """Store one batch of poll results atomically: a sample row per node, the
    host key outcome, alerts opened and closed, each node's health.

    A fixed number of statements whatever the batch's size (one per table
    written: the sample rows, the node states, the alerts that changed), and
    the health rules run on plain values."""
    now = now or timezone.now()
    report = StoreReport()
    interval = conf.poll_interval_s()
    with transaction.atomic():
        sparks = dict(Spark.objects.filter(name__any_of=frozenset(r.name for r in results)).values_list("name", "pk"))
        report.skipped += sum(1 for r in results if r.name not in sparks)  # deleted since the poll began
        results = [r for r in results if r.name in sparks]
        ids = [sparks[r.name] for r in results]
        states = _states_lock(ids, {sparks[r.name]: r.name for r in results})
        # A poll already stored (a retried chunk) is no newer than the node's last stored poll.
        maybe_done = [r for r in results if (last := states[sparks[r.name]].last_poll_at) and r.at <= last]
        done = (
            set(
                NodeSample.objects.filter(
                    spark_id__in=[sparks[r.name] for r in maybe_done], at__in=[r.at for r in maybe_done]
                ).values_list("spark_id", "at")
            )
            if maybe_done
            else set()
        )
        late = {r.name for r in maybe_done}
        for result in results:
            states[sparks[result.name]].newer = result.name not in late
        _latest_read(st for st in states.values() if not st.newer)
        expectations = expectations or expectations_for(ids)
        rows: list[tuple[Any, ...]] = []
        stored: list[tuple[_State, PollResult]] = []
        node_alerts: dict[int, Sequence[health.Verdict]] = {}
        readings: list[tuple[int, datetime, float | None, SoftwareReading]] = []
        for result in results:
            state = states[sparks[result.name]]
            if (state.spark_id, result.at) in done:
                report.skipped += 1
                continue
            _host_key_note(state, result)
            alerts = health.evaluate_node(
                result.name,
                result,
                expectations.nodes.get(result.name) or health.NodeExpectation(result.name),
                now=now,
                last_sample_at=state.last_sample_at,
                interval_s=interval,
            )
            node_alerts[state.spark_id] = alerts
            rows.append(sample_rows.sample_values(state.spark_id, result, health.node_status(alerts, result.reachable)))
            stored.append((state, result))
            state.last_poll_at = max(state.last_poll_at or result.at, result.at)
            if result.sample is not None:
                state.last_sample_at = max(state.last_sample_at or result.at, result.at)
                booted = software_store.boot_of(result.at, result.sample.uptime_s)
                if state.newer and software_store.boot_moved(state.boot_at, booted):
                    state.boot_at = booted
                if result.sample.software is not None:
                    readings.append((state.spark_id, result.at, result.sample.uptime_s, result.sample.software))
        known = _open_alerts(ids)
        _alerts_sync(
            wanted_by_node=node_alerts, now=now, codes=None, exclude_codes=LINK_CODES | SOFTWARE_CODES,
            report=report, known=known, known_ids=frozenset(ids),
        )  # fmt: skip
        report.software = len(readings)
        report.software_ids = [spark_id for spark_id, *_ in readings]
        report.software_changed = software_store.readings_store(readings, now=now)
        new_ids = sample_rows.samples_insert(rows, now=now)
        report.stored = len(new_ids)
        for pk, (state, result) in zip(new_ids, stored, strict=True):
            if state.newer or state.latest_at is None or result.at >= state.latest_at:
                state.latest_id, state.latest_at, state.latest_reachable = pk, result.at, result.reachable
                state.new_latest, state.new_sample = True, result.sample
        _links_check(expectations, states, now, report, known)
        reachable = {sid: st.latest_reachable for sid, st in states.items()}
        for spark_id, overall in _statuses(ids, reachable, known).items():
            states[spark_id].status = overall
            report.statuses[states[spark_id].name] = overall
        sample_rows.states_update([st.written() for st in states.values() if st.written() != st.read_as])
    return report


def _host_key_note(state: NodeState | _State, result: PollResult) -> None:
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


def _links_check(
    expectations: Expectations,
    states: dict[int, _State],
    now: datetime,
    report: StoreReport,
    known: dict[AlertKey, OpenAlert],
) -> None:
    """The MTU rule on every Spark-to-Spark cable with an end among the polled
    nodes (``states``, with their new latest sample, not saved yet), against
    the latest stored sample of the other end."""
    polled = {st.name: st for st in states.values()}
    links = expectations.links_touching(polled)
    if not links:
        return
    names = {n for link in links for n, _ in link}
    # The other ends, and polled nodes whose latest row is an older one (a late poll): read their latest rows.
    read = (names - set(polled)) | {n for n, st in polled.items() if not st.new_latest and n in names}
    samples: dict[str, Sample | None] = {}
    owner_ids = {st.name: st.spark_id for st in polled.values()}
    if read:
        others = NodeState.objects.filter(spark__name__any_of=list(read)).values_list(
            "spark__name", "spark_id", "latest__reachable", "latest__mem_total_bytes", "latest__twin_set__twins",
            "latest__twins_inline",
        )  # fmt: skip
        for name, spark_id, reachable, mem_total, shared, inline in others:
            owner_ids[name] = spark_id
            twins = shared if shared is not None else inline
            samples[name] = _link_sample(reachable, mem_total, twins) if reachable is not None else None
    for name, st in polled.items():
        if name in names and st.new_latest:
            sample = st.new_sample
            empty = sample is None or (sample.memory is None and sample.twins is None)
            samples[name] = None if empty or not st.latest_reachable else sample
    by_owner: dict[str, list[health.Verdict]] = {}
    for alert in health.evaluate_links(samples, links):
        by_owner.setdefault(alert.objects[0].split(":")[0], []).append(alert)
    owners = {owner_ids[a]: by_owner.get(a, []) for (a, _), _b in links if a in owner_ids}
    # The first end (in name order) owns a link's alerts.
    _alerts_sync(
        wanted_by_node=owners, now=now, codes=LINK_CODES, report=report, known=known,
        known_ids=frozenset(st.spark_id for st in states.values()),
    )  # fmt: skip


# ---------------------------------------------------------------- software drift

# One drift judgement at a time: two chunks stored at once must not both open one alert.
_DRIFT_LOCK = 0x5F1EE7D1


def software_drift_sync(*, now: datetime | None = None, spark_ids: Collection[int] | None = None) -> StoreReport:
    """Make the open ``software-drift`` alerts exactly the drift rule's verdicts
    on the latest readings, groups and pins (after a chunk brought a changed
    reading, on the stale check's round for cabling changes, after a pin edit),
    and the health of the Sparks whose alert opened or ended with them.
    ``spark_ids``: judge only these Sparks and their groups (a chunk's new
    readings): a first round brings readings in every chunk, and judging the
    whole fleet after each one made its cost grow with the square of the fleet."""
    now = now or timezone.now()
    report = StoreReport()
    with transaction.atomic():
        if connection.vendor == "postgresql":  # SQLite lets one writer at a time anyway
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_DRIFT_LOCK])
        verdicts, judged = software_store.drift_verdicts(spark_ids)
        ids = dict(Spark.objects.filter(name__in=list(verdicts)).values_list("name", "pk"))
        wanted: dict[int, Sequence[health.Verdict]] = {ids[n]: [v] for n, v in verdicts.items() if n in ids}
        open_ones = Alert.objects.filter(code__in=SOFTWARE_CODES, ended_at__isnull=True)
        if judged is not None:
            open_ones = open_ones.filter(spark__name__in=list(judged))
        for spark_id in open_ones.values_list("spark_id", flat=True):
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
        if key is not None and chosen is None:
            raise TelemetryError(
                "not an SSH public key: send it as the Spark's page shows it (ssh-ed25519 AAAA...)", "key"
            )
        if chosen is None:
            raise TelemetryError(f"{spark.name} has not presented a host key yet: poll it first", "key")
        if key is not None and chosen != presented and chosen != normalize_key(state.host_key):
            raise TelemetryError(f"{spark.name} now presents another key than the one shown; review it again", "key")
        if chosen == normalize_key(state.host_key) and state.key_status == NodeState.KeyStatus.OK:
            return state  # already trusted: nothing to record, and a node down for another reason stays down
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
