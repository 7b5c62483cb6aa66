// Ratings in the browser: a real rated game against this server (identity, rating changes, record,
// leaderboard, profile), and a server without the rating routes (as an older server: `/players`,
// `/leaderboard`, `/games` answer 404 with no body) must leave everything else working: seats by
// name, games, the game-over screen; the rating pages say ratings are not available.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { server, browser, useServerAndBrowser, startServer, newPlayer, createRoom, rest, resignUnlessOver, SHOTS } from './harness.mjs';

// These games are resigned at once and few: count them (min_moves 0) and list everyone with a game.
const LENIENT = { FOURKINGS_RATINGS__MIN_MOVES: '0', FOURKINGS_RATINGS__PROVISIONAL_GAMES: '1', FOURKINGS_RATINGS__PROVISIONAL_SIGMA: '9' };

useServerAndBrowser(LENIENT);

/** Make this page's server look like one without ratings: the rating routes answer a bare 404. */
async function withoutRatings(page) {
  await page.context().route((url) => /^\/(players|leaderboard|games)(\/|$)/.test(url.pathname), (route) => route.fulfill({ status: 404, body: '' }));
}

test('without the rating routes: guest seats, a rated room plays to the end, the rating pages say so', async () => {
  const host = await newPlayer(browser);
  await withoutRatings(host);
  await createRoom(host, server.url, { name: 'Lena', game: 'chaturaji', tweak: async (p) => {
    await p.check('#opt-rated');
    await p.fill('#opt-round_limit', '1');
  } });
  // No player identity could be made: the seat is a plain named seat.
  assert.equal(await host.evaluate(() => localStorage.getItem('fk.player')), null);
  assert.equal(await host.locator('#my-profile').isHidden(), true);
  await host.click('#start-game');
  // After the game ends the page looks for the game's record.
  const recordAsked = host.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/games/'), { timeout: 90000 });
  await resignUnlessOver(host);
  await host.waitForSelector('#room[data-phase="finished"]', { timeout: 30000 });
  await host.waitForSelector('#standings tbody tr[data-seat="red"]');
  // The record lookups (404) leave the screen as it is: no rating column, no record link.
  assert.equal((await recordAsked).status(), 404);
  assert.equal(await host.locator('#standings th').count(), 4);
  assert.equal(await host.locator('#record-link').count(), 0);

  await host.click('#nav-leaderboard');
  await host.waitForSelector('#ratings-error:text("Ratings are not available on this server.")');
  await host.selectOption('#pool-select', 'fourchess_ffa');
  await host.waitForSelector('#ratings-error');
  assert.match(host.url(), /\?leaderboard=fourchess_ffa$/);
  await host.goto(`${server.url}/?player=nobody`);
  await host.waitForSelector('#ratings-error:text("Ratings are not available on this server.")');
  await host.selectOption('#lang-select', 'ru');
  await host.waitForSelector('#ratings-error:text("На этом сервере рейтинга нет.")');
  assert.deepEqual(host.errors || [], [], 'no script errors');
  await host.context().close();
});

test('a rated game: the device gets a player identity, each seat shows its rating change, the record, the leaderboard and the profile', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Mira', game: 'chaturaji', tweak: async (p) => {
    await p.check('#opt-rated');
    await p.fill('#opt-round_limit', '1');
  } });
  const me = JSON.parse(await host.evaluate(() => localStorage.getItem('fk.player')));
  assert.ok(me && me.player_id && me.secret, 'a player identity was created');
  assert.equal(me.display_name, 'Mira');
  await host.click('#start-game');
  // The `rated` event brings every seat's change (CPU seats at their level's fixed anchor).
  await resignAndWaitForRating(host);
  const gameId = `${id}-1`;
  const record = await rest(server.url, 'GET', `/games/${gameId}`);
  assert.equal(record.status, 200);
  const changes = record.body.rating_changes;
  const shown = await host.locator('#standings tbody tr').evaluateAll((rows) => rows.map((r) => ({
    seat: r.dataset.seat, player: r.querySelector('.rating-change')?.dataset.player, text: r.querySelector('.rating-change')?.textContent.trim(), title: r.querySelector('.rating-change a')?.title,
  })));
  assert.equal(shown.length, 4);
  for (const row of shown) {
    const c = changes.find((x) => x.seats.includes(row.seat));
    assert.ok(c, `a change for ${row.seat}`);
    assert.equal(row.player, c.player_id);
    const num = (r) => (typeof r.display === 'number' ? Math.round(r.display) : Math.round(1000 + 40 * (r.mu - 3 * r.sigma)));
    const d = num(c.after) - num(c.before);
    assert.equal(row.text, `${num(c.after)} (${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)})`);
    assert.equal(row.title, `${num(c.before)} → ${num(c.after)} (${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)})`);
  }
  assert.equal(shown.find((r) => r.seat === 'red').player, me.player_id);
  assert.equal(await host.locator('#record-link').getAttribute('href'), `/games/${gameId}`);
  assert.equal(await host.locator('#verify-howto code').textContent(), 'fourkings verify record.json');
  await host.screenshot({ path: path.join(SHOTS, 'chaturaji-rated-game-over.png') });

  // A reload of the finished room finds the changes again (from the game record).
  await host.reload();
  await host.waitForSelector('#standings td.rating-change a', { timeout: 30000 });

  // The leaderboard of the pool lists this device's player, marked.
  await host.click('#pool-link');
  await host.waitForSelector(`#leaderboard[data-pool="chaturaji"] tr.me[data-player="${me.player_id}"]`);
  const board = (await rest(server.url, 'GET', '/leaderboard?pool=chaturaji')).body;
  const mine = board.rows.find((r) => r.player_id === me.player_id);
  assert.equal(await host.locator(`#leaderboard tr[data-player="${me.player_id}"] .rating`).textContent(), String(mine.display));
  assert.deepEqual(await host.locator('#leaderboard tbody tr td:first-child').allTextContents(), board.rows.map((r) => String(r.rank)));
  await host.screenshot({ path: path.join(SHOTS, 'leaderboard.png') });

  // The profile: the rating per pool and the history with this game.
  await host.click(`#leaderboard tr[data-player="${me.player_id}"] a`);
  await host.waitForSelector('#profile-name:text("Mira")');
  await host.waitForSelector(`#profile-history tr[data-game="${gameId}"]`);
  assert.equal(await host.locator('#profile-ratings tr[data-pool="chaturaji"] .rating').textContent(), String(mine.display));
  assert.equal(await host.locator('#my-profile').isVisible(), true);
  assert.deepEqual(host.errors || [], [], 'no script errors');
  await host.context().close();
});

/** What breaks the profile's rating history at this width and in this language: a cell whose text
 * takes more than one line (a cell's text boxes must all sit on one line), a table wider than its
 * section (it would spill out of the card). */
async function historyLayoutProblems(page) {
  return page.evaluate(() => {
    const wrapped = [...document.querySelectorAll('#profile-history td, #profile-history th')].filter((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const mids = [...range.getClientRects()].filter((r) => r.height > 0).map((r) => r.top + r.height / 2);
      return mids.length && Math.max(...mids) - Math.min(...mids) > parseFloat(getComputedStyle(cell).fontSize) / 2;
    }).map((cell) => `wrapped: ${cell.textContent.trim()}`);
    const wide = [...document.querySelectorAll('#profile-history table')]
      .filter((table) => table.getBoundingClientRect().width > table.parentElement.clientWidth + 0.5)
      .map((table) => `wider than its section: ${table.getBoundingClientRect().width} > ${table.parentElement.clientWidth}`);
    return [...wrapped, ...wide];
  });
}

/** Plays one rated Chaturaji game on `host`'s room page by resigning at once; waits for its changes. */
async function resignAndWaitForRating(host) {
  await resignUnlessOver(host);
  await host.waitForSelector('#room[data-phase="finished"]', { timeout: 30000 });
  await host.waitForSelector('#standings td.rating-change a', { timeout: 30000 });
}

test('a provisional player: marked on the profile, a rating chart per pool, not on the leaderboard', async () => {
  // The default rule (10 rated games, sigma <= 4.5); only the minimum of moves is lifted.
  const strict = await startServer({ FOURKINGS_RATINGS__MIN_MOVES: '0' });
  try {
    const host = await newPlayer(browser);
    await createRoom(host, strict.url, { name: 'Noor', game: 'chaturaji', tweak: async (p) => {
      await p.check('#opt-rated');
      await p.fill('#opt-round_limit', '1');
    } });
    const me = JSON.parse(await host.evaluate(() => localStorage.getItem('fk.player')));
    await host.click('#start-game');
    await resignAndWaitForRating(host);
    await host.click('#rematch');
    await resignAndWaitForRating(host);

    const history = (await rest(strict.url, 'GET', `/players/${me.player_id}/history?pool=chaturaji`)).body;
    assert.deepEqual(history.entries.map((e) => e.games), [2, 1]);
    await host.goto(`${strict.url}/?player=${encodeURIComponent(me.player_id)}`);
    await host.waitForSelector('#profile-ratings tr[data-pool="chaturaji"][data-provisional="true"] .tag.provisional:text("provisional")');
    await host.waitForSelector('#provisional-hint');
    // The chart: the rating before the first game and after each game, the last point marked.
    const chart = host.locator('#profile-history section[data-pool="chaturaji"] svg.rating-chart');
    await chart.waitFor();
    await host.waitForSelector('#player-games tr[data-game]');
    assert.equal(await chart.locator('circle').count(), 3 + 1);
    const points = (await chart.locator('polyline').getAttribute('points')).split(' ');
    assert.equal(points.length, 3);
    // Higher ratings are drawn higher: the y of each point follows the shown numbers.
    const shown = [history.entries[1].before.display, history.entries[1].after.display, history.entries[0].after.display];
    const ys = points.map((p) => Number(p.split(',')[1]));
    for (let i = 0; i < 2; i += 1) {
      if (shown[i + 1] > shown[i]) assert.ok(ys[i + 1] < ys[i], `${shown} ${ys}`);
      if (shown[i + 1] < shown[i]) assert.ok(ys[i + 1] > ys[i], `${shown} ${ys}`);
    }
    // Under the chart, the pool's changes newest first, each row one line, with its replay.
    assert.deepEqual(await host.locator('#profile-history table.history[data-pool="chaturaji"] tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.game)),
      history.entries.map((e) => e.game_id));
    assert.deepEqual(await historyLayoutProblems(host), []);
    await host.screenshot({ path: path.join(SHOTS, 'profile-provisional.png'), fullPage: true });
    for (const [lang, word, shot] of [['pt', 'provisório', 'profile-provisional-pt.png'], ['ru', 'предварительный', 'profile-provisional-ru.png']]) {
      await host.selectOption('#lang-select', lang);
      await host.waitForSelector(`.tag.provisional:text("${word}")`);
      assert.deepEqual(await historyLayoutProblems(host), [], lang);
      await host.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
    }

    // Not established: the leaderboard does not list the player and says who it lists.
    await host.goto(`${strict.url}/?leaderboard=chaturaji`);
    await host.waitForSelector('#leaderboard-empty');
    await host.waitForSelector('#board-rule:text("не меньше 10")');
    await host.screenshot({ path: path.join(SHOTS, 'leaderboard-empty-ru.png') });
    assert.deepEqual(host.errors || [], [], 'no script errors');
    await host.context().close();

    // The same profile on a phone, in Portuguese and in English.
    for (const [locale, word, shot] of [['pt-BR', 'provisório', 'profile-provisional-phone-pt.png'], ['en-US', 'provisional', 'profile-provisional-phone.png']]) {
      const phone = await newPlayer(browser, { locale, viewport: { width: 390, height: 844 } });
      await phone.goto(`${strict.url}/?player=${encodeURIComponent(me.player_id)}`);
      await phone.waitForSelector('#profile-history svg.rating-chart');
      await phone.waitForSelector(`.tag.provisional:text("${word}")`);
      await phone.waitForSelector('#player-games tr[data-game]');
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `no sideways scrolling (${width})`);
      assert.deepEqual(await historyLayoutProblems(phone), [], locale);
      await phone.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
      assert.deepEqual(phone.errors || [], [], 'no script errors');
      await phone.context().close();
    }
  } finally {
    await strict.stop();
  }
});
