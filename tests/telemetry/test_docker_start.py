"""``telemetry.docker_start.reading``: what the shell and Docker print when
``docker run`` cannot start a container, read as one word (the words of
``docker_gap``), and every other failure left alone."""

from __future__ import annotations

import pytest

from telemetry.docker_start import pull_failure, pull_layers, pulled_image, reading

DENIED = (
    "docker: permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: "
    'Head "http://%2Fvar%2Frun%2Fdocker.sock/_ping": dial unix /var/run/docker.sock: connect: permission denied.\n'
    "See 'docker run --help'.\n"
)
DOWN = (
    "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"
    "See 'docker run --help'.\n"
)
PULL = (
    "Unable to find image 'nvcr.io/nvidia/vllm:25.11-py3' locally\n"
    'docker: Error response from daemon: Get "https://nvcr.io/v2/": dial tcp: lookup nvcr.io: no such host.\n'
    "See 'docker run --help'.\n"
)
PULL_DENIED = (
    "Unable to find image 'registry.example/vllm:1.2' locally\n"
    "1.2: Pulling from vllm\n"
    "docker: Error response from daemon: pull access denied for registry.example/vllm, repository does not exist "
    "or may require 'docker login'.\n"
)
GPU = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'


@pytest.mark.parametrize(
    ("status", "text", "word"),
    [
        (127, "sh: 1: docker: not found\n", "absent"),
        (127, "bash: line 11: docker: command not found\n", "absent"),
        (126, DENIED, "denied"),
        (125, DOWN, "unreachable"),
        (
            126,
            "docker: permission denied while trying to connect to the docker API at unix:///var/run/docker.sock\n",
            "denied",
        ),
        (
            125,
            "docker: failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct "
            "and if the daemon is running: dial unix /var/run/docker.sock: connect: no such file or directory\n",
            "unreachable",
        ),
        (125, "docker: Error response from daemon: No such image: nvcr.io/nvidia/vllm:25.11-py3.\n", "image"),
        (125, PULL, "pull"),
        (125, PULL_DENIED, "pull"),
        (125, GPU, "gpu"),
        # not Docker's start: left alone
        (0, "sh: 1: docker: not found\n", ""),
        (None, DOWN, ""),
        (127, "bash: line 3: vllm-router: command not found\n", ""),
        (1, "PermissionError: [Errno 13] Permission denied: '/root/.cache/huggingface/hub'\n", ""),
        (1, "Unable to find image 'x/y:1' locally\n... Error response from daemon: boom\n", ""),
        (125, 'docker: Error response from daemon: Conflict. The container name "/a" is already in use.\n', ""),
        (137, "Killed\n", ""),
    ],
)
def test_each_start_failure_reads_as_one_word(status, text, word):
    assert reading(status, text) == word


def test_the_image_named_in_a_failed_pull():
    assert pulled_image(PULL) == "nvcr.io/nvidia/vllm:25.11-py3"
    assert pulled_image(PULL_DENIED) == "registry.example/vllm:1.2"
    assert pulled_image(GPU) == ""


def test_a_failed_commands_status_is_read_from_its_error_alone():
    from telemetry.remote import Outcome

    assert Outcome.exit_status("exited with status 127: sh: 1: docker: not found") == 127
    assert Outcome.exit_status("exited with status 125") == 125
    assert Outcome.exit_status("timed out after 2 s") is None
    assert Outcome.exit_status("spark-01: connection refused (exited with status 1)") is None


# docker pull without a terminal (serving's image step): one line per layer and change
PULLING = (
    "25.11-py3: Pulling from nvidia/vllm\n"
    "a3be5d4ce401: Already exists\n"
    "5e7a5b8ac6e2: Pulling fs layer\n"
    "6d1a3fbc3c2e: Pulling fs layer\n"
    "c94ff2a1b0e7: Waiting\n"
    "5e7a5b8ac6e2: Verifying Checksum\n"
    "5e7a5b8ac6e2: Download complete\n"
    "5e7a5b8ac6e2: Pull complete\n"
    "6d1a3fbc3c2e: Downloading\n"
)


def test_a_downloads_layers_are_counted_as_docker_pull_reports_them():
    assert pull_layers("") is None
    assert pull_layers("25.11-py3: Pulling from nvidia/vllm\n") is None
    # one already there, one pulled, two on their way: their last state counts
    assert pull_layers(PULLING) == (2, 4)
    done = PULLING + "6d1a3fbc3c2e: Pull complete\nc94ff2a1b0e7: Extracting\nc94ff2a1b0e7: Pull complete\n"
    assert pull_layers(done + "Status: Downloaded newer image for nvcr.io/nvidia/vllm:25.11-py3\n") == (4, 4)
    # a line that only looks like a layer's (not 12 hex digits, or another word) is not counted
    assert pull_layers("latest: Pull complete\nabcdef123456: Something else\n") is None


@pytest.mark.parametrize(
    ("status", "text", "word"),
    [
        (0, PULLING, ""),
        (None, PULLING, ""),
        (127, "bash: line 2: docker: command not found\n", "absent"),
        (1, DENIED.removeprefix("docker: "), "denied"),
        (1, DOWN.removeprefix("docker: "), "unreachable"),
        (
            1,
            "failed to connect to the docker API at unix:///var/run/docker.sock; check if the path is correct",
            "unreachable",
        ),
        (
            1,
            'Error response from daemon: Get "https://nvcr.io/v2/": dial tcp: lookup nvcr.io: no such host\n',
            "download",
        ),
        (
            1,
            "Error response from daemon: manifest for nvcr.io/nvidia/vllm:99.1 not found: manifest unknown\n",
            "download",
        ),
        (1, PULLING + "write /var/lib/docker/tmp/GetImageBlob1: no space left on device\n", "disk"),
    ],
)
def test_each_pull_failure_reads_as_one_word(status, text, word):
    assert pull_failure(status, text) == word
