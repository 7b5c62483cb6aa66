// The replay of finished games in the browser: a game is played to its end in a room, then opened
// from the game-over panel (Chaturaji) and from the player's profile (four-player chess); the page
// steps through it with the buttons, the keys, the slider and autoplay, and at the end shows exactly
// the board the room showed when the game ended and the points of the stored record. Screenshots of
// the page on a desktop and a phone, in two languages, go to docs/screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launchBrowser, newPlayer, createRoom, resignUnlessOver, rest, SHOTS } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer({ FOURKINGS_RATINGS__MIN_MOVES: '0' });
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

/** Every piece on the board as drawn: square → `seat:kind`. */
function boardOf(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.sq[data-piece]')].map((c) => [c.dataset.sq, c.dataset.piece])));
}

/** The points each seat panel shows: seat → number. */
function pointsOf(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#seats .seat')].map((s) => [s.dataset.seat, Number(s.querySelector('.points').dataset.points)])));
}

const replayAttr = (page, name) => page.locator('#replay').getAttribute(`data-${name}`);

/** Play a game in a new room with three CPUs, the host resigning at once; resolves when it ended. */
async function playedGame(page, game, tweak) {
  const room = await createRoom(page, server.url, { name: 'Wanjiru', game, tweak });
  await page.click('#start-game');
  await resignUnlessOver(page);
  await page.waitForSelector('#room[data-phase="finished"]', { timeout: 60000 });
  return room;
}

/** The record the store keeps (the test reads it itself, not through the page). */
async function storedRecord(id) {
  for (let i = 0; i < 100; i++) {
    const r = await rest(server.url, 'GET', `/games/${id}`);
    if (r.status === 200) return r.body.record;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${id} was never recorded`);
}

/** The record's final points: seat → number. */
function recordPoints(record) {
  return Object.fromEntries(record.outcome.standings.map((s) => [s.seat, s.points]));
}

test('Chaturaji: the game-over panel opens the replay; stepping to the end shows the board the game ended with and the recorded points', async () => {
  const host = await newPlayer(browser);
  const room = await playedGame(host, 'chaturaji', (p) => p.fill('#opt-round_limit', '2'));
  await host.waitForSelector('#replay-link', { timeout: 30000 });
  const endBoard = await boardOf(host);
  const gameId = `${room}-1`;
  const record = await storedRecord(gameId);
  // The room lists its finished game with its replay.
  await host.waitForSelector(`#room-games-table tr[data-game="${gameId}"] a.replay-link`);
  assert.equal(await host.locator(`#room-games-table tr[data-game="${gameId}"] a.replay-link`).getAttribute('href'), `/?game=${gameId}`);

  await host.click('#replay-link');
  await host.waitForURL(new RegExp(`\\?game=${gameId}$`));
  await host.waitForSelector('#replay[data-total]');
  const total = Number(await replayAttr(host, 'total'));
  assert.ok(total > 8, `only ${total} positions`);
  // It opens at the end: the board the room showed, the record's points, the final standings.
  assert.equal(Number(await replayAttr(host, 'at')), total);
  assert.deepEqual(await boardOf(host), endBoard);
  assert.deepEqual(await pointsOf(host), recordPoints(record));
  const standings = await host.locator('#standings tbody tr').evaluateAll((rows) => rows.map((r) => [r.dataset.seat, Number(r.children[3].textContent)]));
  assert.deepEqual(Object.fromEntries(standings), recordPoints(record));
  await host.screenshot({ path: path.join(SHOTS, 'replay-chaturaji-end.png') });

  // To the start (Home): the start position, no points, no move marked.
  await host.keyboard.press('Home');
  await host.waitForSelector('#replay[data-at="0"]');
  assert.deepEqual(Object.values(await pointsOf(host)), [0, 0, 0, 0]);
  assert.equal(await host.locator('#moves .mv.current').count(), 0);
  assert.equal(await host.locator('#replay-prev').isDisabled(), true);
  // The first step is the first throw: the dice show it, the move list marks it.
  await host.keyboard.press('ArrowRight');
  await host.waitForSelector('#replay[data-at="1"]');
  const firstThrow = record.actions[0].action;
  assert.equal(firstThrow.type, 'roll');
  assert.deepEqual(await host.locator('#dice .die').evaluateAll((d) => d.map((x) => Number(x.dataset.face))), firstThrow.dice);
  assert.equal(await host.locator('#moves .mv.current').getAttribute('data-seq'), '0');
  // Forward with the button, back with the key.
  await host.click('#replay-next');
  await host.waitForSelector('#replay[data-at="2"]');
  await host.keyboard.press('ArrowLeft');
  await host.waitForSelector('#replay[data-at="1"]');
  // Step by step to the end: the board the game ended with, the record's points.
  for (let k = 1; k < total; k++) await host.keyboard.press('ArrowRight');
  await host.waitForSelector(`#replay[data-at="${total}"]`);
  assert.deepEqual(await boardOf(host), endBoard);
  assert.deepEqual(await pointsOf(host), recordPoints(record));
  assert.equal(await host.locator('#replay-next').isDisabled(), true);

  // The slider goes anywhere; a click on a move shows the board after it.
  await host.locator('#replay-slider').fill(String(Math.floor(total / 2)));
  await host.waitForSelector(`#replay[data-at="${Math.floor(total / 2)}"]`);
  await host.locator('#moves .mv[data-seq="1"]').click();
  await host.waitForSelector('#replay[data-seq="1"]');
  // Autoplay moves on by itself and stops when asked.
  await host.click('#replay-play');
  await host.waitForSelector('#replay[data-playing="true"]');
  const from = Number(await replayAttr(host, 'at'));
  await host.waitForFunction((n) => Number(document.querySelector('#replay').dataset.at) > n + 1, from, { timeout: 10000 });
  await host.click('#replay-play');
  await host.waitForSelector('#replay[data-playing="false"]');
  await host.keyboard.press('End');
  await host.waitForSelector(`#replay[data-at="${total}"]`);

  // The dice proof checks in the page; the record downloads; Chaturaji has no PGN4.
  await host.click('#verify');
  await host.waitForSelector('#verify-result:text("Verified")');
  assert.equal(await host.locator('#download-json').getAttribute('href'), `/games/${gameId}`);
  assert.equal(await host.locator('#download-pgn4').count(), 0);

  // Russian: the same page in its words (and a screenshot of each size).
  await host.selectOption('#lang-select', 'ru');
  await host.waitForSelector('#replay-title:text("Партия 1")');
  await host.waitForSelector('#replay-play[title="Воспроизвести"]');
  assert.deepEqual(await boardOf(host), endBoard, 'a new language keeps the position');
  await host.keyboard.press('Home');
  for (let k = 0; k < 6; k++) await host.keyboard.press('ArrowRight');
  assert.match(await host.locator('#verify-result').textContent(), /Проверено/, 'the check is said in the new language');
  await host.evaluate(() => window.scrollTo(0, 0));
  await host.screenshot({ path: path.join(SHOTS, 'replay-chaturaji-ru.png') });
  await host.setViewportSize({ width: 390, height: 844 });
  await host.waitForTimeout(100);
  assert.ok(await host.evaluate(() => document.documentElement.scrollWidth) <= 390, 'nothing wider than the phone');
  await host.screenshot({ path: path.join(SHOTS, 'replay-chaturaji-phone-ru.png'), fullPage: true });
  await host.selectOption('#lang-select', 'en');
  assert.deepEqual(host.errors || [], [], 'no script errors');
  await host.context().close();
});

test('four-player chess: the profile lists the game; its replay steps to the end and shows the final board and points; PGN4 downloads', async () => {
  const host = await newPlayer(browser);
  // Free-for-all: the three CPUs play on after Red resigns (in Teams a resignation ends the game).
  const room = await playedGame(host, 'fourchess', async (p) => {
    await p.selectOption('#opt-mode', 'ffa');
    await p.fill('#opt-move_limit', '24');
  });
  const endBoard = await boardOf(host);
  const gameId = `${room}-1`;
  const record = await storedRecord(gameId);
  const me = JSON.parse(await host.evaluate(() => localStorage.getItem('fk.player')));
  assert.ok(me && me.player_id, 'the device has a player identity');

  await host.goto(`${server.url}/?player=${encodeURIComponent(me.player_id)}`);
  const row = host.locator(`#player-games tr[data-game="${gameId}"]`);
  await row.waitFor();
  // The row: the seats, who won, and this player's result.
  assert.equal(await row.locator('.chip').count(), 4);
  const place = record.outcome.standings.find((s) => s.seat === 'red').place;
  assert.match(await row.locator('.result').textContent(), new RegExp(`Place ${place}`));
  await host.screenshot({ path: path.join(SHOTS, 'profile-recent-games.png'), fullPage: true });
  await row.locator('a.replay-link').click();
  await host.waitForURL(new RegExp(`\\?game=${gameId}$`));
  await host.waitForSelector('#replay[data-total]');
  const total = Number(await replayAttr(host, 'total'));
  assert.ok(total >= 8, `only ${total} positions`);
  // From the start, forward to the end with the "last" button and back to compare every step count.
  await host.click('#replay-first');
  await host.waitForSelector('#replay[data-at="0"]');
  await host.click('#replay-last');
  await host.waitForSelector(`#replay[data-at="${total}"]`);
  assert.deepEqual(await boardOf(host), endBoard);
  assert.deepEqual(await pointsOf(host), recordPoints(record));
  // The move list has a row per round of four (PGN4 style) and the last move marked.
  assert.ok(await host.locator('#moves .move-rows li').count() >= Math.floor(total / 4));
  assert.equal(await host.locator('#moves .mv.current').count(), 1);
  // The red side at the bottom, as Red played it; turned for another seat.
  assert.equal(await replayAttr(host, 'view'), 'red');
  await host.selectOption('#replay-view', 'green');
  await host.waitForSelector('#replay[data-view="green"]');
  assert.deepEqual(await boardOf(host), endBoard, 'turning the board moves no piece');
  await host.selectOption('#replay-view', 'red');
  // Downloads: PGN4 and the record; no dice in four-player chess.
  assert.equal(await host.locator('#download-pgn4').getAttribute('href'), `/games/${gameId}/pgn4`);
  assert.equal(await host.locator('#download-json').getAttribute('href'), `/games/${gameId}`);
  assert.equal(await host.locator('#verify').count(), 0);
  const pgn = await host.evaluate((u) => fetch(u).then((r) => r.text()), `/games/${gameId}/pgn4`);
  assert.match(pgn, /\[Variant "FFA"\]/);
  await host.keyboard.press('Home');
  for (let k = 0; k < Math.min(total, 9); k++) await host.keyboard.press('ArrowRight');
  await host.evaluate(() => window.scrollTo(0, 0));
  await host.screenshot({ path: path.join(SHOTS, 'replay-fourchess.png') });
  await host.setViewportSize({ width: 390, height: 844 });
  await host.waitForTimeout(100);
  assert.ok(await host.evaluate(() => document.documentElement.scrollWidth) <= 390, 'nothing wider than the phone');
  await host.screenshot({ path: path.join(SHOTS, 'replay-fourchess-phone.png'), fullPage: true });
  assert.deepEqual(host.errors || [], [], 'no script errors');
  await host.context().close();
});

test('an unknown game says so in the page language', async () => {
  const page = await newPlayer(browser, { locale: 'pt-BR' });
  await page.goto(`${server.url}/?game=nosuchgame-1`);
  await page.waitForSelector('#replay-error p.error:has-text("Não há partida terminada com este id.")');
  assert.deepEqual(page.errors || [], [], 'no script errors');
  await page.context().close();
});
