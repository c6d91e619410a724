# Which builtins were rebound since the result channel loaded. A test's ``assert`` raises whatever
# ``AssertionError`` names in builtins when it fails, and its ``all``, ``isinstance``, ``sorted``,
# ``abs`` are looked up as it runs: code under test that rebinds one (``AssertionError`` to a class
# whose construction is pytest's ``XFailed``, ``all`` to ``bool``) turns a failing check into an
# xfail or a pass. The channels load before any test module or the code under test, so what they
# found is the real thing.
#
# Python 3.5 and newer, standard library only. Shipped as text: in the channel scripts, the line
# importing rebound_builtins is replaced by this file's text.
import builtins

_UNWATCHED = frozenset(
    (
        "input",
        "open",
        "print",
        "__import__",
        "exit",
        "quit",
        "help",
        "breakpoint",
        "copyright",
        "credits",
        "license",
        "_",
    )
)
"""Builtins tests replace themselves (``monkeypatch.setattr(builtins, "input", ...)``, a fake
``open`` or ``__import__``) or the interactive shell rebinds: not watched."""
_FOUND = dict((name, value) for name, value in vars(builtins).items() if name not in _UNWATCHED)


def rebound_builtins():
    """The names of the builtins (as found at load) that name something else now, sorted."""
    space = vars(builtins)
    return sorted(name for name, value in _FOUND.items() if space.get(name) is not value)
