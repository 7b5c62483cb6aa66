// End to end in a real browser against the real server: a host creates a room in the lobby, three
// more browser contexts (three devices) join by the invite link, they play real moves of both games
// by click, drag and keyboard, one reloads mid-game and is back in its seat, illegal input is refused
// with a message, a spectator watches, the language switch changes the UI, a game ends with the
// standings and the verified dice seed, and the host starts a rematch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { server, browser, useServerAndBrowser, newPlayer, SHOTS, roomEl as room, attr, joinRoom, bottomRowSeats, createRoom as createRoomAt } from './harness.mjs';

useServerAndBrowser();

/** Create a room from the lobby form of this suite's server; returns the room id. */
const createRoom = (page, opts) => createRoomAt(page, server.url, opts);

/** The page whose seat is to act and has received its legal moves. */
async function pageToAct(pages, { needLegal = true } = {}) {
  for (let i = 0; i < 200; i++) {
    for (const p of pages) {
      const mine = await attr(p, 'my-seat');
      const toAct = await attr(p, 'to-act');
      const legal = Number(await attr(p, 'legal'));
      if (mine && mine === toAct && (!needLegal || legal > 0)) return p;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nobody to act');
}

/** One Chaturaji action by the seat to act, by `how`: 'click', 'drag' or 'keyboard'. */
async function chaturajiStep(pages, how) {
  const p = await pageToAct(pages);
  const v = Number(await attr(p, 'v'));
  const movable = p.locator('.sq.movable');
  if ((await movable.count()) === 0) {
    // Only "end turn" is left (a usable die may be declined under the default `optional`).
    await p.click('#end-turn');
    await p.waitForFunction((old) => Number(document.querySelector('#room').dataset.v) > old, v);
    return null;
  }
  const from = await movable.first().getAttribute('data-sq');
  const piece = await movable.first().getAttribute('data-piece');
  let to;
  if (how === 'drag') {
    to = await p.evaluate((sq) => [...window.fourkings.moveIndex().get(sq).keys()][0], from);
    await p.dragAndDrop(`.sq[data-sq="${from}"]`, `.sq[data-sq="${to}"]`);
  } else {
    if (how === 'keyboard') {
      await p.focus(`.sq[data-sq="${from}"]`);
      await p.keyboard.press('Enter');
    } else {
      await p.click(`.sq[data-sq="${from}"]`);
    }
    await p.waitForSelector('.sq.target');
    to = await p.locator('.sq.target').first().getAttribute('data-sq');
    if (how === 'keyboard') {
      // Walk there with the arrow keys is covered elsewhere; Enter on the focused target moves.
      await p.focus(`.sq[data-sq="${to}"]`);
      await p.keyboard.press('Enter');
    } else {
      await p.click(`.sq[data-sq="${to}"]`);
    }
  }
  await p.waitForFunction((old) => Number(document.querySelector('#room').dataset.v) > old, v, { timeout: 10000 }).catch(async () => {
    throw new Error(`${how} ${piece} ${from}-${to} not applied: ${await p.locator('#message').textContent()} ${JSON.stringify(await room(p).evaluate((r) => r.dataset))}`);
  });
  // The piece stands on its target now, in every browser.
  for (const other of pages) {
    await other.waitForFunction(([sq, pc]) => document.querySelector(`.sq[data-sq="${sq}"]`)?.dataset.piece === pc, [to, piece], { timeout: 10000 })
      .catch(async () => {
        throw new Error(`${how} ${piece} ${from}-${to}: ${await p.locator('#message').textContent()} | ${(await other.locator('#log').textContent()).slice(-300)} | ${await other.locator(`.sq[data-sq="${to}"]`).getAttribute('data-piece')}`);
      });
  }
  return { from, to, piece };
}

test('Chaturaji: create, join by invite, play by click, drag and keyboard, reload, refusals, languages, game over, rematch', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, { name: 'Asha', game: 'chaturaji' });
  const invite = await host.locator('#invite-link').getAttribute('href');
  assert.match(invite, new RegExp(`\\?room=${id}$`));

  const others = [];
  const names = ['Budi', 'Chidi', 'Dasha'];
  for (const n of names) others.push(await newPlayer(browser));
  // The third player uses a phone-sized screen.
  await others[2].setViewportSize({ width: 390, height: 844 });
  const seats = [];
  for (let i = 0; i < 3; i++) seats.push(await joinRoom(others[i], invite, names[i]));
  assert.deepEqual(seats, ['blue', 'yellow', 'green']);
  const pages = [host, ...others];

  // Everyone sees everyone's name; the lobby lists the open room.
  for (const p of pages) await p.waitForFunction(() => document.querySelectorAll('.seat .who').length === 4 && [...document.querySelectorAll('.seat .who')].map((e) => e.textContent).join() === 'Asha,Budi,Chidi,Dasha');
  const lobby = await newPlayer(browser);
  await lobby.goto(`${server.url}/`);
  await lobby.waitForSelector(`.room-row[data-room="${id}"]`);

  // A spectator watches by the same link without taking a seat.
  const spectator = await newPlayer(browser);
  await spectator.goto(invite);
  await spectator.waitForSelector('.watching');

  await host.click('#start-game');
  for (const p of [...pages, spectator]) await p.waitForSelector('#room[data-phase="playing"]');
  // The board is turned so that each seat is at the bottom: its own pieces on the bottom row.
  for (const p of pages) {
    const seat = await attr(p, 'my-seat');
    const bottomRow = await bottomRowSeats(p);
    assert.ok(bottomRow.filter((s) => s === seat).length === 4, `${seat}: bottom row holds ${bottomRow}`);
  }

  // Arrow keys walk the board as it is shown: for Red, up is toward rank 8; for Blue (turned a
  // quarter), up is toward the h-file.
  await host.focus('.sq[data-sq="a1"]');
  await host.keyboard.press('ArrowUp');
  await host.keyboard.press('ArrowRight');
  assert.equal(await host.evaluate(() => document.activeElement.dataset.sq), 'b2');
  await others[0].focus('.sq[data-sq="a1"]');
  await others[0].keyboard.press('ArrowUp');
  assert.equal(await others[0].evaluate(() => document.activeElement.dataset.sq), 'b1');

  // Dice are shown with face, class and state.
  await host.waitForSelector('.die[data-die="0"]');
  const face = Number(await host.locator('.die[data-die="0"]').getAttribute('data-face'));
  assert.ok(face >= 1 && face <= 6);

  // A page that is not to act is told so.
  const toAct = await pageToAct(pages);
  const idle = pages.find((p) => p !== toAct);
  await idle.click('.sq[data-piece]');
  await idle.waitForSelector('#message:text("It is not your turn.")');

  // Spectators cannot move.
  await spectator.click('.sq[data-piece]');
  await spectator.waitForSelector('#message:text("spectators cannot move")');

  // Real moves: by click, by drag, by keyboard.
  const moved = [];
  for (const how of ['click', 'drag', 'keyboard', 'click', 'click', 'drag']) {
    const m = await chaturajiStep(pages, how);
    if (m) moved.push(m);
  }
  assert.ok(moved.length >= 3, `only ${moved.length} moves were played`);
  await host.waitForFunction(() => document.querySelectorAll('#log li').length > 8);

  // An illegal click is refused with a message: select a movable piece, click a square that is not
  // one of its targets.
  {
    const p = await pageToAct(pages);
    const movable = p.locator('.sq.movable');
    if ((await movable.count()) > 0) {
      await movable.first().click();
      await p.waitForSelector('.sq.target');
      const bad = await p.evaluate(() => [...document.querySelectorAll('.sq:not(.target):not(.selected)')].find((c) => !c.dataset.piece)?.dataset.sq);
      await p.click(`.sq[data-sq="${bad}"]`);
      await p.waitForSelector('#message:text("Illegal move")');
    }
  }

  await host.screenshot({ path: path.join(SHOTS, 'chaturaji.png') });
  await others[2].screenshot({ path: path.join(SHOTS, 'chaturaji-phone.png') });

  // Reload mid-game: back in the same seat, with the same position.
  const reloader = others[0];
  const seatBefore = await attr(reloader, 'my-seat');
  const boardBefore = await host.evaluate(() => [...document.querySelectorAll('.sq[data-piece]')].map((c) => c.dataset.sq + c.dataset.piece).sort().join());
  await reloader.reload();
  await reloader.waitForSelector(`#room[data-my-seat="${seatBefore}"]`);
  await reloader.waitForSelector('#resign');
  const boardAfter = await reloader.evaluate(() => [...document.querySelectorAll('.sq[data-piece]')].map((c) => c.dataset.sq + c.dataset.piece).sort().join());
  assert.equal(boardAfter, boardBefore);
  assert.equal(await reloader.locator(`.seat-${seatBefore} .tag`).first().textContent(), 'you');
  // and can still play when its turn comes.
  for (let i = 0; i < 4; i++) await chaturajiStep(pages, 'click');

  // A dropped connection shows a banner and comes back by itself, still in the seat.
  await others[1].evaluate(() => window.fourkings.conn.ws.close());
  await others[1].waitForSelector('#banner:text("Connection lost")');
  await others[1].waitForSelector('#banner', { state: 'hidden' });
  assert.equal(await attr(others[1], 'my-seat'), 'yellow');
  for (let i = 0; i < 2; i++) await chaturajiStep(pages, 'click');

  // Language switch: Russian labels everywhere on this page.
  await host.selectOption('#lang-select', 'ru');
  await host.waitForSelector('#resign:text("Сдаться")');
  assert.equal(await host.locator('.seat-red .seat-name').textContent(), 'Красный');
  assert.equal(await host.locator('#howto-chaturaji').textContent(), 'Как играть в чатураджи');
  await host.selectOption('#lang-select', 'sw');
  await host.waitForSelector('#resign:text("Kubali kushindwa")');
  await host.selectOption('#lang-select', 'en');
  await host.waitForSelector('#resign:text("Resign")');

  // Three resignations end the game (C.22): standings, the revealed seed, verified in the browser.
  for (const p of others) {
    await p.click('#resign');
    await p.waitForFunction(() => !document.querySelector('#resign') || document.querySelector('#room').dataset.phase === 'finished' || true);
  }
  for (const p of pages) {
    await p.waitForSelector('#room[data-phase="finished"]', { timeout: 20000 }).catch(async () => {
      throw new Error(`not finished: ${await p.locator('#message').textContent()} | ${(await p.locator('#log').textContent()).slice(-600)}`);
    });
  }
  await host.waitForSelector('#standings tbody tr');
  assert.equal(await host.locator('#standings tbody tr').count(), 4);
  assert.equal(await host.locator('#standings tbody tr').first().getAttribute('data-seat'), 'red');
  assert.equal(await host.locator('.seat-blue .tag:text("resigned")').count(), 1);
  await host.waitForSelector('#dice-seed');
  await host.click('#verify');
  await host.waitForSelector('#verify-result:text("Verified")');
  await host.screenshot({ path: path.join(SHOTS, 'chaturaji-game-over.png') });

  // Rematch: a second game starts for everyone.
  await host.click('#rematch');
  for (const p of pages) await p.waitForSelector('#room[data-phase="playing"]');
  await host.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('Game 2 starts')));

  for (const p of [...pages, spectator, lobby]) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('four-player chess: legal moves hidden by house rule, real opening moves, server refusal, promotion-free play', async () => {
  const host = await newPlayer(browser);
  await createRoom(host, {
    name: 'Eve',
    game: 'fourchess',
    tweak: async (p) => {
      await p.uncheck('#opt-show_legal_moves');
      await p.selectOption('#opt-turn_time', '60s');
    },
  });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const others = [];
  for (const n of ['Femi', 'Gita', 'Hugo']) {
    const p = await newPlayer(browser, { locale: n === 'Gita' ? 'pt-BR' : 'en-US' });
    await joinRoom(p, invite, n);
    others.push(p);
  }
  const pages = [host, ...others];
  // The Portuguese browser speaks Portuguese without being asked.
  await others[1].waitForSelector('#resign:text("Desistir")', { state: 'attached' }).catch(() => {});
  assert.equal(await others[1].locator('.seat-red .seat-name').textContent(), 'Vermelho');

  await host.click('#start-game');
  for (const p of pages) await p.waitForSelector('#room[data-phase="playing"]');
  // The turn timer counts down for everyone.
  await host.waitForSelector('#turn:text("s left")');
  const bySeat = {};
  for (const p of pages) bySeat[await attr(p, 'my-seat')] = p;

  // With legal moves hidden the server judges each move: an impossible pawn jump is refused with
  // the protocol's error, in words.
  const red = bySeat.red;
  await red.click('.sq[data-sq="d2"]');
  await red.click('.sq[data-sq="d6"]');
  await red.waitForSelector('#message:text("The server refused that move")');
  assert.equal(await red.locator('.sq[data-sq="d2"]').getAttribute('data-piece'), 'red:P');

  // Real moves, one per seat, by click; the second round partly by drag.
  const moves = [['red', 'h2', 'h3'], ['blue', 'b7', 'c7'], ['yellow', 'g13', 'g12'], ['green', 'm8', 'l8'],
    ['red', 'e2', 'e4'], ['blue', 'b9', 'd9'], ['yellow', 'j13', 'j11'], ['green', 'm9', 'k9']];
  for (const [i, [seat, from, to]] of moves.entries()) {
    const p = bySeat[seat];
    await p.waitForSelector(`#room[data-to-act="${seat}"]`);
    if (i >= 4 && i % 2 === 0) {
      await p.dragAndDrop(`.sq[data-sq="${from}"]`, `.sq[data-sq="${to}"]`);
    } else {
      await p.click(`.sq[data-sq="${from}"]`);
      await p.click(`.sq[data-sq="${to}"]`);
    }
    for (const q of pages) {
      await q.waitForFunction(([sq, s]) => document.querySelector(`.sq[data-sq="${sq}"]`)?.dataset.piece === `${s}:P`, [to, seat], { timeout: 10000 })
        .catch(async (e) => { throw new Error(`${seat} ${from}-${to}: ${await p.locator('#message').textContent()} ${JSON.stringify(await room(q).evaluate((r) => r.dataset))}`); });
    }
  }
  await host.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('Green: pawn m9–k9')));

  // Reload mid-game on a second device: the same seat comes back.
  await bySeat.blue.reload();
  await bySeat.blue.waitForSelector('#room[data-my-seat="blue"]');
  assert.equal(await bySeat.blue.locator('.sq[data-sq="d9"]').getAttribute('data-piece'), 'blue:P');

  await host.screenshot({ path: path.join(SHOTS, 'fourchess.png') });

  // A player who closes the page keeps the seat and is shown as away.
  await bySeat.green.context().close();
  await host.waitForSelector('.seat-green .tag:text("away")');
  delete bySeat.green;
  pages.splice(pages.indexOf(pages.find((p) => p.isClosed())), 1);
  await bySeat.yellow.screenshot({ path: path.join(SHOTS, 'fourchess-yellow-view.png') });

  for (const p of pages) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('four-player chess, teams: highlighted legal moves and the promotion choice on rank 11', async () => {
  const host = await newPlayer(browser);
  await createRoom(host, { name: 'Ines', game: 'fourchess' });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const pages = [host];
  for (const n of ['Jun', 'Kofi', 'Lena']) {
    const p = await newPlayer(browser);
    await joinRoom(p, invite, n);
    pages.push(p);
  }
  await host.click('#start-game');
  const bySeat = {};
  for (const p of pages) {
    await p.waitForSelector('#room[data-phase="playing"]');
    bySeat[await attr(p, 'my-seat')] = p;
  }
  async function move(seat, from, to) {
    const p = bySeat[seat];
    await p.waitForSelector(`#room[data-to-act="${seat}"]`);
    await p.waitForFunction(() => Number(document.querySelector('#room').dataset.legal) > 0);
    await p.click(`.sq[data-sq="${from}"]`);
    // The legal targets are highlighted (house rule on by default).
    await p.waitForSelector(`.sq.target[data-sq="${to}"]`);
    await p.click(`.sq[data-sq="${to}"]`);
  }
  // Red walks the d-pawn to rank 11 while the others move a knight back and forth.
  const route = ['d2', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9', 'd10'];
  const shuffle = { blue: ['a10', 'c9'], yellow: ['e14', 'f12'], green: ['n10', 'l9'] };
  for (let i = 0; i + 1 < route.length; i++) {
    await move('red', route[i], route[i + 1]);
    for (const seat of ['blue', 'yellow', 'green']) {
      const [a, b] = shuffle[seat];
      await move(seat, i % 2 === 0 ? a : b, i % 2 === 0 ? b : a);
    }
  }
  const red = bySeat.red;
  await red.waitForSelector('#room[data-to-act="red"]');
  await red.waitForFunction(() => Number(document.querySelector('#room').dataset.legal) > 0);
  await red.click('.sq[data-sq="d10"]');
  await red.click('.sq[data-sq="d11"]');
  await red.waitForSelector('#promotion button[data-kind="knight"]');
  assert.deepEqual(await red.locator('#promotion button').evaluateAll((bs) => bs.map((b) => b.dataset.kind).sort()), ['bishop', 'knight', 'queen', 'rook']);
  await red.click('#promotion button[data-kind="knight"]');
  for (const p of pages) await p.waitForFunction(() => document.querySelector('.sq[data-sq="d11"]')?.dataset.piece === 'red:N');
  await host.waitForFunction(() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('becomes a knight')));
  await red.screenshot({ path: path.join(SHOTS, 'fourchess-promotion.png') });
  for (const p of pages) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('how-to-play pages exist for both games in every language', async () => {
  const page = await newPlayer(browser);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#create-form');
  await page.screenshot({ path: path.join(SHOTS, 'lobby.png') });
  for (const [lang, chaturaji, fourchess] of [
    ['en', 'Chaturaji: rules and how to play', 'Four-player chess: rules and how to play'],
    ['sw', 'Chaturaji: kanuni na jinsi ya kucheza', 'Chesi ya wachezaji wanne: kanuni na jinsi ya kucheza'],
    ['id', 'Aturan & cara bermain Chaturaji', 'Aturan & cara bermain catur empat pemain'],
    ['ru', 'Чатураджи: правила игры', 'Шахматы на четверых: правила игры'],
    ['pt', 'Regras e instruções de Chaturaji', 'Regras e instruções de xadrez a quatro'],
  ]) {
    await page.goto(`${server.url}/howto.html?game=chaturaji`);
    await page.selectOption('#lang-select', lang);
    await page.waitForSelector(`#rules h1:text("${chaturaji}")`);
    assert.ok((await page.locator('#rules li').count()) > 8);
    await page.goto(`${server.url}/howto.html?game=fourchess`);
    await page.waitForSelector(`#rules h1:text("${fourchess}")`);
    assert.ok((await page.locator('#rules table').count()) >= 2);
  }
  assert.deepEqual(page.errors || [], []);
  await page.context().close();
});
