"""Runs inside a virtual environment that holds the official ``swebench`` package.

The differential tests start it with that environment's interpreter and talk JSON lines over
stdin/stdout, so the official package (and its heavy imports) never enters pytest-swe's own
process. One request per line, one answer per line:

    {"op": "names"}                                   -> {"ok": ["parse_log_pytest", ...]}
    {"op": "repo_map"}                                -> {"ok": {"django/django": ["parse_log_django"], ...}}
    {"op": "parse", "parser": NAME, "log": TEXT,
     "spec": {"instance_id": ..., "version": ...}}    -> {"ok": {test: status}} | {"raised": "TypeName: msg"}

``names`` is 5.x's registry, or on 4.1.0 (no registry) every ``parse_log_*`` function; a
repo maps to the registered names of the function its table points to (on 4.1.0, that
function's own name).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import types


def _load() -> tuple[dict, dict]:
    """(parser name -> function, repo -> names of the parser its table points to)."""
    import importlib

    from swebench.harness import log_parsers

    modules = [
        importlib.import_module(f"swebench.harness.log_parsers.{name}")
        for name in ("python", "javascript", "c", "go", "java", "php", "ruby", "rust")
    ]
    registry = getattr(log_parsers, "PARSER_REGISTRY", None)
    if registry is None:  # 4.1.0: no registry; functions by name, repos through MAP_REPO_TO_PARSER
        functions = {
            name: value
            for module in modules
            for name, value in vars(module).items()
            if name.startswith("parse_log_")
        }
        repos = {repo: [function.__name__] for repo, function in log_parsers.MAP_REPO_TO_PARSER.items()}
        return functions, repos
    # 5.x: the registry, and the per-language repo tables the package still carries
    repos = {}
    for module in modules:
        for table_name, table in vars(module).items():
            if table_name.startswith("MAP_REPO_TO_PARSER"):
                for repo, function in table.items():
                    repos[repo] = sorted(name for name, known in registry.items() if known is function)
    return dict(registry), repos


def main() -> None:
    names, repos = _load()
    table_names = sorted(names)
    for request_line in sys.stdin:
        request = json.loads(request_line)
        answer: dict
        if request["op"] == "names":
            answer = {"ok": table_names}
        elif request["op"] == "repo_map":
            answer = {"ok": repos}
        else:
            fields = {"instance_id": "", "repo": "", "version": "", "FAIL_TO_PASS": [], "PASS_TO_PASS": []}
            fields.update(request.get("spec", {}), log_parser=request["parser"])
            spec = types.SimpleNamespace(**fields)
            try:
                parser = names[request["parser"]]
                with contextlib.redirect_stdout(io.StringIO()):  # some parsers print warnings
                    answer = {"ok": parser(request["log"], spec)}
            except Exception as exc:
                answer = {"raised": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
