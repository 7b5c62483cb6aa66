// The room screen at `/?room=<id>`: it loads the room, keeps one WebSocket to it, feeds every
// message to the store (room-state.js) and draws each component from the store. Player input
// (board squares, buttons) becomes actions on the connection or REST calls for the host. The move
// list shows any earlier position on the board (view only; arrow keys step, Escape comes back).
import { t } from './i18n.js';
import { api } from './api.js';
import { store } from './store.js';
import { RoomConnection } from './conn.js';
import { Board } from './board.js';
import { SEATS, parseFen4 } from './games.js';
import { esc, errorText, setHtml } from './util.js';
import { checkDice } from './dice-verify.js';
import { HostPanel } from './host.js';
import { joinRoom } from './player.js';
import { RoomState, piecesOf, lastMoveOf } from './room-state.js';
import { MoveInput } from './move-input.js';
import { renderHead, inviteLink } from './room-head.js';
import { renderSeats, renderSeatClock, resignedSeats } from './seats.js';
import { renderMoveList, shownSeqs } from './movelist.js';
import { boardMarks } from './board-marks.js';
import { Sounds } from './sounds.js';
import { renderDice } from './dice.js';
import { renderClock, renderActions, renderPromotion } from './turn.js';
import { renderGameOver } from './gameover.js';
import { renderLog } from './event-log.js';
import { GameList } from './game-list.js';
import { renderChat, setPhrasesOnly } from './chat.js';

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
    this.viewing = null; // the seq whose position the board shows, or null: the live game
    this.tab = null; // the side tab the player chose; until then chat in a lobby, moves in a game
    this.sounds = new Sounds();
    this.tenSeconds = null; // the turn whose last ten seconds were announced
    this.tick = setInterval(() => this.onTick(), 250);
    this.finished = new GameList('room', id); // the room's finished games, each with its replay
    this.listen();
  }

  onTick() {
    const s = this.state;
    renderClock(this.el('turn'), s);
    renderSeatClock(this.el('seats'), s);
    const g = s.game;
    if (s.myTurn() && g.deadline && g.deadline - Date.now() <= 10000 && this.tenSeconds !== g.deadline) {
      this.tenSeconds = g.deadline;
      this.sounds.play('tick');
    }
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
      else if (what === 'view') this.view(Number(b.dataset.seq));
      else if (what === 'nav') this.step(b.dataset.to);
      else if (what === 'live') this.view(null);
      else if (what === 'tab') { this.tab = b.dataset.tab; this.render(); }
      else if (what === 'mute') { this.sounds.setMuted(!this.sounds.muted); this.render(); }
      else if (what === 'phrase') this.conn.send({ t: 'chat', phrase: b.dataset.phrase });
      else if (what === 'hide-line') this.hostPanel.hide(Number(b.dataset.id));
    });
    this.root.addEventListener('submit', (e) => {
      if (e.target.id !== 'chat-form') return;
      e.preventDefault();
      const input = e.target.elements.text;
      const text = input.value.trim();
      if (text && this.conn.send({ t: 'chat', text })) input.value = '';
    });
    this.root.addEventListener('click', (e) => {
      const mv = e.target.closest('button.mv[data-seq]');
      if (mv) this.view(Number(mv.dataset.seq));
    });
    // Arrow keys step through the moves (the board keeps them while it has the focus).
    document.addEventListener('keydown', (e) => {
      if (!this.shell || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.target.closest && e.target.closest('input, select, textarea, .sq')) return;
      const to = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last', Escape: 'live' }[e.key];
      if (!to) return;
      e.preventDefault();
      this.step(to);
    });
    this.root.addEventListener('change', (e) => {
      if (e.target.id === 'chat-phrases-only') {
        setPhrasesOnly(e.target.checked);
        this.render();
        return;
      }
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
    const seatBefore = s.mySeat;
    const myTurnBefore = s.myTurn();
    const done = s.receive(m);
    if (!done) return;
    if (s.mySeat !== seatBefore) this.message = ''; // e.g. a spectator's notice, no longer true
    if (done.snapshot && s.game && s.game.outcome) this.loadRecord();
    if (done.snapshot && s.game && !s.historyComplete()) this.loadPositions();
    if (done.event) {
      const ev = done.event;
      if (ev.e === 'game_started') {
        this.input.reset();
        this.verify = '';
        this.viewing = null;
        this.message = '';
      }
      if (ev.e === 'game_over' && s.game) {
        this.loadRecord();
        this.sounds.play('end');
      }
      if (ev.e === 'acted') this.onActed(ev);
      if (ev.e === 'rated') this.finished.load(false); // the game is recorded: the list has it
      if (ev.e === 'unseated' && ev.seat === seatBefore) this.removed();
      if (this.input.selected && !s.myTurn()) this.input.selected = null;
    }
    if (!myTurnBefore && s.myTurn()) this.sounds.play('turn');
    if (done.chat && this.shownTab() === 'chat') s.chat.unread = 0;
    if (done.error) {
      this.message = errorText(done.error.code);
      this.messageDetail = done.error.message;
      if (done.error.code === 'unseated') {
        // A reload after the removal: the old token no longer joins; watch instead.
        this.removed();
        this.connect();
      } else if (done.error.code === 'bad_token') {
        // The seat token is not this room's (an old room, another server): watch instead.
        localStorage.removeItem(`fk.seat.${this.id}`);
        this.connect();
      }
    }
    this.render();
  }

  /** The host removed this device's player from the seat: forget the token, say why, watch on. */
  removed() {
    localStorage.removeItem(`fk.seat.${this.id}`);
    this.state.mySeat = null;
    this.say('chat.removed');
    this.conn.token = null;
  }

  /** Sounds and notices for an action that was applied. */
  onActed(ev) {
    const s = this.state;
    const a = ev.action || {};
    if (a.type === 'move') {
      const captured = s.info.game === 'fourchess'
        ? ((ev.applied && ev.applied.move && ev.applied.move.captures) || []).length > 0
        : (ev.applied || []).some((e) => e.type === 'captured');
      this.sounds.play(captured ? 'capture' : 'move');
      if (((ev.state && ev.state.checks) || []).length) this.sounds.play('check');
    }
    // The CPU played a human's turn whose time ran out (an away human's seat is tagged instead).
    const o = s.info.seats[SEATS.indexOf(ev.seat)];
    if (ev.by === 'cpu' && o && o.kind === 'human' && !o.cpu_playing && this.timedOut !== `${ev.seat}:${s.game.game_no}:${s.game.rolls.length}`) {
      this.timedOut = `${ev.seat}:${s.game.game_no}:${s.game.rolls.length}`;
      this.notice = { key: 'log.timed_out', params: { seat: ev.seat } };
      s.addLog({ key: 'log.timed_out', seat: ev.seat });
    } else if (ev.by === 'human') {
      this.notice = null;
    }
  }

  /** After a snapshot: the game so far, action by action, from the server's replay. */
  async loadPositions() {
    const g = this.state.game;
    try {
      let from = 0;
      for (;;) {
        const page = await api.positions(this.id, from);
        if (this.state.game !== g || !this.state.mergePositions(page)) return;
        from += page.steps.length;
        if (!page.steps.length || from >= page.total) break;
      }
    } catch {
      return; // an older server without the route: the list starts from what this page sees
    }
    this.render();
  }

  /** Show the board after action `seq` (null: the live game). */
  view(seq) {
    const steps = this.state.history.steps;
    const seqs = this.seqs();
    this.viewing = seq === null || !steps[seq] || seq === seqs[seqs.length - 1] ? null : seq;
    this.input.reset();
    this.render();
  }

  seqs() {
    const s = this.state;
    return s.game ? shownSeqs(s.info.game, s.game.first, s.history.steps) : [];
  }

  /** Step through the move list: first, prev, next, last, live. */
  step(to) {
    const seqs = this.seqs();
    if (!seqs.length) return;
    const at = this.viewing === null ? seqs.length - 1 : seqs.indexOf(this.viewing);
    const target = { first: 0, prev: Math.max(0, at - 1), next: at + 1, last: seqs.length - 1, live: seqs.length - 1 }[to];
    if (target === -1 && to === 'first') return this.view(null);
    this.view(target >= seqs.length - 1 ? null : seqs[target]);
  }

  say(key, params) {
    this.message = t(key, params);
    this.messageDetail = '';
  }

  onSquare(sq) {
    this.message = '';
    if (this.viewing !== null) {
      // A past position is for looking only: a click brings the live game back.
      this.view(null);
      return;
    }
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
    // Edits in the settings form are saved first, never dropped (a refusal is shown at the fields).
    if (this.hostPanel.dirty() && !(await this.hostPanel.saveNow())) return;
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
    const { key, params } = await checkDice(g.dice_seed, g.dice_commit, g.options && g.options.dice, g.rolls);
    this.verify = t(key, params);
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
        this.finished.load(false);
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
    const g = s.game;
    if (this.viewing !== null && !s.history.steps[this.viewing]) this.viewing = null;
    // State as data attributes: handy for styling, and what the browser tests read.
    const room = this.el('room');
    room.dataset.game = kind;
    room.dataset.phase = info.phase;
    room.dataset.mySeat = s.mySeat || '';
    room.dataset.toAct = (g && !g.outcome && g.to_act) || '';
    room.dataset.v = s.v === null ? '' : String(s.v);
    room.dataset.legal = String((s.legal || []).length);
    room.dataset.view = s.mySeat || this.viewSeat;
    room.dataset.viewing = this.viewing === null ? '' : String(this.viewing);
    room.dataset.myTurn = String(s.myTurn());
    document.title = s.myTurn() ? t('title.your_turn') : `${t(`game.${kind}`)} · fourkings`;
    this.el('room-title').textContent = `${t(`game.${kind}`)} · ${info.id}`;
    const mute = this.el('mute');
    setHtml(mute, speakerIcon(this.sounds.muted));
    mute.title = t(this.sounds.muted ? 'sound.off' : 'sound.on');
    mute.setAttribute('aria-label', mute.title);
    mute.setAttribute('aria-pressed', String(this.sounds.muted));
    renderSeats(this.el('seats'), s);
    renderHead(this.el('room-controls'), this.id, s, this.viewSeat);
    renderDice(this.el('dice'), s);
    renderActions(this.el('actions'), s);
    renderPromotion(this.el('promotion'), this.input.promotion);
    renderGameOver(this.el('gameover'), s, this.verify);
    this.renderTabs();
    this.hostPanel.render();
    this.renderBoard();
    const msg = this.el('message');
    msg.textContent = this.message || (this.notice ? t(this.notice.key, { seat: t(`seat.${this.notice.params.seat}`) }) : '');
    msg.classList.toggle('notice', !this.message && !!this.notice);
    msg.title = this.messageDetail || '';
    this.onTick();
  }

  shownTab() {
    return this.tab || (this.state.info.phase === 'lobby' ? 'chat' : 'moves');
  }

  renderTabs() {
    const s = this.state;
    const tab = this.shownTab();
    if (tab === 'chat') s.chat.unread = 0;
    for (const b of this.root.querySelectorAll('button[data-do="tab"]')) {
      const on = b.dataset.tab === tab;
      b.classList.toggle('on', on);
      b.setAttribute('aria-selected', String(on));
    }
    const badge = this.el('chat-unread');
    badge.textContent = s.chat.unread ? String(Math.min(s.chat.unread, 99)) : '';
    badge.hidden = !s.chat.unread;
    this.el('moves-pane').hidden = tab !== 'moves';
    this.el('log-pane').hidden = tab !== 'log';
    this.el('chat-pane').hidden = tab !== 'chat';
    const me = s.mySeat ? s.info.seats[SEATS.indexOf(s.mySeat)] : null;
    renderChat(this.el('chat'), s.chat.lines, {
      canWrite: !!s.mySeat || !!s.info.spectator_chat,
      spectator: !s.mySeat,
      muted: !!(me && me.muted),
      host: !!store.host(this.id),
    });
    if (s.game) renderMoveList(this.el('moves'), s.info.game, s.game.first, s.history.steps, this.viewing);
    else renderMoveList(this.el('moves'), s.info.game, 'red', [], null);
    renderLog(this.el('log'), s);
    const bar = this.el('viewing');
    if (this.viewing === null) {
      bar.hidden = true;
    } else {
      const seqs = this.seqs();
      bar.hidden = false;
      this.el('viewing-text').textContent = t('moves.viewing', { n: seqs.indexOf(this.viewing) + 1, total: seqs.length });
    }
  }

  /** The board: the live position with the seat's selection and targets, or a past one, view only. */
  renderBoard() {
    const s = this.state;
    const kind = s.info.game;
    this.board.setup(kind, s.mySeat || this.viewSeat);
    const steps = s.history.steps;
    const past = this.viewing !== null ? steps[this.viewing] : null;
    const state = past ? past.state : s.game && s.game.state;
    const pieces = past ? piecesOf(kind, past.state) : s.pieces();
    const marks = boardMarks(kind, pieces, state, {
      outcome: past ? null : s.game && s.game.outcome,
      resigned: resignedSeats(past ? steps.slice(0, this.viewing + 1) : steps),
      last: past ? lastMoveOf(steps, this.viewing) : s.lastMove,
    });
    if (!past) {
      const idx = s.legalShown() ? s.moveIndex() : new Map();
      const sel = this.input.selected;
      marks.selected = sel;
      marks.targets = sel && idx.get(sel) ? new Set(idx.get(sel).keys()) : new Set();
      marks.movable = s.myTurn() ? new Set(idx.keys()) : new Set();
      if (kind === 'chaturaji' && sel && pieces.get(sel)?.kind === 'P') {
        // The promotion pictures help where the selected pawn may arrive on its far edge.
        for (const sq of marks.targets) if (farEdge(s.mySeat, sq)) marks.hints.add(sq);
      }
    }
    this.el('board-host').classList.toggle('past', !!past);
    this.board.render(pieces, marks);
  }

  buildShell() {
    this.shell = true;
    this.root.innerHTML = `
      <section class="room" id="room">
        <div class="room-head">
          <h1 id="room-title"></h1>
          <button type="button" id="mute" class="icon" data-do="mute"></button>
        </div>
        <div class="room-body">
          <div class="board-wrap">
            <div id="viewing" class="viewing" hidden>
              <span id="viewing-text"></span>
              <button type="button" data-do="live" id="back-to-game" class="primary">${esc(t('moves.back'))}</button>
            </div>
            <div id="board-host"></div>
            <div id="promotion" class="promotion" hidden></div>
            <p id="message" class="message" role="alert" aria-live="assertive"></p>
          </div>
          <aside class="side">
            <div id="room-controls" class="controls"></div>
            <ol id="seats" class="seats"></ol>
            <div id="turn" class="turn" aria-live="polite"></div>
            <div id="dice" class="dice"></div>
            <div id="actions" class="actions"></div>
            <div id="gameover" class="gameover"></div>
            <section id="room-games" class="room-games" hidden></section>
            <section id="host-panel" class="card host-panel" hidden></section>
            <div class="tabs" role="tablist">
              <button type="button" role="tab" data-do="tab" data-tab="moves" id="tab-moves">${esc(t('moves.title'))}</button>
              <button type="button" role="tab" data-do="tab" data-tab="log" id="tab-log">${esc(t('log.title'))}</button>
              <button type="button" role="tab" data-do="tab" data-tab="chat" id="tab-chat">${esc(t('chat.title'))} <span id="chat-unread" class="badge" hidden></span></button>
            </div>
            <div id="moves-pane" class="pane" role="tabpanel">
              <div id="moves" class="moves"></div>
              <div class="move-nav">
                <button type="button" data-do="nav" data-to="first" aria-label="${esc(t('moves.first'))}" title="${esc(t('moves.first'))}">«</button>
                <button type="button" data-do="nav" data-to="prev" aria-label="${esc(t('moves.prev'))}" title="${esc(t('moves.prev'))}" id="move-prev">‹</button>
                <button type="button" data-do="nav" data-to="next" aria-label="${esc(t('moves.next'))}" title="${esc(t('moves.next'))}" id="move-next">›</button>
                <button type="button" data-do="nav" data-to="last" aria-label="${esc(t('moves.last'))}" title="${esc(t('moves.last'))}">»</button>
              </div>
            </div>
            <div id="log-pane" class="pane" role="tabpanel" hidden>
              <ol id="log" class="log" aria-live="polite"></ol>
            </div>
            <div id="chat-pane" class="pane" role="tabpanel" hidden>
              <div id="chat" class="chat"></div>
            </div>
          </aside>
        </div>
      </section>`;
    this.board = new Board(this.el('board-host'), { onSquare: (sq) => this.onSquare(sq) });
    this.finished.mount(this.el('room-games'));
    this.hostPanel = new HostPanel(this.el('host-panel'), {
      id: this.id, info: () => this.state.info, onInfo: (info) => this.onInfo(info),
    });
  }

  relabel() {
    // The language changed: everything is drawn again in it (an unsaved edit of the host's
    // settings included); the event log is written again from its events.
    if (!this.shell) return;
    const unsaved = this.hostPanel.unsaved();
    this.shell = false;
    this.render();
    this.hostPanel.restore(unsaved);
  }
}

/** Chaturaji: whether `sq` is on `seat`'s far edge (C.5), where its pawns promote. */
function farEdge(seat, sq) {
  const file = sq[0];
  const rank = Number(sq.slice(1));
  return { red: rank === 8, blue: file === 'h', yellow: rank === 1, green: file === 'a' }[seat] || false;
}

/** A speaker, crossed out when muted (drawn: emoji fonts are not everywhere). */
function speakerIcon(muted) {
  return `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>${muted
    ? '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>'
    : '<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/>'}</svg>`;
}
