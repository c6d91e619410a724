"""The official ``kubernetes`` client, imported only when a Kubernetes sandbox is used (extra ``k8s``)."""

from __future__ import annotations

from typing import Any

from pytest_swe.api.errors import ConfigError


def sdk() -> Any:
    """The ``kubernetes`` package; a ConfigError saying how to install it when it is missing."""
    try:
        import kubernetes
        import kubernetes.client
        import kubernetes.config
        import kubernetes.stream
    except ImportError:
        raise ConfigError(
            "provider kubernetes needs the official kubernetes client: pip install 'pytest-swe[k8s]'"
        ) from None
    return kubernetes


def api_errors(*extra: type[BaseException]) -> tuple[type[BaseException], ...]:
    """What the client raises when the API server refuses or cannot be reached (and ``extra``)."""
    import urllib3
    import websocket  # the client's websocket library: a dropped exec stream raises its errors

    k8s = sdk()
    return (
        k8s.client.exceptions.ApiException,
        urllib3.exceptions.HTTPError,
        websocket.WebSocketException,
        OSError,
        *extra,
    )


def status_of(exc: BaseException) -> int:
    """The HTTP status of an API error; 0 when the server was not reached."""
    return int(getattr(exc, "status", 0) or 0)
