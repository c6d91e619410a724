"""Images as read-only root filesystems, unpacked once and cached by image digest.

A tag resolves through ``tags/<tag>.json`` to ``images/<digest>/`` (``rootfs/`` plus
``image.json``: the image's environment, working directory and user). Sources, by what a tag
names and what the machine has:

- a local Docker engine that has the tag: ``docker save`` (the engine's id is the digest) and
  each layer applied in order, whiteouts included, with GNU tar;
- a skopeo reference (``oci-archive:PATH[:REF]``, ``oci:DIR[:REF]``, ``docker-archive:PATH``,
  ``docker://REF``): ``skopeo copy`` into an OCI layout and ``umoci unpack`` (the config digest
  is the digest);
- a root filesystem tarball (``import_image``; its sha256 is the digest);
- a build context (``build_image``): by the Docker engine when one answers, else by a small
  Dockerfile interpreter (FROM, COPY, WORKDIR, ENV, USER, RUN in a sandbox without network)
  over a copy of the base's root filesystem.

Once a tag's root filesystem exists, nothing here asks the Docker engine anything unless told to
(``pull: always``), so a run needs no daemon.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import InfraError

SKOPEO_TRANSPORTS = ("oci-archive:", "oci:", "docker-archive:", "docker://", "dir:")
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Image:
    """A cached root filesystem and what its image config says about processes."""

    digest: str
    rootfs: Path
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/"
    user: str = ""


def tag_key(tag: str) -> str:
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", tag)[:80]
    return f"{readable}-{hashlib.sha256(tag.encode()).hexdigest()[:12]}"


def _env_dict(pairs: list[str] | None) -> dict[str, str]:
    env = {}
    for pair in pairs or []:
        key, _, value = pair.partition("=")
        env[key] = value
    env.setdefault("PATH", DEFAULT_PATH)
    return env


def _run(argv: list[str], what: str, kind: str = "image_missing", **kwargs: Any) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    if proc.returncode != 0:
        output = (proc.stderr or proc.stdout).strip()[-1500:]
        raise InfraError(kind, f"{what}: {argv[0]} exited {proc.returncode}: {output}")


def apply_layer(layer: Path, rootfs: Path) -> None:
    """Apply one image layer (a tar) over ``rootfs``: its whiteouts delete what lower layers made."""
    with tarfile.open(layer) as tar:
        names = tar.getnames()
    for name in names:
        path = Path(name.lstrip("./"))
        base = path.name
        if not base.startswith(".wh."):
            continue
        target = rootfs / path.parent
        if base == ".wh..wh..opq":  # opaque directory: nothing of the lower layers shows through
            if target.is_dir() and not target.is_symlink():
                _clear(target)
        else:
            _remove(target / base[len(".wh.") :])
    owner = ["--numeric-owner", "--same-owner"] if os.geteuid() == 0 else ["--no-same-owner"]
    argv = ["tar", "-x", "-p", *owner, "--exclude=.wh.*", "-C", str(rootfs), "-f", str(layer)]
    _run(argv, f"cannot apply layer {layer.name}", "image_missing")


def chain_id(layers: list[str]) -> str:
    """OCI's ChainID of a stack of layers (their diff ids, lowest first): the id of the file system
    they make together, whatever image they belong to."""
    chain = layers[0]
    for diff_id in layers[1:]:
        chain = "sha256:" + hashlib.sha256(f"{chain} {diff_id}".encode()).hexdigest()
    return chain


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _clear(directory: Path) -> None:
    """Empty ``directory``, keeping it."""
    for child in directory.iterdir():
        _remove(child)


class ImageCache:
    """The root filesystems under ``root`` (``images/``, ``tags/``, ``chains/``).

    ``chains/<chain id>`` keeps, as hard links, the file system of every stack of layers unpacked
    from Docker, so an image whose lower layers were unpacked before (a benchmark's images all
    built on one base, say) links those files instead of writing them again: the base is on disk
    once, not once per image. Hard links are safe here because nothing writes into a cached file:
    sandboxes get an overlay or a copy, and GNU tar replaces a file it extracts over (it unlinks
    it first) rather than writing into it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.images = root / "images"
        self.tags = root / "tags"
        self.chains = root / "chains"

    # -- lookups ---------------------------------------------------------------------------------

    def lookup(self, tag: str) -> Image | None:
        """The cached image of ``tag``, or None."""
        try:
            digest = json.loads((self.tags / f"{tag_key(tag)}.json").read_text())["digest"]
        except (OSError, ValueError, KeyError):
            return None
        return self.by_digest(digest)

    def by_digest(self, digest: str) -> Image | None:
        base = self.images / digest.replace("sha256:", "")
        try:
            meta = json.loads((base / "image.json").read_text())
        except (OSError, ValueError):
            return None
        if not (base / "rootfs").is_dir():
            return None
        return Image(
            digest=meta["digest"],
            rootfs=base / "rootfs",
            env=dict(meta.get("env") or {}),
            workdir=meta.get("workdir") or "/",
            user=meta.get("user") or "",
        )

    def tag(self, tag: str, image: Image, source: str) -> None:
        self.tags.mkdir(parents=True, exist_ok=True)
        path = self.tags / f"{tag_key(tag)}.json"
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"tag": tag, "digest": image.digest, "source": source}))
        tmp.replace(path)

    @contextlib.contextmanager
    def _locked(self, key: str) -> Iterator[None]:
        """One unpacker per digest across processes (xdist workers may want the same image)."""
        self.images.mkdir(parents=True, exist_ok=True)
        with open(self.images / f".{key}.lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _seed(self, rootfs: Path, diff_ids: list[str]) -> int:
        """Fill the empty ``rootfs`` with hard links to the longest stack of ``diff_ids`` kept in
        ``chains/``; the number of layers that covers (0: none kept, or the links failed)."""
        for count in range(len(diff_ids), 0, -1):
            kept = self.chains / chain_id(diff_ids[:count]).replace("sha256:", "") / "rootfs"
            if not kept.is_dir():
                continue
            linked = subprocess.run(["cp", "-al", f"{kept}/.", str(rootfs)], capture_output=True, check=False)
            if linked.returncode == 0:
                return count
            _clear(rootfs)  # e.g. a file's hard-link limit reached: unpack in full instead
            return 0
        return 0

    def _keep_chain(self, diff_ids: list[str], rootfs: Path) -> None:
        """Keep the file system of these layers (``rootfs`` as it is now) as hard links in ``chains/``."""
        final = self.chains / chain_id(diff_ids).replace("sha256:", "")
        if final.exists():
            return
        self.chains.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".chain-", dir=self.chains))
        try:
            linked = subprocess.run(
                ["cp", "-al", str(rootfs), str(staging / "rootfs")], capture_output=True, check=False
            )
            if linked.returncode == 0:
                staging.rename(final)
        except OSError:
            pass  # another process kept the same chain first
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _store(self, digest: str, fill: Any, meta: dict[str, Any]) -> Image:
        """Make ``images/<digest>`` by ``fill(rootfs_dir)`` unless it exists; atomic by rename."""
        key = digest.replace("sha256:", "")
        with self._locked(key):
            found = self.by_digest(digest)
            if found is not None:
                return found
            staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=self.images))
            try:
                (staging / "rootfs").mkdir()
                extra = fill(staging / "rootfs") or {}
                image = Image(digest=digest, rootfs=self.images / key / "rootfs", **{**meta, **extra})
                record = {k: v for k, v in asdict(image).items() if k != "rootfs"}
                (staging / "image.json").write_text(json.dumps(record, indent=1))
                final = self.images / key
                if final.exists():
                    shutil.rmtree(final)
                staging.rename(final)
            finally:
                if staging.exists():
                    shutil.rmtree(staging, ignore_errors=True)
        return image

    # -- sources ---------------------------------------------------------------------------------

    def from_docker(self, client: Any, tag: str) -> Image:
        """Unpack ``tag`` from a Docker engine (``docker save``), unless its digest is cached."""
        try:
            info = client.api.inspect_image(tag)
        except Exception as exc:  # the SDK's NotFound, a refused socket, ...: the image is not there
            raise InfraError("image_missing", f"image {tag} is not in the Docker engine: {exc}") from None
        digest = str(info["Id"])
        config = info.get("Config") or {}
        meta = {
            "env": _env_dict(config.get("Env")),
            "workdir": config.get("WorkingDir") or "/",
            "user": config.get("User") or "",
        }
        diff_ids = [str(layer) for layer in (info.get("RootFS") or {}).get("Layers") or []]

        def fill(rootfs: Path) -> None:
            seeded = self._seed(rootfs, diff_ids)
            if diff_ids and seeded == len(diff_ids):
                return  # every layer is on disk already: the image differs only in its config
            with tempfile.TemporaryDirectory(prefix="save-", dir=self.images) as tmp:
                unpack = subprocess.Popen(["tar", "-x", "-C", tmp], stdin=subprocess.PIPE)
                assert unpack.stdin is not None
                try:
                    for chunk in client.api.get_image(tag):
                        unpack.stdin.write(chunk)
                finally:
                    unpack.stdin.close()
                if unpack.wait() != 0:
                    raise InfraError("image_missing", f"docker save {tag} could not be unpacked")
                layers = json.loads((Path(tmp) / "manifest.json").read_text())[0]["Layers"]
                shared = len(layers) == len(diff_ids)
                if not shared:  # the save does not match the inspection: nothing is shared
                    seeded = 0
                    _clear(rootfs)
                for number, layer in enumerate(layers[seeded:], seeded + 1):
                    apply_layer(Path(tmp) / layer, rootfs)
                    if shared:
                        self._keep_chain(diff_ids[:number], rootfs)

        image = self._store(digest, fill, meta)
        self.tag(tag, image, "docker")
        return image

    def from_skopeo(self, reference: str, tag: str | None = None) -> Image:
        """Copy a skopeo reference into an OCI layout and unpack it with umoci."""
        for tool in ("skopeo", "umoci"):
            if shutil.which(tool) is None:
                raise InfraError("image_missing", f"{reference}: {tool} is missing (apt-get install {tool})")
        self.images.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="oci-", dir=self.images) as tmp:
            layout = Path(tmp) / "layout"
            _run(["skopeo", "copy", "-q", "--dest-decompress", reference, f"oci:{layout}:image"],
                 f"cannot copy {reference}")  # fmt: skip
            index = json.loads((layout / "index.json").read_text())
            manifest_digest = index["manifests"][0]["digest"].split(":", 1)[1]
            manifest = json.loads((layout / "blobs" / "sha256" / manifest_digest).read_text())
            digest = str(manifest["config"]["digest"])

            def fill(rootfs: Path) -> dict[str, Any]:
                bundle = Path(tmp) / "bundle"
                rootless = ["--rootless"] if os.geteuid() != 0 else []
                _run(["umoci", "unpack", *rootless, "--image", f"{layout}:image", str(bundle)],
                     f"cannot unpack {reference}")  # fmt: skip
                process = json.loads((bundle / "config.json").read_text()).get("process") or {}
                rootfs.rmdir()
                (bundle / "rootfs").rename(rootfs)
                return {"env": _env_dict(process.get("env")), "workdir": process.get("cwd") or "/"}

            image = self._store(digest, fill, {})
        self.tag(tag or reference, image, "skopeo")
        return image

    def from_tarball(self, tarball: Path, tag: str) -> Image:
        """A root filesystem tarball as an image (``docker import``'s equivalent)."""
        digest = hashlib.sha256()
        with open(tarball, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)

        def fill(rootfs: Path) -> None:
            apply_layer(tarball, rootfs)

        image = self._store(f"sha256:{digest.hexdigest()}", fill, {"env": _env_dict(None)})
        self.tag(tag, image, "import")
        return image

    def build(self, context: bytes, tag: str, base: Image, run: Any) -> Image:
        """Build ``tag`` from a tar context whose Dockerfile starts ``FROM`` ``base``.

        ``run(rootfs, command, env, workdir)`` runs a RUN line in a sandbox over the new root.
        """
        digest = "sha256:" + hashlib.sha256(base.digest.encode() + b"\0" + context).hexdigest()
        with tarfile.open(fileobj=io.BytesIO(context)) as tar:
            member = tar.extractfile("Dockerfile")
            if member is None:
                raise InfraError("image_build", f"building {tag}: the context has no Dockerfile")
            instructions = parse_dockerfile(member.read().decode())

        def fill(rootfs: Path) -> dict[str, Any]:
            state = {"env": dict(base.env), "workdir": base.workdir, "user": base.user}
            _run(
                ["cp", "-a", "--reflink=auto", f"{base.rootfs}/.", str(rootfs)],
                f"building {tag}",
                "image_build",
            )
            with tempfile.TemporaryDirectory(prefix="ctx-", dir=self.images) as ctx:
                with tarfile.open(fileobj=io.BytesIO(context)) as tar:
                    tar.extractall(ctx, filter="tar")
                for verb, args in instructions[1:]:
                    _apply(verb, args, Path(ctx), rootfs, state, run, tag)
            return state

        image = self._store(digest, fill, {})
        self.tag(tag, image, "build")
        return image


def parse_dockerfile(text: str) -> list[tuple[str, str]]:
    """(instruction, arguments) pairs; continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\s*\n", " ", text)
    steps = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        verb, _, args = line.partition(" ")
        steps.append((verb.upper(), args.strip()))
    if not steps or steps[0][0] != "FROM":
        raise InfraError("image_build", "a Dockerfile must start with FROM")
    return steps


def _inside(rootfs: Path, path: str, workdir: str) -> Path:
    absolute = os.path.normpath(os.path.join(workdir, path))
    return rootfs / absolute.lstrip("/")


def _apply(verb: str, args: str, ctx: Path, rootfs: Path, state: dict[str, Any], run: Any, tag: str) -> None:
    if verb in ("COPY", "ADD"):
        parts = [p for p in shlex.split(args) if not p.startswith("--")]
        *sources, dest = parts
        target = _inside(rootfs, dest, state["workdir"])
        for source in sources:
            src = ctx / source
            if src.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                _run(["cp", "-a", f"{src}/.", str(target)], f"building {tag}: COPY {source}", "image_build")
            else:
                into = target / src.name if dest.endswith("/") or target.is_dir() else target
                into.parent.mkdir(parents=True, exist_ok=True)
                _run(["cp", "-a", str(src), str(into)], f"building {tag}: COPY {source}", "image_build")
        _run(["chown", "-R", "0:0", str(target)], f"building {tag}: COPY", "image_build")
    elif verb == "WORKDIR":
        state["workdir"] = os.path.normpath(os.path.join(state["workdir"], args))
        _inside(rootfs, state["workdir"], "/").mkdir(parents=True, exist_ok=True)
    elif verb == "ENV":
        if "=" in args.split(" ", 1)[0]:
            for pair in shlex.split(args):
                key, _, value = pair.partition("=")
                state["env"][key] = value
        else:
            key, _, value = args.partition(" ")
            state["env"][key] = value.strip()
    elif verb == "USER":
        state["user"] = args
    elif verb == "RUN":
        command = " ".join(json.loads(args)) if args.startswith("[") else args
        run(rootfs, command, state["env"], state["workdir"])
    elif verb not in ("LABEL", "CMD", "ENTRYPOINT", "EXPOSE", "STOPSIGNAL", "SHELL", "ARG", "VOLUME"):
        raise InfraError("image_build", f"building {tag}: {verb} is not supported without a Docker engine")
