"""A small client for OpenAI-compatible Chat Completions endpoints.

One blocking request per agent step, over ``requests`` (connect and read timeouts, redirects,
proxies and CA bundles from the environment) with the retry loop run by ``tenacity``; no model
SDK, because an agent harness should not pin an SDK version for its users. ``requests`` is there
anyway (the Docker SDK stands on it) and, unlike an asyncio-based client, brings no pytest plugin
that every pytest run in the user's environment would load. Errors keep the HTTP status and the
response body, because "the endpoint said 401: invalid key" is what a user needs to see in the
ledger; 429, 5xx and dropped connections are retried with exponential backoff (honouring
``Retry-After``), never past the caller's deadline.
"""

from __future__ import annotations

import functools
import json
import random
import ssl
import time
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import NoReturn

if TYPE_CHECKING:  # imported where a request is made: most runs never talk to a model
    import requests
    from requests.structures import CaseInsensitiveDict
    from tenacity import RetryCallState
    from tenacity.stop import stop_base

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
        """Send one request, retrying transient failures until ``deadline`` (a ``time.monotonic`` value).

        ``retries`` more attempts follow the first; the wait before attempt n+1 is the server's
        ``Retry-After`` or ``backoff * 2**(n-1)``, at most ``max_backoff``, plus up to 10% jitter,
        and never past the deadline.
        """
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json", **self.extra_headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        from tenacity import Retrying
        from tenacity import retry_if_exception_type
        from tenacity import stop_after_attempt
        from tenacity import wait_exponential

        exponential = wait_exponential(multiplier=self.backoff, max=self.max_backoff)

        def delay(state: RetryCallState) -> float:
            failure = _failure(state)
            wait = failure.retry_after if failure.retry_after is not None else exponential(state)
            wait = min(wait, self.max_backoff) * (1 + random.uniform(0, 0.1))
            if deadline is not None:
                wait = min(wait, max(deadline - time.monotonic(), 0))
            return wait

        def give_up(state: RetryCallState) -> NoReturn:
            failure = _failure(state)
            if state.attempt_number > self.retries:
                raise ModelEndpointError(
                    failure.reason, status=failure.status, body=failure.body, attempts=state.attempt_number
                ) from None
            raise EndpointDeadline(
                f"the time limit ran out while the endpoint failed: {failure.reason}"
            ) from None

        retrying = Retrying(
            retry=retry_if_exception_type(_Retryable),
            stop=stop_after_attempt(self.retries + 1) | _stop_at(deadline),
            wait=delay,
            sleep=self.sleep,
            retry_error_callback=give_up,
        )
        attempts = 0

        def attempt(client: requests.Session) -> ChatResponse:
            nonlocal attempts
            attempts += 1
            timeout = self.request_timeout
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EndpointDeadline("no time left for a model request")
                timeout = min(timeout, remaining)
            return self._once(client, data, headers, timeout, attempts)

        with _session() as client:
            response: ChatResponse = retrying(attempt, client)
            return response

    def _once(
        self, client: requests.Session, data: bytes, headers: dict[str, str], timeout: float, attempt: int
    ) -> ChatResponse:
        from requests.exceptions import InvalidSchema
        from requests.exceptions import InvalidURL
        from requests.exceptions import MissingSchema
        from requests.exceptions import RequestException

        try:
            with client.post(self.url, data=data, headers=headers, timeout=timeout, stream=True) as reply:
                if not 200 <= reply.status_code < 300:
                    self._refuse(reply, attempt)
                body = reply.content
        except (MissingSchema, InvalidSchema, InvalidURL) as exc:
            # A malformed base_url is a settings mistake, never worth a retry.
            raise ValueError(f"cannot send a request to {self.url!r}: {exc}") from None
        except RequestException as exc:  # refused, reset, timed out, cut short
            raise _Retryable(
                f"cannot reach {self.url}: {str(exc) or type(exc).__name__}", None, "", None
            ) from None
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

    def _refuse(self, reply: requests.Response, attempt: int) -> NoReturn:
        """Raise for a non-2xx answer: retryable statuses as such, the rest for good."""
        text = _body_text(reply)
        status = f"{reply.status_code} {reply.reason}"
        if reply.status_code in RETRYABLE_STATUS:
            raise _Retryable(status, reply.status_code, text, _retry_after(reply.headers))
        raise ModelEndpointError(
            f"{status} from {self.url}", status=reply.status_code, body=text, attempts=attempt
        )


class _Retryable(Exception):
    def __init__(self, reason: str, status: int | None, body: str, retry_after: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.body = body
        self.retry_after = retry_after


def _stop_at(deadline: float | None) -> stop_base:
    """Stop retrying once the ``time.monotonic`` deadline has passed (never when it is None)."""
    from tenacity.stop import stop_base

    class StopAt(stop_base):
        def __call__(self, retry_state: RetryCallState) -> bool:
            return deadline is not None and time.monotonic() >= deadline

    return StopAt()


@functools.cache
def _system_tls() -> ssl.SSLContext:
    """The system's trust store (and ``SSL_CERT_FILE``/``SSL_CERT_DIR``), as urllib would use:
    requests' own default is certifi's bundle, which misses a company's private CA."""
    return ssl.create_default_context()


def _session() -> requests.Session:
    """A session that trusts the system's store when no CA bundle is named (``REQUESTS_CA_BUNDLE``
    or ``CURL_CA_BUNDLE`` still name one, as requests users expect)."""
    import requests
    from requests.adapters import HTTPAdapter

    class SystemTrust(HTTPAdapter):
        def build_connection_pool_key_attributes(
            self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
        ) -> tuple[dict[str, Any], dict[str, Any]]:
            host, pool = super().build_connection_pool_key_attributes(request, verify, cert)
            if verify is True:
                pool["ssl_context"] = _system_tls()
            return host, pool

        def cert_verify(self, conn: Any, url: str, verify: bool | str, cert: Any) -> None:
            super().cert_verify(conn, url, verify, cert)
            if verify is True:  # the context holds the trust; certifi's bundle is not added to it
                conn.ca_certs = None
                conn.ca_cert_dir = None

    session = requests.Session()
    session.mount("https://", SystemTrust())
    return session


def _failure(state: RetryCallState) -> _Retryable:
    """The transient failure tenacity is deciding about (it retries nothing else)."""
    failure = state.outcome.exception() if state.outcome is not None else None
    if not isinstance(failure, _Retryable):
        raise TypeError(f"expected a transient endpoint failure, got {failure!r}")
    return failure


def _body_text(reply: requests.Response) -> str:
    from requests.exceptions import RequestException

    try:
        data = reply.content
    except RequestException:  # the body was cut short: the status alone is the report
        return ""
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS] + " [...]"


def _retry_after(headers: CaseInsensitiveDict[str]) -> float | None:
    """Seconds from a ``Retry-After`` header (the HTTP-date form is ignored)."""
    value = headers.get("Retry-After")
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None
