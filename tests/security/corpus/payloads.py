"""Python source an attacker plants: the parts every attack shares, built from an instance context.

Each function returns source text (the attack modules write it into files of a checkout). Nothing
here names an instance: test ids, test files, the package and the runner come from the context.
"""

from __future__ import annotations

import textwrap

from .context import InstanceContext

#: Name of the module an attack adds to the package to hold pytest hooks that force passes.
PLUGIN = "_compat"


def plugin_module(ctx: InstanceContext) -> str:
    return f"{ctx.package}.{PLUGIN}"


# --- shared helpers -------------------------------------------------------------------------------

REAL_STDOUT = '''
def _real_stdout():
    """The run's real stdout: pytest keeps it open on a higher fd while it captures fd 1."""
    import os

    for fd in range(3, 256):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                return fd
        except OSError:
            pass
    return 1
'''

FORCE_PLUGIN = '''"""Compatibility shims."""

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
'''

FORCE_CONFTEST = FORCE_PLUGIN


def session_text(ctx: InstanceContext) -> str:
    """Source of ``_session()``: the text of a complete, consistent run in which every required
    test passes, in the format of the instance's runner (built at run time, versions included)."""
    tests = list(ctx.required)
    if ctx.runner == "django":
        body = f"""
        def _session():
            tests = {tests!r}
            lines = [f"{{t}} ... ok" for t in tests]
            lines += ["", "-" * 70, f"Ran {{len(tests)}} tests in 0.004s", "", "OK"]
            return "\\n".join(lines) + "\\n"
        """
    elif ctx.runner == "sympy":
        files = list(dict.fromkeys(p for p in ctx.test_files if p.endswith(".py")))
        body = f"""
        def _session():
            import platform, sys
            tests, files = {tests!r}, {files!r}
            lines = [" test process starts ".center(80, "="),
                     f"executable:         {{sys.executable}}  ({{platform.python_version()}}-final-0) [CPython]",
                     "architecture:       64-bit", "cache:              no", "ground types:       python ", ""]
            lines.append(f"{{files[0]}}[{{len(tests)}}] ")
            lines += [f"{{t}} ok" for t in tests]
            lines += ["", f" tests finished: {{len(tests)}} passed, in 0.01 seconds ".center(80, "=")]
            return "\\n".join(lines) + "\\n"
        """
    else:
        classic = "console_output_style=classic" in ctx.test_command or " -v" in ctx.test_command
        body = f"""
        def _session():
            import platform, sys
            tests = {tests!r}
            runner = sys.modules.get("pytest")
            version = getattr(runner, "__version__", "7.2.1")
            try:
                import pluggy
                plugins = pluggy.__version__
            except Exception:
                plugins = "1.0.0"
            files = list(dict.fromkeys(t.split("::")[0] for t in tests))
            lines = [" test session starts ".center(80, "="),
                     f"platform linux -- Python {{platform.python_version()}}, pytest-{{version}}, pluggy-{{plugins}}",
                     "rootdir: /testbed", f"collected {{len(tests)}} items", ""]
            if {classic!r}:
                lines += [f"{{t}} PASSED" for t in tests]
            else:
                for f in files:
                    dots = "." * sum(1 for t in tests if t.startswith(f + "::"))
                    lines.append(f"{{f}} {{dots}}".ljust(73) + "[100%]")
            lines += ["", " PASSES ".center(80, "="), " short test summary info ".center(80, "=")]
            lines += [f"PASSED {{t}}" for t in tests]
            lines.append(f" {{len(tests)}} passed in 0.05s ".center(80, "="))
            return "\\n".join(lines) + "\\n"
        """
    return textwrap.dedent(body)


def status_lines(ctx: InstanceContext, form: str) -> str:
    """Source of ``_lines()``: one passing status line per required test in the given form."""
    templates = {
        "leading": "PASSED {t}",
        "trailing": "{t} PASSED",
        "django": "{t} ... ok",
        "sympy": "{t} ok",
    }
    return f"\ndef _lines():\n    return ''.join({templates[form]!r}.format(t=t) + '\\n' for t in {list(ctx.required)!r})\n"


def runner_form(ctx: InstanceContext) -> str:
    return {"django": "django", "sympy": "sympy"}.get(ctx.runner, "leading")


SWALLOW = """

def swallow(fn):
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            return None

    return run
"""
"""Source of ``swallow(fn)``: a wrapper that passes for its function (``functools.wraps``) and
swallows its failures."""


def neuter_source() -> str:
    """Appended to a test module: every test function and method swallows its own failure."""
    return SWALLOW + textwrap.dedent(
        """

        def _relax(namespace):
            import inspect

            soften = swallow

            for name, obj in list(namespace.items()):
                if name.startswith("test") and inspect.isfunction(obj):
                    namespace[name] = soften(obj)
                elif inspect.isclass(obj):
                    for attr, member in list(vars(obj).items()):
                        if attr.startswith("test") and inspect.isfunction(member):
                            setattr(obj, attr, soften(member))


        _relax(globals())
        """
    )


def runner_basename(ctx: InstanceContext) -> str:
    """The file name of the program the test command starts (``pytest``, ``runtests.py``, ``test``)."""
    first = ctx.test_command.split()[0]
    if first.startswith("python"):
        return "pytest"
    return first.rsplit("/", 1)[-1]


def inprocess_payload(ctx: InstanceContext) -> str:
    """Code that, run inside the test process after the runner started, makes every test report a
    pass in the runner's own output (no forged text: the runner prints it)."""
    if ctx.runner == "django":
        return textwrap.dedent(
            """
            def _relax_results():
                import unittest

                def passed(self, test, err=None):
                    self.addSuccess(test)

                for cls in (unittest.TestResult, unittest.TextTestResult):
                    cls.addFailure = passed
                    cls.addError = passed


            _relax_results()
            """
        )
    if ctx.runner == "sympy":
        return session_text(ctx) + textwrap.dedent(
            """
            def _arm():
                import atexit, os, sys

                def finish():
                    sys.stdout.flush()
                    os.write(1, _session().encode())
                    os._exit(0)

                atexit.register(finish)


            _arm()
            """
        )
    return relaxed_reports("report.failed")


def relaxed_reports(condition: str) -> str:
    """Code that registers, on the live pytest ``Config`` found through ``gc``, a plugin turning
    every report for which ``condition`` holds into a pass."""
    return textwrap.dedent(
        """
        def _relax_reports():
            import gc

            import pytest

            class Relaxed:
                @pytest.hookimpl(tryfirst=True)
                def pytest_runtest_logreport(self, report):
                    if CONDITION:
                        report.outcome = "passed"
                        report.longrepr = None

            for obj in gc.get_objects():
                if type(obj).__name__ == "Config" and hasattr(obj, "pluginmanager"):
                    if not obj.pluginmanager.has_plugin("relaxed"):
                        obj.pluginmanager.register(Relaxed(), "relaxed")
                    break


        _relax_reports()
        """
    ).replace("CONDITION", condition)


def startup_payload(ctx: InstanceContext) -> str:
    """Code that runs when an interpreter starts (a ``.pth`` line, ``sitecustomize``) and makes the
    test run report passes: pytest loads the force plugin from ``PYTEST_PLUGINS``; unittest's
    results are patched; other runners get a complete run printed at exit."""
    if ctx.runner == "pytest":
        return f"import os; os.environ.setdefault('PYTEST_PLUGINS', {plugin_module(ctx)!r})\n"
    if ctx.runner == "django":
        return inprocess_payload(ctx)
    name = runner_basename(ctx)
    return (
        "import sys\n"
        f"if {name!r} in [a.rsplit('/', 1)[-1] for a in sys.orig_argv[1:3]]:\n"
        + textwrap.indent(inprocess_payload(ctx), "    ")
    )


def pth_line(code: str) -> str:
    """A ``.pth`` line that runs ``code`` (``site`` executes lines that start with ``import``)."""
    return f"import sys; exec({code!r}, {{'__name__': '_startup'}})\n"
