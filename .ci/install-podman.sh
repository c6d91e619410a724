#!/usr/bin/env bash
# Installs Podman (Debian's podman, runc, catatonit for --init) and the static busybox the
# provider conformance suite (tests/providers) makes its test image from; makes `podman run`
# work where the hard rlimits are low; starts `podman system service` on the socket the podman
# provider uses. Idempotent: apt runs only for missing packages, the service only when nothing
# answers on its socket.
#
# Why the rlimits: rootful Podman gives every container nofile and nproc of 1048576 unless
# containers.conf says otherwise, and a process without CAP_SYS_RESOURCE cannot raise a hard
# limit, so runc fails with "error setting rlimits for ready process: error setting rlimit type 7
# (nofile) / 6 (nproc): operation not permitted". Podman also lowers its own nproc hard limit to
# 32768 when it starts, which its containers inherit. The drop-in below sets default_ulimits to
# what the machine allows.
set -euo pipefail
SOCKET="${PYTEST_SWE_PODMAN_SOCKET:-/run/pytest-swe-podman/podman.sock}"
CONF=/etc/containers/containers.conf.d/50-pytest-swe-ulimits.conf
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
log() { echo "install-podman: $*"; }

missing=()
for package in podman runc catatonit busybox-static; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

nofile=$(ulimit -Hn)
nproc=$(ulimit -Hu)
[ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ] && nofile=1048576
[ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
wanted="[containers]
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
if [ "$(cat "$CONF" 2>/dev/null)" != "$wanted" ]; then
  log "writing $CONF (nofile $nofile, nproc $nproc)"
  $SUDO mkdir -p "$(dirname "$CONF")"
  printf '%s\n' "$wanted" | $SUDO tee "$CONF" >/dev/null
fi

answers() { podman --remote --url "unix://$SOCKET" version >/dev/null 2>&1; }
if ! answers; then
  log "starting podman system service on $SOCKET"
  $SUDO mkdir -p "$(dirname "$SOCKET")"
  $SUDO rm -f "$SOCKET"
  # From the socket's directory: conmon writes a file named oom into its working directory.
  (cd "$(dirname "$SOCKET")" && $SUDO setsid podman system service --time=0 "unix://$SOCKET" \
    >>service.log 2>&1 </dev/null &)
  for _ in $(seq 100); do
    answers && break
    sleep 0.2
  done
  answers || { log "the service did not answer on $SOCKET"; exit 1; }
fi
log "ready: $(podman --remote --url "unix://$SOCKET" version --format 'Podman {{.Server.Version}}')"
