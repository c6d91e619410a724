"""What the HTML report shows, read from ledgers and the run directories beside them.

Each item's artifacts (patch, eval log, verdict, trajectory) are found through the paths its
properties recorded; a run directory that was moved or copied is searched too, at
``<run dir>/<benchmark>/<instance>/``. Whatever is absent is named, never guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.runner.ledger import LEDGER_NAME
from pytest_swe.runner.ledger import RUN_META_NAME
from pytest_swe.runner.session import safe_name
from pytest_swe.tools import report
from pytest_swe.tools.report import Case

#: Most of one artifact embedded in the page; a longer one keeps its head and its tail.
TEXT_LIMIT = 200_000
#: Most of a trajectory read to show its steps, and most of one command's output shown in a step.
TRAJECTORY_LIMIT = 20_000_000
OUTPUT_LIMIT = 20_000
#: Most graded test names searched for in one eval log.
MAX_MARKED_TESTS = 2000

PHASES = ("sandbox", "agent", "eval")
GRADED_GROUPS = ("FAIL_TO_PASS", "PASS_TO_PASS")


@dataclass
class Artifact:
    """One embedded file: its text (maybe cut), or why there is none."""

    name: str
    path: str
    text: str | None = None
    missing: str = ""
    cut: int = 0
    """Bytes left out of the middle of a long file."""

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "path": self.path}
        if self.text is not None:
            data["text"] = self.text
        if self.missing:
            data["missing"] = self.missing
        if self.cut:
            data["cut"] = self.cut
        return data


@dataclass
class Item:
    """One item of one run, with what the page shows of it."""

    run: int
    case: Case
    artifacts: dict[str, Artifact] = field(default_factory=dict)
    verdict: dict[str, Any] | None = None
    steps: list[dict[str, Any]] | None = None
    log_marks: list[list[Any]] = field(default_factory=list)

    @property
    def props(self) -> dict[str, str]:
        return self.case.properties

    def status(self) -> str:
        """resolved, unresolved, error or skipped (the outcome in the words of the live line)."""
        return {"passed": "resolved", "failed": "unresolved"}.get(self.case.outcome, self.case.outcome)

    def number(self, name: str) -> float | None:
        try:
            return float(self.props.get(name, "") or "")
        except ValueError:
            return None


@dataclass
class Run:
    """One ledger given to the report."""

    index: int
    label: str
    source: str
    properties: dict[str, str]
    items: list[Item]
    run_dir: Path | None

    @property
    def cases(self) -> list[Case]:
        return [item.case for item in self.items]


def _run_dir_of(path: Path) -> Path | None:
    """The run directory of a ledger path: the directory itself, the folder of its ledger.jsonl, or
    the folder of a JUnit file that sits in a run directory."""
    if path.is_dir():
        return path
    if (path.parent / LEDGER_NAME).is_file() or (path.parent / RUN_META_NAME).is_file():
        return path.parent
    return None


def read_text(path: Path, limit: int = TEXT_LIMIT) -> tuple[str, int]:
    """A file's text (undecodable bytes replaced), cut to ``limit`` characters around the middle."""
    data = path.read_bytes()
    text = data.decode("utf-8", "replace")
    if len(text) <= limit:
        return text, 0
    head, tail = text[: limit * 3 // 4], text[-(limit // 4) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... {cut} characters left out ...]\n{tail}", cut


def _find(recorded: str, candidates: list[Path]) -> Path | None:
    paths = ([Path(recorded)] if recorded else []) + candidates
    return next((p for p in paths if p.is_file()), None)


def _artifact(
    name: str, recorded: str, candidates: list[Path], what: str, limit: int = TEXT_LIMIT
) -> Artifact:
    path = _find(recorded, candidates)
    if path is None:
        if not recorded:  # the item ended before it had one (a bad row, a skip, a sandbox error)
            return Artifact(name, "", missing=f"no {what} recorded")
        return Artifact(name, recorded, missing=f"{what} not found at {recorded}")
    try:
        text, cut = read_text(path, limit)
    except OSError as exc:
        return Artifact(name, str(path), missing=f"{what} unreadable: {exc}")
    return Artifact(name, str(path), text=text, cut=cut)


def _item_dir(run_dir: Path | None, case: Case) -> Path | None:
    if run_dir is None:
        return None
    return run_dir / safe_name(case.properties.get("benchmark", "")) / safe_name(case.instance_id)


def load_item(index: int, case: Case, run_dir: Path | None) -> Item:
    """An item with its artifacts read from the paths recorded (or the run directory)."""
    item = Item(index, case)
    props = case.properties
    here = _item_dir(run_dir, case)

    def near(*names: str) -> list[Path]:
        return [here / name for name in names] if here is not None else []

    def recorded(key: str) -> str:
        return props.get(key, "")

    def relocated(key: str, *subdirs: str) -> list[Path]:
        name = Path(recorded(key)).name
        return near(*(f"{sub}/{name}" if sub else name for sub in subdirs)) if name else []

    item.artifacts["patch"] = _artifact(
        "patch", recorded("patch_path"), [*relocated("patch_path", ""), *near("patch.diff")], "patch"
    )
    item.artifacts["eval_log"] = _artifact(
        "eval log",
        recorded("eval_log_path"),
        [*relocated("eval_log_path", ""), *near("eval.log")],
        "eval log",
    )
    item.artifacts["eval_script"] = _artifact(
        "eval script",
        recorded("eval_sh_path"),
        [*relocated("eval_sh_path", ""), *near("eval.sh")],
        "eval script",
    )
    verdict = _artifact(
        "verdict",
        recorded("verdict_path"),
        [*relocated("verdict_path", ""), *near("verdict.json")],
        "verdict",
    )
    if verdict.text is not None:
        try:
            loaded = json.loads(verdict.text)
        except ValueError:
            loaded = None
        if isinstance(loaded, dict):
            item.verdict, verdict.text = loaded, None  # shown as the verdict's view, not as its JSON
        else:
            verdict.missing = "verdict.json is not a JSON object"
    item.artifacts["verdict"] = verdict
    trajectory = _trajectory_artifact(props, here)
    item.artifacts["trajectory"] = trajectory
    if trajectory.text is not None:
        item.steps = None if trajectory.cut else trajectory_steps(trajectory.text)
        if item.steps is not None:
            trajectory.text = None  # shown as its steps
        elif len(trajectory.text) > TEXT_LIMIT:
            trajectory.text, trajectory.cut = read_text(Path(trajectory.path), TEXT_LIMIT)
    log = item.artifacts["eval_log"]
    if log.text is not None and item.verdict is not None:
        item.log_marks = mark_graded_tests(log.text, graded_tests(item.verdict))
    return item


def _trajectory_artifact(props: dict[str, str], here: Path | None) -> Artifact:
    recorded = props.get("trajectory_path", "")
    candidates: list[Path] = []
    if here is not None:
        if recorded:
            candidates.append(here / "agent" / Path(recorded).name)
        agent_dir = here / "agent"
        if agent_dir.is_dir():
            candidates += sorted(agent_dir.glob("*.traj.json")) + sorted(agent_dir.glob("*traj*.json"))
    if not recorded and not any(p.is_file() for p in candidates):
        steps = props.get("agent_steps", "")
        why = "no trajectory: the agent records none" if steps in ("", "0") else "no trajectory recorded"
        return Artifact("trajectory", "", missing=why)
    return _artifact("trajectory", recorded, candidates, "trajectory", TRAJECTORY_LIMIT)


def graded_tests(verdict: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """Each graded test name -> (its group, whether it passed), from a verdict's ``tests_status``."""
    tests: dict[str, tuple[str, bool]] = {}
    status = verdict.get("tests_status") or {}
    if not isinstance(status, dict):
        return tests
    for group in GRADED_GROUPS:
        entry = status.get(group) or {}
        if not isinstance(entry, dict):
            continue
        for passed, key in ((True, "success"), (False, "failure")):
            for name in entry.get(key) or []:
                if isinstance(name, str) and name:
                    tests.setdefault(name, (group, passed))
    return tests


def mark_graded_tests(log: str, tests: dict[str, tuple[str, bool]]) -> list[list[Any]]:
    """``[line number, group, passed, test]`` for each eval-log line naming a graded test."""
    if not tests:
        return []
    names = sorted(tests, key=len, reverse=True)[:MAX_MARKED_TESTS]
    pattern = re.compile("|".join(re.escape(name) for name in names))
    marks: list[list[Any]] = []
    for number, line in enumerate(log.split("\n")):
        found = pattern.search(line)
        if found:
            group, passed = tests[found.group(0)]
            marks.append([number, group, passed, found.group(0)])
    return marks


# --- trajectories -----------------------------------------------------------------------------


def trajectory_steps(text: str) -> list[dict[str, Any]] | None:
    """A trajectory as steps of ``{title, thought, actions: [{command, output, exit_code}]}``.

    Reads pytest-swe's own format (``steps`` with actions, ``messages``) and message lists
    (mini-swe-agent and OpenAI-style chats); None for anything else (shown as raw JSON).
    """
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("steps"), list):
        return _steps_of_pytest_swe(data)
    messages = data.get("messages")
    if isinstance(messages, list):
        return _steps_of_messages(messages, data.get("info"))
    return None


def _clip(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n[... {len(text) - OUTPUT_LIMIT} more characters]"


def _content(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else message
    if isinstance(content, list):  # content parts
        return "\n".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    return "" if content is None else str(content)


def _steps_of_pytest_swe(data: dict[str, Any]) -> list[dict[str, Any]]:
    messages = [m for m in data.get("messages") or [] if isinstance(m, dict)]
    thoughts = [_content(m) for m in messages if m.get("role") == "assistant"]
    steps: list[dict[str, Any]] = []
    prompt = [m for m in messages if m.get("role") in ("system", "user")][:2]
    if prompt:
        steps.append({"title": "prompt", "thought": "\n\n".join(_content(m) for m in prompt), "actions": []})
    for number, step in enumerate(s for s in data["steps"] if isinstance(s, dict)):
        model = step.get("model") or {}
        actions: list[dict[str, Any]] = []
        for action in step.get("actions") or []:
            if not isinstance(action, dict):
                continue
            if action.get("tool") == "submit":
                actions.append({"command": "(submit)", "output": "", "exit_code": ""})
                continue
            actions.append(
                {
                    "command": str(action.get("command", "")),
                    "output": _clip(str(action.get("output", ""))),
                    "exit_code": "" if action.get("exit_code") is None else str(action.get("exit_code")),
                    "timed_out": bool(action.get("timed_out")),
                }
            )
        cost = model.get("cost")
        title = f"step {step.get('step', number + 1)}"
        if isinstance(cost, (int, float)):
            title += f" · ${cost:.4f}"
        steps.append(
            {
                "title": title,
                "thought": thoughts[number] if number < len(thoughts) else "",
                "actions": actions,
            }
        )
    info = data.get("info") or {}
    if isinstance(info, dict) and info.get("exit_status"):
        steps.append(
            {"title": f"exit: {info['exit_status']}", "thought": str(info.get("message", "")), "actions": []}
        )
    return steps


def _commands(message: dict[str, Any]) -> list[str]:
    """The commands an assistant message asked for: mini-swe-agent's ``extra.actions``, or the
    ``command`` argument of its tool calls."""
    extra = message.get("extra")
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if isinstance(actions, list):
        return [str(a.get("command", "")) for a in actions if isinstance(a, dict)]
    commands = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        try:
            args = json.loads(function.get("arguments") or "{}")
        except (TypeError, ValueError):
            args = {}
        command = args.get("command") if isinstance(args, dict) else None
        commands.append(str(command) if command is not None else f"({function.get('name', 'tool')})")
    return commands


def _steps_of_messages(messages: list[Any], info: Any = None) -> list[dict[str, Any]]:
    """A chat as steps: each assistant message is one step with its commands; the user or tool
    messages after it are their outputs, in order."""
    steps: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    waiting: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", ""))
        if role == "assistant":
            number = sum(1 for s in steps if s["title"].startswith("step")) + 1
            actions = [{"command": c, "output": "", "exit_code": ""} for c in _commands(message)]
            pending = {"title": f"step {number}", "thought": _content(message), "actions": actions}
            waiting = list(actions)
            steps.append(pending)
        elif role in ("user", "tool") and pending is not None:
            extra = message.get("extra")
            if not isinstance(extra, dict):
                extra = {}
            code = extra.get("returncode", "")
            raw = extra.get("raw_output")  # mini-swe-agent keeps the bare output beside the templated one
            action = waiting.pop(0) if waiting else None
            if action is None:
                action = {"command": "", "output": "", "exit_code": ""}
                pending["actions"].append(action)
            output = raw if isinstance(raw, str) else _content(message)
            action.update(output=_clip(output), exit_code="" if code is None else str(code))
        else:
            steps.append({"title": role or "message", "thought": _content(message), "actions": []})
    if isinstance(info, dict) and info.get("exit_status"):
        steps.append(
            {
                "title": f"exit: {info['exit_status']}",
                "thought": str(info.get("submission", "")),
                "actions": [],
            }
        )
    return steps


# --- runs -------------------------------------------------------------------------------------


def load_run(index: int, path: Path, label: str | None = None) -> Run:
    """A ledger (JUnit, ledger.jsonl or run directory) with every item's artifacts."""
    data = report.read_ledger(path)
    cases, _ = report.unique_cases(data.cases)
    run_dir = _run_dir_of(Path(path))
    items = [load_item(index, case, run_dir) for case in cases]
    name = label or data.properties.get("run_id") or str(path)
    return Run(index, name, str(path), data.properties, items, run_dir)
