# Where the machine code that compares a type's instances comes from. A type written in C has no
# Python code for the equality watch to read, and one whose instances cannot be made without its
# own constructor cannot be asked either; but its comparison (``tp_richcompare``) is a function in
# some mapped file. Code under test that writes a native library out while the tests run (its bytes
# carried as text in a Python module) and loads it, or loads one from memory, gives a type whose
# comparison lives in a file made after the tests began, or in no file at all. Libraries an install
# built before the tests (a package's C extensions, rebuilt by the eval script) are older.
#
# Linux only (``/proc/self/mem`` and ``/proc/self/maps``), Python 3.5 and newer, standard library only.
# Shipped as text: in the watch, the line importing native_comparisons is replaced by this file's text.
import bisect
import os
import struct
import sys

_MACHINE_WORD = struct.calcsize("P")
_MACHINE_CALL_AT = 16
_MACHINE_FLAGS_AT = 21
_MACHINE_RICHCOMPARE_AT = 25
"""``tp_call``'s, ``tp_flags``' and ``tp_richcompare``'s places in ``PyTypeObject``, in words from
its start (3.0 to 3.13)."""
_machine_layout = {}
_machine_maps = {"pid": None, "rows": [], "starts": []}


def _machine_word(fd, address):
    data = os.pread(fd, _MACHINE_WORD, address)
    return int.from_bytes(data, sys.byteorder) if len(data) == _MACHINE_WORD else None


def _machine_head(fd):
    """How many words more than the usual three come before ``tp_name`` in this build's type
    objects (0, or 2 with ``Py_TRACE_REFS``): the count at which ``tp_flags`` reads as
    ``type.__flags__`` for three types whose flags differ. None when neither does (a layout this
    reader does not know)."""
    if "head" in _machine_layout:
        return _machine_layout["head"]
    head = None

    class _MachineProbe(object):
        pass

    for extra in (0, 2):
        try:
            if all(
                _machine_word(fd, id(t) + (extra + _MACHINE_FLAGS_AT) * _MACHINE_WORD) == t.__flags__
                for t in (int, _MachineProbe, dict)
            ):
                head = extra
                break
        except OSError:
            break
    _machine_layout["head"] = head
    return head


def _machine_rows():
    """Reads the process's mappings, sorted by address."""
    rows = []
    with open("/proc/self/maps", "rb") as stream:
        for line in stream:
            parts = line.split(None, 5)
            if len(parts) < 5:
                continue
            low, high = parts[0].split(b"-")
            path = parts[5].strip().decode("utf-8", "surrogateescape") if len(parts) > 5 else ""
            rows.append((int(low, 16), int(high, 16), path))
    rows.sort()
    _machine_maps["pid"] = os.getpid()
    _machine_maps["rows"] = rows
    _machine_maps["starts"] = [row[0] for row in rows]


def _machine_mapping(address):
    """The path of the mapping holding ``address`` ("" for memory no file holds), or None; the
    mappings read again when the process changed (a fork) or the address lies outside them."""
    for attempt in (0, 1):
        if attempt or _machine_maps["pid"] != os.getpid():
            _machine_rows()
        at = bisect.bisect_right(_machine_maps["starts"], address) - 1
        if at >= 0:
            low, high, path = _machine_maps["rows"][at]
            if low <= address < high:
                return path
    return None


def _machine_origin(path, since, seen):
    """Why machine code mapped from ``path`` was made while the tests ran, or None."""
    if path in seen:
        return seen[path]
    why = None
    if path is None or not path or path.startswith("["):
        why = "in memory no file holds"
    elif path.endswith(" (deleted)") or path.startswith("/memfd:"):
        why = "from a file deleted since it was loaded"
    else:
        try:
            if os.stat(path).st_ctime >= since:
                why = "from a native library written while the tests ran"
        except OSError:
            why = "from a file that is gone"
    seen[path] = why
    return why


def native_comparisons(classes, since, fresh=False):
    """``(class, slot, library, why)`` for each of ``classes`` whose comparison (``"compare"``) or
    call (``"call"``: an object that stands in for a function, an ``__eq__`` among them) is machine
    code made while the tests ran (``since``: when they began, as a file's change time), written
    out to a library and loaded or put in memory. Nothing where this process's memory cannot be read.
    With ``fresh``, the mappings are read anew first; else a finding is confirmed on a new reading
    (a library is often mapped where freed memory no file held lay at the last one)."""
    found = []
    if getattr(sys, "implementation", None) is None or sys.implementation.name != "cpython":
        return found  # ``id`` is an address in CPython only
    try:
        fd = os.open("/proc/self/mem", os.O_RDONLY)
    except OSError:
        return found
    try:
        head = _machine_head(fd)
        if head is None:
            return found
        # The words from ``tp_call`` to ``tp_richcompare``, in one read per class.
        first = (head + _MACHINE_CALL_AT) * _MACHINE_WORD
        span = struct.Struct(
            "=%d%s" % (_MACHINE_RICHCOMPARE_AT - _MACHINE_CALL_AT + 1, "Q" if _MACHINE_WORD == 8 else "I")
        )
        last = _MACHINE_RICHCOMPARE_AT - _MACHINE_CALL_AT
        current = fresh  # whether the mappings were read in this call
        if current:
            _machine_rows()
        seen = {}
        judged = {0: (None, None)}
        pread = os.pread
        for cls in classes:
            try:
                words = span.unpack(pread(fd, span.size, id(cls) + first))
            except (OSError, OverflowError, struct.error):
                continue
            for slot, address in (("call", words[0]), ("compare", words[last])):
                verdict = judged.get(address)
                if verdict is None:
                    path = _machine_mapping(address)
                    why = _machine_origin(path, since, seen)
                    if why is not None and not current:  # judged on the mappings as they are now
                        _machine_rows()
                        current = True
                        seen.clear()
                        path = _machine_mapping(address)
                        why = _machine_origin(path, since, seen)
                    verdict = judged[address] = (path, why)
                if verdict[1] is not None:
                    found.append((cls, slot, verdict[0] or "", verdict[1]))
    finally:
        os.close(fd)
    return found
