// The room screen at `/?room=<id>`: it loads the room, keeps one WebSocket to it, feeds every
// message to the store (room-state.js) and draws each component from the store. Player input
// (board squares, buttons) becomes actions on the connection or REST calls for the host.
import { t } from './i18n.js';
import { api } from './api.js';
import { store } from './store.js';
import { RoomConnection } from './conn.js';
import { Board } from './board.js';
import { SEATS } from './games.js';
import { esc, errorText } from './util.js';
import { throwsFromSeed } from './dice-verify.js';
import { HostPanel } from './host.js';
import { joinRoom } from './player.js';
import { RoomState } from './room-state.js';
import { MoveInput } from './move-input.js';
import { renderHead, inviteLink } from './room-head.js';
import { renderSeats } from './seats.js';
import { renderDice } from './dice.js';
import { renderClock, renderActions, renderPromotion } from './turn.js';
import { renderGameOver } from './gameover.js';
import { renderLog } from './event-log.js';

export class RoomPage {
  /** @param {HTMLElement} root @param {HTMLElement} banner @param {string} id */
  constructor(root, banner, id) {
    this.root = root;
    this.banner = banner;
    this.id = id;
    this.state = new RoomState();
    this.input = new MoveInput(this.state, {
      send: (action) => this.send(action),
      say: (key, params) => this.say(key, params),
    });
    this.message = '';
    this.messageDetail = '';
    this.verify = '';
    this.board = null;
    this.conn = null;
    // A spectator chooses which seat's side is at the bottom; a player always sees its own seat there.
    this.viewSeat = SEATS.includes(localStorage.getItem('fk.view')) ? localStorage.getItem('fk.view') : 'red';
    this.tick = setInterval(() => renderClock(this.el('turn'), this.state), 250);
    this.listen();
  }

  // What the browser tests and the console read.
  get game() { return this.state.game; }
  moveIndex() { return this.state.moveIndex(); }

  el(id) {
    return document.getElementById(id);
  }

  /** One click handler for every button of the room (they are redrawn often). */
  listen() {
    this.root.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-do]');
      if (!b) return;
      const what = b.dataset.do;
      if (what === 'end-turn') this.send({ type: 'end_turn' });
      else if (what === 'resign') this.resign();
      else if (what === 'take-seat') this.takeSeat();
      else if (what === 'start') this.host('start');
      else if (what === 'rematch') this.host('rematch');
      else if (what === 'verify') this.verifySeed();
      else if (what === 'promote') { this.input.promote(Number(b.dataset.i)); this.render(); }
      else if (what === 'copy-invite') navigator.clipboard?.writeText(inviteLink(this.id));
    });
    this.root.addEventListener('change', (e) => {
      if (e.target.id !== 'view-seat') return;
      this.viewSeat = e.target.value;
      localStorage.setItem('fk.view', this.viewSeat);
      this.render();
    });
  }

  async start() {
    this.root.innerHTML = `<p>${esc(t('room.loading'))}</p>`;
    try {
      this.state.info = await api.getRoom(this.id);
    } catch (e) {
      this.root.innerHTML = `<section class="card"><p class="error" role="alert">${esc(errorText(e.code))}</p><a href="/">${esc(t('room.back'))}</a></section>`;
      return;
    }
    this.connect();
    this.render();
  }

  connect() {
    if (this.conn) this.conn.close();
    const mine = store.seat(this.id);
    this.conn = new RoomConnection(this.id, mine ? mine.token : null, {
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => this.onStatus(s),
      lastV: () => this.state.v,
    });
  }

  onStatus(status) {
    if (status === 'lost') {
      this.banner.textContent = t('conn.lost');
      this.banner.hidden = false;
    } else if (status === 'open') {
      this.banner.hidden = true;
    }
  }

  onMessage(m) {
    const s = this.state;
    const done = s.receive(m);
    if (!done) return;
    if (done.snapshot && s.game && s.game.outcome) this.loadRecord();
    if (done.event) {
      if (done.event.e === 'game_started') {
        this.input.reset();
        this.verify = '';
      }
      if (done.event.e === 'game_over' && s.game) this.loadRecord();
      if (this.input.selected && !s.myTurn()) this.input.selected = null;
    }
    if (done.error) {
      this.message = errorText(done.error.code);
      this.messageDetail = done.error.message;
      if (done.error.code === 'bad_token') {
        // The seat token is not this room's (an old room, another server): watch instead.
        localStorage.removeItem(`fk.seat.${this.id}`);
        this.connect();
      }
    }
    this.render();
  }

  say(key, params) {
    this.message = t(key, params);
    this.messageDetail = '';
  }

  onSquare(sq) {
    this.message = '';
    this.input.onSquare(sq);
    this.render();
  }

  send(action) {
    this.input.reset();
    if (!this.conn.send({ t: 'act', ack: this.conn.nextAck++, action })) this.say('conn.lost');
    this.render();
  }

  resign() {
    if (!confirm(t('game.resign_confirm'))) return;
    this.conn.resign();
  }

  async takeSeat() {
    const input = this.el('seat-name');
    const name = (input && input.value.trim()) || store.name();
    if (!name) {
      this.say('lobby.name_needed');
      return this.render();
    }
    store.setName(name);
    try {
      const joined = await joinRoom(this.id, name);
      store.setSeat(this.id, joined.seat, joined.seat_token);
      this.connect(); // a new connection that joins with the seat token
    } catch (e) {
      this.message = errorText(e.code);
      this.render();
    }
  }

  async host(action) {
    const token = store.host(this.id);
    try {
      if (action === 'start') await api.start(this.id, token);
      if (action === 'rematch') await api.rematch(this.id, token);
    } catch (e) {
      this.message = errorText(e.code);
    }
    this.render();
  }

  async verifySeed() {
    const g = this.state.game;
    const bytes = new Uint8Array(g.dice_seed.match(/../g).map((h) => parseInt(h, 16)));
    let hex = '';
    try {
      const digest = await crypto.subtle.digest('SHA-256', bytes);
      hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    } catch {
      this.verify = t('verify.unavailable');
      return this.render();
    }
    if (hex !== g.dice_commit) {
      this.verify = t('verify.bad');
      return this.render();
    }
    // Recompute every throw of the game from the seed and compare with the throws the room made.
    const [lo, hi] = (g.options && g.options.dice) === 'long' ? [2, 5] : [1, 6];
    const again = throwsFromSeed(g.dice_seed, lo, hi, g.rolls.length);
    const same = again.every((d, i) => d[0] === g.rolls[i][0] && d[1] === g.rolls[i][1]);
    this.verify = same ? t('verify.ok', { n: g.rolls.length }) : t('verify.throws_differ');
    this.render();
  }

  /**
   * The finished game's record (`GET /games/{room}-{game_no}`), for its link and, after a reload,
   * its rating changes. The server writes it just after the game ends, so a few tries; a server
   * that keeps no records answers 404 and the game-over screen simply has no link.
   */
  async loadRecord() {
    const g = this.state.game;
    const id = `${this.id}-${g.game_no}`;
    for (const pause of [300, 1500, 4000]) {
      await new Promise((r) => setTimeout(r, pause));
      if (this.state.game !== g || (g.record && g.ratings)) return;
      try {
        const rec = await api.gameRecord(id);
        if (this.state.game !== g) return;
        g.record = g.record || id;
        if (!g.ratings && rec && Array.isArray(rec.rating_changes) && rec.rating_changes.length) g.ratings = rec.rating_changes;
        this.render();
        return;
      } catch (e) {
        if (e.fromServer && e.code !== 'not_found') return; // the server refuses: asking again won't help
      }
    }
  }

  /** The room as a REST answer gave it (after the host changed something). */
  onInfo(info) {
    this.state.setInfo(info);
    this.render();
  }

  // ---------------------------------------------------------------- drawing

  render() {
    const s = this.state;
    if (!s.info) return;
    if (!this.shell) this.buildShell();
    const info = s.info;
    const kind = info.game;
    // State as data attributes: handy for styling, and what the browser tests read.
    const room = this.el('room');
    room.dataset.game = kind;
    room.dataset.phase = info.phase;
    room.dataset.mySeat = s.mySeat || '';
    room.dataset.toAct = (s.game && !s.game.outcome && s.game.to_act) || '';
    room.dataset.v = s.v === null ? '' : String(s.v);
    room.dataset.legal = String((s.legal || []).length);
    room.dataset.view = s.mySeat || this.viewSeat;
    this.el('room-title').textContent = `${t(`game.${kind}`)} · ${info.id}`;
    renderSeats(this.el('seats'), s);
    renderHead(this.el('room-controls'), this.id, s, this.viewSeat);
    renderDice(this.el('dice'), s);
    renderActions(this.el('actions'), s);
    renderPromotion(this.el('promotion'), this.input.promotion);
    renderGameOver(this.el('gameover'), s, this.verify);
    renderLog(this.el('log'), s);
    this.hostPanel.render();
    this.board.setup(kind, s.mySeat || this.viewSeat);
    const idx = s.legalShown() ? s.moveIndex() : new Map();
    const sel = this.input.selected;
    this.board.render(s.pieces(), {
      selected: sel,
      targets: sel && idx.get(sel) ? new Set(idx.get(sel).keys()) : new Set(),
      movable: s.myTurn() ? new Set(idx.keys()) : new Set(),
      last: s.lastMove,
    });
    const msg = this.el('message');
    msg.textContent = this.message;
    msg.title = this.messageDetail || '';
    renderClock(this.el('turn'), s);
  }

  buildShell() {
    this.shell = true;
    this.root.innerHTML = `
      <section class="room" id="room">
        <div class="room-head">
          <h1 id="room-title"></h1>
          <div id="room-controls" class="controls"></div>
        </div>
        <section id="host-panel" class="card host-panel" hidden></section>
        <div class="room-body">
          <div class="board-wrap">
            <div id="board-host"></div>
            <div id="promotion" class="promotion" hidden></div>
            <p id="message" class="message" role="alert" aria-live="assertive"></p>
          </div>
          <aside class="side">
            <ol id="seats" class="seats"></ol>
            <div id="turn" class="turn"></div>
            <div id="dice" class="dice"></div>
            <div id="actions" class="actions"></div>
            <div id="gameover" class="gameover"></div>
            <h2 data-i18n="log.title">${esc(t('log.title'))}</h2>
            <ol id="log" class="log" aria-live="polite"></ol>
          </aside>
        </div>
      </section>`;
    this.board = new Board(this.el('board-host'), { onSquare: (sq) => this.onSquare(sq) });
    this.hostPanel = new HostPanel(this.el('host-panel'), {
      id: this.id, info: () => this.state.info, onInfo: (info) => this.onInfo(info),
    });
  }

  relabel() {
    // The language changed: the log keeps its words, everything else is drawn again (an unsaved
    // edit of the host's settings included).
    if (!this.shell) return;
    const unsaved = this.hostPanel.unsaved();
    this.shell = false;
    this.render();
    this.hostPanel.restore(unsaved);
  }
}
