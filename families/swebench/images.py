"""Image names for SWE-bench-style rows that name no image (classic SWE-bench, Multilingual, SWE-Gym).

Official instance images are ``sweb.eval.<arch>.<instance_id lower-cased>:<tag>``. Pushed to a
registry under a namespace, every ``__`` in the name becomes ``_1776_`` (Docker Hub rejects
double underscores): ``swebench/sweb.eval.x86_64.sympy_1776_sympy-20590:latest``. SWE-Gym's
images live under ``xingyaoww`` and spell ``__`` as ``_s_``, the whole name lower-cased.

To run against images built locally (for example by the official harness with ``--namespace ''``,
which produces ``sweb.eval.x86_64.<id>:latest``), either pass ``namespace=None`` (or ``""``),
give a template to :func:`image_from_template`, or give an explicit per-instance mapping to
:func:`resolve_image_name`, which takes precedence over everything else::

    resolve_image_name("django__django-11099", template="registry.local:5000/{local}")
    # -> "registry.local:5000/sweb.eval.x86_64.django__django-11099:latest"
    resolve_image_name("django__django-11099", template="mirror.local/swe/{id}:v1")
    # -> "mirror.local/swe/django__django-11099:v1"
    resolve_image_name("django__django-11099", overrides={"django__django-11099": "mine:1"})
    # -> "mine:1"
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping

__all__ = [
    "DOCKER_HUB_SEPARATOR",
    "SWE_GYM_NAMESPACE",
    "SWE_GYM_SEPARATOR",
    "image_from_template",
    "official_image_name",
    "resolve_image_name",
    "swe_gym_image_name",
]

#: What the official harness writes for ``__`` in a namespaced image name.
DOCKER_HUB_SEPARATOR = "_1776_"
SWE_GYM_NAMESPACE = "xingyaoww"
SWE_GYM_SEPARATOR = "_s_"


def _local_key(instance_id: str, arch: str, tag: str) -> str:
    return f"sweb.eval.{arch}.{instance_id.lower()}:{tag}"


def official_image_name(
    instance_id: str,
    *,
    namespace: str | None = "swebench",
    arch: str = "x86_64",
    tag: str = "latest",
    separator: str = DOCKER_HUB_SEPARATOR,
) -> str:
    """The official harness's image name for an instance.

    With a namespace, ``namespace/sweb.eval.<arch>.<id lower>:<tag>`` with every ``__`` (in the
    whole name, as upstream does) replaced by ``separator``; with ``None`` or ``""``, the local
    name ``sweb.eval.<arch>.<id lower>:<tag>``, which keeps the double underscore.
    """
    key = _local_key(instance_id, arch, tag)
    if not namespace:
        return key
    return f"{namespace}/{key}".replace("__", separator)


def swe_gym_image_name(
    instance_id: str,
    *,
    namespace: str = SWE_GYM_NAMESPACE,
    arch: str = "x86_64",
    tag: str = "latest",
    separator: str = SWE_GYM_SEPARATOR,
) -> str:
    """SWE-Gym's image: ``xingyaoww/sweb.eval.x86_64.<id with __ -> _s_>:latest``, all lower case.

    Lower case because Docker repository names must be: ``Project-MONAI__MONAI-3715`` lives at
    ``xingyaoww/sweb.eval.x86_64.project-monai_s_monai-3715:latest``.
    """
    name = f"sweb.eval.{arch}.{instance_id.replace('__', separator)}"
    if namespace:
        name = f"{namespace.rstrip('/')}/{name}"
    return f"{name}:{tag}".lower()


def image_from_template(
    template: str,
    instance_id: str,
    *,
    namespace: str = "swebench",
    arch: str = "x86_64",
    tag: str = "latest",
    separator: str = DOCKER_HUB_SEPARATOR,
) -> str:
    """Fill an image-name template for one instance.

    Placeholders: ``{instance_id}`` the id as the row spells it; ``{id}`` the id lower-cased;
    ``{docker_id}`` the lower-cased id with ``__`` spelt ``separator``; ``{local}`` the local
    official name (``sweb.eval.<arch>.<id lower>:<tag>``); ``{official}`` the namespaced
    official name; ``{namespace}``, ``{arch}``, ``{tag}``; and ``{repo}`` / ``{owner}`` / ``{name}``
    derived from ``owner__name-number`` ids. ``"{namespace}/sweb.eval.{arch}.{docker_id}:{tag}"``
    reproduces :func:`official_image_name`.
    """
    owner, _, rest = instance_id.partition("__")
    name = rest.rsplit("-", 1)[0] if rest else ""
    fields = {
        "instance_id": instance_id,
        "id": instance_id.lower(),
        "docker_id": instance_id.lower().replace("__", separator),
        "local": _local_key(instance_id, arch, tag),
        "official": official_image_name(
            instance_id, namespace=namespace, arch=arch, tag=tag, separator=separator
        ),
        "namespace": namespace,
        "arch": arch,
        "tag": tag,
        "owner": owner,
        "name": name,
        "repo": f"{owner}/{name}" if name else owner,
    }
    try:
        return template.format(**fields)
    except KeyError as error:
        raise ValueError(
            f"unknown placeholder {error} in image template {template!r}; known: {', '.join(sorted(fields))}"
        ) from None


def resolve_image_name(
    instance_id: str,
    *,
    overrides: Mapping[str, str] | None = None,
    template: str | None = None,
    default: Callable[[str], str] = official_image_name,
    **template_fields: str,
) -> str:
    """The image to use for an instance: an explicit override, else the template, else ``default``."""
    if overrides and instance_id in overrides:
        return overrides[instance_id]
    if template is not None:
        return image_from_template(template, instance_id, **template_fields)
    return default(instance_id)
