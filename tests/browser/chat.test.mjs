// Chat and the host's moderation in a real browser against the real server: two players in two
// languages exchange a quick phrase and each reads it in their own language; free text is shown as
// text, never as HTML; the per-browser option hides free text and keeps phrases; the host unseats a
// player in the lobby, who is told why in their language and watches on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launchBrowser, newPlayer, SHOTS, attr, createRoom, joinRoom, rest } from './harness.mjs';

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

const lines = (page) => page.$$eval('#chat-lines li[data-id] .said', (els) => els.map((e) => e.textContent.trim()));
const waitLine = (page, text) => page.waitForFunction(
  (x) => [...document.querySelectorAll('#chat-lines li[data-id] .said')].some((e) => e.textContent.trim() === x), text);

async function setLanguage(page, lang) {
  await page.selectOption('#lang-select', lang);
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

test('two players exchange a quick phrase in two languages and each reads it in their own', async () => {
  const host = await newPlayer(browser);
  await createRoom(host, server.url, { name: 'Asha', game: 'chaturaji' });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const guest = await newPlayer(browser, { locale: 'ru-RU', viewport: { width: 390, height: 844 } });
  assert.equal(await joinRoom(guest, invite, 'Борис'), 'blue');
  await setLanguage(guest, 'ru');
  await setLanguage(host, 'en');

  // In the lobby the chat is the open tab.
  await host.waitForSelector('#chat-pane:not([hidden]) .phrase-btn[data-phrase="good_luck"]');
  await host.click('.phrase-btn[data-phrase="good_luck"]');
  await waitLine(host, 'Good luck!');
  await waitLine(guest, 'Удачи!');
  await guest.click('.phrase-btn[data-phrase="thanks"]');
  await waitLine(guest, 'Спасибо!');
  await waitLine(host, 'Thanks!');

  // Free text is text: markup stays visible characters, nothing is built from it.
  const html = '<img src=x onerror="window.pwned=1"><b>hi</b>';
  await host.fill('#chat-text', html);
  await host.click('#chat-send');
  await waitLine(guest, html);
  assert.equal(await guest.locator('#chat-lines img, #chat-lines b').count(), 0);
  assert.equal(await guest.evaluate(() => window.pwned), undefined);

  // A reload keeps the chat (the snapshot), in the reader's language.
  await guest.reload();
  await waitLine(guest, 'Удачи!');
  assert.deepEqual(await lines(guest), ['Удачи!', 'Спасибо!', html]);

  // Phrases only: the free text goes, the phrases stay, and the choice survives a reload.
  await guest.check('#chat-phrases-only');
  await guest.waitForFunction(() => !document.querySelector('#chat-text') || document.querySelector('#chat-text').hidden);
  assert.deepEqual(await lines(guest), ['Удачи!', 'Спасибо!']);
  await guest.reload();
  await waitLine(guest, 'Спасибо!');
  assert.deepEqual(await lines(guest), ['Удачи!', 'Спасибо!']);
  assert.equal(await guest.isChecked('#chat-phrases-only'), true);

  await host.screenshot({ path: path.join(SHOTS, 'chat-desktop-en.png') });
  await guest.screenshot({ path: path.join(SHOTS, 'chat-phone-ru.png'), fullPage: true });
  assert.deepEqual(host.errors || [], []);
  assert.deepEqual(guest.errors || [], []);
});

test('the host unseats a player in the lobby, who is told why in their language', async () => {
  const host = await newPlayer(browser);
  const id = await createRoom(host, server.url, { name: 'Asha', game: 'fourchess' });
  const invite = await host.locator('#invite-link').getAttribute('href');
  const squatter = await newPlayer(browser, { locale: 'pt-BR' });
  assert.equal(await joinRoom(squatter, invite, 'Ocupa'), 'blue');
  await setLanguage(squatter, 'pt');

  await host.waitForSelector('#unseat-blue');
  await host.screenshot({ path: path.join(SHOTS, 'host-people-desktop-en.png') });
  await host.click('#unseat-blue');
  // The seat is free for everyone, and the removed player reads why, in Portuguese.
  await host.waitForFunction(() => document.querySelector('.seat[data-seat="blue"] .who')?.textContent.includes('empty'));
  await squatter.waitForFunction(() => document.querySelector('#room')?.dataset.mySeat === '');
  await squatter.waitForFunction(() => document.querySelector('#message')?.textContent.includes('O anfitrião tirou você'));
  assert.equal((await rest(server.url, 'GET', `/rooms/${id}`)).body.seats[1].kind, 'empty');
  // A reload does not bring the seat back: the token is gone, the page watches.
  await squatter.reload();
  await squatter.waitForSelector('#room');
  assert.equal(await attr(squatter, 'my-seat'), '');
  assert.equal(await squatter.evaluate((room) => localStorage.getItem(`fk.seat.${room}`), id), null);

  // Locked, nobody new sits down; unlocked, the seat can be taken again.
  await host.click('#lock-room');
  await host.waitForSelector('#lock-room');
  await host.waitForFunction(() => document.querySelector('#lock-room')?.textContent.includes('Unlock'));
  const late = await rest(server.url, 'POST', `/rooms/${id}/join`, { name: 'Late' });
  assert.equal(late.body.error.code, 'room_locked');
  await host.click('#lock-room');
  await host.waitForFunction(() => document.querySelector('#lock-room')?.textContent.includes('Lock the room'));
  assert.equal((await rest(server.url, 'POST', `/rooms/${id}/join`, { name: 'Late' })).body.seat, 'blue');
  await squatter.screenshot({ path: path.join(SHOTS, 'unseated-desktop-pt.png') });
  assert.deepEqual(host.errors || [], []);
  assert.deepEqual(squatter.errors || [], []);
});
