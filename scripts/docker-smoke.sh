#!/usr/bin/env bash
# Build the Docker image with podman/buildah (no Docker engine needed) and check that it really runs:
# the image starts against the local PostgreSQL, answers /healthz and /readyz, and a WebSocket client
# joins a room and sees its game start.
#
#   sudo scripts/docker-smoke.sh        (root: it installs packages with apt and builds with chroot)
#
# Works offline from container registries: when the base images of the Dockerfile cannot be pulled,
# it makes them locally and tags them with the names the Dockerfile uses:
#   debian:bookworm-slim  <- `debootstrap --variant=minbase bookworm` (Debian's own package mirror)
#   rust:1-bookworm       <- debootstrap bookworm + gcc/libc6-dev, plus this machine's Rust toolchain
#                            (rustc/cargo of `rustup`'s default toolchain, docs left out) on PATH with
#                            CARGO_HOME=/usr/local/cargo like the official image
# Crates are fetched from crates.io during the build (build containers share the host network with
# `--isolation chroot`; the host's CA bundle is mounted for the build, for a TLS-inspecting proxy). Not part of scripts/test: a release build takes many minutes.
#
# Environment: SMOKE_PORT (default 18080), SMOKE_DB (database created for the run, default
# fourkings_smoke), PGHOST/PGPORT/PGUSER (default 127.0.0.1 / 5432 / postgres), SMOKE_KEEP=1 keeps the
# container running afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=localhost/fourkings:smoke
PORT=${SMOKE_PORT:-18080}
DB=${SMOKE_DB:-fourkings_smoke}
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
WORK=${SMOKE_WORK:-/var/tmp/fourkings-smoke}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NAME=fourkings-smoke

step() { printf '\n== %s\n' "$*"; }
die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get, debootstrap and chroot builds need it)"

step "tools"
missing=()
for tool in podman buildah debootstrap runc; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman buildah debootstrap runc
fi
podman --version
buildah --version

# `name` exists locally, or can be pulled; else 1.
have_image() {
  podman image exists "$1" && return 0
  timeout 60 podman pull -q "$1" >/dev/null 2>&1
}

# debootstrap DIR with extra packages (comma-separated, may be empty), imported as image NAME with the
# given `--change` lines.
import_debootstrap() {
  local name=$1 include=$2
  shift 2
  local root="$WORK/rootfs-${name//[^a-z0-9]/_}"
  rm -rf "$root"
  mkdir -p "$WORK"
  debootstrap --variant=minbase ${include:+--include="$include"} bookworm "$root" "$MIRROR" \
    >"$root.log" 2>&1 || { tail -20 "$root.log"; die "debootstrap for $name failed"; }
  # Keep the image small and free of host-specific state.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  "$@" "$root"
  tar -C "$root" -c . | podman import "${CHANGES[@]}" - "$name" >/dev/null
  rm -rf "$root"
  echo "made $name locally (debootstrap bookworm${include:+ + $include})"
}

no_extra() { :; }

# The host's default Rust toolchain into the builder's root, the way the official image lays it out.
add_rust_toolchain() {
  local root=$1 toolchain
  toolchain=$(rustc --print sysroot)
  mkdir -p "$root/usr/local/rust" "$root/usr/local/cargo/bin"
  # Everything but the documentation.
  tar -C "$toolchain" --exclude=./share/doc -c . | tar -C "$root/usr/local/rust" -x
  echo "toolchain: $("$toolchain/bin/rustc" --version)"
}

# How containers run on this machine: crun refuses its hybrid cgroup layout, so runc; podman's default
# rlimits exceed what this sandbox may set, so explicit ones below the machine's (20,000 open files);
# no systemd, so no healthcheck timer (the HEALTHCHECK is run by hand below).
RUN_OPTS=(--runtime runc --ulimit nofile=16384:16384 --ulimit nproc=4096:4096 --health-interval disable)

step "base images"
if have_image docker.io/library/debian:bookworm-slim; then
  echo "debian:bookworm-slim: present"
else
  CHANGES=(--change 'CMD ["bash"]')
  import_debootstrap docker.io/library/debian:bookworm-slim "" no_extra
fi
if have_image docker.io/library/rust:1-bookworm; then
  echo "rust:1-bookworm: present"
else
  CHANGES=(
    --change 'ENV PATH=/usr/local/cargo/bin:/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    --change 'ENV CARGO_HOME=/usr/local/cargo'
    --change 'CMD ["bash"]'
  )
  import_debootstrap docker.io/library/rust:1-bookworm gcc,libc6-dev,ca-certificates add_rust_toolchain
fi

step "build the image (podman build --isolation chroot)"
started=$(date +%s)
# This machine reaches crates.io through an egress proxy with its own CA: the build sees the host's CA
# bundle (a build-time mount only; nothing of it lands in the image).
ca_mount=()
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  ca_mount=(--volume /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro)
fi
podman build --isolation chroot --pull=never --format docker --network host "${ca_mount[@]}" -t "$IMAGE" . \
  >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; die "image build failed (log: $WORK/build.log)"; }
grep -E 'STEP [0-9]+/[0-9]+: (FROM|RUN cargo|RUN find)|Using cache|Finished|Successfully tagged' "$WORK/build.log" \
  | cut -c1-110 | sed 's/^/  /'

echo "built $IMAGE in $(( $(date +%s) - started )) s"
podman image inspect "$IMAGE" --format \
  'user={{.Config.User}} exposed={{.Config.ExposedPorts}} healthcheck={{.Config.Healthcheck.Test}} size={{.Size}}'
podman run --rm "${RUN_OPTS[@]}" --network host "$IMAGE" --version

step "database $DB on $PGHOST:$PGPORT"
psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -q -v ON_ERROR_STOP=1 \
  -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$DB"
echo "DATABASE_URL=$DATABASE_URL"

step "run the image (host network, port $PORT)"
podman rm -f "$NAME" >/dev/null 2>&1 || true
cleanup() {
  if [ "${SMOKE_KEEP:-0}" != 1 ]; then
    podman rm -f "$NAME" >/dev/null 2>&1 || true
    psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -q -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
podman run -d "${RUN_OPTS[@]}" --name "$NAME" --network host \
  -e FOURKINGS_SERVER__LISTEN="127.0.0.1:$PORT" \
  -e DATABASE_URL="$DATABASE_URL" \
  "$IMAGE" >/dev/null
podman exec "$NAME" fourkings config | sed 's/^/  /'
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 60); do
  curl -fsS "$BASE/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
echo "GET /healthz -> $(curl -fsS "$BASE/healthz")" || die "no /healthz"
ready_status=$(curl -s -o "$WORK/readyz.out" -w '%{http_code}' "$BASE/readyz")
if [ "$ready_status" = 200 ]; then
  echo "GET /readyz -> 200 $(cat "$WORK/readyz.out")"
elif [ "$ready_status" = 404 ]; then
  echo "GET /readyz -> 404: this build has no /readyz yet (the persistence branch adds it); /healthz checked instead"
else
  die "GET /readyz -> $ready_status $(cat "$WORK/readyz.out")"
fi
podman healthcheck run "$NAME" && echo "HEALTHCHECK (fourkings healthcheck) -> healthy" \
  || die "the image's HEALTHCHECK fails"

step "a WebSocket client starts a game; then SIGTERM"
if [ ! -x "$WORK/venv/bin/python" ]; then
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check 'websockets>=12,<16'
fi
"$WORK/venv/bin/python" - "$BASE" "$NAME" <<'PY'
import asyncio, json, subprocess, sys, time, urllib.request

base, container = sys.argv[1], sys.argv[2]

def rest(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=json.dumps(body or {}).encode(),
                                 headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)

async def main():
    import websockets
    room = rest("POST", "/rooms", {"game": "chaturaji"})
    rid, host = room["room"], room["host_token"]
    seat = rest("POST", f"/rooms/{rid}/join", {"name": "smoke"})
    for cpu in ("blue", "yellow", "green"):
        rest("POST", f"/rooms/{rid}/cpu", {"seat": cpu, "level": 1}, host)
    ws_url = base.replace("http", "ws", 1) + "/ws"
    async with websockets.connect(ws_url) as ws:
        await ws.send(json.dumps({"t": "join", "room": rid, "token": seat["seat_token"]}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert welcome["t"] == "welcome", welcome
        print(f"room {rid}: joined as {welcome['seat']}")
        rest("POST", f"/rooms/{rid}/start", {}, host)
        started = acked = False
        while not (started and acked):
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg["t"] == "event" and msg["event"]["e"] == "game_started":
                started = True
                print(f"game_started: game {msg['event']['game']}, dice commit {msg['event']['dice_commit'][:16]}…")
            elif msg["t"] == "view" and msg.get("legal"):
                await ws.send(json.dumps({"t": "act", "ack": 1, "action": msg["legal"][0]}))
            elif msg["t"] == "ack":
                acked = True
                print(f"act acknowledged at v{msg['v']}")
            elif msg["t"] == "error":
                raise SystemExit(f"error: {msg}")
        info = rest("GET", f"/rooms/{rid}")
        print(f"room phase: {info['phase']}, seats: {[s['kind'] for s in info['seats']]}")
        with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(("fourkings_rooms", "fourkings_seats", "fourkings_actions_total",
                                    "fourkings_act_latency_seconds_count",
                                    "fourkings_bot_think_seconds_count", "fourkings_connections")):
                    print("  metrics: " + line)
        # Still connected: `podman stop` (SIGTERM) must close this socket with 1012.
        print("podman stop (SIGTERM) while the game runs")
        started = time.monotonic()
        stop = subprocess.Popen(["podman", "stop", "-t", "20", container], stdout=subprocess.DEVNULL)
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 20)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            print(f"WebSocket closed by the server with {code} after {time.monotonic() - started:.2f} s")
            assert code == 1012, code
        stop.wait(30)
        print("OK")

asyncio.run(main())
PY

step "stopped (SIGTERM): graceful, exit status 0"
code=$(podman inspect "$NAME" --format '{{.State.ExitCode}}')
echo "exit status $code"
echo "last log lines (JSON):"
podman logs "$NAME" 2>&1 | tail -4 | sed 's/^/  /'
[ "$code" = 0 ] || die "exit status $code"
podman logs "$NAME" 2>&1 | grep -q '"message":"stopped"' || die "no graceful stop in the log"

step "docker-smoke: OK"
