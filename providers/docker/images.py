"""Images on a Docker engine: presence, the pull policy, builds from a prepared context, imports."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import InfraError

from .engine import engine_errors
from .engine import sdk


def image_exists(client: Any, tag: str) -> bool:
    try:
        client.images.get(tag)
    except sdk().errors.ImageNotFound:
        return False
    except engine_errors() as exc:
        raise InfraError("provider_unavailable", f"cannot inspect image {tag}: {exc}") from None
    return True


def image_info(client: Any, tag: str) -> dict[str, Any] | None:
    """The engine's inspection of the local image ``tag`` (id, size, ...); None when absent."""
    try:
        return dict(client.api.inspect_image(tag))
    except sdk().errors.ImageNotFound:
        return None
    except engine_errors() as exc:
        raise InfraError("provider_unavailable", f"cannot inspect image {tag}: {exc}") from None


def image_sizes(client: Any) -> dict[str, int]:
    """Every local tag (``repository:tag``) and its image's size, in one listing."""
    try:
        listing = client.api.images()
    except engine_errors() as exc:
        raise InfraError("provider_unavailable", f"cannot list images: {exc}") from None
    return {
        tag: int(info.get("Size") or 0)
        for info in listing
        for tag in info.get("RepoTags") or []
        if tag != "<none>:<none>"
    }


def tag_image(client: Any, source: str, tag: str) -> None:
    repository, _, version = tag.rpartition(":") if ":" in tag.split("/")[-1] else (tag, "", "latest")
    try:
        client.api.tag(source, repository, version)
    except engine_errors() as exc:
        raise InfraError("image_missing", f"cannot tag {source} as {tag}: {exc}") from None


def remove_image(client: Any, tag: str) -> bool:
    """Untag ``tag`` (its layers go when no other tag holds them); an image a container uses stays."""
    try:
        client.api.remove_image(tag, force=False, noprune=False)
    except sdk().errors.ImageNotFound:
        return False
    except engine_errors():
        return False  # in use by a container (a conflict), or the engine refused: kept
    return image_info(client, tag) is None


def pull_image(client: Any, tag: str) -> None:
    try:
        client.images.pull(tag)
    except engine_errors() as exc:
        raise InfraError("image_missing", f"image {tag} could not be pulled: {exc}") from None


def ensure_image(client: Any, image: str, pull: str) -> None:
    """Make ``image`` available under the pull policy (``missing``, ``always`` or ``never``)."""
    if image_exists(client, image):
        if pull != "always":
            return
    elif pull == "never":
        raise InfraError("image_missing", f"image {image} is not available locally (pull: never)")
    try:
        client.images.pull(image)
    except engine_errors() as exc:
        raise InfraError(
            "image_missing", f"image {image} is not available locally and could not be pulled: {exc}"
        ) from None


def build_image(client: Any, context: bytes, tag: str, *, network: bool = False) -> None:
    """Build ``tag`` from a tar context holding its Dockerfile; ``network`` gives the build the host's."""
    try:
        client.images.build(
            fileobj=io.BytesIO(context),
            custom_context=True,
            tag=tag,
            rm=True,
            network_mode="host" if network else "none",
        )
    except sdk().errors.BuildError as exc:
        log = "".join(str(entry.get("stream", "")) for entry in exc.build_log)[-2000:]
        raise InfraError("image_build", f"building {tag} failed: {exc}\n{log}") from None
    except engine_errors() as exc:
        raise InfraError("provider_unavailable", f"cannot build {tag}: {exc}") from None


def import_image(client: Any, rootfs: Path, tag: str) -> None:
    """Make ``tag`` from a root filesystem tarball (``docker import``)."""
    repository, _, version = tag.rpartition(":") if ":" in tag.split("/")[-1] else (tag, "", "latest")
    try:
        answer = client.api.import_image_from_file(str(rootfs), repository=repository, tag=version)
        if image_exists(client, tag):
            return
        imported = _imported_id(answer)
        if imported:
            # Podman 4's compatible import names the image ``latest`` whatever tag is asked.
            client.api.tag(imported, repository, version)
    except engine_errors() as exc:
        raise InfraError("provider_unavailable", f"cannot import {tag}: {exc}") from None
    if not image_exists(client, tag):
        raise InfraError(
            "provider_unavailable", f"cannot import {tag}: the engine does not have it afterwards"
        )


def _imported_id(answer: object) -> str | None:
    """The image id an import answered with (its last JSON line's ``id``, else its ``status``)."""
    for line in reversed(str(answer).splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            for key in ("id", "status"):
                value = entry.get(key)
                if isinstance(value, str) and value.startswith("sha256:"):
                    return value
    return None
