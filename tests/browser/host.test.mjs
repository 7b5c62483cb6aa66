// The host's screen between games and the spectator's choice of side, in a real browser against
// the real server: every house rule, the turn timer, rated and public changed from the host's
// form (and only from the host's: the other players see the new settings, not the form); the
// server's list of problems shown at the fields; CPU players of a chosen level in empty seats; a
// finished game, new settings and a rematch that plays under them. A spectator turns the board to
// any seat; a player always has its own seat at the bottom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { server, browser, useServerAndBrowser, newPlayer, SHOTS, attr, createRoom, joinRoom, bottomRowSquares, rest, resignUnlessOver, waitOrExplain } from './harness.mjs';

useServerAndBrowser();

const logHas = (page, text) => page.waitForFunction((x) => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes(x)), text);

/** Fill the host's settings form: `options` by field name, then turn time, rated, public. */
async function fillSettings(page, { options = {}, turnTime, rated, isPublic }) {
  for (const [name, value] of Object.entries(options)) {
    const field = page.locator(`#settings-form [name="${name}"]`);
    const type = await field.evaluate((e) => (e.tagName === 'SELECT' ? 'select' : e.type));
    if (type === 'checkbox') await field.setChecked(value);
    else if (type === 'select') await field.selectOption(String(value));
    else await field.fill(value === null ? '' : String(value));
  }
  if (turnTime !== undefined) await page.selectOption('#set-turn_time', turnTime);
  if (rated !== undefined) await page.setChecked('#set-rated', rated);
  if (isPublic !== undefined) await page.setChecked('#set-public', isPublic);
}

test('host between games: every house rule, listed problems, CPU levels, a finished game, new settings and a rematch under them', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Asha', game: 'chaturaji' });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const guest = await newPlayer(browser);
  assert.equal(await joinRoom(guest, invite, 'Budi'), 'blue');

  // Only the host has the settings form; it starts from the room's current settings (defaults).
  await host.waitForSelector('#settings-form');
  assert.equal(await host.inputValue('#set-round_limit'), '30');
  assert.equal(await host.inputValue('#set-dice'), 'cube');
  assert.equal(await host.isChecked('#set-boat_triumph'), true);
  assert.equal(await guest.locator('#host-panel').isHidden(), true);
  assert.equal(await guest.locator('#settings-form').count(), 0);

  // A round limit out of range: the server's problem is listed at the field; nothing changes.
  const vBefore = (await rest(server.url, 'GET', `/rooms/${id}`)).body.v;
  await fillSettings(host, { options: { round_limit: 500, dice: 'long' } });
  await host.click('#save-settings');
  await host.waitForSelector('#settings-problems li[data-option="round_limit"][data-code="out_of_range"]');
  assert.match(await host.locator('#settings-problems li').first().textContent(), /^Round limit: out of range \(round_limit must be a whole number from 1 to 200, got 500\)$/);
  assert.equal(await host.locator('.field.bad[data-option="round_limit"]').count(), 1);
  const unchanged = (await rest(server.url, 'GET', `/rooms/${id}`)).body;
  assert.equal(unchanged.options.round_limit, 30);
  assert.equal(unchanged.options.dice, 'cube');
  assert.equal(unchanged.v, vBefore);

  // Every house rule changed at once, with the timer, rated and public.
  await fillSettings(host, {
    options: { dice: 'long', promotion: 'always', boat_triumph: false, throne_points: true, dice_use: 'forced', round_limit: 1, first_seat_next_game: 'fixed' },
    turnTime: '60s', rated: true, isPublic: false,
  });
  await host.click('#save-settings');
  await host.waitForSelector('#settings-status:text("Saved")');
  assert.equal(await host.locator('#settings-problems li').count(), 0);
  const saved = (await rest(server.url, 'GET', `/rooms/${id}`)).body;
  assert.deepEqual(saved.options, {
    boat_triumph: false, dice: 'long', dice_use: 'forced', first_seat_next_game: 'fixed', promotion: 'always', round_limit: 1, throne_points: true,
  });
  assert.equal(saved.turn_time, '60s');
  assert.equal(saved.rated, true);
  assert.equal(saved.public, false);
  // The other player sees the new settings and the event in words.
  await logHas(guest, 'The host changed the house rules.');
  await guest.waitForSelector('.settings:text("Dice: long (2–5)")');
  assert.match(await guest.locator('.settings').textContent(), /Round limit: 1 · .*Turn time: 60 seconds · Rated/);
  // Not public any more: the lobby does not list it.
  assert.equal((await rest(server.url, 'GET', '/rooms')).body.rooms.some((r) => r.id === id), false);

  // CPU players of chosen levels in the two empty seats.
  await host.selectOption('#cpu-level-yellow', '3');
  await host.click('#cpu-yellow');
  await host.waitForSelector('.seat-yellow .who:text("CPU · hard")');
  await host.selectOption('#cpu-level-green', '2');
  await host.click('#cpu-green');
  await host.waitForSelector('.seat-green .who:text("CPU · medium")');
  await guest.waitForSelector('.seat-yellow .who:text("CPU · hard")');
  assert.equal(await host.locator('#host-cpu .cpu-pick').count(), 0, 'no empty seat is left to fill');
  const seats = (await rest(server.url, 'GET', `/rooms/${id}`)).body.seats;
  assert.deepEqual(seats.slice(2), [{ kind: 'cpu', level: 3 }, { kind: 'cpu', level: 2 }]);
  await host.screenshot({ path: path.join(SHOTS, 'host-settings.png') });

  // An edit not saved yet is not lost by "Start the game": it is saved first.
  await fillSettings(host, { options: { boat_triumph: true } });
  // While the game runs the host's settings form and CPU seats are gone (the panel keeps only its
  // players' section, for moderation); the timer runs.
  await host.click('#start-game');
  // Both humans' first throws can be unusable (two elephants, blocked at the start: the turn passes at
  // once, C.9; 1 in 256 with long dice), and the CPUs then end the one-round game within a second,
  // before a page may have looked: the running game's screen is checked while it runs.
  for (const p of [host, guest]) await waitOrExplain(p, '#room[data-phase="playing"], #room[data-phase="finished"]');
  if ((await attr(host, 'phase')) === 'playing') {
    assert.equal(await host.locator('#host-form').isHidden(), true);
    assert.equal(await host.locator('#host-cpu').isHidden(), true);
    await waitOrExplain(host, '#turn:text("s left"), #room[data-phase="finished"]');
  }
  assert.equal((await rest(server.url, 'GET', `/rooms/${id}`)).body.options.boat_triumph, true);
  assert.equal(await host.evaluate(() => window.fourkings.game.options.boat_triumph), true);

  // The two humans resign; the CPUs finish the one round.
  for (const p of [host, guest]) await resignUnlessOver(p);
  for (const p of [host, guest]) await p.waitForSelector('#room[data-phase="finished"]', { timeout: 30000 });
  await host.waitForSelector('#standings tbody tr');

  // Between games: the form is back with the saved values; change them for the next game.
  await host.waitForSelector('#settings-form');
  assert.equal(await host.inputValue('#set-round_limit'), '1');
  assert.equal(await host.inputValue('#set-dice'), 'long');
  assert.equal(await host.inputValue('#set-turn_time'), '60s');
  assert.equal(await host.isChecked('#set-rated'), true);
  assert.equal(await host.isChecked('#set-throne_points'), true);
  // An edit in progress survives events and a language switch.
  await fillSettings(host, { options: { dice: 'cube', round_limit: 2, promotion: 'lost_type_only' }, turnTime: 'none', rated: false, isPublic: true });
  await host.selectOption('#lang-select', 'id');
  await host.waitForSelector('#save-settings:text("Simpan pengaturan")');
  assert.equal(await host.inputValue('#set-round_limit'), '2');
  await host.click('#save-settings');
  await host.waitForSelector('#settings-status:text("Tersimpan")');
  await host.selectOption('#lang-select', 'en');
  const next = (await rest(server.url, 'GET', `/rooms/${id}`)).body;
  assert.equal(next.phase, 'finished');
  assert.deepEqual([next.options.dice, next.options.round_limit, next.options.promotion, next.turn_time, next.rated, next.public], ['cube', 2, 'lost_type_only', 'none', false, true]);

  // The rematch plays under the new settings, from the same first seat (first_seat_next_game: fixed).
  await host.click('#rematch');
  for (const p of [host, guest]) await p.waitForSelector('#room[data-phase="playing"]');
  await logHas(guest, 'Game 2 starts; Red moves first.');
  const game2 = await guest.evaluate(() => ({ ...window.fourkings.game.options, no: window.fourkings.game.game_no }));
  assert.deepEqual([game2.no, game2.dice, game2.round_limit, game2.promotion], [2, 'cube', 2, 'lost_type_only']);
  assert.equal(await host.locator('#host-form').isHidden(), true);
  // No deadline any more.
  assert.doesNotMatch(await host.locator('#turn').textContent(), /s left/);

  for (const p of [host, guest]) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('the host sees the server refuse settings during a game (a stale form) with its reason', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Ines', game: 'fourchess' });
  await host.waitForSelector('#settings-form');
  // Start the game behind the page's back (the REST call the start button makes) after cutting
  // the page's connection, so the page still shows the form when the host saves.
  await host.evaluate(() => { window.fourkings.conn.close(); });
  const token = await host.evaluate((room) => localStorage.getItem(`fk.host.${room}`), id);
  const started = await fetch(`${server.url}/rooms/${id}/start`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  assert.equal(started.status, 200);
  await fillSettings(host, { options: { mode: 'ffa' } });
  await host.click('#save-settings');
  await host.waitForSelector('#settings-problems li[data-code="game_running"]');
  assert.equal(await host.locator('#settings-problems li').textContent(), 'Not possible while a game is running.');
  assert.equal((await rest(server.url, 'GET', `/rooms/${id}`)).body.options.mode, 'teams');
  assert.deepEqual(host.errors || [], []);
  await host.context().close();
});

test('four-player chess settings: mode and an empty move limit, then a bad move limit is listed', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Jun', game: 'fourchess', tweak: (p) => p.fill('#opt-move_limit', '300') });
  await host.waitForSelector('#settings-form');
  assert.equal(await host.inputValue('#set-move_limit'), '300');
  await fillSettings(host, { options: { mode: 'ffa', move_limit: null, show_legal_moves: false, rotate_starter: false } });
  await host.click('#save-settings');
  await host.waitForSelector('#settings-status:text("Saved")');
  assert.deepEqual((await rest(server.url, 'GET', `/rooms/${id}`)).body.options, { mode: 'ffa', move_limit: null, show_legal_moves: false, rotate_starter: false });
  await fillSettings(host, { options: { move_limit: 0 } });
  await host.click('#save-settings');
  await host.waitForSelector('#settings-problems li[data-option="move_limit"][data-code="out_of_range"]', { timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}: ${await host.locator('#host-panel').innerText()}`);
  });
  assert.equal((await rest(server.url, 'GET', `/rooms/${id}`)).body.options.move_limit, null);
  assert.deepEqual(host.errors || [], []);
  await host.context().close();
});

/** Whether the bottom row as drawn is `seat`'s home edge (Red rank 1, Yellow the last rank, Blue file a,
 * Green the last file; thrones C.20: Red d1, Blue a5, Yellow e8, Green h4), all 8 squares of it. Squares,
 * not pieces: CPU seats may already have moved (a throw red cannot use passes the turn on). */
const EDGE = { chaturaji: { lastFile: 'h', lastRank: 8 }, fourchess: { lastFile: 'n', lastRank: 14 } };
async function homeAtBottom(page, game, seat) {
  const squares = await bottomRowSquares(page);
  const { lastFile, lastRank } = EDGE[game];
  const onEdge = (name) => {
    const file = name[0];
    const rank = Number(name.slice(1));
    return { red: rank === 1, yellow: rank === lastRank, blue: file === 'a', green: file === lastFile }[seat];
  };
  return squares.length === 8 && squares.every(onEdge) ? 'home' : squares.join(' ');
}

test('a spectator chooses the side at the bottom; a player always sees its own seat there', async () => {
  for (const game of ['chaturaji', 'fourchess']) {
    const host = await newPlayer(browser);
    const id = await createRoom(host, server.url, { name: 'Kofi', game });
    await host.click('#start-game'); // three CPUs join
    await host.waitForSelector('#room[data-phase="playing"]');
    const invite = await host.locator('#invite-link').getAttribute('href');
    assert.match(invite, new RegExp(id));

    const spectator = await newPlayer(browser);
    await spectator.goto(invite);
    await spectator.waitForSelector('#view-seat');
    await spectator.waitForSelector('#room[data-view="red"]');
    assert.equal(await homeAtBottom(spectator, game, 'red'), 'home');
    for (const seat of ['yellow', 'green', 'blue']) {
      await spectator.selectOption('#view-seat', seat);
      await spectator.waitForSelector(`#room[data-view="${seat}"]`);
      assert.equal(await homeAtBottom(spectator, game, seat), 'home', `${game} seen from ${seat}`);
    }
    if (game === 'fourchess') await spectator.screenshot({ path: path.join(SHOTS, 'fourchess-spectator-blue.png') });
    // The choice stays on this device.
    await spectator.reload();
    await spectator.waitForSelector('#room[data-view="blue"]');
    assert.equal(await spectator.inputValue('#view-seat'), 'blue');
    assert.equal(await homeAtBottom(spectator, game, 'blue'), 'home');

    // A player has no such choice: even with a remembered spectator side, its own seat is at the bottom.
    await host.evaluate(() => localStorage.setItem('fk.view', 'green'));
    await host.reload();
    await host.waitForSelector('#room[data-my-seat="red"][data-view="red"]');
    assert.equal(await host.locator('#view-seat').count(), 0);
    assert.equal(await homeAtBottom(host, game, 'red'), 'home');
    for (const p of [host, spectator]) {
      assert.deepEqual(p.errors || [], [], 'no script errors');
      await p.context().close();
    }
  }
});
