// Shared pieces of the browser suite: start the real fourkings server on a free port, launch
// Debian's chromium through playwright-core, and stop both afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SHOTS = path.join(ROOT, 'docs/screenshots');

/** The server binary: $SERVER_BIN, else `cargo build --release` of the workspace's binary.
 * (Not a FOURKINGS_* name: the server reads every FOURKINGS_* variable as configuration.) */
function serverBinary() {
  if (process.env.SERVER_BIN) return process.env.SERVER_BIN;
  const built = spawnSync('cargo', ['build', '--release', '-p', 'fourkings', '--bin', 'fourkings'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('cargo build --release -p fourkings failed');
  return path.join(process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target'), 'release/fourkings');
}

/** Start the server on 127.0.0.1:0 and wait for its "listening" line. Resolves to {url, stop}. */
export async function startServer(extraEnv = {}) {
  // Against a server that is already running (a deployment, or one started by hand).
  if (process.env.SERVER_URL) return { url: process.env.SERVER_URL.replace(/\/$/, ''), log: () => '', stop: async () => {} };
  const bin = serverBinary();
  // A database and spool of its own (unless the environment names one): two servers of one test
  // never share a SQLite file, and what an earlier run left in data/ shows on no leaderboard.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fourkings-browser-'));
  const child = spawn(bin, [], {
    cwd: ROOT,
    env: {
      ...(process.env.DATABASE_URL ? {} : { FOURKINGS_DATABASE__URL: `sqlite://${dir}/fourkings.db` }),
      FOURKINGS_DATABASE__SPOOL_PATH: `${dir}/log-spool.jsonl`,
      ...process.env,
      FOURKINGS_SERVER__LISTEN: '127.0.0.1:0',
      FOURKINGS_TIMERS__CPU_DELAY_MS: '30',
      // Every page of the suite comes from loopback: the per-client limits must not bind here.
      FOURKINGS_LIMITS__REST_WRITE_BURST: '10000',
      FOURKINGS_LIMITS__REST_READ_BURST: '10000',
      FOURKINGS_LIMITS__MAX_OPEN_LOBBIES_PER_CLIENT: '10000',
      FOURKINGS_LIMITS__MAX_CONNECTIONS_PER_IP: '10000',
      RUST_LOG: process.env.RUST_LOG || 'warn',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30000);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      // "fourkings listening on 127.0.0.1:PORT: open …" (older builds: "listening: open http://ADDR/").
      const m = out.match(/listening on ([0-9.]+:\d+)/) || out.match(/http:\/\/([0-9.]+:\d+)\//);
      if (m) { clearTimeout(timer); resolve(`http://${m[1]}`); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${log}`)); });
  });
  return {
    url,
    log: () => log,
    stop: () => new Promise((resolve) => {
      const done = () => { rmSync(dir, { recursive: true, force: true }); resolve(); };
      if (child.exitCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 3000);
    }),
  };
}

export async function launchBrowser() {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: run tests/browser/setup.sh`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** The server and the browser of the test file that called `useServerAndBrowser`: set before its
 * tests run (node --test runs each file in a process of its own, so each file has its own). */
export let server;
export let browser;

/** Starts the file's server (with `extraEnv`, as `startServer`) and browser before its tests and
 * closes both after them; the tests use the `server` and `browser` exported here. */
export function useServerAndBrowser(extraEnv) {
  before(async () => {
    server = await startServer(extraEnv);
    browser = await launchBrowser();
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
  });
}

/** A new player: its own context (own local storage = own device), English, a desktop window. */
export async function newPlayer(browser, { locale = 'en-US', viewport = { width: 1280, height: 900 } } = {}) {
  const context = await browser.newContext({ locale, viewport });
  const page = await context.newPage();
  page.on('dialog', (d) => d.accept()); // "resign this game?"
  page.on('pageerror', (e) => { page.errors = [...(page.errors || []), String(e)]; });
  // The last frames the server sent, for `explain` when a test waits in vain.
  page.frames_seen = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    page.frames_seen.push(String(f.payload).slice(0, 300));
    if (page.frames_seen.length > 40) page.frames_seen.shift();
  }));
  return page;
}

/**
 * Wait for `selector` (then click it if `click`); when it does not come, fail with what the page
 * showed and what the server had sent, so that a failure on a slow machine says why.
 */
export async function waitOrExplain(page, selector, { timeout = 60000, click = false } = {}) {
  try {
    await page.waitForSelector(selector, { timeout });
    if (click) await page.click(selector);
  } catch (e) {
    const shown = await page.evaluate(() => ({
      url: location.href,
      room: { ...(document.querySelector('#room')?.dataset || {}) },
      actions: document.querySelector('#actions')?.outerHTML,
      message: document.querySelector('#message')?.textContent,
      // Where the host's Start or a refused settings save would say why a game did not begin.
      controls: document.querySelector('#room-controls')?.textContent.replace(/\s+/g, ' ').trim(),
      settings: document.querySelector('#settings-problems')?.textContent,
    })).catch((err) => ({ evaluate: String(err) }));
    const serverLog = (server?.log() || '').slice(-4000);
    throw new Error(`${selector} did not come: ${e.message}\npage: ${JSON.stringify(shown)}\nscript errors: ${JSON.stringify(page.errors || [])}\nlast frames:\n${(page.frames_seen || []).join('\n')}\nserver log (end):\n${serverLog}`);
  }
}

// ---------------------------------------------------------------- room helpers shared by the tests

export const roomEl = (page) => page.locator('#room');
/** A data attribute of the room element (the client mirrors its state there for the tests). */
export const attr = (page, name) => roomEl(page).getAttribute(`data-${name}`);

/**
 * Resign `page`'s seat at once, unless a one-round game ends first: when neither die of Red's
 * first throw can be used the turn passes at once (C.9) and the CPU seats finish the round.
 * Call it right after "Start": such a game may be over within a few hundred milliseconds, between
 * two polls of Playwright's `waitForSelector` (500 ms apart after the first few), so a wait for
 * `data-phase="playing"` first can miss the whole game and time out.
 */
export async function resignUnlessOver(page) {
  await waitOrExplain(page, '#resign, #room[data-phase="finished"]');
  try {
    await page.click('#resign', { timeout: 2000 });
  } catch (e) {
    if ((await page.locator('#room').getAttribute('data-phase')) !== 'finished') throw e;
  }
}

/** Create a room from the lobby form at `url` (the host takes the first seat); returns the room id. */
export async function createRoom(page, url, { name, game, tweak }) {
  await page.goto(`${url}/`);
  await page.fill('#player-name', name);
  await page.selectOption('#create-game', game);
  if (tweak) await tweak(page);
  await page.click('#create-room');
  await page.waitForURL(/\?room=/);
  await page.waitForSelector('#room[data-my-seat="red"]');
  return new URL(page.url()).searchParams.get('room');
}

/** Open the invite link, type a name, take a seat; returns the seat. */
export async function joinRoom(page, invite, name) {
  await page.goto(invite);
  await page.fill('#seat-name', name);
  await page.click('#take-seat');
  await page.waitForFunction(() => document.querySelector('#room')?.dataset.mySeat);
  return attr(page, 'my-seat');
}

/** The squares of the bottom row of the board as drawn: `{ name, seat }`, `seat` the owner of the piece
 * standing there (or undefined). */
function bottomRow(page) {
  return page.evaluate(() => {
    const cells = [...document.querySelectorAll('.sq')];
    const ys = cells.map((c) => Number(c.getAttribute('transform').match(/,([0-9.]+)\)/)[1]));
    const maxY = Math.max(...ys);
    return cells.filter((c, i) => ys[i] === maxY).map((c) => ({ name: c.dataset.sq, seat: c.dataset.piece?.split(':')[0] }));
  });
}

/** The seats whose pieces stand on the bottom row of the board as drawn. */
export async function bottomRowSeats(page) {
  return (await bottomRow(page)).filter((c) => c.seat).map((c) => c.seat);
}

/** The names of the bottom row's squares as drawn. */
export async function bottomRowSquares(page) {
  return (await bottomRow(page)).map((c) => c.name);
}

/** A REST call from the test itself (to check what the server holds, not what the page shows). */
export async function rest(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
