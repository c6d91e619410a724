"""Docker engines in network namespaces of this machine: stand-ins for the hosts of a Docker pool.

Each engine runs in a network namespace of its own, reached from here over a veth pair on a
private /30 (``10.213.<n>.0/30``: the address exists only on this machine, and the namespace has
no route beyond its link), listening on TCP with ``--tlsverify`` and certificates made here by
openssl. Each has its own data root, exec root, pid file, containerd namespace and cgroup parent,
and ``--bridge=none``. Cutting a host off is ``ip link set <veth> down``: its TCP connections then
hang, as they do when a real host dies, rather than being refused.

    python scripts/pool_hosts.py up DIR [N]     # start N engines (default 3) under DIR, print the hosts
    python scripts/pool_hosts.py load DIR IMAGE...  # docker save | docker load into every engine
    python scripts/pool_hosts.py down DIR       # stop them, delete the namespaces

Needs root, iproute2, openssl and dockerd (``.ci/install-pool.sh``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path

PORT = 2376
STATE = "pool-hosts.json"
NAME = "pswe-pool"
"""Prefix of every namespace, veth, containerd namespace and cgroup made here."""
SUBNET_BASE = 213
"""The second octet of the private links (``10.213.<n>.0/30``)."""


@dataclass
class Engine:
    """One engine: where it listens, its certificates, its state and how to cut it off."""

    index: int
    root: str
    netns: str
    veth_host: str
    veth_engine: str
    address: str
    pid: int = 0

    @property
    def name(self) -> str:
        return f"{NAME}{self.index}"

    @property
    def url(self) -> str:
        return f"tcp://{self.address}:{PORT}"

    @property
    def socket(self) -> str:
        """The engine's Unix socket: reached without the veth link (for setting up and checking)."""
        return f"unix://{self.root}/docker.sock"

    def host_entry(self, certs: Path, capacity: int = 2, **extra: object) -> dict[str, object]:
        """This engine as an entry of a pool's ``hosts:`` list."""
        return {
            "name": self.name,
            "url": self.url,
            "capacity": capacity,
            "tls": {
                "ca": str(certs / "ca.pem"),
                "cert": str(certs / "cert.pem"),
                "key": str(certs / "key.pem"),
            },
            **extra,
        }

    def cut(self) -> None:
        """Take the link down: the engine keeps running, but no packet reaches it."""
        _run("ip", "link", "set", self.veth_host, "down")

    def restore(self) -> None:
        _run("ip", "link", "set", self.veth_host, "up")


def _run(*argv: str, check: bool = True, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), check=check, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]


def missing_tools() -> list[str]:
    """What this machine lacks to run the engines (empty when nothing)."""
    missing = [tool for tool in ("ip", "openssl", "dockerd", "docker") if shutil.which(tool) is None]
    if os.geteuid() != 0:
        missing.append("root (network namespaces)")
    return missing


def make_certificates(certs: Path, addresses: list[str]) -> None:
    """A CA, a server certificate for every address, and a client certificate, with openssl."""
    certs.mkdir(parents=True, exist_ok=True)
    if (certs / "cert.pem").exists():
        return

    def openssl(*args: str) -> None:
        _run("openssl", *args, cwd=str(certs))

    openssl("genrsa", "-out", "ca-key.pem", "2048")
    openssl(
        "req",
        "-x509",
        "-new",
        "-key",
        "ca-key.pem",
        "-sha256",
        "-days",
        "2",
        "-subj",
        "/CN=pytest-swe pool CA",
        "-out",
        "ca.pem",
    )
    sans = ",".join([f"IP:{a}" for a in addresses] + ["IP:127.0.0.1", "DNS:localhost"])
    (certs / "server.ext").write_text(f"subjectAltName={sans}\nextendedKeyUsage=serverAuth\n")
    (certs / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for role, subject in (("server", "/CN=pytest-swe pool host"), ("client", "/CN=pytest-swe controller")):
        key = "server-key.pem" if role == "server" else "key.pem"
        out = "server-cert.pem" if role == "server" else "cert.pem"
        openssl("genrsa", "-out", key, "2048")
        openssl("req", "-new", "-key", key, "-subj", subject, "-out", f"{role}.csr")
        openssl(
            "x509", "-req", "-in", f"{role}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
            "-days", "2", "-sha256", "-extfile", f"{role}.ext", "-out", out,
        )  # fmt: skip
    for path in certs.glob("*key.pem"):
        path.chmod(0o600)


def _link(engine: Engine) -> None:
    ns, host, inside = engine.netns, engine.veth_host, engine.veth_engine
    _run("ip", "netns", "del", ns, check=False)
    _run("ip", "link", "del", host, check=False)
    _run("ip", "netns", "add", ns)
    _run("ip", "link", "add", host, "type", "veth", "peer", "name", inside)
    _run("ip", "link", "set", inside, "netns", ns)
    prefix = engine.address.rsplit(".", 1)[0]
    _run("ip", "addr", "add", f"{prefix}.1/30", "dev", host)
    _run("ip", "link", "set", host, "up")
    for argv in (
        ("ip", "addr", "add", f"{engine.address}/30", "dev", inside),
        ("ip", "link", "set", inside, "up"),
        ("ip", "link", "set", "lo", "up"),
    ):
        _run("ip", "netns", "exec", ns, *argv)


def _start_engine(engine: Engine, certs: Path) -> None:
    root = Path(engine.root)
    for sub in ("data", "exec"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    log = open(root / "dockerd.log", "ab")  # noqa: SIM115 - the daemon writes it for its whole life
    argv = [
        # nsenter, not `ip netns exec`: that one remounts /sys, hiding the cgroup mounts dockerd needs.
        "nsenter", f"--net=/var/run/netns/{engine.netns}", "dockerd",
        "--data-root", str(root / "data"), "--exec-root", str(root / "exec"),
        "--pidfile", str(root / "docker.pid"),
        "-H", engine.socket, "-H", engine.url,
        "--tlsverify", "--tlscacert", str(certs / "ca.pem"),
        "--tlscert", str(certs / "server-cert.pem"), "--tlskey", str(certs / "server-key.pem"),
        "--bridge=none", "--iptables=false", "--ip-masq=false", "--ip-forward=false",
        "--containerd-namespace", engine.name, "--containerd-plugins-namespace", f"{engine.name}p",
        "--cgroup-parent", f"/{engine.name}", "--log-level", "warn",
    ]  # fmt: skip
    process = subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    engine.pid = process.pid


def _wait_ready(engine: Engine, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and _alive(engine.pid):
        if (
            _run(
                "docker", "-H", engine.socket, "version", "--format", "{{.Server.Version}}", check=False
            ).returncode
            == 0
        ):
            return
        time.sleep(0.5)
    log = Path(engine.root, "dockerd.log")
    raise RuntimeError(
        f"engine {engine.name} did not start: {log.read_text()[-2000:] if log.exists() else ''}"
    )


def up(root: Path, count: int = 3, first: int = 1) -> list[Engine]:
    """Start ``count`` engines numbered from ``first`` under ``root`` (certificates in ``root/certs``)."""
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    engines = [
        Engine(
            index=n,
            root=str(root / f"host{n}"),
            netns=f"{NAME}{n}",
            veth_host=f"pswpool{n}h",
            veth_engine=f"pswpool{n}e",
            address=f"10.{SUBNET_BASE}.{n}.2",
        )
        for n in range(first, first + count)
    ]
    make_certificates(root / "certs", [e.address for e in engines])
    try:
        for engine in engines:
            _link(engine)
            _start_engine(engine, root / "certs")
        save(root, engines)
        for engine in engines:
            _wait_ready(engine)
    except BaseException:
        down(root)
        raise
    return engines


def save(root: Path, engines: list[Engine]) -> None:
    Path(root, STATE).write_text(json.dumps([asdict(e) for e in engines], indent=2))


def load_state(root: Path) -> list[Engine]:
    path = Path(root, STATE)
    return [Engine(**entry) for entry in json.loads(path.read_text())] if path.exists() else []


def load_images(root: Path, images: list[str], engines: list[Engine] | None = None) -> None:
    """``docker save`` the images once from the main engine, ``docker load`` them into each engine
    (through its Unix socket: setting up is not what the link is for)."""
    archive = Path(root, "images.tar")
    if not archive.exists():
        _run("docker", "save", "-o", str(archive), *images)
    loads = [
        subprocess.Popen(
            ["docker", "-H", e.socket, "load", "-q", "-i", str(archive)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for e in engines or load_state(root)
    ]
    failures = [p.communicate()[1].decode() for p in loads if p.wait() != 0]
    if failures:
        raise RuntimeError(f"docker load failed: {failures[0][-1000:]}")


def _stop(engine: Engine, timeout: float = 30) -> None:
    pidfile = Path(engine.root, "docker.pid")
    pids = [engine.pid] if engine.pid else []
    with contextlib.suppress(OSError, ValueError):
        pids.append(int(pidfile.read_text().strip()))
    # Containers first, through the socket (fast); then the daemon, which stops its containerd.
    listed = _run("docker", "-H", engine.socket, "ps", "-aq", check=False, timeout=20)
    ids = listed.stdout.split() if listed.returncode == 0 else []
    if ids:
        _run("docker", "-H", engine.socket, "rm", "-f", *ids, check=False, timeout=60)
    for pid in set(pids):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + timeout
    while time.monotonic() < end and any(_alive(pid) for pid in pids):
        time.sleep(0.2)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of this process still answers kill 0: reap it.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    return True


def down(root: Path) -> None:
    """Stop every engine started under ``root`` and delete its namespace and link; never raises."""
    for engine in load_state(root):
        with contextlib.suppress(Exception):
            _stop(engine)
        _run("ip", "netns", "del", engine.netns, check=False)
        _run("ip", "link", "del", engine.veth_host, check=False)
        data = Path(engine.root)
        # Leftover overlay mounts of a killed daemon would keep its data root busy.
        mounts = [
            line.split()[1] for line in Path("/proc/mounts").read_text().splitlines() if str(data) in line
        ]
        for mount in sorted(mounts, reverse=True):
            _run("umount", "-l", mount, check=False)
        shutil.rmtree(data, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        Path(root, STATE).unlink()


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("up", "down", "load"):
        print(__doc__)
        return 2
    root = Path(argv[1])
    if argv[0] == "up":
        for engine in up(root, int(argv[2]) if len(argv) > 2 else 3):
            print(json.dumps(engine.host_entry(root.resolve() / "certs")))
    elif argv[0] == "load":
        load_images(root, argv[2:])
    else:
        down(root)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
