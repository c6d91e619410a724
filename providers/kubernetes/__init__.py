"""The Kubernetes sandbox provider (the official ``kubernetes`` client, extra ``k8s``).

One pod per sandbox in a namespace of the user's cluster: a ``sleep <ttl>`` keep-alive with
``activeDeadlineSeconds`` = ttl, so a pod ends itself even if its creator is killed; labels with
the run id and the owner's pid, host and start time, so ``pytest-swe reap --provider kubernetes``
and the next run find orphans by label selector. A sandbox without network gets a NetworkPolicy
that denies all ingress and egress to its pod.

Modules: :mod:`.manifests` (the pod and policy objects), :mod:`.provider` (creating, deleting,
reaping), :mod:`.sandbox` (exec over the websocket stream, files over tar), :mod:`.client`
(the client, imported only when used).
"""

from __future__ import annotations

import pytest

from pytest_swe.api.sandbox import ProviderFactory

from .provider import KubernetesProvider
from .sandbox import KubernetesSandbox

__all__ = ["KubernetesProvider", "KubernetesSandbox"]


@pytest.hookimpl
def pytest_swe_providers() -> list[ProviderFactory]:
    return [KubernetesProvider]
