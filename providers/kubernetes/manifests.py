"""The objects the Kubernetes provider asks for, built from the client's own model classes.

A pod per sandbox: a ``sleep <ttl>`` keep-alive, ``activeDeadlineSeconds`` = ttl (the pod ends
itself even if nobody deletes it), resources from the limits, no service account token, labels
with the run id and the owner's identity. A sandbox without network gets a NetworkPolicy that
selects only its pod and allows no ingress and no egress.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_swe.api.sandbox import LABEL
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import sandbox_labels
from pytest_swe.api.sandbox import sandbox_ttl
from pytest_swe.api.sizes import parse_size

from .client import sdk

CONTAINER = "sandbox"
SANDBOX_LABEL = f"{LABEL}.sandbox"
"""The label naming one pod: its NetworkPolicy selects by it."""
PULL_POLICY = {"missing": "IfNotPresent", "always": "Always", "never": "Never"}
_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]")


def label_value(value: object) -> str:
    """A valid label value (at most 63 characters of ``[A-Za-z0-9_.-]``, alphanumeric at both ends)."""
    text = _LABEL_VALUE.sub("_", str(value))[:63]
    return text.strip("_.-")


def quantity_bytes(value: object, option: str) -> str:
    """A size in the engine's units (``512m``, ``1g``, bytes) as a Kubernetes quantity in bytes."""
    return str(parse_size(value, option))


def quantity_cpus(cpus: float) -> str:
    return f"{max(1, round(cpus * 1000))}m"


def labels(spec: SandboxSpec, run: RunInfo, name: str) -> dict[str, str]:
    """The pod's labels: what ``reap`` selects by and what decides whether its owner is gone."""
    raw = {**sandbox_labels(run, spec), SANDBOX_LABEL: name, **spec.labels}  # the row's own win, as before
    return {key: label_value(value) for key, value in raw.items()}


def pod_annotations(spec: SandboxSpec, run: RunInfo) -> dict[str, str]:
    """What labels must shorten, in full."""
    return {f"{LABEL}/owner-host": run.owner_host, **{f"{LABEL}/{k}": v for k, v in spec.labels.items()}}


def resources(spec: SandboxSpec, disk_limit: str | None) -> Any:
    """Requests equal to limits (a Guaranteed pod when both are set): memory, CPU, ephemeral storage."""
    limits: dict[str, str] = {}
    if spec.memory:
        limits["memory"] = quantity_bytes(spec.memory, "limits.memory")
    if spec.cpus:
        limits["cpu"] = quantity_cpus(spec.cpus)
    if disk_limit:
        limits["ephemeral-storage"] = disk_limit
    return sdk().client.V1ResourceRequirements(limits=limits or None, requests=dict(limits) or None)


def pod(spec: SandboxSpec, run: RunInfo, name: str, options: Mapping[str, Any]) -> Any:
    """The sandbox's pod."""
    k8s = sdk().client
    disk = options.get("disk_limit")
    disk_limit = quantity_bytes(disk, "provider.disk_limit") if disk else None
    ttl = sandbox_ttl(spec)
    container = k8s.V1Container(
        name=CONTAINER,
        image=spec.image,
        image_pull_policy=PULL_POLICY.get(str(options.get("pull", "missing")), "IfNotPresent"),
        command=["sleep", str(ttl)],
        working_dir=spec.workdir,
        env=[k8s.V1EnvVar(name=key, value=value) for key, value in spec.env.items()] or None,
        resources=resources(spec, disk_limit),
    )
    secrets = options.get("image_pull_secrets") or []
    if isinstance(secrets, str):
        secrets = [secrets]
    pod_spec = k8s.V1PodSpec(
        containers=[container],
        restart_policy="Never",
        active_deadline_seconds=ttl,
        automount_service_account_token=False,
        enable_service_links=False,
        termination_grace_period_seconds=0,
        image_pull_secrets=[k8s.V1LocalObjectReference(name=s) for s in secrets] or None,
        node_selector=dict(options.get("node_selector") or {}) or None,
        runtime_class_name=options.get("runtime_class") or None,
        service_account_name=options.get("service_account") or None,
    )
    return k8s.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=k8s.V1ObjectMeta(
            name=name, labels=labels(spec, run, name), annotations=pod_annotations(spec, run)
        ),
        spec=pod_spec,
    )


def deny_all_policy(name: str, pod_labels: Mapping[str, str]) -> Any:
    """A NetworkPolicy that selects the pod ``name`` alone and lets nothing in or out."""
    k8s = sdk().client
    keep = (LABEL, f"{LABEL}.run", f"{LABEL}.worker", f"{LABEL}.keep", SANDBOX_LABEL)
    return k8s.V1NetworkPolicy(
        api_version="networking.k8s.io/v1",
        kind="NetworkPolicy",
        metadata=k8s.V1ObjectMeta(name=name, labels={k: pod_labels[k] for k in keep if k in pod_labels}),
        spec=k8s.V1NetworkPolicySpec(
            pod_selector=k8s.V1LabelSelector(match_labels={SANDBOX_LABEL: name}),
            policy_types=["Ingress", "Egress"],
            ingress=[],
            egress=[],
        ),
    )


def owned_by(pod_obj: Any) -> list[Any]:
    """An owner reference to the pod: the cluster deletes the pod's policy with the pod."""
    k8s = sdk().client
    meta = pod_obj.metadata
    return [k8s.V1OwnerReference(api_version="v1", kind="Pod", name=meta.name, uid=meta.uid)]


def selector(**labels: str | None) -> str:
    """A label selector of pytest-swe objects with these label values (``run="x"`` ->
    ``pytest-swe.run=x``)."""
    parts = [LABEL]
    parts += [f"{LABEL}.{key}={label_value(value)}" for key, value in labels.items() if value]
    return ",".join(parts)
