"""``host:port`` and bare ports, as configuration files and command lines give them."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_HOST = "localhost"


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_port(text: str) -> int:
    """A TCP port number from its decimal text."""
    text = text.strip()
    if not text.isdigit():
        raise ValueError(f"not a port number: {text!r}")
    return int(text)


def parse_endpoint(spec: str, default_host: str = DEFAULT_HOST) -> Endpoint:
    """``host:port``, ``[v6-host]:port`` or a bare ``port`` (on ``default_host``)."""
    spec = spec.strip()
    if spec.startswith("["):
        host, sep, rest = spec[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise ValueError(f"bad endpoint: {spec!r}")
        return Endpoint(host, parse_port(rest[1:]))
    host, sep, port = spec.rpartition(":")
    if not sep:
        return Endpoint(default_host, parse_port(spec))
    if not host:
        raise ValueError(f"empty host: {spec!r}")
    return Endpoint(host, parse_port(port))
