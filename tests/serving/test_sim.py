"""Serving against the simulated fleet over SSH: real asyncssh Sparks on
127.0.0.1 answer serving's scripts by starting simulated engines (and the
real vLLM router), the worker's task runs in the test, and what it serves is
called through its URL like any OpenAI client would."""

from __future__ import annotations

import json
import random
import re
import shlex
import socket
import subprocess
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import Booking
from inventory.models import NodeGroup
from serving import upkeep
from serving.models import Serving, ServingNode, ServingPort
from serving.views import served_layout
from simfleet.serve_answers import REGISTRY_DIGEST, REGISTRY_IMAGE_ID, full_image_id
from simfleet.simulator import SimNode
from telemetry.poll_round import poll_and_store
from tests.serving.conftest import SMALL, book, committed
from tests.serving.test_steps import _shellcheck as shellcheck
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab
from tests.tools import tool

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db
ONE_NODE, TWO_COPIES, TP2 = 0, 1, 3  # SMALL's plans on a pair, in the planner's order


def built(image: str, image_id: str = REGISTRY_IMAGE_ID, digest: str = REGISTRY_DIGEST) -> str:
    """An image step's last lines: the build the node now has, by its ID and its registry digests."""
    return f"image id: {full_image_id(image_id)}\nrepo digests: {image.rsplit(':', 1)[0]}@{digest}\n"


def free_base() -> int:
    """A port with three free ones above it (engines, the router and its metrics take base, base+1, ...),
    below the kernel's ephemeral range (32768 up), so no outgoing connection takes one meanwhile."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(26000, 32000, 4)
        if all(_free(base + i) for i in range(4)):
            return base
    raise RuntimeError("no free ports")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def lab(fleet_key, tmp_path, settings, member_user):
    settings.FLEET_SERVE_PORT = free_base()
    settings.FLEET_SERVE_READY_S = 20
    nodes = [
        SimNode("serve-a", cabled_ports={"p0": ("serve-b", "p0")}),
        SimNode("serve-b", cabled_ports={"p0": ("serve-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="serve-a")
        book(member_user, group)
        yield fleet, group


def serve(client, group, plan):
    response = committed(lambda: client.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": plan}))
    assert response.status_code == 202, response.json()
    return Serving.objects.get(pk=response.json()["id"])


def complete(url: str, prompt: str = "Hello") -> dict:
    body = json.dumps({"model": SMALL, "prompt": prompt, "max_tokens": 5}).encode()
    request = urllib.request.Request(f"{url}/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


def refused(url: str) -> bool:
    try:
        urllib.request.urlopen(f"{url}/models", timeout=5)
    except (urllib.error.URLError, ConnectionError):
        return True
    return False


def test_a_one_node_plan_serves_answers_and_stops(lab, api_member):
    fleet, group = lab
    serving = serve(api_member, group, ONE_NODE)
    assert serving.status == "serving", (serving.failed_step, serving.error, serving.steps)
    body = api_member.get(f"/api/serving/{serving.pk}").json()
    base = serving.plan["ports"][0]
    assert body["url"] == f"http://127.0.0.1:{base}/v1"
    assert body["endpoints"] == [{"node": "serve-a", "url": body["url"]}]
    assert [(s["node"], s["label"], s["status"]) for s in body["steps"]] == [
        ("serve-a", "image", "done"),
        ("serve-a", "weights", "done"),
        ("serve-a", "engine", "done"),
        ("serve-a", "wait for the engine", "done"),
    ]
    # the weights first, into the node's cache: what hf download said, and the bytes there against the plan's
    weights = body["steps"][1]
    size = serving.steps[1]["expected_bytes"]
    repo = "meta-llama/Llama-3.1-8B-Instruct"
    assert (weights["weights"], weights["weights_bytes"]) == (repo, [size, size])
    assert weights["output"] == (
        f"weights on disk: 0 bytes\nweights on disk: {size // 2} bytes\n"
        "Fetching 9 files: 100%|##########| 9/9 [00:41<00:00,  4.61s/it]\n"
        f"/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/{'5d' * 20}\n"
        f"weights on disk: {size} bytes\n"
    )
    assert fleet.fleet.serving("serve-a").weights == {repo} and fleet.fleet.serving("serve-b").weights == set()
    assert body["steps"][3]["output"] == f"GET {body['url']}/models"
    answer = complete(body["url"])
    assert answer["model"] == SMALL and answer["choices"][0]["text"] and answer["usage"]["completion_tokens"] == 5
    assert set(fleet.fleet.serving("serve-a").containers) == {f"spark-fleet-{serving.pk}-1-0"}
    assert fleet.fleet.serving("serve-b").containers == {}
    # the simulated engine decodes at the plan's prediction, which the step carries as a comment
    engine = fleet.fleet.serving("serve-a").containers[f"spark-fleet-{serving.pk}-1-0"].engine
    assert engine.decode_tps == pytest.approx(serving.plan["decode_tps"], abs=0.01)
    stopped = committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
    assert stopped.status_code == 202
    serving.refresh_from_db()
    assert serving.status == "stopped" and serving.error == "" and serving.stopped_at is not None
    assert not ServingNode.objects.filter(live=True).exists() and not ServingPort.objects.filter(live=True).exists()
    assert fleet.fleet.serving("serve-a").containers == {} and refused(body["url"])
    # the Sparks are free again: the same plan serves once more
    again = serve(api_member, group, ONE_NODE)
    assert again.status == "serving" and again.plan["ports"] == [base]
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def test_two_copies_answer_behind_the_real_router(lab, api_member):
    fleet, group = lab
    serving = serve(api_member, group, TWO_COPIES)
    assert serving.status == "serving", (serving.failed_step, serving.error, serving.steps)
    base = serving.plan["ports"][0]
    # the simulated Sparks share 127.0.0.1: each listener gets its own port there
    assert serving.plan["ports"] == [base, base + 1] and serving.plan["router_port"] == base + 2
    router = serving.plan["router_port"]
    assert serving.url == f"http://127.0.0.1:{router}/v1"
    answers = [complete(serving.url, f"prompt {i}") for i in range(4)]
    assert all(a["model"] == SMALL and a["choices"][0]["text"] for a in answers)
    assert fleet.fleet.serving("serve-a").routers[serving.pk].returncode is None
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
    serving.refresh_from_db()
    assert serving.status == "stopped" and refused(serving.url)
    assert fleet.fleet.serving("serve-a").routers == {}


def plan_index(client, group, label: str) -> int:
    plans = client.post("/api/plans", {"group": group.pk, "model": SMALL}).json()["plans"]
    return next(i for i, p in enumerate(plans) if p["label"] == label)


def test_a_tp2_plan_on_the_pair_starts_ray_head_first(lab, api_member, tmp_path):
    fleet, group = lab
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))  # the cluster addresses Ray bootstraps on
    index = plan_index(api_member, group, "TP2 on 2 nodes")
    serving = serve(api_member, group, index)
    assert serving.status == "serving", (serving.failed_step, serving.error, serving.steps)
    assert [(s["node"], s["label"]) for s in serving.steps] == [
        ("serve-a", "image"),
        ("serve-b", "image"),
        ("serve-a", "weights"),
        ("serve-b", "weights"),
        ("serve-a", "ray head"),
        ("serve-b", "ray worker"),
        ("serve-a", "engine"),
        ("serve-a", "wait for the engine"),
        ("serve-a", "NCCL network"),
        ("serve-b", "NCCL network"),
    ]
    # once it answers, each rank's own NCCL says which network it chose: RoCE on both, read from their logs
    assert [s["networks"] for s in serving.steps[8:]] == [{"serve-a": "IB"}, {"serve-b": "IB"}]
    assert "NCCL INFO Using network IB" in serving.steps[9]["output"]
    assert "-e NCCL_DEBUG=INFO -e NCCL_DEBUG_SUBSYS=INIT,NET" in serving.steps[4]["script"]
    assert api_member.get(f"/api/serving/{serving.pk}").json()["engine_networks"] == {"serve-a": "IB", "serve-b": "IB"}
    layout = served_layout(serving)
    assert layout.backend == "nccl" and layout.notes.endswith(
        "; NCCL over RoCE on serve-a, serve-b, as the engines' own NCCL said"
    )
    # what docker prints for a detached container (its id), and the wait's own words: nothing from checks it passed
    assert re.fullmatch(r"[0-9a-f]{64}\n", serving.steps[4]["output"]), serving.steps[4]["output"]
    assert serving.steps[6]["output"] == "waiting for 2 Ray nodes\n"
    head = serving.steps[4]["script"]
    assert "ray start --block --head --port=6379" in head and "-e NCCL_IB_HCA=" in head
    worker = serving.steps[5]["script"]
    assert "ray start --block --address=" in worker and ":6379" in worker
    engine = serving.steps[6]["script"]
    run = next(line for line in engine.splitlines() if line.startswith("docker exec -d"))
    words = shlex.split(run)
    assert words[:6] == ["docker", "exec", "-d", f"spark-fleet-{serving.pk}-1-0", "sh", "-c"] and len(words) == 7
    inner = shlex.split(words[6])  # vllm serve, its output to the container's log, its status kept
    assert inner[:2] == ["vllm", "serve"] and "--tensor-parallel-size" in inner
    assert inner[-7:] == [">", "/proc/1/fd/1", "2>&1;", "echo", "$?", ">", "/tmp/spark-fleet-serve.exit"]
    shellcheck(tmp_path, engine)  # the engine step as the head's bash -s reads it: no finding
    wait = serving.steps[7]
    assert (wait["label"], wait["in_ray"], wait["container"]) == (
        "wait for the engine",
        True,
        f"spark-fleet-{serving.pk}-1-0",
    )
    # each node downloaded the weights into its own cache (each loads its share from there)
    assert [s["status"] for s in serving.steps[2:4]] == ["done", "done"]
    assert fleet.fleet.serving("serve-a").weights == fleet.fleet.serving("serve-b").weights != set()
    assert set(fleet.fleet.serving("serve-b").containers) == {f"spark-fleet-{serving.pk}-1-1"}
    assert complete(serving.url)["choices"][0]["text"]
    assert sorted(ServingNode.objects.filter(live=True).values_list("spark__name", flat=True)) == ["serve-a", "serve-b"]
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
    assert fleet.fleet.serving("serve-a").containers == {} and fleet.fleet.serving("serve-b").containers == {}


def test_ranks_whose_nccl_fell_back_to_sockets_are_said_and_their_runs_recorded_over_sockets(
    lab, api_member, client, member_user, settings
):
    """Neither node has a usable RoCE device: each rank's NCCL falls back to
    TCP sockets and says so in its log; serving reads it, the page and the API
    say it, and a run measuring the served plan would be recorded over
    sockets (never re-fitted on), whatever the plan assumed."""
    fleet, group = lab
    for node in fleet.fleet.nodes:
        node.faults.add("no-rdma")
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    serving = serve(api_member, group, plan_index(api_member, group, "TP2 on 2 nodes"))
    assert serving.status == "serving", (serving.failed_step, serving.error, serving.steps)
    assert serving.engine_networks == {"serve-a": "Socket", "serve-b": "Socket"}
    assert serving.engine_socket_hosts == ["serve-a", "serve-b"]
    layout = served_layout(serving)
    assert layout.backend == "socket"
    assert layout.notes.endswith(
        "; backend NCCL over TCP sockets on serve-a, serve-b, as the engines' own NCCL said: "
        "the planner does not re-fit on it"
    )
    client.force_login(member_user)
    page = client.get(f"/serving/{serving.pk}/").content.decode()
    said = page.split('id="serving-networks">')[1].split("</dd>")[0]
    assert '<span class="badge bad">TCP sockets</span> on serve-a, serve-b: NCCL fell back from RoCE there' in said
    # /metrics counts the same ranks (ServingOnTcpSockets fires above 0), and promtool reads the scrape clean
    settings.FLEET_METRICS_TOKEN = ""
    scrape = client.get("/metrics").content.decode()
    labels = f'group="{group.name}",model="{SMALL}",serving="{serving.pk}"'
    assert f"fleet_serving_nccl_socket_ranks{{{labels}}} 2.0" in scrape.splitlines()
    check = subprocess.run(
        [tool("promtool"), "check", "metrics"], input=scrape, capture_output=True, text=True, check=False, timeout=60
    )
    assert (check.returncode, check.stdout.strip(), check.stderr.strip()) == (0, "", ""), check.stdout + check.stderr
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))


def test_a_network_read_that_fails_never_fails_the_serving(lab, api_member, monkeypatch):
    """The engines answer already: a read that cannot reach a node says why on
    its step, which ends done, and the serving serves."""
    from serving import runner
    from telemetry.remote import Outcome

    fleet, group = lab
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    real = runner.on_node

    def flaky(name, script, **kw):
        if "NCCL INFO" in script and name == "serve-b":
            return Outcome("", "serve-b: connection refused")
        return real(name, script, **kw)

    monkeypatch.setattr(runner, "on_node", flaky)
    serving = serve(api_member, group, plan_index(api_member, group, "TP2 on 2 nodes"))
    assert serving.status == "serving", (serving.failed_step, serving.error, serving.steps)
    read = serving.steps[-1]
    assert (read["node"], read["status"], read["output"]) == (
        "serve-b",
        "done",
        "not read: serve-b: connection refused",
    )
    assert serving.engine_networks == {"serve-a": "IB"}
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))


def test_a_failing_node_ends_failed_with_its_output_and_stops_the_rest(lab, api_member):
    fleet, group = lab
    fleet.set_faults("serve-b", {"serve-fail"})
    serving = serve(api_member, group, TWO_COPIES)
    assert serving.status == "failed"
    assert serving.failed_step == "engine on serve-b", (serving.error, serving.steps)
    failed = serving.steps[5]
    assert failed["status"] == "failed" and "could not select device driver" in failed["output"]
    assert "exited with status 125" in failed["output"]
    assert [s["status"] for s in serving.steps[:5]] == ["done"] * 5
    assert serving.steps[6]["status"] == "waiting"
    assert serving.error == (
        "its container could not start: Docker on serve-b cannot give containers the GPU (no NVIDIA runtime); install "
        "the NVIDIA Container Toolkit there and restart Docker (exited with status 125)"
    )
    # what was started (serve-a's engine) is stopped, and the Sparks are free
    assert fleet.fleet.serving("serve-a").containers == {}
    assert not ServingNode.objects.filter(live=True).exists()
    body = api_member.get(f"/api/serving/{serving.pk}").json()
    assert body["status"] == "failed" and body["failed_step"] == "engine on serve-b" and body["url"] == ""


@pytest.mark.parametrize(
    ("fault", "status", "words", "meaning"),
    [
        (
            "no-docker",
            127,
            "docker: command not found",
            "Docker is not on the fleet user's PATH on serve-a; install it there (DGX OS ships it)",
        ),
        (
            "docker-denied",
            1,
            "permission denied while trying to connect to the Docker daemon socket",
            "the fleet's SSH user may not use Docker on serve-a; add it to the docker group there",
        ),
        (
            "docker-down",
            1,
            "Cannot connect to the Docker daemon",
            "Docker's daemon does not answer on serve-a; start it there",
        ),
        (
            "pull-fail",
            1,
            "lookup nvcr.io on 127.0.0.53:53: server misbehaving",
            "serve-a could not download {image} (Docker's reason is in the step's output); mend what it says there, "
            "or run `docker pull {image}` there yourself, then serve again",
        ),
        (
            "pull-no-room",
            1,
            "libtorch_cuda.so: no space left on device",
            "serve-a's disk filled while it downloaded {image}; make room there (`docker system df` says what Docker "
            "holds, `docker image prune` removes images no container uses, and the Hugging Face cache holds the "
            "models' weights), then serve again",
        ),
    ],
)
def test_a_node_whose_docker_cannot_ready_the_image_fails_saying_what_to_do(
    lab, api_member, fault, status, words, meaning
):
    """The image steps come first, on every node side by side: what stood in
    ``docker pull``'s way leads the error; the shell's and Docker's own words
    stay in the step's output; the other node's image step ends too; no engine
    step runs and nothing is left held."""
    from placement.selectors import vllm_image

    fleet, group = lab
    fleet.set_faults("serve-a", {fault})
    serving = serve(api_member, group, TWO_COPIES)
    assert serving.status == "failed"
    assert serving.failed_step == "image on serve-a"
    image = vllm_image()
    said = meaning.format(image=image)
    assert serving.error == f"the image could not be made ready: {said} (exited with status {status})"
    first, second = serving.steps[:2]
    assert (first["label"], first["node"], first["status"]) == ("image", "serve-a", "failed")
    assert words in first["output"] and first["output"].endswith(serving.error)
    assert (second["label"], second["node"], second["status"]) == ("image", "serve-b", "done")
    assert second["output"] == f"{image} is already on this Spark\n{built(image)}"
    assert [s["status"] for s in serving.steps[2:]] == ["waiting"] * (len(serving.steps) - 2)
    assert fleet.fleet.serving("serve-a").containers == {}
    assert not ServingNode.objects.filter(live=True).exists()
    # mended, the same plan serves
    fleet.set_faults("serve-a", set())
    again = serve(api_member, group, TWO_COPIES)
    assert again.status == "serving", (again.failed_step, again.error)
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def test_a_node_without_the_image_downloads_it_first_and_its_layers_count(lab, api_member):
    """A Spark that never pulled the launch image downloads it in its image
    step (Docker's lines, every layer counted ready), the other says it has
    it; the engines then start; the next software poll finds the image. The
    software-drift finding a poll opened for it does not refuse the serving."""
    from placement.selectors import vllm_image
    from telemetry.selectors import software_drift_of

    fleet, group = lab
    fleet.fleet.set_software("serve-b", {"image_digest": "absent"})
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    (finding,) = software_drift_of(["serve-a", "serve-b"])
    pull = f"{vllm_image().rsplit(':', 1)[0]}@{REGISTRY_DIGEST}"  # the build serve-a holds, by its digest
    assert (
        finding[0] == "serve-b"
        and f"Fix: run `docker pull {pull} && docker tag {pull} {vllm_image()}` on serve-b" in finding[1]
    )
    serving = serve(api_member, group, TWO_COPIES)
    assert serving.status == "serving", (serving.failed_step, serving.error)
    image = vllm_image()
    # measured since the poll, the Spark with the most memory free comes first in the plan
    steps = {s["node"]: s for s in serving.steps[:2]}
    current = built(image)
    assert (steps["serve-a"]["output"], steps["serve-a"]["layers"]) == (
        f"{image} is already on this Spark\n{current}",
        None,
    )
    assert steps["serve-b"]["layers"] == [5, 5]
    assert steps["serve-b"]["output"].endswith(f"Status: Downloaded newer image for {image}\n{image}\n{current}")
    assert fleet.fleet.serving("serve-b").pulled == {image: (REGISTRY_DIGEST, REGISTRY_IMAGE_ID)}
    assert fleet.fleet.software("serve-b") == {"image_digest": REGISTRY_DIGEST, "image_id": REGISTRY_IMAGE_ID}
    body = api_member.get(f"/api/serving/{serving.pk}").json()
    assert sorted((s["node"], s["label"], s["image"], s["layers"]) for s in body["steps"][:4]) == [
        ("serve-a", "image", image, None),
        ("serve-a", "weights", None, None),
        ("serve-b", "image", image, [5, 5]),
        ("serve-b", "weights", None, None),
    ]
    assert [s["label"] for s in body["steps"][:5]] == ["image", "image", "weights", "weights", "engine"]
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))


def test_an_engine_that_ends_while_loading_fails_at_once_with_its_own_words(lab, api_member, monkeypatch):
    """vLLM exits while it loads the model (its KV cache too small for the
    context): the wait reads the container's state and last lines as it goes,
    so the serving fails at once, naming vLLM's own error, instead of after
    FLEET_SERVE_READY_S; its last lines are the wait step's output. A healthy
    engine's wait says it runs and shows its lines."""
    from serving import runner
    from simfleet.serve_answers import LOAD_FAIL_LOG

    monkeypatch.setattr(runner, "ENGINE_WATCH_S", 0.2)
    fleet, group = lab
    fleet.set_faults("serve-a", {"load-fail"})
    serving = serve(api_member, group, ONE_NODE)
    name = f"spark-fleet-{serving.pk}-1-0"
    assert (serving.status, serving.failed_step) == ("failed", "wait for the engine on serve-a")
    line = LOAD_FAIL_LOG.splitlines()[2]
    crash = line[line.index("ValueError: ") :]  # vLLM's error, its log prefix left out
    assert line.startswith("(EngineCore_DP0 pid=266) ERROR") and crash.startswith("ValueError: To serve at least")
    assert serving.error == f"the engine's container {name} on serve-a ended (exit code 1) before it answered: {crash}"
    wait = serving.steps[3]
    assert wait["label"] == "wait for the engine" and wait["status"] == "failed"
    assert f"{name} is exited; its last lines (docker logs):\n{LOAD_FAIL_LOG}" in wait["output"]
    assert fleet.fleet.serving("serve-a").containers == {}  # what was started is removed
    assert not ServingNode.objects.filter(live=True).exists()
    # mended: it serves, and the wait's reading of a running engine shows its lines
    fleet.set_faults("serve-a", set())
    again = serve(api_member, group, ONE_NODE)
    assert again.status == "serving", (again.failed_step, again.error)
    steps = [dict(s) for s in again.steps]
    assert runner._watch_engine(again.pk, steps, steps[3]) == ""
    assert f"spark-fleet-{again.pk}-1-0 is running; its last lines (docker logs):\n" in steps[3]["output"]
    assert "Starting vLLM API server 0 on http://0.0.0.0:" in steps[3]["output"]
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def test_a_multi_node_engine_that_ends_while_loading_fails_at_once(lab, api_member, monkeypatch):
    """In a TP2 copy vllm serve runs in Ray's head container (docker exec):
    when it ends while it loads, the container still runs Ray, so the wait
    reads the status vllm serve left and its lines in the container's log:
    the serving fails at once, in vLLM's words. Mended, it serves."""
    from serving import runner
    from simfleet.serve_answers import LOAD_FAIL_LOG

    monkeypatch.setattr(runner, "ENGINE_WATCH_S", 0.2)
    fleet, group = lab
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))  # the cluster addresses Ray bootstraps on
    fleet.set_faults("serve-a", {"load-fail"})
    index = plan_index(api_member, group, "TP2 on 2 nodes")
    serving = serve(api_member, group, index)
    name = f"spark-fleet-{serving.pk}-1-0"
    line = LOAD_FAIL_LOG.splitlines()[2]
    crash = line[line.index("ValueError: ") :]
    assert (serving.status, serving.failed_step) == ("failed", "wait for the engine on serve-a")
    assert serving.error == f"the engine in {name} on serve-a ended (exit code 1) before it answered: {crash}"
    wait = serving.steps[7]
    assert wait["label"] == "wait for the engine"
    assert f"{name} is running; its last lines (docker logs):\n" in wait["output"]
    assert "Ray runtime started." in wait["output"] and LOAD_FAIL_LOG in wait["output"]
    assert fleet.fleet.serving("serve-a").containers == {} and fleet.fleet.serving("serve-b").containers == {}
    fleet.set_faults("serve-a", set())
    again = serve(api_member, group, index)
    assert again.status == "serving", (again.failed_step, again.error)
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def test_images_still_downloading_when_the_step_times_out_say_so(lab, api_member, settings):
    """The first serving on Sparks without the image: both download side by
    side, each in its own image step; when that outlasts FLEET_SERVE_PULL_S,
    the error says the image was still downloading, how far, and what to do;
    Docker's progress so far is each step's output; nothing is left held."""
    from placement.selectors import vllm_image

    settings.FLEET_SERVE_PULL_S = 2
    fleet, group = lab
    fleet.set_faults("serve-a", {"pull-slow"})
    fleet.set_faults("serve-b", {"pull-slow"})
    serving = serve(api_member, group, TWO_COPIES)
    image = vllm_image()
    assert serving.status == "failed" and serving.failed_step == "image on serve-a"
    assert serving.error == (
        f"the image {image} was still downloading on serve-a when the step's time ran out (FLEET_SERVE_PULL_S, 2 s; "
        f"2 of 5 layers ready); run `docker pull {image}` there, then serve again (timed out after 2 s)"
    )
    first, second = serving.steps[:2]
    # side by side: serve-b's download ran too, not after serve-a's had failed
    assert (first["status"], first["layers"]) == ("failed", [2, 5])
    assert second["node"] == "serve-b" and second["layers"] == [2, 5]
    assert "5e7a5b8ac6e2: Pull complete" in second["output"] and "Pulling from nvidia/vllm" in second["output"]
    assert not ServingNode.objects.filter(live=True).exists()
    assert fleet.fleet.serving("serve-a").containers == {}


def test_a_gated_model_without_a_token_fails_at_its_weights_in_hugging_faces_words(lab, api_member):
    """serve-b's fleet user has no HF_TOKEN that may read the gated repository:
    its weights step fails with huggingface_hub's words and what to do, while
    serve-a's download (side by side) ends done; no engine starts. Mended, the
    weights serve-a holds already come at once, and it serves."""
    from simfleet.serve_answers import GATED_ERROR

    fleet, group = lab
    fleet.set_faults("serve-b", {"weights-gated"})
    serving = serve(api_member, group, TWO_COPIES)
    repo = "meta-llama/Llama-3.1-8B-Instruct"
    assert (serving.status, serving.failed_step) == ("failed", "weights on serve-b")
    assert serving.error == (
        f"the weights could not be downloaded: {repo} is gated on Hugging Face: accept its terms there with the "
        "lab's account, and give the fleet user on serve-b an HF_TOKEN that may read it (in its environment for "
        "non-interactive SSH sessions) (exited with status 1)"
    )
    assert [(s["label"], s["node"], s["status"]) for s in serving.steps[:5]] == [
        ("image", "serve-a", "done"),
        ("image", "serve-b", "done"),
        ("weights", "serve-a", "done"),
        ("weights", "serve-b", "failed"),
        ("engine", "serve-a", "waiting"),
    ]
    assert GATED_ERROR.format(repo=repo) in serving.steps[3]["output"]
    assert fleet.fleet.serving("serve-a").containers == {} and fleet.fleet.serving("serve-b").containers == {}
    assert not ServingNode.objects.filter(live=True).exists()
    fleet.set_faults("serve-b", set())
    again = serve(api_member, group, TWO_COPIES)
    assert again.status == "serving", (again.failed_step, again.error)
    size = again.steps[2]["expected_bytes"]
    held = f"weights on disk: {size} bytes\n"
    assert again.steps[2]["output"].startswith(held) and "Fetching" not in again.steps[2]["output"]
    assert "Fetching 9 files" in again.steps[3]["output"]  # serve-b downloads them now
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def test_too_little_disk_for_the_weights_fails_before_any_download(lab, api_member):
    """serve-a's cache has 9.5 GB free and the weights are about 16.1 GB: its
    weights step says so at once, before downloading, and what to do."""
    fleet, group = lab
    fleet.set_faults("serve-a", {"weights-no-room"})
    serving = serve(api_member, group, ONE_NODE)
    assert (serving.status, serving.failed_step) == ("failed", "weights on serve-a")
    assert serving.error == (
        "the weights could not be downloaded: serve-a has 9.5 GB free for its Hugging Face cache "
        "($HOME/.cache/huggingface) and meta-llama/Llama-3.1-8B-Instruct needs about 16.1 GB more; free space "
        "there (models no longer served, in that cache), then serve again (exited with status 1)"
    )
    assert fleet.fleet.serving("serve-a").weights == set()  # nothing downloaded
    assert not ServingNode.objects.filter(live=True).exists()


def test_weights_still_downloading_when_their_time_runs_out_say_how_far(lab, api_member, settings):
    """A 70B model at a slow link outlasts FLEET_SERVE_WEIGHTS_S: the error
    says the weights were still downloading, how much is on disk against the
    plan's weights, and that serving again resumes; both nodes downloaded side
    by side; nothing is left held or running."""
    settings.FLEET_SERVE_WEIGHTS_S = 2
    fleet, group = lab
    for name in ("serve-a", "serve-b"):
        fleet.set_faults(name, {"weights-slow"})
    serving, repo = serve(api_member, group, TWO_COPIES), "meta-llama/Llama-3.1-8B-Instruct"
    assert (serving.status, serving.failed_step) == ("failed", "weights on serve-a")
    assert serving.error == (
        f"the weights of {repo} were still downloading on serve-a when the step's time ran out "
        f"(FLEET_SERVE_WEIGHTS_S, 2 s; 6.4 GB on disk of about 16.1 GB); serve again to resume the download, or "
        f"run `hf download {repo}` there first (timed out after 2 s)"
    )
    first, second = serving.steps[2:4]
    assert (first["status"], first["on_disk"], second["on_disk"]) == ("failed", 6_424_000_000, 6_424_000_000)
    body = api_member.get(f"/api/serving/{serving.pk}").json()
    assert body["steps"][3]["weights_bytes"] == [6_424_000_000, 16_060_000_000]
    assert not ServingNode.objects.filter(live=True).exists()
    # the download's containers outlived their sessions; the failure removed them by their label
    assert fleet.fleet.serving("serve-a").containers == {} and fleet.fleet.serving("serve-b").containers == {}


def test_a_ray_instance_whose_nodes_hold_two_builds_of_the_image_is_refused(lab, api_member):
    """Both Sparks pulled the tag long ago (one older build: the last software
    poll saw no difference); since then serve-b's copy was removed, and the
    registry's tag moved on. serve-b downloads the current build in its image
    step: the TP2 instance stops there, naming each node's build, before any
    Ray container starts. Pulled again on serve-a, it serves."""
    from placement.selectors import vllm_image

    fleet, group = lab
    for name in ("serve-a", "serve-b"):
        fleet.fleet.set_software(name, {"image_id": "7c6b5a4f3e2d"})
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    fleet.fleet.set_software("serve-b", {"image_digest": "absent"})  # removed (docker image prune) since
    serving = serve(api_member, group, plan_index(api_member, group, "TP2 on 2 nodes"))
    image = vllm_image()
    assert (serving.status, serving.failed_step) == ("failed", "image on serve-b")
    assert serving.error == (
        f"the nodes of instance 1 hold different builds of {image} (7c6b5a4f3e2d on serve-a, "
        f"{REGISTRY_IMAGE_ID} on serve-b): a Ray cluster needs one build on every node; run `docker pull {image}` "
        "on serve-a, serve-b (the registry's current build) and serve again"
    )
    assert [(s["label"], s["status"]) for s in serving.steps[:3]] == [
        ("image", "done"),
        ("image", "failed"),
        ("weights", "waiting"),
    ]
    assert fleet.fleet.serving("serve-a").containers == {} and not ServingNode.objects.filter(live=True).exists()
    fleet.fleet.set_software("serve-a", {})  # docker pull there: the registry's build
    again = serve(api_member, group, plan_index(api_member, group, "TP2 on 2 nodes"))
    assert again.status == "serving", (again.failed_step, again.error)
    committed(lambda: api_member.post(f"/api/serving/{again.pk}/stop"))


def _software_read_again(*names: str) -> None:
    """A poll reads these Sparks' software again: their last reading is older than the interval."""
    from datetime import timedelta

    from django.db.models import F

    from telemetry.models import SoftwareState

    SoftwareState.objects.filter(spark__name__in=names).update(read_at=F("read_at") - timedelta(days=1))
    poll_and_store(spark_ids=ids(*names))


def _pin(image: str, digest: str) -> None:
    from core.actor import Actor
    from telemetry.services import software_pins_set

    software_pins_set(actor=Actor(source="command"), values={f"image:{image}": digest})


def test_a_spark_without_the_image_pulls_the_build_the_lab_pins(lab, api_member):
    """The lab pins the launch image to an older build, which serve-a holds;
    serve-b has no copy, and the registry's tag has moved on since. serve-b's
    image step pulls the pinned build by its digest and tags it (not the
    tag's current build, which would split the TP2 instance into two
    builds): it serves, and the next software poll finds both Sparks on the
    pin, with no drift."""
    from placement.selectors import vllm_image
    from simfleet.serve_answers import OLDER_DIGEST, OLDER_IMAGE_ID
    from telemetry.selectors import software_drift_of

    fleet, group = lab
    image = vllm_image()
    _pin(image, OLDER_DIGEST)
    fleet.fleet.set_software("serve-a", {"image_digest": OLDER_DIGEST, "image_id": OLDER_IMAGE_ID})
    fleet.fleet.set_software("serve-b", {"image_digest": "absent"})
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    serving = serve(api_member, group, plan_index(api_member, group, "TP2 on 2 nodes"))
    assert serving.status == "serving", (serving.failed_step, serving.error)
    steps = {s["node"]: s for s in serving.steps[:2]}
    older = built(image, OLDER_IMAGE_ID, OLDER_DIGEST)
    assert steps["serve-a"]["output"] == f"{image} is already on this Spark\n{older}"
    by_digest = f"{image.rsplit(':', 1)[0]}@{OLDER_DIGEST}"
    assert steps["serve-b"]["output"].endswith(f"Digest: {OLDER_DIGEST}\nStatus: Downloaded newer image for "
                                               f"{by_digest}\n{by_digest}\n{older}")  # fmt: skip
    assert steps["serve-b"]["pinned"] == OLDER_DIGEST
    assert fleet.fleet.serving("serve-b").pulled == {image: (OLDER_DIGEST, OLDER_IMAGE_ID)}
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
    _software_read_again("serve-a", "serve-b")
    assert software_drift_of(["serve-a", "serve-b"]) == []


def test_a_spark_whose_image_moved_off_the_pin_since_the_poll_is_refused_naming_the_pull(lab, api_member):
    """The last poll saw both Sparks on the pinned build; since then someone
    pulled the tag again on serve-a (the registry's current build). Its image
    step finds the image there and does not pull; its digests are not the
    pin, so the serving fails at that step, before any engine starts, naming
    what serve-a holds and the commands that bring the pinned build back. A
    digest the registry does not hold fails the pull in Docker's words."""
    from placement.selectors import vllm_image
    from simfleet.serve_answers import OLDER_DIGEST, OLDER_IMAGE_ID

    fleet, group = lab
    image = vllm_image()
    _pin(image, OLDER_DIGEST)
    for name in ("serve-a", "serve-b"):
        fleet.fleet.set_software(name, {"image_digest": OLDER_DIGEST, "image_id": OLDER_IMAGE_ID})
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    fleet.fleet.set_software("serve-a", {})  # docker pull IMAGE there since: the tag's current build
    serving = serve(api_member, group, TWO_COPIES)
    by_digest = f"{image.rsplit(':', 1)[0]}@{OLDER_DIGEST}"
    assert (serving.status, serving.failed_step) == ("failed", "image on serve-a")
    assert serving.error == (
        f"serve-a holds {image} as {REGISTRY_DIGEST.removeprefix('sha256:')[:12]}, not the build the lab pins "
        f"({OLDER_DIGEST.removeprefix('sha256:')[:12]}): run `docker pull {by_digest} && docker tag {by_digest} "
        f"{image}` there, or move the pin on the software page, and serve again"
    )
    assert sorted((s["node"], s["label"], s["status"]) for s in serving.steps[:4]) == [
        ("serve-a", "image", "failed"),
        ("serve-a", "weights", "waiting"),
        ("serve-b", "image", "done"),
        ("serve-b", "weights", "waiting"),
    ]
    assert fleet.fleet.serving("serve-a").containers == {} and not ServingNode.objects.filter(live=True).exists()

    unknown = "sha256:" + "5e" * 32
    _pin(image, unknown)
    fleet.fleet.set_software("serve-a", {"image_digest": "absent"})
    fleet.fleet.set_software("serve-b", {"image_digest": unknown})
    _software_read_again("serve-a", "serve-b")
    again = serve(api_member, group, TWO_COPIES)
    assert (again.status, again.failed_step) == ("failed", "image on serve-a")
    (failed,) = [s for s in again.steps if s["status"] == "failed"]
    assert f"manifest for {image.rsplit(':', 1)[0]}@{unknown} not found: manifest unknown" in failed["output"]


# (fault, the side-by-side steps it slows, what each has downloaded once both are under way, words in each)
SLOW = {
    "images": ("pull-slow", slice(0, 2), lambda s: s.get("layers") == [2, 5], "Pull complete"),
    "weights": ("weights-slow", slice(2, 4), lambda s: s.get("on_disk") == 6_424_000_000, "weights on disk: "),
}


@pytest.mark.parametrize("what", sorted(SLOW))
@pytest.mark.django_db(transaction=True)
def test_a_stop_while_downloading_closes_every_download(lab, member_user, settings, what):
    """A first download (the image's, then the weights') can last hours: a
    stop meanwhile (from another request, as a member's Stop button) closes
    every node's session at once instead of holding the worker until the
    downloads end; those steps say stopped, not failed or timed out, the
    steps after them never ran, and the Sparks are free."""
    import threading
    import time

    from django.db import connection

    from tests.conftest import ApiClient

    settings.FLEET_SERVE_PULL_S = settings.FLEET_SERVE_WEIGHTS_S = 600
    fault, running, under_way, words = SLOW[what]
    fleet, group = lab
    for name in ("serve-a", "serve-b"):
        fleet.set_faults(name, {fault})
    asked: list[int] = []
    running_then: list[list[str]] = []  # each node's containers as the stop was asked

    def stop_once_both_download() -> None:
        try:
            member = ApiClient(member_user)
            for _ in range(1200):
                row = Serving.objects.filter(status="starting").first()
                if row is not None and all(under_way(s) for s in row.steps[running]):
                    running_then.extend(sorted(fleet.fleet.serving(n).containers) for n in ("serve-a", "serve-b"))
                    asked.append(member.post(f"/api/serving/{row.pk}/stop").status_code)
                    return
                time.sleep(0.05)
        finally:
            connection.close()

    stopper = threading.Thread(target=stop_once_both_download)
    stopper.start()
    serving = serve(ApiClient(member_user), group, TWO_COPIES)
    stopper.join(timeout=30)
    assert asked == [202]
    serving.refresh_from_db()
    assert (serving.status, serving.error, serving.failed_step) == ("stopped", "", "")
    stopped = serving.steps[running]
    assert [s["status"] for s in stopped] == ["stopped", "stopped"]
    assert all("timed out" not in s["output"] and words in s["output"] for s in stopped)
    assert [s["status"] for s in serving.steps[: running.start]] == ["done"] * running.start
    assert {s["status"] for s in serving.steps[running.stop :]} == {"waiting"}
    assert not ServingNode.objects.filter(live=True).exists()
    # the weights download runs in a container that outlives its session: the stop removed it by its label
    downloads = [f"spark-fleet-{serving.pk}-weights"] if what == "weights" else []
    assert running_then == [downloads, downloads]
    assert fleet.fleet.serving("serve-a").containers == {} and fleet.fleet.serving("serve-b").containers == {}


def test_a_real_bash_without_docker_reads_as_docker_absent(lab, api_member, tmp_path):
    """The image step's and the engine step's own scripts under a real
    ``bash -s`` whose PATH has no docker: bash's words and status read as
    Docker absent, as on a Spark; the simulated Spark said the same."""
    import shutil

    from serving.runner import explain_step

    fleet, group = lab
    fleet.set_faults("serve-a", {"no-docker"})
    serving = serve(api_member, group, ONE_NODE)
    image, engine = serving.steps[0], next(s for s in serving.steps if s["label"] == "engine")
    assert image["label"] == "image" and image["status"] == "failed"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("mkdir",):
        (bin_dir / name).symlink_to(shutil.which(name))

    def real_bash(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-s"],  # as the fleet user's shell runs serving's one command
            executable="/bin/bash",
            input="exec 2>&1\n" + script,
            capture_output=True,
            text=True,
            env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
            check=False,
        )

    pulled = real_bash(image["script"])
    assert pulled.returncode == 127
    assert re.fullmatch(r"bash: line \d+: docker: command not found\n", pulled.stdout)
    assert explain_step("exited with status 127", {**image, "output": pulled.stdout}) == (
        "the image could not be made ready: Docker is not on the fleet user's PATH on serve-a; install it there "
        "(DGX OS ships it) (exited with status 127)"
    )
    # the simulated Spark said it in bash's own words, at the same line
    assert image["output"].splitlines()[0] == pulled.stdout.strip()
    started = real_bash(engine["script"])
    assert started.returncode == 127
    assert re.search(r"^bash: line \d+: docker: command not found$", started.stdout, re.MULTILINE)
    real = {"node": "serve-a", "label": "engine", "output": started.stdout}
    assert explain_step("exited with status 127", real) == (
        "its container could not start: Docker is not on the fleet user's PATH on serve-a; install it there (DGX OS "
        "ships it) (exited with status 127)"
    )


def test_the_booking_end_stops_it_and_the_reminder_says_so(lab, api_member, member_user):
    from bookings.services import bookings_tick
    from notifications.models import Delivery

    fleet, group = lab
    member_user.email = "member@example.org"
    member_user.save()
    serving = serve(api_member, group, ONE_NODE)
    assert serving.status == "serving"
    booking = Booking.objects.get()
    Booking.objects.filter(pk=booking.pk).update(end=timezone.now() + timedelta(minutes=10))
    assert committed(lambda: bookings_tick())["reminded"] == 1
    mail = Delivery.objects.get(subject__contains="ends soon")
    assert f"Spark Fleet serves {SMALL} (bf16) there for member1 (serving {serving.pk}, {serving.url})" in mail.body
    assert "it is stopped when the booking ends" in mail.body
    quiet = {"stopped": 0, "abandoned": 0, "reminded": 0, "stops_again": 0}
    assert committed(lambda: upkeep.servings_tick()) == quiet  # not yet
    Booking.objects.filter(pk=booking.pk).update(
        start=timezone.now() - timedelta(hours=1), end=timezone.now() - timedelta(seconds=1)
    )
    assert committed(lambda: upkeep.servings_tick()) == {"stopped": 1, "abandoned": 0, "reminded": 0, "stops_again": 0}
    serving.refresh_from_db()
    assert serving.status == "stopped" and refused(serving.url)
    assert serving.events.get(action="stop").detail.startswith("its booking ended at ")
    assert serving.events.get(action="stop").source == "task"
    assert fleet.fleet.serving("serve-a").containers == {}


def test_reconcile_fails_a_dead_engine_and_stops_a_lost_one(lab, api_member):
    import time

    from celery.signals import worker_ready

    from serving.services import serving_release

    fleet, group = lab
    fleet.set_faults("serve-a", {"die-after"})
    fleet.fleet.serving("serve-a").die_after_s = 2.0
    dying = serve(api_member, group, ONE_NODE)
    assert dying.status == "serving", (dying.failed_step, dying.error)
    time.sleep(2.5)
    assert refused(dying.url)
    assert upkeep.reconcile() == {"nodes": 1, "failed": 1, "stopped": 0}  # the nodes it ever served on
    dying.refresh_from_db()
    assert dying.status == "failed" and dying.failed_step == "reconcile"
    assert dying.error == "the engine of instance 1 on serve-a is no longer running"
    fleet.set_faults("serve-a", set())
    # an engine the app lost track of (its record was closed while it ran) is stopped
    lost = serve(api_member, group, ONE_NODE)
    assert lost.status == "serving"
    serving_release(lost.pk, status="stopped")
    assert set(fleet.fleet.serving("serve-a").containers) == {f"spark-fleet-{lost.pk}-1-0"}
    worker_ready.send(sender=None)  # a worker starts: it reconciles (the task runs here, eagerly)
    assert fleet.fleet.serving("serve-a").containers == {} and refused(lost.url)
    assert upkeep.reconcile() == {"nodes": 1, "failed": 0, "stopped": 0}


def test_served_nodes_are_not_busy_without_a_booking(fleet_key, tmp_path, settings, member_user, api_member):
    from bookings.findings import busy_provider
    from bookings.rules import BUSY_UNBOOKED

    settings.FLEET_SERVE_PORT = free_base()
    settings.FLEET_SERVE_READY_S = 20
    nodes = [
        SimNode("busy-a", cabled_ports={"p0": ("busy-b", "p0")}, faults={"gpu-busy"}),
        SimNode("busy-b", cabled_ports={"p0": ("busy-a", "p0")}, faults={"gpu-busy"}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="busy-a")
        poll_and_store(spark_ids=ids("busy-a", "busy-b"))
        booking = book(member_user, group)
        assert busy_provider(group, ["busy-a", "busy-b"]) == []  # booked
        serving = serve(api_member, group, ONE_NODE)
        assert serving.status == "serving"
        [served] = serving.plan["nodes"]
        other = ({"busy-a", "busy-b"} - {served}).pop()
        # the booking is over but the minute's tick has not stopped it yet: it serves through the app
        Booking.objects.filter(pk=booking.pk).update(status="cancelled")
        found = busy_provider(group, ["busy-a", "busy-b"])
        assert [(f.code, f.objects) for f in found] == [(BUSY_UNBOOKED, (other,))]
        committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
        found = busy_provider(group, ["busy-a", "busy-b"])
        assert sorted(f.objects for f in found) == [("busy-a",), ("busy-b",)]


def test_a_node_down_at_stop_is_stopped_once_it_answers(lab, api_member):
    fleet, group = lab
    serving = serve(api_member, group, ONE_NODE)
    [node] = serving.plan["nodes"]
    fleet.set_faults(node, {"down"})
    committed(lambda: api_member.post(f"/api/serving/{serving.pk}/stop"))
    serving.refresh_from_db()
    assert serving.status == "stopped" and not ServingNode.objects.filter(live=True).exists()
    assert serving.error.startswith(f"{node} could not be told to stop (could not reach the head node: ")
    assert serving.error.endswith("reconciling stops it once it answers")
    assert upkeep.reconcile() == {"nodes": 0, "failed": 0, "stopped": 0}  # still down: nothing known
    assert not refused(serving.plan["url"])  # its engine still answers on loopback
    fleet.set_faults(node, set())
    assert upkeep.reconcile() == {"nodes": 1, "failed": 0, "stopped": 1}
    assert refused(serving.plan["url"])


def test_a_down_spark_refuses_serving_on_its_group(lab, api_member):
    fleet, group = lab
    fleet.set_faults("serve-b", {"down"})
    poll_and_store(spark_ids=ids("serve-a", "serve-b"))
    response = api_member.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": ONE_NODE})
    assert response.status_code == 409
    assert response.json()["errors"] == [
        {"path": "group", "message": f"serve-b of {group.name} is down: nothing can be started there"}
    ]
    assert not Serving.objects.exists()


def test_a_start_whose_worker_died_is_failed_and_its_engines_stopped(lab, api_member):
    from serving.runner import on_node, serving_execute

    fleet, group = lab
    response = api_member.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": TWO_COPIES})  # no commit
    serving = Serving.objects.get(pk=response.json()["id"])
    # a worker took it and died half-way: one engine runs, the message comes back to a new worker
    Serving.objects.filter(pk=serving.pk).update(task_id="task-1", started_at=timezone.now(), attempts=1)
    first = serving.steps[4]
    assert first["label"] == "engine" and on_node(first["node"], first["script"]).error == ""
    assert len(fleet.fleet.serving(first["node"]).containers) == 1
    assert serving_execute(serving_id=serving.pk, task_id="task-1") is None
    serving.refresh_from_db()
    assert serving.status == "failed" and serving.error == "the worker starting it stopped part-way; serve it again"
    assert fleet.fleet.serving(first["node"]).containers == {}
    assert not ServingNode.objects.filter(live=True).exists()
    # any other delivery of a claimed start does nothing
    assert serving_execute(serving_id=serving.pk, task_id="task-2") is None


def test_a_second_delivery_of_a_start_still_running_is_left_to_its_worker(lab, api_member, monkeypatch):
    """Redis gives an unacknowledged message to another worker after its
    visibility timeout (an hour): a start still running then (an image's long
    download, a model's load) is delivered twice. Its worker's heartbeat
    moves, so the second delivery leaves it alone; one whose heartbeat does
    not move while it watches (a worker killed a moment ago) is failed and
    what it started is stopped."""
    from serving import runner
    from serving.runner import on_node, serving_execute

    fleet, group = lab
    response = api_member.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": TWO_COPIES})  # no commit
    serving = Serving.objects.get(pk=response.json()["id"])
    Serving.objects.filter(pk=serving.pk).update(
        task_id="task-1", started_at=timezone.now(), heartbeat_at=timezone.now(), attempts=1
    )
    engine = serving.steps[4]
    assert engine["label"] == "engine" and on_node(engine["node"], engine["script"]).error == ""
    watched: list[float] = []

    def the_first_worker_beats(seconds: float) -> None:  # its heartbeat thread, while the second delivery waits
        watched.append(seconds)
        Serving.objects.filter(pk=serving.pk).update(heartbeat_at=timezone.now())

    monkeypatch.setattr(runner.time, "sleep", the_first_worker_beats)
    assert serving_execute(serving_id=serving.pk, task_id="task-1") is None
    serving.refresh_from_db()
    assert (serving.status, serving.error, watched) == ("starting", "", [1.0])
    assert len(fleet.fleet.serving(engine["node"]).containers) == 1
    monkeypatch.undo()
    # its worker killed a moment ago: the heartbeat is recent but no longer moves
    monkeypatch.setattr(runner, "WATCH_S", 0.3)
    Serving.objects.filter(pk=serving.pk).update(heartbeat_at=timezone.now())
    assert serving_execute(serving_id=serving.pk, task_id="task-1") is None
    serving.refresh_from_db()
    assert (serving.status, serving.error) == ("failed", "the worker starting it stopped part-way; serve it again")
    assert fleet.fleet.serving(engine["node"]).containers == {}
    assert not ServingNode.objects.filter(live=True).exists()


def test_a_silent_start_is_abandoned_by_the_tick(lab, api_member):
    fleet, group = lab
    response = api_member.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": ONE_NODE})
    long_ago = timezone.now() - timedelta(minutes=5)
    Serving.objects.filter(pk=response.json()["id"]).update(task_id="t", started_at=long_ago, heartbeat_at=long_ago)
    assert upkeep.servings_tick() == {"stopped": 0, "abandoned": 1, "reminded": 0, "stops_again": 0}
    serving = Serving.objects.get()
    assert serving.status == "failed" and serving.error.startswith("abandoned: the worker starting it gave no sign")
    assert not ServingNode.objects.filter(live=True).exists()


def test_an_admin_serving_on_a_members_booking_is_reminded_too(lab, api_admin, admin_user):
    from bookings.services import bookings_tick
    from notifications.models import Delivery

    fleet, group = lab
    admin_user.email = "admin@example.org"
    admin_user.save()
    serving = serve(api_admin, group, ONE_NODE)
    assert serving.status == "serving" and serving.owner == admin_user
    Booking.objects.update(end=timezone.now() + timedelta(minutes=10))
    committed(lambda: bookings_tick())  # the member has no address: the booking's own reminder is not emailed
    assert committed(lambda: upkeep.servings_tick())["reminded"] == 1
    assert committed(lambda: upkeep.servings_tick())["reminded"] == 0  # once
    mail = Delivery.objects.get(target="admin@example.org")
    assert mail.subject == f"[Spark Fleet] Serving {serving.pk} stops soon"
    assert f"You serve {SMALL} on {group.name} (serving {serving.pk}, {serving.url})" in mail.body
    committed(lambda: api_admin.post(f"/api/serving/{serving.pk}/stop"))


def test_a_stop_whose_task_was_lost_is_asked_again(lab, api_member):
    from serving.models import ServingEvent

    fleet, group = lab
    serving = serve(api_member, group, ONE_NODE)
    api_member.post(f"/api/serving/{serving.pk}/stop")  # not committed: its task is never sent, as if lost
    assert Serving.objects.get(pk=serving.pk).status == "stopping"
    assert committed(lambda: upkeep.servings_tick())["stops_again"] == 0  # asked a moment ago: not late
    ServingEvent.objects.filter(action="stop").update(at=timezone.now() - timedelta(minutes=6))
    assert committed(lambda: upkeep.servings_tick())["stops_again"] == 1
    serving.refresh_from_db()
    assert serving.status == "stopped" and refused(serving.url)
