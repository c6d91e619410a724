"""Route table: patterns such as ``/users/<user_id>`` mapped to handlers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

Handler = Callable[..., Any]

_PARAM = re.compile(r"<(\w+)>")
_SLASHES = re.compile(r"/{2,}")


class NotFound(LookupError):
    """No route matches the path."""


def normalize(path: str) -> str:
    """Canonical form of a path: one leading slash, no repeated slashes."""
    if not path.startswith("/"):
        path = "/" + path
    return _SLASHES.sub("/", path).rstrip("/")


@dataclass(frozen=True)
class Route:
    name: str
    pattern: str
    regex: re.Pattern[str]
    handler: Handler


def _compile(pattern: str) -> re.Pattern[str]:
    parts = _PARAM.split(pattern)
    # split() alternates literal text and parameter names
    regex = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
    )
    return re.compile(f"^{regex}$")


class Router:
    """Match request paths to handlers and build paths back from route names."""

    def __init__(self) -> None:
        self._routes: list[Route] = []

    def add(self, pattern: str, handler: Handler, name: str | None = None) -> None:
        pattern = normalize(pattern)
        self._routes.append(Route(name or handler.__name__, pattern, _compile(pattern), handler))

    def route(self, pattern: str, name: str | None = None) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.add(pattern, handler, name)
            return handler

        return register

    def match(self, path: str) -> tuple[Handler, dict[str, str]]:
        """The handler for ``path`` and its path parameters; ``NotFound`` if none."""
        path = normalize(path.split("?", 1)[0])
        for route in self._routes:
            found = route.regex.match(path)
            if found:
                return route.handler, found.groupdict()
        raise NotFound(path)

    def url_for(self, name: str, **params: Any) -> str:
        """The path of route ``name`` with ``params`` filled in."""
        for route in self._routes:
            if route.name == name:
                return _PARAM.sub(lambda m: str(params[m.group(1)]), route.pattern)
        raise NotFound(name)
