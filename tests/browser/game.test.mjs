// The game screen in a real browser against the real server: last-move highlights on light and
// dark squares of both boards, check marks (Teams and FFA), the move list built from the server's
// replay (the same after a reload) and stepping through it, the tab title and the WebAudio sound on
// your turn, Teams partners and the team result, a resigned seat's screen, the phone layout with the
// dice in sight on your turn, and no page wider than a phone in any of the five languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { server, browser, useServerAndBrowser, newPlayer, SHOTS, attr, createRoom, joinRoom } from './harness.mjs';

useServerAndBrowser();

/** Count the oscillators the page starts (every sound of sounds.js is WebAudio oscillators). */
async function countSounds(page) {
  await page.addInitScript(() => {
    window.oscillators = 0;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    const orig = Ctx.prototype.createOscillator;
    Ctx.prototype.createOscillator = function counted() {
      window.oscillators += 1;
      return orig.call(this);
    };
  });
}

/** A four-player chess room of four browser players; pages by seat. */
async function fourchessTable(mode, locales = {}) {
  const host = await newPlayer(browser, { locale: locales.red || 'en-US' });
  await countSounds(host);
  await createRoom(host, server.url, { name: 'Ines', game: 'fourchess', tweak: (p) => p.selectOption('#opt-mode', mode) });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const bySeat = { red: host };
  for (const [name, seat] of [['Jun', 'blue'], ['Kofi', 'yellow'], ['Lena', 'green']]) {
    const p = await newPlayer(browser, { locale: locales[seat] || 'en-US' });
    assert.equal(await joinRoom(p, invite, name), seat);
    bySeat[seat] = p;
  }
  await host.click('#start-game');
  for (const p of Object.values(bySeat)) await p.waitForSelector('#room[data-phase="playing"]');
  return bySeat;
}

async function move(bySeat, seat, from, to) {
  const p = bySeat[seat];
  await p.waitForSelector(`#room[data-to-act="${seat}"]`);
  await p.waitForFunction(() => Number(document.querySelector('#room').dataset.legal) > 0);
  await p.click(`.sq[data-sq="${from}"]`);
  await p.click(`.sq[data-sq="${to}"]`);
  for (const q of Object.values(bySeat)) {
    await q.waitForFunction(([sq, s]) => document.querySelector(`.sq[data-sq="${sq}"]`)?.dataset.piece?.startsWith(`${s}:`), [to, seat]);
  }
}

/** The fill the page paints over a square for the last-move highlight. */
const lastFill = (page, sq) => page.evaluate((s) => {
  const cell = document.querySelector(`.sq[data-sq="${s}"]`);
  return { last: cell.classList.contains('last'), shade: cell.classList.contains('dark') ? 'dark' : 'light', fill: getComputedStyle(cell.querySelector('.hl-last')).fill };
}, sq);

function assertHighlighted(h, shade, what) {
  assert.equal(h.last, true, `${what} is marked as the last move`);
  assert.equal(h.shade, shade, `${what} is a ${shade} square`);
  assert.notEqual(h.fill, 'none', `${what}: highlight painted`);
  assert.doesNotMatch(h.fill, /rgba\(0, 0, 0, 0\)|transparent/, `${what}: highlight visible (${h.fill})`);
}

/** Red's queen checks Blue's king on a7 by discovery (F.9): the diagonal g1–a7 opens. */
async function checkBlue(bySeat) {
  await move(bySeat, 'red', 'h2', 'h3');
  await move(bySeat, 'blue', 'b6', 'c6');
  await move(bySeat, 'yellow', 'g13', 'g12');
  await move(bySeat, 'green', 'm8', 'l8');
  await move(bySeat, 'red', 'f2', 'f3');
}

const moveList = (page) => page.evaluate(() => document.querySelector('#moves').innerHTML);
/** The move list's cells in order, as `row|seq|html`: what the list says, without which move is current. */
const moveCells = (page) => page.evaluate(() => [...document.querySelectorAll('#moves li')]
  .flatMap((li, row) => [...li.querySelectorAll('.mv')].map((b) => `${row}|${b.dataset.seq}|${b.innerHTML}`)));

test('four-player chess Teams: highlights, check mark, move list across a reload, stepping, your-turn title and sound, partners, team result', async () => {
  const bySeat = await fourchessTable('teams');
  const { red, blue } = bySeat;
  // Red to move first: the tab says so and the turn sound was made with WebAudio.
  await red.waitForFunction(() => document.title === '● Your turn — fourkings');
  assert.notEqual(await blue.title(), '● Your turn — fourkings');
  await red.waitForFunction(() => window.oscillators > 0 && window.fourkings.sounds.played.includes('turn'));
  // Partners are named.
  assert.equal(await blue.locator('#teams').textContent(), '● Red & ■ Yellow vs ▲ Blue & ◆ Green');

  await move(bySeat, 'red', 'h2', 'h3');
  // h2 is a dark square, h3 a light one: the highlight shows on both, on every screen.
  for (const p of [red, blue]) {
    assertHighlighted(await lastFill(p, 'h2'), 'dark', 'h2');
    assertHighlighted(await lastFill(p, 'h3'), 'light', 'h3');
  }
  await move(bySeat, 'blue', 'b6', 'c6');
  await move(bySeat, 'yellow', 'g13', 'g12');
  await move(bySeat, 'green', 'm8', 'l8');
  await move(bySeat, 'red', 'f2', 'f3');
  // Blue's king is in check: marked on every board, and `+` in the move list.
  for (const p of Object.values(bySeat)) {
    await p.waitForSelector('.sq.check[data-sq="a7"]');
    assert.equal(await p.locator('.sq.check').count(), 1);
  }
  assert.match(await red.locator('#moves').innerText(), /1\.\s*h2-h3\s*b6-c6\s*g13-g12\s*m8-l8\s*2\.\s*f2-f3\+/);
  await blue.screenshot({ path: path.join(SHOTS, 'fourchess-check.png') });

  // The move list is the server's: the same after a reload (built from the replayed positions).
  const before = await moveList(blue);
  await blue.reload();
  await blue.waitForSelector('#room[data-my-seat="blue"]');
  await blue.waitForFunction((html) => document.querySelector('#moves').innerHTML === html, before, { timeout: 5000 })
    .catch(async () => assert.equal(await moveList(blue), before));
  await blue.waitForSelector('.sq.check[data-sq="a7"]');
  assertHighlighted(await lastFill(blue, 'f3'), 'light', 'f3 after the reload');

  // Stepping back: the first move shows the board after h2-h3 only; arrow keys walk on; back to the game.
  await blue.click('.mv[data-seq="0"]');
  await blue.waitForSelector('#room[data-viewing="0"]');
  assert.equal(await blue.locator('.sq[data-sq="h3"]').getAttribute('data-piece'), 'red:P');
  assert.equal(await blue.locator('.sq[data-sq="b6"]').getAttribute('data-piece'), 'blue:P');
  assert.equal(await blue.locator('#viewing-text').textContent(), 'Move 1 of 5');
  await blue.keyboard.press('ArrowRight');
  await blue.waitForSelector('#room[data-viewing="1"]');
  assert.equal(await blue.locator('.sq[data-sq="c6"]').getAttribute('data-piece'), 'blue:P');
  assert.equal(await blue.locator('.sq[data-sq="g13"]').getAttribute('data-piece'), 'yellow:P');
  await blue.keyboard.press('ArrowLeft');
  await blue.waitForSelector('#room[data-viewing="0"]');
  await blue.screenshot({ path: path.join(SHOTS, 'fourchess-move-list.png') });
  // The live game goes on meanwhile: Blue answers the check after coming back.
  await blue.click('#back-to-game');
  await blue.waitForSelector('#room[data-viewing=""]');
  assert.equal(await blue.locator('.sq[data-sq="g12"]').getAttribute('data-piece'), 'yellow:P');
  // Red resigns: the game is over and Blue & Green win (the panel says so, not four "1st").
  await red.click('#resign');
  for (const p of Object.values(bySeat)) await p.waitForSelector('#room[data-phase="finished"]');
  assert.equal(await blue.locator('#team-result').textContent(), '▲ Blue & ◆ Green win.');
  await red.waitForFunction(() => window.fourkings.sounds.played.includes('end'));
  await red.screenshot({ path: path.join(SHOTS, 'fourchess-teams-over.png') });
  for (const p of Object.values(bySeat)) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('four-player chess FFA: check mark, a resigned seat greyed with its buttons gone', async () => {
  const bySeat = await fourchessTable('ffa', { yellow: 'ru-RU' });
  await checkBlue(bySeat);
  for (const p of Object.values(bySeat)) await p.waitForSelector('.sq.check[data-sq="a7"]');
  // Blue resigns (the check aside): its seat says so, its buttons go, its pieces turn grey.
  const { blue, red } = bySeat;
  await blue.click('#resign');
  await red.waitForSelector('.seat-blue .tag:text("resigned")');
  await blue.waitForSelector('#resign', { state: 'detached' });
  assert.equal(await blue.locator('#end-turn').count(), 0);
  await red.waitForFunction(() => document.querySelector('.sq[data-sq="a7"]').dataset.piece === 'grey:K');
  // In Russian on the Russian screen.
  const ru = (await import('../../web/js/i18n/ru.js')).default;
  await bySeat.yellow.waitForSelector(`.seat-blue .tag:text("${ru['tag.resigned']}")`);
  await bySeat.yellow.screenshot({ path: path.join(SHOTS, 'fourchess-ffa-ru.png') });
  for (const p of Object.values(bySeat)) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('Chaturaji: highlights, move list with throws, phone layout with the dice in sight on your turn', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Asha', game: 'chaturaji' });
  const phone = await newPlayer(browser, { locale: 'sw-TZ', viewport: { width: 390, height: 844 } });
  const invite = await host.locator('#invite-link').getAttribute('href');
  assert.equal(await joinRoom(phone, invite, 'Budi'), 'blue');
  await host.click('#start-game'); // two CPUs
  // Play Red's turns by clicking until Red has moved a piece; then the move list holds it.
  const pages = { red: host, blue: phone };
  let moved = 0;
  let pawnChecked = false;
  let phoneShot = false;
  for (let i = 0; i < 120 && (moved < 3 || !pawnChecked || !phoneShot); i++) {
    for (const [seat, p] of Object.entries(pages)) {
      if ((await attr(p, 'to-act')) !== seat || Number(await attr(p, 'legal')) === 0) continue;
      if (seat === 'blue') {
        // The phone: its seat strip, the turn line and the dice are on screen without scrolling.
        const boxes = await p.evaluate(() => ['#seats', '#turn', '#dice', '#end-turn'].map((s) => {
          const r = document.querySelector(s).getBoundingClientRect();
          return { s, top: r.top, bottom: r.bottom, h: r.height };
        }));
        assert.equal(await p.evaluate(() => window.scrollY), 0);
        for (const b of boxes) assert.ok(b.h > 0 && b.top >= 0 && b.bottom <= 844, `${b.s} in sight: ${JSON.stringify(b)}`);
        if (!phoneShot) {
          phoneShot = true;
          await p.screenshot({ path: path.join(SHOTS, 'chaturaji-phone-sw.png') });
        }
      }
      const v = Number(await attr(p, 'v'));
      // A pawn first when one may move: its step joins a light and a dark square.
      const squares = await p.evaluate(() => [...document.querySelectorAll('.sq.movable')].map((c) => [c.dataset.sq, c.dataset.piece]));
      const pick = squares.find(([, pc]) => pc.endsWith(':P')) || squares[0];
      if (!pick) {
        await p.click('#end-turn');
      } else {
        await p.click(`.sq[data-sq="${pick[0]}"]`);
        const to = await p.locator('.sq.target').first().getAttribute('data-sq');
        await p.click(`.sq[data-sq="${to}"]`);
        moved += 1;
        await p.waitForFunction((old) => Number(document.querySelector('#room').dataset.v) > old, v);
        if (pick[1].endsWith(':P') && !pawnChecked) {
          // The last move is highlighted on both squares, a light and a dark one, on both screens;
          // unless a later move took the highlight first (when a seat's throw cannot be used its turn
          // passes at once, C.9, and the CPU seats move 30 ms later): then a later pawn move is checked.
          const seenMove = Number(await attr(p, 'v'));
          let later = false;
          for (const q of Object.values(pages)) {
            await q.waitForFunction((want) => Number(document.querySelector('#room').dataset.v) >= want, seenMove);
            const shown = () => q.evaluate((sqs) => sqs.every((sq) => document.querySelector(`.sq[data-sq="${sq}"]`).classList.contains('last')), [pick[0], to]);
            if (!(await shown())) { later = true; break; }
            const shades = new Set();
            const fills = [];
            for (const sq of [pick[0], to]) fills.push([sq, await lastFill(q, sq)]);
            if (!(await shown())) { later = true; break; }
            for (const [sq, h] of fills) {
              assertHighlighted(h, h.shade, sq);
              shades.add(h.shade);
            }
            assert.equal(shades.size, 2);
          }
          pawnChecked = !later;
        }
        continue;
      }
      await p.waitForFunction((old) => Number(document.querySelector('#room').dataset.v) > old, v);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(moved >= 3 && pawnChecked && phoneShot, `only ${moved} moves (a pawn's: ${pawnChecked}, the phone's turn seen: ${phoneShot})`);
  // Rows start with the throw; moves carry the figurine of the piece.
  await host.waitForSelector('.mv-throw');
  assert.ok(await host.locator('#moves .fig').count() > 0);
  // The CPUs keep moving across the reload: the moves they add come live while the rest of the list
  // is still on its way from the server's replay, and the move marked current moves on. So the list
  // is compared cell by cell (row, move, text) without the current mark, once the reloaded page
  // shows at least the cells it showed before.
  const before = await moveCells(host);
  await host.reload();
  await host.waitForSelector('#room[data-my-seat="red"]');
  let after = [];
  for (const end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    after = await moveCells(host);
    if (before.every((cell, i) => after[i] === cell)) break;
  }
  assert.deepEqual(after.slice(0, before.length), before, 'the list after the reload starts with the list before');
  await host.screenshot({ path: path.join(SHOTS, 'chaturaji.png') });
  assert.ok(id);
  for (const p of [host, phone]) {
    assert.deepEqual(p.errors || [], [], 'no script errors');
    await p.context().close();
  }
});

test('no page is wider than a 390 px phone, in any of the five languages', async () => {
  const host = await newPlayer(browser, { viewport: { width: 390, height: 844 } });
  const room = await createRoom(host, server.url, { name: 'Hamisi Mwinyimkuu', game: 'fourchess' });
  await host.click('#start-game'); // three CPUs: the room is drawn while a game runs
  await host.waitForSelector('#room[data-phase="playing"]');
  const pages = ['/', `/?room=${room}`, '/?leaderboard', '/howto.html?game=chaturaji', '/howto.html?game=fourchess'];
  const wide = [];
  for (const lang of ['en', 'sw', 'id', 'ru', 'pt']) {
    await host.evaluate((l) => localStorage.setItem('fk.lang', l), lang);
    for (const p of pages) {
      await host.goto(`${server.url}${p}`);
      await host.waitForFunction(() => document.querySelector('main')?.textContent.trim().length > 0 && !document.querySelector('main p:only-child')?.textContent.includes('…'));
      await host.waitForTimeout(100);
      const width = await host.evaluate(() => document.documentElement.scrollWidth);
      if (width > 390) wide.push(`${lang} ${p}: ${width}px`);
      if (lang === 'id' && p.startsWith('/?room=')) await host.screenshot({ path: path.join(SHOTS, 'fourchess-phone-id.png') });
    }
  }
  assert.deepEqual(wide, []);
  assert.deepEqual(host.errors || [], []);
  await host.context().close();
});
