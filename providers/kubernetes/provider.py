"""The Kubernetes provider: a pod per sandbox, deleted for sure, swept by label selector.

Provider options (the benchmark's ``provider`` section): ``context`` (a kubeconfig context;
default the current one, or the in-cluster service account inside a pod), ``kubeconfig``,
``namespace`` (default ``default``), ``image_pull_secrets`` (names), ``node_selector``,
``runtime_class``, ``service_account``, ``disk_limit`` (ephemeral storage), ``pull``
(IfNotPresent, Always or Never), ``request_timeout`` (seconds, default 30).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import is_orphan
from pytest_swe.api.sandbox import reap_takes

from . import manifests
from .client import api_errors
from .client import sdk
from .client import status_of
from .sandbox import KubernetesSandbox

DELETE_TIMEOUT = 60.0
"""How long a deleted pod may take to be gone (404) before its removal counts as failed."""
POLL_SECONDS = 0.5
REAP_PARALLEL = 8
REAP_LIST_TIMEOUT = 10.0
_IMAGE_FAULTS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull")
_START_FAULTS = (
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "CrashLoopBackOff",
)


class KubernetesProvider:
    """Creates pods with the official client; knows nothing of datasets or grading."""

    name = "kubernetes"
    # Not "limits": a pod spec has no pids limit (the kubelet's podPidsLimit is the node's).
    capabilities = frozenset({"exec", "files", "network-off", "labels", "ttl"})

    def __init__(
        self,
        options: Mapping[str, Any],
        run: RunInfo,
        *,
        core: Any = None,
        networking: Any = None,
    ) -> None:
        """``core``/``networking``: CoreV1Api and NetworkingV1Api objects to use instead of the
        ones built from the kubeconfig."""
        self.options = dict(options)
        self.run = run
        self.namespace = str(self.options.get("namespace") or "default")
        self.timeout = float(self.options.get("request_timeout") or 30)
        self._core = core
        self._networking = networking
        self._lock = threading.Lock()

    # -- the API ------------------------------------------------------------------------------

    def _api_client(self) -> Any:
        k8s = sdk()
        context = self.options.get("context")
        if not context and not self.options.get("kubeconfig") and os.environ.get("KUBERNETES_SERVICE_HOST"):
            k8s.config.load_incluster_config()
            return k8s.client.ApiClient()
        try:
            return k8s.config.new_client_from_config(
                config_file=self.options.get("kubeconfig"), context=context
            )
        except (k8s.config.ConfigException, OSError) as exc:
            raise InfraError("provider_unavailable", f"no usable kubeconfig context: {exc}") from None

    def _connect(self) -> None:
        with self._lock:
            if self._core is None or self._networking is None:
                client = self._api_client()
                k8s = sdk().client
                self._core = self._core or k8s.CoreV1Api(client)
                self._networking = self._networking or k8s.NetworkingV1Api(client)

    @property
    def core(self) -> Any:
        if self._core is None:
            self._connect()
        return self._core

    @property
    def networking(self) -> Any:
        if self._networking is None:
            self._connect()
        return self._networking

    def _unavailable(self, action: str, exc: BaseException) -> InfraError:
        status = status_of(exc)
        if status in (401, 403):
            why = f"the API server refused to {action} (HTTP {status}): the RBAC role must allow it"
        elif status:
            why = f"cannot {action} (HTTP {status}): {getattr(exc, 'reason', '') or exc}"
        else:
            why = f"cannot reach the Kubernetes API to {action}: {exc}"
        return InfraError("provider_unavailable", f"namespace {self.namespace}: {why}")

    def preflight(self, timeout: float = 10.0) -> None:
        """Raise InfraError (``provider_unavailable``) unless pods of the namespace can be listed."""
        try:
            self.core.list_namespaced_pod(self.namespace, limit=1, _request_timeout=timeout)
        except api_errors() as exc:
            raise self._unavailable("list pods", exc) from None

    def version(self) -> str:
        """The API server's version and where the pods go (the report header shows it)."""
        try:
            info = sdk().client.VersionApi(self.core.api_client).get_code(_request_timeout=self.timeout)
        except api_errors() as exc:
            raise self._unavailable("read the server version", exc) from None
        context = self.options.get("context") or "current context"
        return f"Kubernetes {info.git_version} ({context}, namespace {self.namespace})"

    def api_alive(self) -> bool:
        try:
            self.core.list_namespaced_pod(self.namespace, limit=1, _request_timeout=10)
            return True
        except api_errors(InfraError):
            return False

    # -- sandboxes ----------------------------------------------------------------------------

    def create(self, spec: SandboxSpec) -> KubernetesSandbox:
        if spec.mounts:
            raise InfraError(
                "sandbox_start",
                "the kubernetes provider cannot bind host paths into a pod "
                f"({', '.join(sorted(spec.mounts.values()))}): use an agent that needs no host mount",
            )
        name = f"pytest-swe-{manifests.label_value(spec.role).lower()}-{uuid.uuid4().hex[:10]}"
        body = manifests.pod(spec, self.run, name, self.options)
        policy = None
        try:
            if not spec.network:
                # The policy first: the pod never runs a moment without it.
                policy = manifests.deny_all_policy(name, body.metadata.labels)
                self.networking.create_namespaced_network_policy(
                    self.namespace, policy, _request_timeout=self.timeout
                )
            created = self.core.create_namespaced_pod(self.namespace, body, _request_timeout=self.timeout)
        except api_errors() as exc:
            if policy is not None:
                self._delete_policy(name)
            if status_of(exc) in (400, 409, 422):
                raise InfraError("sandbox_start", f"the API server rejected pod {name}: {exc}") from None
            raise self._unavailable("create a pod", exc) from None
        if policy is not None:
            # Owned by the pod: the cluster removes the policy with the pod, whoever deletes it.
            with contextlib.suppress(*api_errors()):
                self.networking.patch_namespaced_network_policy(
                    name,
                    self.namespace,
                    {"metadata": {"ownerReferences": manifests.owned_by(created)}},
                    # A merge patch: for a dict body the client would otherwise send JSON-patch.
                    _content_type="application/merge-patch+json",
                    _request_timeout=self.timeout,
                )
        try:
            self._wait_running(name, spec)
        except BaseException:
            self.remove(name)
            raise
        return KubernetesSandbox(self, name, spec)

    def _wait_running(self, name: str, spec: SandboxSpec) -> None:
        """Poll the pod until its container runs; InfraError naming why it does not."""
        end = time.monotonic() + spec.start_timeout
        last = "no status yet"
        while True:
            try:
                pod = self.core.read_namespaced_pod(name, self.namespace, _request_timeout=self.timeout)
            except api_errors() as exc:
                if status_of(exc) == 404:
                    raise InfraError("sandbox_start", f"pod {name} disappeared while starting") from None
                raise self._unavailable("read a pod", exc) from None
            phase = pod.status.phase if pod.status else None
            for status in (pod.status.container_statuses or []) if pod.status else []:
                state = status.state
                if state and state.running and phase == "Running":
                    return
                waiting = state.waiting if state else None
                if waiting and waiting.reason in _IMAGE_FAULTS:
                    raise InfraError(
                        "image_missing",
                        f"pod {name} cannot pull {spec.image}: {waiting.reason} {waiting.message or ''}",
                    )
                if waiting and waiting.reason in _START_FAULTS:
                    raise InfraError("sandbox_start", f"pod {name}: {waiting.reason} {waiting.message or ''}")
                if state and state.terminated:
                    raise InfraError(
                        "sandbox_start",
                        f"pod {name} ended at once: {state.terminated.reason or 'terminated'}",
                    )
                if waiting:
                    last = f"{waiting.reason}: {waiting.message or ''}"
            if phase in ("Failed", "Succeeded"):
                raise InfraError("sandbox_start", f"pod {name} is {phase}: {pod.status.reason or ''}")
            if phase == "Pending" and not pod.status.container_statuses:
                last = next(
                    (f"{c.reason}: {c.message}" for c in pod.status.conditions or [] if c.status == "False"),
                    last,
                )
            if time.monotonic() >= end:
                raise InfraError(
                    "sandbox_start",
                    f"pod {name} not running after {spec.start_timeout:.0f} s ({phase}, {last})",
                )
            time.sleep(POLL_SECONDS)

    def pod_running(self, name: str) -> bool:
        try:
            pod = self.core.read_namespaced_pod(name, self.namespace, _request_timeout=self.timeout)
        except api_errors(InfraError):
            return False
        return bool(
            pod.status
            and pod.status.phase == "Running"
            and not pod.metadata.deletion_timestamp
            and any(s.state and s.state.running for s in pod.status.container_statuses or [])
        )

    def _delete_policy(self, name: str) -> None:
        try:
            self.networking.delete_namespaced_network_policy(
                name, self.namespace, _request_timeout=self.timeout
            )
        except api_errors():
            pass  # gone already (404), or owned by its pod and removed with it

    def remove(self, name: str, timeout: float = DELETE_TIMEOUT) -> CleanupResult:
        """Delete a pod (and its policy) and confirm it is gone (404); never raises."""
        k8s = sdk().client
        attempts = 0
        error: str | None = None
        end = time.monotonic() + timeout
        deleted = False
        while True:
            attempts += 1
            try:
                if not deleted:
                    self.core.delete_namespaced_pod(
                        name,
                        self.namespace,
                        body=k8s.V1DeleteOptions(grace_period_seconds=0, propagation_policy="Background"),
                        _request_timeout=self.timeout,
                    )
                    deleted = True
                self.core.read_namespaced_pod(name, self.namespace, _request_timeout=self.timeout)
            except api_errors(InfraError) as exc:
                if status_of(exc) == 404:
                    self._delete_policy(name)
                    return CleanupResult(True, attempts)
                error = str(exc)
            if time.monotonic() >= end:
                return CleanupResult(
                    False, attempts, error or f"pod {name} still there after {timeout:.0f} s"
                )
            time.sleep(POLL_SECONDS)

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        """Remove pods of a run (or of every run), of a worker, or orphans; return their names.

        Policies left without their pod (the pod removed by someone else) go too.
        """
        selector = manifests.selector(run=run_id, worker=worker)
        try:
            # A short deadline: every run's end asks (an xdist controller builds every provider
            # to reap), and an unreachable cluster must not hold a run that never used it.
            pods = self.core.list_namespaced_pod(
                self.namespace, label_selector=selector, _request_timeout=min(self.timeout, REAP_LIST_TIMEOUT)
            ).items
        except api_errors(InfraError):
            return []
        now = time.time()
        host = manifests.label_value(socket.gethostname())
        doomed = []
        for pod in pods:
            labels = pod.metadata.labels or {}
            if reap_takes(labels, kept=kept, orphan=is_orphan(labels, now, host) if orphans else None):
                doomed.append(pod.metadata.name)
        removed: list[str] = []
        if doomed:
            with concurrent.futures.ThreadPoolExecutor(max_workers=min(REAP_PARALLEL, len(doomed))) as pool:
                results = list(pool.map(self.remove, doomed))
            removed = [name for name, result in zip(doomed, results, strict=True) if result.removed]
        self._sweep_policies(selector, {pod.metadata.name for pod in pods} - set(removed))
        return removed

    def _sweep_policies(self, selector: str, pods_left: set[str]) -> None:
        try:
            policies = self.networking.list_namespaced_network_policy(
                self.namespace, label_selector=selector, _request_timeout=self.timeout
            ).items
        except api_errors(InfraError):
            return
        for policy in policies:
            if policy.metadata.name not in pods_left:
                self._delete_policy(policy.metadata.name)

    def close(self) -> None:
        for api in (self._core, self._networking):
            client = getattr(api, "api_client", None)
            with contextlib.suppress(Exception):
                if client is not None:
                    client.close()
        self._core = self._networking = None
