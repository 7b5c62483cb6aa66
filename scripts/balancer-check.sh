#!/usr/bin/env bash
# Behind nginx hashing on the room id (docs/cluster/nginx.conf), how many requests about a room land on
# the node that serves it? Three cluster nodes on a fresh PostgreSQL database, nginx in front of them
# (the compose example's nginx.conf with local addresses), ROOMS rooms created through nginx the way the
# browser does (create, then join a seat), then one WebSocket join (`/ws?room=ID`) and one
# `GET /rooms/ID` each through nginx, counting answers from the owner (welcome, 200) and redirects
# (`redirect`, 307). Prints the counts as JSON. Not part of scripts/test (a figure, not a test).
#
#   scripts/balancer-check.sh [ROOMS]      (default 30; installs nginx with apt when it is missing)
#
# Environment: BIN (default target/release, built if missing), PG (default
# postgres://postgres@127.0.0.1:5432), PORT (nginx; the nodes take the next three ports, default 18180).
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${1:-30}
bin=${BIN:-target/release}/fourkings
pg=${PG:-postgres://postgres@127.0.0.1:5432}
port=${PORT:-18180}
db=fk_balancer_$$
[ -x "$bin" ] || cargo build --release --locked -p fourkings
if ! command -v nginx >/dev/null; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light
fi
py=target/tools/py/bin/python
if ! "$py" -c 'import websockets' 2>/dev/null; then
  python3 -m venv target/tools/py
  target/tools/py/bin/pip install --quiet --disable-pip-version-check 'websockets>=12,<16'
fi

work=$(mktemp -d)
pids=()
cleanup() {
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql "$pg/postgres" -qc "CREATE DATABASE $db"

for i in 1 2 3; do
  p=$((port + i))
  FOURKINGS_SERVER__LISTEN=127.0.0.1:$p FOURKINGS_DATABASE__URL="$pg/$db" RUST_LOG=warn \
    FOURKINGS_CLUSTER__ENABLED=true FOURKINGS_CLUSTER__PUBLIC_URL=http://127.0.0.1:$p \
    "$bin" serve >"$work/node$i.log" 2>&1 &
  pids+=($!)
done
sed -e "s/node1:8080/127.0.0.1:$((port + 1))/" -e "s/node2:8080/127.0.0.1:$((port + 2))/" \
  -e "s/node3:8080/127.0.0.1:$((port + 3))/" -e "s/listen 80;/listen 127.0.0.1:$port;/" \
  docs/cluster/nginx.conf >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" -g "pid $work/nginx.pid; error_log $work/error.log;"
for i in 1 2 3; do
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$((port + i))/readyz" >/dev/null 2>&1 && break
    sleep 0.1
  done
done

"$py" - "http://127.0.0.1:$port" "$rooms" <<'PY'
import asyncio, json, sys, urllib.error, urllib.request

base, rooms = sys.argv[1], int(sys.argv[2])

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None

opener = urllib.request.build_opener(NoRedirect)

def rest(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, method=method, data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with opener.open(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)

async def main():
    import websockets
    counts = {"ws welcome": 0, "ws redirect": 0, "rest 200": 0, "rest 307": 0}
    seats = []
    for _ in range(rooms):
        status, room = rest("POST", "/rooms", {"game": "chaturaji"})
        assert status == 200, room
        status, seat = rest("POST", f"/rooms/{room['room']}/join", {"name": "check"})
        if status == 307:  # followed by hand, as a browser would
            req = urllib.request.Request(seat["url"], method="POST", data=b'{"name":"check"}',
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=10) as r:
                seat = json.load(r)
        seats.append((room["room"], seat["seat_token"]))
    ws_base = base.replace("http", "ws", 1)
    for rid, token in seats:
        async with websockets.connect(f"{ws_base}/ws?room={rid}") as ws:
            await ws.send(json.dumps({"t": "join", "room": rid, "token": token}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            counts["ws " + first["t"]] = counts.get("ws " + first["t"], 0) + 1
        status, _ = rest("GET", f"/rooms/{rid}")
        counts[f"rest {status}"] = counts.get(f"rest {status}", 0) + 1
    print(json.dumps(counts))

asyncio.run(main())
PY
