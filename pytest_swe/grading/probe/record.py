# The one way the shipped probe scripts write down an event: a JSON line appended to the probe's
# output file with the writing process's pid. It never raises into the code under test: a record
# that cannot be written is missing, and a missing record is itself evidence the reader checks.
#
# Python 3.5 and newer, standard library only. Shipped as text: in the channel and watch
# scripts, the line importing write_record is replaced by this file's text.
import json
import os


def write_record(out, record):
    """Append ``record``; the line as written (bytes), or None when it could not be."""
    record["pid"] = os.getpid()
    line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
    try:
        fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if os.write(fd, line) != len(line):
                return None
        finally:
            os.close(fd)
    except Exception:
        return None
    return line
