# A call from a result channel into the equality watch, loaded under a name chosen per evaluation:
# the channel knows when a test ends and when the run ends, the watch knows what to look at then.
#
# Python 3.5 and newer, standard library only. Shipped as text: in the channel scripts, the line
# importing ask_watch is replaced by this file's text.
import sys


def ask_watch(watch, name, *args):
    """Call the watch module's ``name`` with ``args`` when the watch is loaded; never raises (a
    channel's hook that raises stops the runner's hooks after it)."""
    function = getattr(sys.modules.get(watch), name, None) if watch else None
    if callable(function):
        try:
            function(*args)
        except Exception:
            pass
