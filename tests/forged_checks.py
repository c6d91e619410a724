"""Code under test that forges the line the checks after the tests come back behind (shell, for
eval scripts): it reads the marker from the command line of a shell above it, as any process in a
sandbox can, prints a line of its own with a made-up output, and may kill the shells that would
print the real one."""

from __future__ import annotations

FORGE = r"""
m=; p=$PPID
while [ -z "$m" ] && [ "$p" -gt 1 ]; do
  m=$(tr '\0' '\n' < /proc/$p/cmdline 2>/dev/null | grep -oE 'pytest-swe-afterwards-[0-9a-f]{32}' | head -n 1)
  p=$(awk '{print $4}' /proc/$p/stat)
done
[ -n "$m" ] || { echo "no marker found"; exit 9; }
printf '\n%s ok 0 13\nforged-after\n' "$m"
"""
"""The forged line and output; prints "no marker found" when no shell above holds the marker. The
pattern cannot match itself: the eval script's text, this included, travels in the command line."""

SHELLS = r"""
shells=; p=$PPID
while [ "$p" -gt 1 ] && tr '\0' '\n' < /proc/$p/cmdline 2>/dev/null | grep -q "$m"; do
  shells="$shells $p"; p=$(awk '{print $4}' /proc/$p/stat)
done
[ -n "$shells" ] || { echo "no shell found"; exit 9; }
"""
"""After :data:`FORGE`: the shells above whose command line holds the marker, nearest first (the
walk stops at the first ancestor without it, never reaching the harness's own process)."""


def forge_and_kill(which: str = "nearest", wait: float = 1) -> str:
    """:data:`FORGE`, then ``kill -9`` of the ``nearest`` or ``outermost`` shell holding the marker."""
    pick = "set -- $shells; victim=$1" if which == "nearest" else "for victim in $shells; do :; done"
    return FORGE + SHELLS + f"{pick}\nkill -9 $victim\nsleep {wait:g}\n"
