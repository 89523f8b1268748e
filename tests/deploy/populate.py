"""A populated lab for the backup and upgrade tests, written through the app's
own code: ``python manage.py shell -c "exec(open(PATH).read())"``. Only
interfaces the previous release already had are used, so the same script
populates a database at the previous release's schema (tests/deploy/test_backup.py).

The demo lab and users (manage.py demo), an API token, a booking, a
maintenance window, a measured benchmark, a fabric verification, an alert
with its delivery and an alert subscription.
"""

from datetime import timedelta

from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from accounts.tokens import token_create
from bookings import services as booking_services
from bookings.models import MaintenanceWindow
from core.actor import Actor
from fabric.models import FabricRun
from inventory.models import NodeGroup, Spark
from notifications.models import Delivery, Subscription

try:
    from benchmarks.models import BenchmarkRun
except ImportError:  # the previous release, before benchmarks had their own app
    from placement.models import BenchmarkRun  # type: ignore[no-redef]
from telemetry.models import Alert

call_command("demo", verbosity=0)
admin, member = User.objects.get(username="admin"), User.objects.get(username="member")
admin.email, member.email = "admin@example.org", "member@example.org"
admin.save()
member.save()
token_create(user=member, name="backup script")
pair = NodeGroup.objects.get(name="group-spark-01")
now = timezone.now().replace(microsecond=0)
booking_services.booking_create(
    actor=Actor(user=member, source="api"), group=pair.pk, start=now + timedelta(days=2),
    end=now + timedelta(days=2, hours=4), purpose="backup round trip",
)  # fmt: skip
MaintenanceWindow.objects.create(
    start=now + timedelta(days=5), end=now + timedelta(days=5, hours=2), reason="firmware", created_by=admin
)
BenchmarkRun.objects.create(
    group=pair, group_name=pair.name, topology_kind="direct", group_nodes=["spark-01", "spark-02"],
    nodes=["spark-01", "spark-02"], node_count=2, link_gbps=200, model_name="llama-3.3-70b", tp=2,
    concurrency=1, input_len=128, output_len=128, decode_tps=7.4, prefill_tps=812.0,
)  # fmt: skip
FabricRun.objects.create(
    group=pair, group_name=pair.name, kind="direct", link_gbps=200, status=FabricRun.Status.DONE, verdict="ok",
    avg_busbw=21.9, expected_low=20.0, expected_high=24.0, finished_at=now,
)  # fmt: skip
alert = Alert.objects.create(
    spark=Spark.objects.get(name="spark-03"), code="unreachable", severity="critical", objects_key="spark-03",
    about=["spark-03"], message="spark-03 did not answer", started_at=now, last_seen_at=now,
)  # fmt: skip
Delivery.objects.create(channel="email", target="admin@example.org", event="opened", alert=alert, subject="s", body="b")
Subscription.objects.create(user=admin, group=None, min_severity="warning")
