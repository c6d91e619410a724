"""Patches as data: the exact bytes a patch string stands for, and its digest."""

from __future__ import annotations

import hashlib


def encode_patch(patch: str) -> bytes:
    """A patch string as bytes: escaped raw bytes come back as they were read; any other lone
    surrogate (a JSON ``\\ud800`` escape) is kept as its UTF-8 form, so no string fails to encode."""
    try:
        return patch.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return patch.encode("utf-8", errors="surrogatepass")


def patch_sha256(patch: str) -> str:
    return hashlib.sha256(encode_patch(patch)).hexdigest()


def patch_bytes(patch: str) -> bytes:
    """The patch as bytes, ending with a newline (``git apply`` rejects a missing final newline)."""
    data = encode_patch(patch)
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data
