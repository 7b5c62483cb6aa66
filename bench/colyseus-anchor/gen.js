// Load generator for the Colyseus relay (server.js), on Colyseus's own client (colyseus.js). It
// measures what crates/loadgen measures for fourkings, with the same definitions:
// - R rooms x 4 seats, each seat its own WebSocket; the rooms' first actions spread evenly over one
//   cadence period; then each room acts once every C ms, the seats taking turns, for the S s window;
// - actions per second: those sent inside the window and answered, per second of the window;
// - act->event latency: from just before the acting seat's `act` is sent to the arrival of the
//   `acted` event for it at that seat;
// - server CPU during play: utime + stime of the server process (from /proc) from the moment every
//   room is started to the end of play, divided by the actions acknowledged in that window;
// - memory per connection: (server RSS with every connection held - RSS before) / connections.
// Usage: node gen.js --port P --rooms R --cadence-ms C --seconds S --procs N --server-pid PID [--hold-secs H]
"use strict";
const { fork } = require("node:child_process");
const fs = require("node:fs");
const { Client } = require("colyseus.js");

function args() {
  const a = { port: 2567, rooms: 100, cadenceMs: 1000, seconds: 20, procs: 1, serverPid: 0, holdSecs: 0 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    a[key] = Number(argv[i + 1]);
  }
  return a;
}

const TICKS_PER_SECOND = 100; // /proc/PID/stat counts in clock ticks (USER_HZ)

function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
}

function rssKib(pid) {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line.split(/\s+/)[1]);
}

function percentile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];
}

// One room: four seats on their own connections. Returns the seats in turn order.
async function openRoom(client) {
  const first = await client.create("relay");
  const seats = [first];
  for (let i = 0; i < 3; i++) seats.push(await client.joinById(first.roomId));
  return seats;
}

// Opens `count` rooms, at most `parallel` at a time (the matchmaker is an HTTP round trip per seat).
async function openRooms(port, count, parallel = 32) {
  const client = new Client(`ws://127.0.0.1:${port}`);
  const rooms = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      next++;
      rooms.push(await openRoom(client));
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return rooms;
}

// Plays every room for `seconds`; room i acts at fixed instants, its first delayed by its share of one
// cadence period (`offset` numbers this process's rooms among all processes' `total`), the k-th one
// k cadences later (not a chain of timeouts, which drifts behind the cadence). No action is sent
// after the window; the answers to those sent inside it are awaited (LAST_ANSWER_MS), and the rate is
// these actions per second of the window, as crates/loadgen counts it.
const LAST_ANSWER_MS = 1000;
function play(rooms, cadenceMs, seconds, offset, total) {
  const latenciesUs = [];
  let errors = 0;
  let outstanding = 0; // actions sent whose answer has not come
  const began = performance.now();
  const end = began + seconds * 1000;
  return new Promise((resolve) => {
    let running = rooms.length;
    rooms.forEach((seats, i) => {
      let turn = 0;
      const pending = new Map(); // n -> send time (hrtime ns), on the acting seat
      seats.forEach((seat) =>
        seat.onMessage("acted", (m) => {
          if (m.seat !== seat.sessionId) return;
          const sent = pending.get(m.n);
          if (sent === undefined) return;
          pending.delete(m.n);
          outstanding--;
          latenciesUs.push(Number(process.hrtime.bigint() - sent) / 1000);
        }),
      );
      seats.forEach((seat) => seat.onError(() => errors++));
      const first = began + (cadenceMs * ((offset + i) % total)) / total;
      const act = () => {
        const seat = seats[turn % 4];
        const n = turn++;
        pending.set(n, process.hrtime.bigint());
        outstanding++;
        seat.send("act", { n });
        const next = first + turn * cadenceMs;
        if (next < end) {
          setTimeout(act, Math.max(0, next - performance.now()));
        } else if (--running === 0) {
          setTimeout(() => resolve({ latenciesUs, errors, unanswered: outstanding, elapsed: seconds }), Math.max(0, end - performance.now()) + LAST_ANSWER_MS);
        }
      };
      setTimeout(act, first - performance.now());
    });
  });
}

async function child() {
  const a = args();
  const rooms = await openRooms(a.port, a.rooms);
  process.send({ ready: rooms.length * 4 });
  process.once("message", async () => {
    const cpu0 = process.cpuUsage();
    const report = await play(rooms, a.cadenceMs, a.seconds, a.offset, a.total);
    const cpu = process.cpuUsage(cpu0);
    process.send({ ...report, cpuUs: cpu.user + cpu.system }, () => process.exit(0));
  });
}

async function parent() {
  const a = args();
  const rssBefore = a.serverPid ? rssKib(a.serverPid) : 0;
  const per = Math.ceil(a.rooms / a.procs);
  const children = [];
  for (let p = 0, offset = 0; offset < a.rooms; p++, offset += per) {
    const rooms = Math.min(per, a.rooms - offset);
    const argv = ["--port", a.port, "--rooms", rooms, "--cadence-ms", a.cadenceMs, "--seconds", a.seconds,
      "--offset", offset, "--total", a.rooms].map(String);
    children.push(fork(__filename, ["--child", ...argv], { stdio: "inherit" }));
  }
  const held = (await Promise.all(children.map((c) => new Promise((r) => c.once("message", (m) => r(m.ready))))))
    .reduce((x, y) => x + y, 0);
  await new Promise((r) => setTimeout(r, 500));
  const rssHeld = a.serverPid ? rssKib(a.serverPid) : 0;
  // --hold-secs: the connections idle this long before play, and the RSS is read again.
  await new Promise((r) => setTimeout(r, a.holdSecs * 1000));
  const rssIdle = a.serverPid ? rssKib(a.serverPid) : 0;
  const cpuFrom = a.serverPid ? cpuSeconds(a.serverPid) : 0;
  const reports = await Promise.all(children.map((c) => new Promise((r) => { c.once("message", r); c.send("go"); })));
  const elapsed = Math.max(...reports.map((r) => r.elapsed));
  const cpuTo = a.serverPid ? cpuSeconds(a.serverPid) : 0;
  const lat = reports.flatMap((r) => r.latenciesUs).sort((x, y) => x - y);
  const errors = reports.reduce((x, r) => x + r.errors, 0);
  const unanswered = reports.reduce((x, r) => x + r.unanswered, 0);
  const ms = (q) => (percentile(lat, q) / 1000).toFixed(2);
  console.log(`rooms ${a.rooms}  connections held ${held}  (processes ${children.length})`);
  console.log(`actions ${lat.length} in the ${elapsed.toFixed(1)} s window = ${(lat.length / elapsed).toFixed(1)} actions/s  (errors ${errors}, unanswered a second after the window ${unanswered})`);
  console.log(`act->event latency ms: p50 ${ms(0.5)}  p95 ${ms(0.95)}  p99 ${ms(0.99)}  max ${ms(1)}`);
  if (a.serverPid) {
    const cpu = cpuTo - cpuFrom;
    console.log(`server CPU during play: ${cpu.toFixed(2)} s for ${lat.length} actions = ${((cpu * 1000) / Math.max(1, lat.length)).toFixed(3)} ms per action`);
    console.log(`server RSS ${rssBefore} KiB -> ${rssHeld} KiB with the connections held: ${((rssHeld - rssBefore) / Math.max(1, held)).toFixed(1)} KiB per connection`);
    if (a.holdSecs > 0) {
      console.log(`server RSS ${rssBefore} KiB -> ${rssIdle} KiB after ${a.holdSecs} s idle: ${((rssIdle - rssBefore) / Math.max(1, held)).toFixed(1)} KiB per connection`);
    }
    console.log(`server RSS after play: ${rssKib(a.serverPid)} KiB`);
  }
  const genCpu = reports.reduce((x, r) => x + r.cpuUs, 0) / 1e6;
  console.log(`generator CPU during play: ${genCpu.toFixed(2)} s over ${elapsed.toFixed(1)} s (${((100 * genCpu) / elapsed).toFixed(1)}% of a core)`);
  process.exit(0);
}

if (process.argv[2] === "--child") {
  process.argv.splice(2, 1);
  child();
} else {
  parent();
}
