"""The Kubernetes provider against the official client's own classes, without an API server.

The API is a CoreV1Api/NetworkingV1Api subclass whose pod and policy calls keep real model
objects (V1Pod, V1NetworkPolicy, ...) in memory, as a server would answer; the exec call is the
client's own (``kubernetes.stream`` and its WSClient), with the websocket below it replaced by a
local process speaking the channel protocol: stdout on channel 1, stderr on 2, the exec status on 3.
So timeouts, exit codes and tar transfers run for real, on this machine instead of in a pod.
"""

from __future__ import annotations

import copy
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import pytest

kubernetes = pytest.importorskip(
    "kubernetes", reason="the k8s extra (pip install 'pytest-swe[k8s]') is not installed"
)

from kubernetes import client as k8s  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from kubernetes.stream import ws_client  # noqa: E402

from pytest_swe.api.errors import ConfigError  # noqa: E402
from pytest_swe.api.errors import InfraError  # noqa: E402
from pytest_swe.api.sandbox import KEEP_TTL  # noqa: E402
from pytest_swe.api.sandbox import SandboxSpec  # noqa: E402
from pytest_swe.api.sandbox import this_run  # noqa: E402
from pytest_swe.providers.kubernetes import KubernetesProvider  # noqa: E402
from pytest_swe.providers.kubernetes import manifests  # noqa: E402
from pytest_swe.providers.kubernetes import provider as provider_module  # noqa: E402
from pytest_swe.providers.kubernetes import sandbox as sandbox_module  # noqa: E402
from pytest_swe.providers.kubernetes.client import sdk  # noqa: E402

LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
NS = "swe"


# --- a fake API server of real model objects ---------------------------------------------------


def api_error(status: int, reason: str = "") -> ApiException:
    return ApiException(
        status=status, reason=reason or {404: "Not Found", 403: "Forbidden"}.get(status, "Error")
    )


def selects(selector: str, labels: dict[str, str]) -> bool:
    for term in selector.split(","):
        key, _, value = term.partition("=")
        if key not in labels or (value and labels[key] != value):
            return False
    return True


class FakeCore(k8s.CoreV1Api):
    """Pods in memory. ``start`` lists the container states a new pod goes through, one per read."""

    def __init__(self) -> None:
        super().__init__(k8s.ApiClient(k8s.Configuration(host="https://k8s.invalid")))
        self.pods: dict[str, Any] = {}
        self.calls: list[tuple[str, str]] = []
        self.start: list[Any] = [
            k8s.V1ContainerState(waiting=k8s.V1ContainerStateWaiting(reason="ContainerCreating")),
            k8s.V1ContainerState(running=k8s.V1ContainerStateRunning()),
        ]
        self.pending: dict[str, list[Any]] = {}
        self.fail_create: ApiException | None = None
        self.fail_list: ApiException | None = None
        self.linger: dict[str, int] = {}
        """Reads a deleted pod still answers (terminating) before 404."""
        self.timeouts: list[Any] = []

    def create_namespaced_pod(self, namespace: str, body: Any, **kwargs: Any) -> Any:
        self.calls.append(("create_pod", body.metadata.name))
        self.timeouts.append(kwargs.get("_request_timeout"))
        if self.fail_create is not None:
            raise self.fail_create
        pod = copy.deepcopy(body)
        pod.metadata.namespace = namespace
        pod.metadata.uid = str(uuid.uuid4())
        pod.status = k8s.V1PodStatus(phase="Pending")
        self.pods[pod.metadata.name] = pod
        self.pending[pod.metadata.name] = list(self.start)
        return copy.deepcopy(pod)

    def read_namespaced_pod(self, name: str, namespace: str, **kwargs: Any) -> Any:
        pod = self.pods.get(name)
        if pod is None:
            raise api_error(404)
        if pod.metadata.deletion_timestamp is not None:
            if self.linger.get(name, 0) <= 0:
                del self.pods[name]
                raise api_error(404)
            self.linger[name] -= 1
        steps = self.pending.get(name)
        if steps:
            state = steps.pop(0) if len(steps) > 1 else steps[0]
            phase = "Running" if state.running else "Pending"
            if state.terminated:
                phase = "Failed"
            pod.status = k8s.V1PodStatus(
                phase=phase,
                container_statuses=[
                    k8s.V1ContainerStatus(
                        name=manifests.CONTAINER,
                        image=pod.spec.containers[0].image,
                        image_id="",
                        ready=bool(state.running),
                        restart_count=0,
                        state=state,
                    )
                ],
            )
        return copy.deepcopy(pod)

    def delete_namespaced_pod(self, name: str, namespace: str, **kwargs: Any) -> Any:
        self.calls.append(("delete_pod", name))
        body = kwargs.get("body")
        assert body is not None and body.grace_period_seconds == 0
        pod = self.pods.get(name)
        if pod is None:
            raise api_error(404)
        pod.metadata.deletion_timestamp = "2026-12-01T00:00:00Z"
        return k8s.V1Status(status="Success")

    def list_namespaced_pod(self, namespace: str, **kwargs: Any) -> Any:
        if self.fail_list is not None:
            raise self.fail_list
        selector = kwargs.get("label_selector") or ""
        items = [
            copy.deepcopy(p)
            for p in self.pods.values()
            if not selector or selects(selector, p.metadata.labels)
        ]
        return k8s.V1PodList(items=items)


class FakeNetworking(k8s.NetworkingV1Api):
    def __init__(self) -> None:
        super().__init__(k8s.ApiClient(k8s.Configuration(host="https://k8s.invalid")))
        self.policies: dict[str, Any] = {}
        self.calls: list[tuple[str, str]] = []

    def create_namespaced_network_policy(self, namespace: str, body: Any, **kwargs: Any) -> Any:
        self.calls.append(("create_policy", body.metadata.name))
        self.policies[body.metadata.name] = copy.deepcopy(body)
        return body

    def patch_namespaced_network_policy(self, name: str, namespace: str, body: Any, **kwargs: Any) -> Any:
        self.calls.append(("patch_policy", name))
        # The content type the client's own method would send for this body.
        types = [
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
        ]
        sent = kwargs.get("_content_type") or self.api_client.select_header_content_type(types, "PATCH", body)
        assert sent == "application/merge-patch+json", sent
        self.policies[name].metadata.owner_references = body["metadata"]["ownerReferences"]
        return self.policies[name]

    def delete_namespaced_network_policy(self, name: str, namespace: str, **kwargs: Any) -> Any:
        self.calls.append(("delete_policy", name))
        if self.policies.pop(name, None) is None:
            raise api_error(404)
        return k8s.V1Status(status="Success")

    def list_namespaced_network_policy(self, namespace: str, **kwargs: Any) -> Any:
        selector = kwargs.get("label_selector") or ""
        items = [p for p in self.policies.values() if selects(selector, p.metadata.labels)]
        return k8s.V1NetworkPolicyList(items=items)


# --- the exec websocket: a local process behind the channel protocol --------------------------


class Frame:
    def __init__(self, data: bytes) -> None:
        self.data = data


def exec_status(code: int) -> bytes:
    if code == 0:
        return json.dumps({"metadata": {}, "status": "Success"}).encode()
    return json.dumps(
        {
            "metadata": {},
            "status": "Failure",
            "message": f"command terminated with non-zero exit code: exit code {code}",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
        }
    ).encode()


class LocalExec:
    """What ``create_websocket`` returns: a websocket whose far end is a local process."""

    def __init__(self, argv: list[str], stdin: bool, subprotocol: str, status: bytes | None = None) -> None:
        assert sandbox_module._KILL_ALL not in argv, "the kill-everything helper never runs on this machine"
        self.subprotocol = subprotocol
        self.connected = True
        self.sock, self._wake = socket.socketpair()
        self._frames: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self._status = status
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        readers = [
            threading.Thread(target=self._pump, args=(pipe, ch), daemon=True)
            for pipe, ch in ((self.process.stdout, 1), (self.process.stderr, 2))
        ]
        for reader in readers:
            reader.start()
        threading.Thread(target=self._end, args=(readers,), daemon=True).start()

    def _push(self, opcode: int, data: bytes) -> None:
        self._frames.put((opcode, data))
        self._wake.send(b"x")

    def _pump(self, pipe: Any, channel: int) -> None:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            self._push(ws_client.ABNF.OPCODE_BINARY, bytes([channel]) + chunk)

    def _end(self, readers: list[threading.Thread]) -> None:
        for reader in readers:
            reader.join()
        code = self.process.wait()
        status = self._status if self._status is not None else exec_status(128 - code if code < 0 else code)
        if status:
            self._push(ws_client.ABNF.OPCODE_BINARY, bytes([3]) + status)
        self._push(ws_client.ABNF.OPCODE_CLOSE, b"")

    def recv_data_frame(self, control: bool) -> tuple[int, Frame]:
        self.sock.recv(1)
        opcode, data = self._frames.get()
        return opcode, Frame(data)

    def send(self, payload: bytes, opcode: int = 0) -> None:
        channel, data = payload[0], payload[1:]
        assert self.process.stdin is not None
        if channel == 0:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        elif channel == 255 and data == b"\x00":
            self.process.stdin.close()

    def getheaders(self) -> dict[str, str]:
        return {}

    def close(self, **_: Any) -> None:
        self.connected = False
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)


class Kubelet:
    """Answers exec connections; records each command's argv."""

    def __init__(self) -> None:
        self.subprotocol = "v5.channel.k8s.io"
        self.commands: list[list[str]] = []
        self.status: bytes | None = None
        """An exec status to answer instead of the process's (b"" for none at all)."""

    def __call__(self, configuration: Any, url: str, headers: Any = None) -> LocalExec:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
        assert query["container"] == [manifests.CONTAINER] and query["tty"] == ["False"]
        argv = query["command"]
        self.commands.append(argv)
        return LocalExec(argv, query.get("stdin") == ["True"], self.subprotocol, self.status)


@pytest.fixture
def kubelet(monkeypatch: pytest.MonkeyPatch) -> Kubelet:
    fake = Kubelet()
    monkeypatch.setattr(ws_client, "create_websocket", fake)
    return fake


@pytest.fixture
def core() -> FakeCore:
    return FakeCore()


@pytest.fixture
def networking() -> FakeNetworking:
    return FakeNetworking()


@pytest.fixture
def provider(
    core: FakeCore, networking: FakeNetworking, monkeypatch: pytest.MonkeyPatch
) -> KubernetesProvider:
    monkeypatch.setattr(provider_module, "POLL_SECONDS", 0.01)
    options = {"name": "kubernetes", "namespace": NS, "image_pull_secrets": ["regcred"], "disk_limit": "2g"}
    return KubernetesProvider(options, this_run(worker="gw1"), core=core, networking=networking)


def spec(tmp_path: Path, **fields: Any) -> SandboxSpec:
    values: dict[str, Any] = {
        "image": "registry.example/swe/demo:1",
        "workdir": str(tmp_path),
        "memory": "1g",
        "cpus": 1.5,
        "ttl": 900,
        "labels": {"pytest-swe.instance": "org/repo:pr-1", "pytest-swe.benchmark": "demo"},
        **fields,
    }
    return SandboxSpec(**values)


# --- request building ----------------------------------------------------------------------------


def test_k8s_pod_manifest_from_the_spec(tmp_path: Path) -> None:
    run = this_run(worker="gw0")
    options = {"image_pull_secrets": "regcred", "node_selector": {"pool": "swe"}, "pull": "never"}
    pod = manifests.pod(
        spec(tmp_path, env={"A": "1"}), run, "pytest-swe-eval-x", {**options, "disk_limit": "10g"}
    )
    assert isinstance(pod, k8s.V1Pod)
    body = k8s.ApiClient().sanitize_for_serialization(pod)  # what goes over the wire
    pod_spec = body["spec"]
    assert pod_spec["activeDeadlineSeconds"] == 900
    assert pod_spec["automountServiceAccountToken"] is False
    assert pod_spec["restartPolicy"] == "Never" and pod_spec["terminationGracePeriodSeconds"] == 0
    assert pod_spec["imagePullSecrets"] == [{"name": "regcred"}]
    assert pod_spec["nodeSelector"] == {"pool": "swe"}
    (container,) = pod_spec["containers"]
    assert container["command"] == ["sleep", "900"]
    assert container["imagePullPolicy"] == "Never"
    assert container["workingDir"] == str(tmp_path)
    assert container["env"] == [{"name": "A", "value": "1"}]
    limits = {"memory": str(1024**3), "cpu": "1500m", "ephemeral-storage": str(10 * 1024**3)}
    assert container["resources"] == {"limits": limits, "requests": limits}
    labels = body["metadata"]["labels"]
    assert labels["pytest-swe.run"] == run.run_id and labels["pytest-swe.worker"] == "gw0"
    assert labels["pytest-swe.owner-pid"] == str(os.getpid())
    assert labels["pytest-swe.owner-start"] == run.owner_start
    assert labels["pytest-swe.role"] == "eval" and labels["pytest-swe.keep"] == "0"
    assert labels["pytest-swe.ttl"] == "900" and labels[manifests.SANDBOX_LABEL] == "pytest-swe-eval-x"
    assert all(LABEL_VALUE.match(v) and len(v) <= 63 for v in labels.values())
    assert labels["pytest-swe.instance"] == "org_repo_pr-1"  # an instance id is not always a label value
    assert body["metadata"]["annotations"]["pytest-swe/pytest-swe.instance"] == "org/repo:pr-1"


def test_k8s_label_values_are_valid_whatever_the_host(tmp_path: Path) -> None:
    assert manifests.label_value("a" * 80 + ".example.com") == "a" * 63
    assert manifests.label_value("-x:y-") == "x_y"
    assert LABEL_VALUE.match(manifests.label_value("_" + "é" * 70))


def test_k8s_kept_sandbox_lives_a_day(tmp_path: Path) -> None:
    pod = manifests.pod(spec(tmp_path, keep=True), this_run(), "p", {})
    assert pod.spec.active_deadline_seconds == KEEP_TTL
    assert pod.metadata.labels["pytest-swe.keep"] == "1"
    assert pod.spec.containers[0].command == ["sleep", str(KEEP_TTL)]


@pytest.mark.parametrize("size", ["lots", "0", "-1g", True])
def test_k8s_bad_sizes_are_config_errors(tmp_path: Path, size: Any) -> None:
    with pytest.raises(ConfigError, match="memory"):
        manifests.pod(spec(tmp_path, memory=size), this_run(), "p", {})


def test_k8s_deny_all_policy_selects_only_its_pod() -> None:
    policy = manifests.deny_all_policy("pytest-swe-eval-x", {"pytest-swe": "1", "pytest-swe.run": "r1"})
    body = k8s.ApiClient().sanitize_for_serialization(policy)
    assert body["spec"]["podSelector"] == {"matchLabels": {manifests.SANDBOX_LABEL: "pytest-swe-eval-x"}}
    assert body["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert body["spec"]["egress"] == [] and body["spec"]["ingress"] == []
    assert body["metadata"]["labels"] == {"pytest-swe": "1", "pytest-swe.run": "r1"}


def test_k8s_selector() -> None:
    assert manifests.selector() == "pytest-swe"
    assert manifests.selector(run="r1", worker=None) == "pytest-swe,pytest-swe.run=r1"


# --- creating and removing pods ------------------------------------------------------------------


def test_k8s_eval_pod_gets_its_deny_policy_before_it_exists(
    provider: KubernetesProvider, core: FakeCore, networking: FakeNetworking, tmp_path: Path
) -> None:
    sandbox = provider.create(spec(tmp_path))
    name = sandbox.name
    assert networking.calls[:2] == [("create_policy", name), ("patch_policy", name)]
    assert core.calls == [("create_pod", name)]
    (ref,) = networking.policies[name].metadata.owner_references
    assert (ref.kind, ref.name, ref.uid) == ("Pod", name, core.pods[name].metadata.uid)
    assert sandbox.alive()
    assert core.timeouts == [30.0]  # every request has a deadline
    result = sandbox.close()
    assert result.removed and name not in core.pods and name not in networking.policies


def test_k8s_sandbox_with_network_has_no_policy(
    provider: KubernetesProvider, networking: FakeNetworking, tmp_path: Path
) -> None:
    provider.create(spec(tmp_path, network=True, role="agent"))
    assert networking.calls == []


def test_k8s_image_pull_failure_is_image_missing_and_leaves_nothing(
    provider: KubernetesProvider, core: FakeCore, networking: FakeNetworking, tmp_path: Path
) -> None:
    core.start = [
        k8s.V1ContainerState(waiting=k8s.V1ContainerStateWaiting(reason="ErrImagePull", message="not found"))
    ]
    with pytest.raises(InfraError) as info:
        provider.create(spec(tmp_path))
    assert info.value.kind == "image_missing" and "registry.example/swe/demo:1" in str(info.value)
    assert core.pods == {} and networking.policies == {}


def test_k8s_pod_that_never_runs_is_a_start_error(
    provider: KubernetesProvider, core: FakeCore, tmp_path: Path
) -> None:
    core.start = [k8s.V1ContainerState(waiting=k8s.V1ContainerStateWaiting(reason="ContainerCreating"))]
    with pytest.raises(InfraError, match="not running after") as info:
        provider.create(spec(tmp_path, start_timeout=0.2))
    assert info.value.kind == "sandbox_start" and core.pods == {}


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        (403, "provider_unavailable", "RBAC role"),
        (422, "sandbox_start", "rejected"),
        (0, "provider_unavailable", "reach"),
    ],
)
def test_k8s_refused_creation(
    provider: KubernetesProvider,
    core: FakeCore,
    networking: FakeNetworking,
    tmp_path: Path,
    status: int,
    kind: str,
    text: str,
) -> None:
    core.fail_create = api_error(status)
    with pytest.raises(InfraError, match=text) as info:
        provider.create(spec(tmp_path))
    assert info.value.kind == kind
    assert networking.policies == {}  # the policy made for the pod goes with it


def test_k8s_host_mounts_are_refused(provider: KubernetesProvider, tmp_path: Path) -> None:
    with pytest.raises(InfraError, match="host paths"):
        provider.create(spec(tmp_path, mounts={"/run/bridge": "/bridge"}))


def test_k8s_deletion_is_confirmed_by_404(
    provider: KubernetesProvider, core: FakeCore, tmp_path: Path
) -> None:
    sandbox = provider.create(spec(tmp_path))
    core.linger[sandbox.name] = 3  # terminating for three reads
    result = provider.remove(sandbox.name)
    assert result.removed and result.attempts == 4
    assert core.calls.count(("delete_pod", sandbox.name)) == 1


def test_k8s_pod_that_never_goes_is_not_removed(
    provider: KubernetesProvider, core: FakeCore, tmp_path: Path
) -> None:
    sandbox = provider.create(spec(tmp_path))
    core.linger[sandbox.name] = 10**6
    result = provider.remove(sandbox.name, timeout=0.2)
    assert not result.removed and "still there" in (result.error or "")


def pod_of(core: FakeCore, name: str, **labels: str) -> None:
    body = manifests.pod(SandboxSpec(image="i"), this_run(), name, {})
    body.metadata.labels.update(labels)
    core.create_namespaced_pod(NS, body)


def test_k8s_reap_by_run_and_orphans(
    provider: KubernetesProvider, core: FakeCore, networking: FakeNetworking
) -> None:
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    host = manifests.label_value(socket.gethostname())
    pod_of(core, "mine", **{"pytest-swe.run": "r1"})
    pod_of(core, "mine-kept", **{"pytest-swe.run": "r1", "pytest-swe.keep": "1"})
    pod_of(core, "other-run", **{"pytest-swe.run": "r2"})
    pod_of(
        core,
        "dead-owner",
        **{"pytest-swe.run": "r3", "pytest-swe.owner-pid": str(dead.pid), "pytest-swe.owner-host": host},
    )
    pod_of(
        core,
        "other-host",
        **{
            "pytest-swe.run": "r4",
            "pytest-swe.owner-pid": str(dead.pid),
            "pytest-swe.owner-host": "elsewhere",
        },
    )
    pod_of(
        core,
        "expired",
        **{"pytest-swe.run": "r5", "pytest-swe.owner-host": "elsewhere", "pytest-swe.created": "1000"},
    )
    networking.policies["gone-pod"] = manifests.deny_all_policy(
        "gone-pod", {"pytest-swe": "1", "pytest-swe.run": "r1"}
    )

    assert provider.reap(run_id="r1") == ["mine"]  # what the session's end removes
    assert "gone-pod" not in networking.policies  # a policy whose pod is gone is swept too
    assert sorted(provider.reap(orphans=True)) == ["dead-owner", "expired"]
    assert provider.reap(run_id="r1", kept=True) == ["mine-kept"]
    assert sorted(core.pods) == ["other-host", "other-run"]


def test_k8s_reap_when_the_api_is_down_removes_nothing(provider: KubernetesProvider, core: FakeCore) -> None:
    core.fail_list = api_error(0, "connection refused")
    assert provider.reap(orphans=True) == []


def test_k8s_pytest_swe_reap_command(
    core: FakeCore,
    networking: FakeNetworking,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``pytest-swe reap --provider kubernetes`` builds the provider from the kubeconfig and sweeps."""
    from pytest_swe.tools.cli import main as cli_main

    monkeypatch.setattr(kubernetes.config, "new_client_from_config", lambda **kwargs: k8s.ApiClient())
    monkeypatch.setattr(k8s, "CoreV1Api", lambda client: core)
    monkeypatch.setattr(k8s, "NetworkingV1Api", lambda client: networking)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    built: list[KubernetesProvider] = []
    real_init = KubernetesProvider.__init__

    def init(self: KubernetesProvider, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(KubernetesProvider, "__init__", init)
    pod_of(core, "stale", **{"pytest-swe.created": "1000"})
    argv = ["reap", "--provider", "kubernetes", "--provider-option", f"namespace={NS}"]
    assert cli_main(argv) == 0
    assert "removed 1 sandbox(es): stale" in capsys.readouterr().out
    assert core.pods == {} and built[0].namespace == NS
    assert cli_main([*argv, "--provider-option", "oops"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err


def test_k8s_version_names_the_server_and_namespace(
    provider: KubernetesProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = k8s.VersionInfo(
        major="1",
        minor="31",
        git_version="v1.31.2",
        git_commit="",
        git_tree_state="",
        build_date="",
        go_version="",
        compiler="",
        platform="linux/amd64",
    )
    monkeypatch.setattr(k8s.VersionApi, "get_code", lambda self, **kwargs: info)
    assert provider.version() == f"Kubernetes v1.31.2 (current context, namespace {NS})"

    def refused(self: Any, **kwargs: Any) -> Any:
        raise api_error(403)

    monkeypatch.setattr(k8s.VersionApi, "get_code", refused)
    with pytest.raises(InfraError, match="server version"):
        provider.version()


def test_k8s_preflight(provider: KubernetesProvider, core: FakeCore) -> None:
    provider.preflight()
    core.fail_list = api_error(403)
    with pytest.raises(InfraError, match="RBAC") as info:
        provider.preflight()
    assert info.value.kind == "provider_unavailable"


def test_k8s_without_a_kubeconfig_is_provider_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    provider = KubernetesProvider({"name": "kubernetes", "kubeconfig": str(tmp_path / "missing")}, this_run())
    with pytest.raises(InfraError, match="kubeconfig") as info:
        provider.preflight()
    assert info.value.kind == "provider_unavailable"
    assert provider.reap(orphans=True) == []  # the end of every run asks: it must not fail


def test_k8s_without_the_client_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kubernetes", None)
    with pytest.raises(ConfigError, match=r"pytest-swe\[k8s\]"):
        sdk()


# --- exec, files -----------------------------------------------------------------------------------


@pytest.fixture
def sandbox(provider: KubernetesProvider, kubelet: Kubelet, tmp_path: Path) -> Any:
    box = provider.create(spec(tmp_path))
    yield box
    box.close()


def test_k8s_exec_output_and_exit_code(sandbox: Any, kubelet: Kubelet, tmp_path: Path) -> None:
    result = sandbox.exec(
        "echo out; echo err >&2; pwd; echo $GREETING; exit 3", timeout=30, env={"GREETING": "hi there"}
    )
    assert result.exit_code == 3 and not result.timed_out and not result.ok
    assert result.output == f"out\nerr\n{tmp_path}\nhi there\n"
    assert sandbox.exec("true", timeout=30).ok
    other = tmp_path / "sub"
    other.mkdir()
    assert sandbox.exec("pwd", timeout=30, workdir=str(other)).output == f"{other}\n"
    assert all(argv[:2] == ["sh", "-c"] for argv in kubelet.commands)


def test_k8s_exec_timeout_kills_the_command_and_its_children(sandbox: Any, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    result = sandbox.exec(f"echo started; setsid sleep 300 & echo $! > {pidfile}; sleep 300", timeout=1.5)
    assert result.timed_out and not result.ok
    assert time.monotonic() - started < 15
    assert result.output.startswith("started")
    child = int(pidfile.read_text())
    # The child left the command's session, but carries its token: killed as well.
    deadline = time.monotonic() + 5
    while Path(f"/proc/{child}").exists() and Path(f"/proc/{child}/stat").read_text().split()[2] != "Z":
        assert time.monotonic() < deadline, "the command's child survived its timeout"
        time.sleep(0.1)


def test_k8s_exec_output_is_capped_head_and_tail(sandbox: Any) -> None:
    result = sandbox.exec(
        "echo first; head -c 200000 /dev/zero | tr '\\0' x; echo; echo last", timeout=30, output_limit=2000
    )
    assert result.ok and result.truncated_bytes > 190000
    assert result.output.startswith("first\n") and result.output.endswith("last\n")
    assert "bytes of output dropped" in result.output


def test_k8s_exec_without_status_is_a_cut_stream(sandbox: Any, kubelet: Kubelet) -> None:
    kubelet.status = b""  # the connection closed before the status arrived
    with pytest.raises(InfraError, match="in transit") as info:
        sandbox.exec("echo hi", timeout=30)
    assert info.value.kind == "sandbox_error"


def test_k8s_exec_in_a_pod_that_died(sandbox: Any, kubelet: Kubelet, core: FakeCore) -> None:
    kubelet.status = b""
    core.pods[sandbox.name].metadata.deletion_timestamp = "2026-12-01T00:00:00Z"
    with pytest.raises(InfraError) as info:
        sandbox.exec("echo hi", timeout=30)
    assert info.value.kind == "sandbox_died"


def test_k8s_exec_that_cannot_start_is_a_sandbox_error(sandbox: Any, kubelet: Kubelet) -> None:
    failure = {
        "status": "Failure",
        "reason": "InternalError",
        "message": 'exec: "sh": executable file not found',
    }
    kubelet.status = json.dumps(failure).encode()
    with pytest.raises(InfraError, match="executable file not found") as info:
        sandbox.exec("true", timeout=30)
    assert info.value.kind == "sandbox_error"


def test_k8s_exec_as_another_user_is_refused(sandbox: Any) -> None:
    assert sandbox.exec("true", timeout=30, user="root").ok
    with pytest.raises(InfraError, match="image's user"):
        sandbox.exec("true", timeout=30, user="nobody")


@pytest.mark.parametrize("subprotocol", ["v5.channel.k8s.io", "v4.channel.k8s.io"])
def test_k8s_files_over_tar(sandbox: Any, kubelet: Kubelet, tmp_path: Path, subprotocol: str) -> None:
    kubelet.subprotocol = subprotocol  # v4 cannot close stdin: tar must end at the archive's end
    data = os.urandom(300_000) + b"\x00\n\xff"
    target = tmp_path / "deep" / "dir" / "blob.bin"
    sandbox.write_file(str(target), data, mode=0o751)
    assert target.read_bytes() == data and (target.stat().st_mode & 0o777) == 0o751
    assert sandbox.read_file(str(target)) == data
    with pytest.raises(FileNotFoundError):
        sandbox.read_file(str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError):
        sandbox.read_file(str(tmp_path / "deep"))  # a directory is not a file


def test_k8s_end_processes_sends_the_kill_helper(
    provider: KubernetesProvider, kubelet: Kubelet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = provider.create(spec(tmp_path))
    seen: list[list[str]] = []

    def record(configuration: Any, url: str, headers: Any = None) -> LocalExec:
        argv = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["command"]
        seen.append(argv)
        return LocalExec(["true"], False, "v5.channel.k8s.io")

    monkeypatch.setattr(ws_client, "create_websocket", record)
    sandbox.end_processes()
    (argv,) = seen
    assert argv[:3] == ["sh", "-c", sandbox_module._KILL_ALL]


def test_k8s_enter_command(provider: KubernetesProvider, tmp_path: Path) -> None:
    provider.options["context"] = "gke_swe"
    sandbox = provider.create(spec(tmp_path))
    assert sandbox.enter_command() == f"kubectl --context gke_swe -n {NS} exec -it {sandbox.name} -- bash"


def test_k8s_exit_status_messages() -> None:
    assert sandbox_module.exit_status(exec_status(0)) == 0
    assert sandbox_module.exit_status(exec_status(137)) == 137
    assert sandbox_module.exit_status(b"") is None
    with pytest.raises(InfraError, match="unreadable"):
        sandbox_module.exit_status(b"{not json")


def test_k8s_head_tail_buffer() -> None:
    buffer = sandbox_module.CappedBuffer(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop"):
        buffer.add(chunk)
    assert buffer.dropped == 6 and buffer.received == 16
    assert buffer.text() == "abcde\n[... 6 bytes of output dropped ...]\nlmnop"


def test_k8s_session_end_sweeps_the_run_pods(
    swe_project: Any, core: FakeCore, networking: FakeNetworking, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pod whose creation answer was lost is left to nobody but the run's end: swept by its run label."""
    monkeypatch.setattr(kubernetes.config, "new_client_from_config", lambda **kwargs: k8s.ApiClient())
    monkeypatch.setattr(k8s, "CoreV1Api", lambda client: core)
    monkeypatch.setattr(k8s, "NetworkingV1Api", lambda client: networking)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    lost: list[str] = []
    create = core.create_namespaced_pod

    def create_then_lose_the_answer(namespace: str, body: Any, **kwargs: Any) -> Any:
        create(namespace, body, **kwargs)
        lost.append(body.metadata.name)
        raise api_error(504, "Gateway Timeout")

    monkeypatch.setattr(core, "create_namespaced_pod", create_then_lose_the_answer)
    swe_project.demo(extra="provider: {name: kubernetes, namespace: default}\n")
    run = swe_project.run("benchmarks/", "-k", "calc")
    (case,) = run.cases
    assert case.outcome == "error" and case.properties["error_kind"] == "provider_unavailable"
    assert lost and core.pods == {}  # the run's end found the pod by its run label and deleted it
    assert ("delete_pod", lost[0]) in core.calls
    assert networking.policies == {}
