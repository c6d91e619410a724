"""The Kubernetes provider against a real cluster, when ``PYTEST_SWE_K8S_CONTEXT`` names a kubeconfig
context; skipped otherwise (no API server can run on the machines this project is tested on).

``PYTEST_SWE_K8S_NAMESPACE`` (default ``default``) must allow the RBAC role of the README;
``PYTEST_SWE_K8S_IMAGE`` (default ``busybox:1.36``) is any image with sh and tar that the
cluster can pull.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

CONTEXT = os.environ.get("PYTEST_SWE_K8S_CONTEXT", "")
NAMESPACE = os.environ.get("PYTEST_SWE_K8S_NAMESPACE", "default")
IMAGE = os.environ.get("PYTEST_SWE_K8S_IMAGE", "busybox:1.36")

pytestmark = pytest.mark.skipif(
    not CONTEXT,
    reason="kubernetes live test: no cluster here; set PYTEST_SWE_K8S_CONTEXT to a kubeconfig context "
    "(and PYTEST_SWE_K8S_NAMESPACE, PYTEST_SWE_K8S_IMAGE) to run it",
)


@pytest.fixture
def provider() -> Iterator[Any]:
    pytest.importorskip("kubernetes", reason="kubernetes live test: pip install 'pytest-swe[k8s]'")
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.providers.kubernetes import KubernetesProvider

    provider = KubernetesProvider(
        {"name": "kubernetes", "context": CONTEXT, "namespace": NAMESPACE}, this_run()
    )
    provider.preflight()
    yield provider
    provider.reap(run_id=provider.run.run_id, kept=None)
    provider.close()


def test_kubernetes_live_sandbox_life(provider: Any) -> None:
    from kubernetes.client.exceptions import ApiException

    from pytest_swe.api.sandbox import SandboxSpec

    sandbox = provider.create(SandboxSpec(image=IMAGE, workdir="/tmp", memory="256m", cpus=0.5, ttl=600))
    pod = provider.core.read_namespaced_pod(sandbox.name, NAMESPACE)
    assert pod.spec.active_deadline_seconds == 600
    assert pod.spec.automount_service_account_token is False
    assert pod.metadata.labels["pytest-swe.run"] == provider.run.run_id
    policy = provider.networking.read_namespaced_network_policy(sandbox.name, NAMESPACE)
    assert policy.spec.policy_types == ["Ingress", "Egress"]

    result = sandbox.exec("echo out; echo err >&2; pwd; exit 3", timeout=60)
    assert (result.exit_code, result.output) == (3, "out\nerr\n/tmp\n")
    started = time.monotonic()
    slow = sandbox.exec("sleep 120", timeout=3)
    assert slow.timed_out and time.monotonic() - started < 30
    assert sandbox.exec("true", timeout=60).ok  # the sandbox outlives a timed-out command

    data = os.urandom(200_000)
    sandbox.write_file("/tmp/dir/blob.bin", data)
    assert sandbox.read_file("/tmp/dir/blob.bin") == data
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/tmp/absent")

    assert sandbox.close().removed
    with pytest.raises(ApiException) as gone:
        provider.core.read_namespaced_pod(sandbox.name, NAMESPACE)
    assert gone.value.status == 404
    assert provider.reap(run_id=provider.run.run_id) == []
