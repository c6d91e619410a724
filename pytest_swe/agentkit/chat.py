"""A small client for OpenAI-compatible Chat Completions endpoints (standard library only).

Only ``urllib`` is used: one blocking request per agent step needs no connection pool or
async runtime, and an agent harness should not pin an SDK version for its users. Errors
keep the HTTP status and the response body, because "the endpoint said 401: invalid key"
is what a user needs to see in the ledger; 429, 5xx and dropped connections are retried
with exponential backoff (honouring ``Retry-After``).
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529})
MAX_BODY_CHARS = 2000


class ModelEndpointError(Exception):
    """The endpoint failed for good: the status (None when no HTTP answer came) and the body it sent."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "", attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.attempts = attempts

    def __str__(self) -> str:
        where = f"HTTP {self.status}" if self.status is not None else "no HTTP response"
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        body = f": {self.body}" if self.body else ""
        return f"model endpoint failed ({where}){tries}: {self.args[0]}{body}"


class EndpointDeadline(Exception):
    """No time was left for another request (the agent's wall-time limit, not an endpoint fault)."""


@dataclass
class ChatResponse:
    """One completion: the assistant message, token usage and what the server reported."""

    message: dict[str, Any]
    finish_reason: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported_cost: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    attempts: int = 1


@dataclass
class ChatClient:
    """POSTs to ``{base_url}/chat/completions`` with retries; the API key never leaves memory."""

    base_url: str
    api_key: str | None = None
    request_timeout: float = 300.0
    retries: int = 5
    backoff: float = 1.0
    max_backoff: float = 30.0
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    sleep: Callable[[float], None] = time.sleep

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, payload: Mapping[str, Any], *, deadline: float | None = None) -> ChatResponse:
        """Send one request, retrying transient failures until ``deadline`` (a ``time.monotonic`` value)."""
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json", **self.extra_headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        attempt = 0
        while True:
            attempt += 1
            timeout = self.request_timeout
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EndpointDeadline("no time left for a model request")
                timeout = min(timeout, remaining)
            try:
                return self._once(data, headers, timeout, attempt)
            except _Retryable as exc:
                if attempt > self.retries:
                    raise ModelEndpointError(
                        exc.reason, status=exc.status, body=exc.body, attempts=attempt
                    ) from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise EndpointDeadline(
                        f"the time limit ran out while the endpoint failed: {exc.reason}"
                    ) from None
                delay = exc.retry_after if exc.retry_after is not None else self.backoff * 2 ** (attempt - 1)
                delay = min(delay, self.max_backoff) * (1 + random.uniform(0, 0.1))
                if deadline is not None:
                    delay = min(delay, max(deadline - time.monotonic(), 0))
                self.sleep(delay)
            except ModelEndpointError as exc:
                exc.attempts = attempt
                raise

    def _once(self, data: bytes, headers: dict[str, str], timeout: float, attempt: int) -> ChatResponse:
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            text = _body_text(exc)
            if exc.code in RETRYABLE_STATUS:
                raise _Retryable(
                    f"{exc.code} {exc.reason}", exc.code, text, _retry_after(exc.headers)
                ) from None
            raise ModelEndpointError(
                f"{exc.code} {exc.reason} from {self.url}", status=exc.code, body=text
            ) from None
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, timed out, cut short
            reason = getattr(exc, "reason", exc)
            raise _Retryable(f"cannot reach {self.url}: {reason}", None, "", None) from None
        try:
            parsed = json.loads(body)
            choice = parsed["choices"][0]
            message = dict(choice["message"])
        except (ValueError, KeyError, IndexError, TypeError):
            # A proxy answering 200 with an error page is transient more often than not.
            raise _Retryable(
                "the response is not a chat completion",
                200,
                body[:MAX_BODY_CHARS].decode("utf-8", errors="replace"),
                None,
            ) from None
        usage = parsed.get("usage") or {}
        cost = usage.get("cost")
        return ChatResponse(
            message=message,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            reported_cost=float(cost) if isinstance(cost, (int, float)) else None,
            raw=parsed,
            attempts=attempt,
        )


class _Retryable(Exception):
    def __init__(self, reason: str, status: int | None, body: str, retry_after: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.body = body
        self.retry_after = retry_after


def _body_text(exc: urllib.error.HTTPError) -> str:
    try:
        data = exc.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS] + " [...]"


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None
