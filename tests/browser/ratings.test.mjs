// Ratings in the browser. A server without the rating routes (as an older server: `/players`,
// `/leaderboard`, `/games` answer 404 with no body) must leave everything else working: seats by
// name, games, the game-over screen; the rating pages say ratings are not available.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPlayer, createRoom } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

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
  await host.waitForSelector('#room[data-phase="playing"]');
  // After the game ends the page looks for the game's record.
  const recordAsked = host.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/games/'), { timeout: 30000 });
  await host.click('#resign');
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
