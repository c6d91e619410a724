"""A real OpenAI-compatible Chat Completions server on loopback that replays scripted replies.

Scripts are keyed by a string found in the request's messages (a word of the task's
problem statement), so one server can drive several items of one run, each on its own
script. Every request is recorded (headers and JSON body) for the tests to inspect.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import Any

PROMPT_TOKENS = 100
COMPLETION_TOKENS = 20


@dataclass
class Reply:
    """One scripted answer: an assistant message, or an HTTP error (status + body)."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: str | None = None
    delay: float = 0.0


_ids = itertools.count(1)


def bash(command: str, thought: str = "") -> Reply:
    call = {
        "id": f"call_{next(_ids)}",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": command})},
    }
    return Reply(content=thought or None, tool_calls=[call])


def submit() -> Reply:
    call = {"id": f"call_{next(_ids)}", "type": "function", "function": {"name": "submit", "arguments": "{}"}}
    return Reply(tool_calls=[call])


def text(content: str) -> Reply:
    return Reply(content=content)


def error(status: int, body: str) -> Reply:
    return Reply(status=status, body=body)


def write_file(path: str, content: str) -> str:
    """A shell command that writes ``content`` to ``path`` (a heredoc, as a model would)."""
    return f"cat > {path} <<'SWE_EOF'\n{content}SWE_EOF"


@dataclass
class Script:
    replies: list[Reply]
    then: Reply | None = None
    """Replayed for every request after the script ran out (None: a 500 error)."""
    served: int = 0


class ScriptedModelServer:
    def __init__(self, scripts: dict[str, Script]) -> None:
        self.scripts = scripts
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                reply, key = server.next_reply(self.path, dict(self.headers), body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    data = (reply.body or "").encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                else:
                    data = json.dumps(server.completion(reply, body, key)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def next_reply(
        self, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[Reply, str | None]:
        text_of = json.dumps(body.get("messages", []))
        with self._lock:
            key = next((k for k in self.scripts if k in text_of), None)
            self.requests.append({"path": path, "headers": headers, "body": body, "key": key})
            if path.rstrip("/") != "/v1/chat/completions":
                return Reply(status=404, body=json.dumps({"error": f"no route {path}"})), key
            if key is None:
                return Reply(
                    status=400, body=json.dumps({"error": "no script matches this conversation"})
                ), key
            script = self.scripts[key]
            if script.served < len(script.replies):
                reply = script.replies[script.served]
            else:
                reply = script.then or Reply(status=500, body=json.dumps({"error": "script exhausted"}))
            script.served += 1
            return reply, key

    @staticmethod
    def completion(reply: Reply, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = reply.tool_calls
        return {
            "id": f"chatcmpl-{next(_ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": PROMPT_TOKENS,
                "completion_tokens": COMPLETION_TOKENS,
                "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
            },
        }

    def requests_for(self, key: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["key"] == key]

    def start(self) -> ScriptedModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serving(scripts: dict[str, Script]) -> Iterator[ScriptedModelServer]:
    server = ScriptedModelServer(scripts).start()
    try:
        yield server
    finally:
        server.stop()
