// The fourkings browser client: the lobby at `/`, a room at `/?room=<id>` (the server's invite link).
import { t, applyStatic, mountLangSelect, onLangChange } from './i18n.js';
import { api } from './api.js';
import { store } from './store.js';
import { RoomConnection } from './conn.js';
import { Board } from './board.js';
import { describe, reasonText } from './events.js';
import { SEATS, SYMBOL, COLOR, parseChaturaji, parseFen4 } from './games.js';
import { lobbyView } from './lobby.js';
import { esc, errorText, setHtml, settingsSummary } from './util.js';
import { throwsFromSeed } from './dice-verify.js';
import { HostPanel } from './host.js';
import { joinRoom, storedPlayer } from './player.js';
import { changeForSeat, changeText, gameLink, leaderboardView, poolOf, profileView, profileLink } from './ratings.js';

const app = document.getElementById('app');
const banner = document.getElementById('banner');

// Start positions, used until the first action of a game brings the server's state.
const START = {
  chaturaji: 'bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rSrHrErK2gPgS r - 0,0,0,0 - 0 0 - - - -',
  fourchess: 'R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x',
};

const DIE_FACE = ['', '⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];

/** Everything about the room this page shows. */
class RoomPage {
  constructor(id) {
    this.id = id;
    this.info = null;
    this.game = null; // {kind, game_no, first, options, state, to_act, deadline, outcome, dice_seed, dice_commit, rolls}
    this.v = null;
    this.mySeat = null;
    this.legal = null; // the legal actions the server sent for this seat, or null
    this.selected = null;
    this.log = [];
    this.lastMove = [];
    this.message = '';
    this.verify = '';
    this.board = null;
    this.conn = null;
    // A spectator chooses which seat's side is at the bottom; a player always sees its own seat there.
    this.viewSeat = SEATS.includes(localStorage.getItem('fk.view')) ? localStorage.getItem('fk.view') : 'red';
    this.tick = setInterval(() => this.renderClock(), 250);
    this.listen();
  }

  /** One click handler for every button of the room (they are redrawn often). */
  listen() {
    app.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-do]');
      if (!b) return;
      const what = b.dataset.do;
      if (what === 'end-turn') this.endTurn();
      else if (what === 'resign') this.resign();
      else if (what === 'take-seat') this.takeSeat();
      else if (what === 'start') this.host('start');
      else if (what === 'rematch') this.host('rematch');
      else if (what === 'verify') this.verifySeed();
      else if (what === 'promote') this.send(this.promotion[Number(b.dataset.i)]);
      else if (what === 'copy-invite') navigator.clipboard?.writeText(inviteLink(this.id));
    });
    app.addEventListener('change', (e) => {
      if (e.target.id !== 'view-seat') return;
      this.viewSeat = e.target.value;
      localStorage.setItem('fk.view', this.viewSeat);
      this.render();
    });
  }

  async start() {
    app.innerHTML = `<p>${esc(t('room.loading'))}</p>`;
    try {
      this.info = await api.getRoom(this.id);
    } catch (e) {
      app.innerHTML = `<section class="card"><p class="error" role="alert">${esc(errorText(e.code))}</p><a href="/">${esc(t('room.back'))}</a></section>`;
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
      lastV: () => this.v,
    });
  }

  onStatus(status) {
    if (status === 'lost') {
      banner.textContent = t('conn.lost');
      banner.hidden = false;
    } else if (status === 'open') {
      banner.hidden = true;
    }
  }

  names() {
    const out = {};
    if (!this.info) return out;
    this.info.seats.forEach((o, i) => { if (o.kind === 'human') out[SEATS[i]] = o.name; });
    return out;
  }

  addLog(lines) {
    for (const l of lines) this.log.push(l);
    if (this.log.length > 300) this.log.splice(0, this.log.length - 300);
  }

  onMessage(m) {
    switch (m.t) {
      case 'welcome':
        this.mySeat = m.seat || null;
        if (m.snapshot) {
          this.applySnapshot(m.snapshot);
          this.legal = null;
          this.v = m.v;
        }
        // Without a snapshot the events after our `v` follow at once: keep `v` where it is so that
        // they are applied, not skipped as already seen.
        this.render();
        break;
      case 'event':
        if (this.v !== null && m.v <= this.v) return; // already seen (a resent history)
        this.v = m.v;
        this.onEvent(m);
        this.render();
        break;
      case 'view':
        if (m.seat === this.mySeat) {
          this.legal = m.legal || [];
          this.legalV = m.v;
          this.render();
        }
        break;
      case 'ack':
        break;
      case 'error':
        this.message = errorText(m.code);
        this.messageDetail = m.message;
        if (m.code === 'bad_token') {
          // The seat token is not this room's (an old room, another server): watch instead.
          localStorage.removeItem(`fk.seat.${this.id}`);
          this.connect();
        }
        this.render();
        break;
      default:
        break;
    }
  }

  applySnapshot(snap) {
    this.info = snap.room;
    const g = snap.game;
    if (g) {
      this.game = {
        kind: snap.room.game,
        game_no: g.game_no,
        first: g.first,
        options: g.options,
        state: g.state,
        to_act: g.to_act,
        deadline: g.deadline,
        outcome: g.outcome || null,
        dice_seed: g.dice_seed || null,
        dice_commit: g.dice_commit || null,
        rolls: (g.actions || []).filter((a) => a.type === 'roll').map((a) => a.dice),
        ratings: null,
        record: null,
      };
      if (this.game.outcome) this.loadRecord();
    } else {
      this.game = null;
    }
    this.addLog([t('log.synced')]);
  }

  onEvent(m) {
    const ev = m.event;
    const seatIx = ev.seat ? SEATS.indexOf(ev.seat) : -1;
    this.legal = null; // a new event: the server sends a fresh view if this seat is to act
    this.addLog(describe(ev, this.info.game, this.names()));
    switch (ev.e) {
      case 'seat_taken':
        this.info.seats[seatIx] = { kind: 'human', name: ev.name, connected: false, cpu_playing: false };
        break;
      case 'cpu_seated':
        this.info.seats[seatIx] = { kind: 'cpu', level: ev.level };
        break;
      case 'connection':
        if (this.info.seats[seatIx].kind === 'human') this.info.seats[seatIx].connected = ev.connected;
        break;
      case 'control':
        if (this.info.seats[seatIx].kind === 'human') this.info.seats[seatIx].cpu_playing = ev.cpu;
        break;
      case 'settings_changed':
        Object.assign(this.info, { options: ev.options, turn_time: ev.turn_time, rated: ev.rated, public: ev.public });
        break;
      case 'game_started':
        this.info.phase = 'playing';
        this.info.game_no = ev.game_no;
        this.info.game = ev.game;
        this.game = {
          kind: ev.game, game_no: ev.game_no, first: ev.first, options: ev.options, state: null,
          outcome: null, dice_seed: null, dice_commit: ev.dice_commit || null, rolls: [], ratings: null, record: null,
        };
        this.lastMove = [];
        this.selected = null;
        this.verify = '';
        break;
      case 'acted':
        if (this.game) {
          this.game.state = ev.state;
          if (ev.action && ev.action.type === 'roll') this.game.rolls.push(ev.action.dice);
          if (ev.action && ev.action.type === 'move') this.lastMove = [ev.action.from, ev.action.to];
        }
        break;
      case 'game_over':
        this.info.phase = 'finished';
        if (this.game) {
          this.game.outcome = ev.outcome;
          this.game.dice_seed = ev.dice_seed || null;
          this.loadRecord();
        }
        break;
      case 'rated':
        // The rating changes of the game that just ended (it follows game_over once the result is
        // recorded).
        if (this.game && this.game.outcome) {
          this.game.ratings = ev.changes || [];
          this.game.record = ev.game_id;
        }
        break;
      default:
        break;
    }
    if (this.game) {
      this.game.to_act = m.to_act;
      this.game.deadline = m.deadline;
    }
    if (this.selected && !this.myTurn()) this.selected = null;
  }

  /** The house rule `show_legal_moves` (four-player chess); Chaturaji always shows them. */
  legalShown() {
    const opts = (this.game && this.game.options) || this.info.options || {};
    return opts.show_legal_moves !== false;
  }

  myTurn() {
    return !!(this.game && !this.game.outcome && this.mySeat && this.game.to_act === this.mySeat);
  }

  pieces() {
    const kind = this.info.game;
    if (!this.game) return parseChaturajiOrFen(kind, START[kind]);
    const st = this.game.state;
    if (!st) return parseChaturajiOrFen(kind, START[kind]);
    return kind === 'chaturaji' ? parseChaturaji(st.position) : parseFen4(st.fen4).pieces;
  }

  /** Legal moves grouped by origin square. */
  moveIndex() {
    const idx = new Map();
    for (const a of this.legal || []) {
      if (a.type !== 'move') continue;
      if (!idx.has(a.from)) idx.set(a.from, new Map());
      const to = idx.get(a.from);
      if (!to.has(a.to)) to.set(a.to, []);
      to.get(a.to).push(a);
    }
    return idx;
  }

  say(key, params) {
    this.message = t(key, params);
    this.messageDetail = '';
  }

  /** A square was activated by click, drop or Enter. */
  onSquare(sq) {
    this.message = '';
    this.promotion = null; // a pending promotion choice is dropped by any other board input
    const pieces = this.pieces();
    const here = pieces.get(sq);
    if (!this.game || this.game.outcome) return this.render();
    if (!this.mySeat) {
      this.say('msg.spectator');
      return this.render();
    }
    if (!this.myTurn()) {
      this.say('msg.not_your_turn');
      return this.render();
    }
    if (!this.legalShown()) return this.onSquareBlind(sq, here);
    const idx = this.moveIndex();
    if (this.selected && idx.get(this.selected)?.has(sq)) {
      const options = idx.get(this.selected).get(sq);
      this.choose(options);
      return;
    }
    if (here && here.seat === this.mySeat && idx.has(sq)) {
      this.selected = sq;
    } else if (this.selected && sq !== this.selected) {
      this.say('msg.illegal_target', { from: this.selected, to: sq });
      this.selected = null;
    } else if (here && here.seat === this.mySeat) {
      this.say('msg.no_moves_from', { sq });
      this.selected = null;
    } else if (here) {
      this.say('msg.not_your_piece');
      this.selected = null;
    } else {
      this.selected = null;
    }
    this.render();
  }

  /** House rules hide the legal moves: the server judges every move and refuses with a message. */
  onSquareBlind(sq, here) {
    if (!this.selected) {
      if (here && here.seat === this.mySeat) this.selected = sq;
      else if (here) this.say('msg.not_your_piece');
      return this.render();
    }
    if (sq === this.selected) {
      this.selected = null;
      return this.render();
    }
    if (here && here.seat === this.mySeat) {
      this.selected = sq;
      return this.render();
    }
    const from = this.selected;
    const moving = this.pieces().get(from);
    const action = { type: 'move', from, to: sq };
    if (this.info.game === 'fourchess' && moving && moving.kind === 'P' && onPromotionLine(this.game.options, this.mySeat, sq)) {
      if ((this.game.options.mode || 'teams') === 'teams') {
        return this.choose(['queen', 'rook', 'bishop', 'knight'].map((k) => ({ ...action, promotion: k })));
      }
    }
    this.choose([action]);
  }

  /** Send one of the candidate actions for a from/to pair: a promotion asks which piece first. */
  choose(options) {
    const promos = options.filter((a) => a.promotion);
    if (promos.length > 1) {
      this.promotion = promos;
      this.render();
      return;
    }
    this.send(options[0]);
  }

  send(action) {
    this.selected = null;
    this.promotion = null;
    if (!this.conn.send({ t: 'act', ack: this.conn.nextAck++, action })) this.say('conn.lost');
    this.render();
  }

  endTurn() {
    this.send({ type: 'end_turn' });
  }

  resign() {
    if (!confirm(t('game.resign_confirm'))) return;
    this.conn.resign();
  }

  async takeSeat() {
    const input = document.getElementById('seat-name');
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
    const g = this.game;
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
    const g = this.game;
    const id = `${this.id}-${g.game_no}`;
    for (const pause of [300, 1500, 4000]) {
      await new Promise((r) => setTimeout(r, pause));
      if (this.game !== g || (g.record && g.ratings)) return;
      try {
        const rec = await api.gameRecord(id);
        if (this.game !== g) return;
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
    // Events may have moved the room on meanwhile; the version tells which is newer.
    if (!this.info || info.v >= this.info.v) this.info = info;
    this.render();
  }

  // ---------------------------------------------------------------- drawing

  render() {
    if (!this.info) return;
    if (!this.shell) this.buildShell();
    const info = this.info;
    const kind = info.game;
    // State as data attributes: handy for styling, and what the browser tests read.
    const room = document.getElementById('room');
    room.dataset.game = kind;
    room.dataset.phase = info.phase;
    room.dataset.mySeat = this.mySeat || '';
    room.dataset.toAct = (this.game && !this.game.outcome && this.game.to_act) || '';
    room.dataset.v = this.v === null ? '' : String(this.v);
    room.dataset.legal = String((this.legal || []).length);
    room.dataset.view = this.mySeat || this.viewSeat;
    document.getElementById('room-title').textContent = `${t(`game.${kind}`)} · ${info.id}`;
    this.renderSeats();
    this.renderControls();
    this.renderSide();
    // Board
    this.hostPanel.render();
    const orientation = this.mySeat || this.viewSeat;
    this.board.setup(kind, orientation);
    const idx = this.legalShown() ? this.moveIndex() : new Map();
    const targets = this.selected && idx.get(this.selected) ? new Set(idx.get(this.selected).keys()) : new Set();
    this.board.render(this.pieces(), {
      selected: this.selected,
      targets,
      movable: this.myTurn() ? new Set(idx.keys()) : new Set(),
      last: this.lastMove,
    });
    const msg = document.getElementById('message');
    msg.textContent = this.message;
    msg.title = this.messageDetail || '';
    this.renderClock();
  }

  buildShell() {
    this.shell = true;
    app.innerHTML = `
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
    this.board = new Board(document.getElementById('board-host'), { onSquare: (sq) => this.onSquare(sq) });
    this.hostPanel = new HostPanel(document.getElementById('host-panel'), {
      id: this.id, info: () => this.info, onInfo: (info) => this.onInfo(info),
    });
  }

  renderSeats() {
    const ol = document.getElementById('seats');
    const pts = this.game?.state?.points || [0, 0, 0, 0];
    const elim = this.game?.state?.fen4 ? parseFen4(this.game.state.fen4).eliminated : [];
    setHtml(ol, SEATS.map((s, i) => {
      const o = this.info.seats[i];
      let who;
      const tags = [];
      if (o.kind === 'empty') who = t('seat.empty');
      else if (o.kind === 'cpu') { who = t('seat.cpu', { level: o.level }); tags.push(t('tag.cpu')); }
      else {
        who = o.name;
        if (!o.connected) tags.push(t('tag.away'));
        if (o.cpu_playing) tags.push(t('tag.cpu_playing'));
      }
      if (s === this.mySeat) tags.push(t('tag.you'));
      if (elim[i]) tags.push(t('tag.out'));
      if (this.game?.outcome?.standings?.[i]?.resigned) tags.push(t('tag.resigned'));
      const toAct = this.game && !this.game.outcome && this.game.to_act === s;
      return `<li class="seat seat-${s}${toAct ? ' to-act' : ''}" data-seat="${s}">
        <span class="sym" style="color:${COLOR[s]}" aria-hidden="true">${SYMBOL[s]}</span>
        <span class="seat-name">${esc(t(`seat.${s}`))}</span>
        <span class="who">${esc(who)}</span>
        <span class="tags">${tags.map((x) => `<em class="tag">${esc(x)}</em>`).join(' ')}</span>
        <span class="points" data-points="${pts[i]}">${esc(t('seat.points', { n: pts[i] }))}</span>
        ${toAct ? `<span class="turn-mark">${esc(t('seat.to_act'))}</span>` : ''}
      </li>`;
    }).join(''));
  }

  renderControls() {
    const c = document.getElementById('room-controls');
    const info = this.info;
    const parts = [];
    const link = inviteLink(this.id);
    parts.push(`<span class="invite">${esc(t('room.invite'))} <a id="invite-link" href="${esc(link)}">${esc(link)}</a>
      <button type="button" data-do="copy-invite">${esc(t('room.copy'))}</button></span>`);
    parts.push(`<span class="settings">${esc(settingsSummary(info))}</span>`);
    const hasFree = info.seats.some((o) => o.kind === 'empty');
    if (!this.mySeat && info.phase === 'lobby' && hasFree && !store.seat(this.id)) {
      parts.push(`<span class="take-seat"><label>${esc(t('lobby.name'))} <input id="seat-name" maxlength="32" value="${esc(store.name())}"></label>
        <button type="button" data-do="take-seat" id="take-seat">${esc(t('room.take_seat'))}</button></span>`);
    }
    if (!this.mySeat) {
      parts.push(`<span class="watching">${esc(t('room.watching'))}</span>`);
      parts.push(`<label class="view-seat">${esc(t('room.view_from'))} <select id="view-seat">${SEATS.map((s) =>
        `<option value="${s}"${s === this.viewSeat ? ' selected' : ''}>${SYMBOL[s]} ${esc(t(`seat.${s}`))}</option>`).join('')}</select></label>`);
    }
    if (store.host(this.id)) {
      if (info.phase === 'lobby') {
        parts.push(`<button type="button" data-do="start" id="start-game" class="primary">${esc(t('room.start'))}</button>`);
      }
      if (info.phase === 'finished') parts.push(`<button type="button" data-do="rematch" id="rematch" class="primary">${esc(t('room.rematch'))}</button>`);
    }
    // Redraw only on change, so typing in the name field or a click is not cut short by an event.
    const html = parts.join(' ');
    if (setHtml(c, html)) {
      const input = c.querySelector('#seat-name');
      if (input) input.addEventListener('input', () => store.setName(input.value.trim()));
    }
  }

  renderSide() {
    const g = this.game;
    const kind = this.info.game;
    // Dice (Chaturaji)
    const diceEl = document.getElementById('dice');
    const dice = g?.state?.dice;
    if (kind === 'chaturaji' && dice) {
      setHtml(diceEl, `<h2>${esc(t('dice.title'))}</h2>` + dice.map((d, i) => {
        let why = t(`die.${d.state}`);
        if (d.state === 'unused' && d.unusable) why = t(`unusable.${d.unusable}`);
        else if (d.state === 'unused') why = t('die.usable');
        return `<div class="die die-${d.state}${d.unusable ? ' die-unusable' : ''}" data-die="${i}" data-face="${d.face}" data-state="${d.state}">
          <span class="face" aria-hidden="true">${DIE_FACE[d.face] || d.face}</span>
          <span class="num">${d.face}</span> <span class="class">${esc(t(`class.${d.class}`))}</span>
          <span class="why">${esc(why)}</span></div>`;
      }).join(''));
    } else {
      setHtml(diceEl, '');
    }
    // Actions
    const act = document.getElementById('actions');
    const parts = [];
    if (this.mySeat && g && !g.outcome) {
      if (kind === 'chaturaji') {
        const canEnd = this.myTurn() && (this.legal || []).some((a) => a.type === 'end_turn');
        parts.push(`<button type="button" data-do="end-turn" id="end-turn" ${canEnd ? '' : 'disabled'}>${esc(t('game.end_turn'))}</button>`);
      }
      parts.push(`<button type="button" data-do="resign" id="resign">${esc(t('game.resign'))}</button>`);
    }
    setHtml(act, parts.join(' '));
    // Promotion choice
    const promo = document.getElementById('promotion');
    if (this.promotion) {
      promo.hidden = false;
      setHtml(promo, `<span>${esc(t('game.promote_to'))}</span> ` + this.promotion.map((a, i) =>
        `<button type="button" data-do="promote" data-i="${i}" data-kind="${a.promotion}">${esc(t(`piece.${a.promotion}`))}</button>`).join(' '));
    } else {
      promo.hidden = true;
      setHtml(promo, '');
    }
    // Game over
    const over = document.getElementById('gameover');
    if (g && g.outcome) {
      const names = this.names();
      const rated = Array.isArray(g.ratings);
      const rows = [...g.outcome.standings].sort((a, b) => a.place - b.place).map((s) => {
        const change = rated ? changeForSeat(g.ratings, s.seat) : null;
        const rating = !rated ? '' : change
          ? `<td class="rating-change" data-player="${esc(change.player_id)}"><a href="${profileLink(change.player_id)}">${esc(changeText(change))}</a></td>`
          : `<td class="rating-change muted">${esc(t('over.unrated_seat'))}</td>`;
        return `<tr data-seat="${s.seat}"><td>${s.place}</td><td><span style="color:${COLOR[s.seat]}">${SYMBOL[s.seat]}</span> ${esc(t(`seat.${s.seat}`))}</td>
         <td>${esc(names[s.seat] || '')}</td><td>${s.points}</td>${rating}</tr>`;
      }).join('');
      let seed = '';
      if (g.dice_seed) {
        seed = `<p class="seed">${esc(t('verify.seed'))} <code id="dice-seed">${esc(g.dice_seed)}</code><br>
          ${esc(t('verify.commit'))} <code>${esc(g.dice_commit || '')}</code><br>
          <button type="button" data-do="verify" id="verify">${esc(t('verify.button'))}</button> <span id="verify-result">${esc(this.verify)}</span></p>`;
      }
      setHtml(over, `<h2>${esc(t('over.title'))}</h2><p id="over-reason">${esc(reasonText(g.outcome.reason))}</p>
        <table id="standings"><thead><tr><th>${esc(t('over.place'))}</th><th>${esc(t('over.seat'))}</th><th>${esc(t('over.player'))}</th><th>${esc(t('over.points'))}</th>${rated ? `<th>${esc(t('over.rating'))}</th>` : ''}</tr></thead>
        <tbody>${rows}</tbody></table>${seed}${this.recordHtml()}`);
    } else {
      setHtml(over, '');
    }
    // Log (newest last)
    const log = document.getElementById('log');
    setHtml(log, this.log.slice(-60).map((l) => `<li>${esc(l)}</li>`).join(''));
    log.scrollTop = log.scrollHeight;
  }

  /** The link to the game's record and how to check it independently. */
  recordHtml() {
    const g = this.game;
    if (!g.record) return '';
    const board = g.ratings ? ` · <a id="pool-link" href="/?leaderboard=${encodeURIComponent(poolOf(this.info.game, g.options))}">${esc(t('ratings.leaderboard'))}</a>` : '';
    return `<div class="record"><p><a id="record-link" href="${gameLink(g.record)}" target="_blank" rel="noopener">${esc(t('over.record'))}</a>${board}</p>
      <details id="verify-howto"><summary>${esc(t('over.verify_title'))}</summary>
        <p>${esc(t('over.verify_steps'))}</p><pre><code>fourkings verify record.json</code></pre></details></div>`;
  }

  renderClock() {
    const el = document.getElementById('turn');
    if (!el || !this.info) return;
    const g = this.game;
    if (!g) {
      el.textContent = t('room.waiting');
      return;
    }
    if (g.outcome) {
      el.textContent = '';
      return;
    }
    let text = g.to_act ? t('turn.of', { seat: t(`seat.${g.to_act}`) }) : '';
    if (this.myTurn()) text = t('turn.yours');
    if (g.deadline) {
      const left = Math.max(0, Math.ceil((g.deadline - Date.now()) / 1000));
      text += ` · ${t('turn.seconds', { n: left })}`;
    }
    el.textContent = text;
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

function parseChaturajiOrFen(kind, text) {
  return kind === 'chaturaji' ? parseChaturaji(text) : parseFen4(text).pieces;
}

/** Teams promotion line (F.8): Red rank 11, Blue file k, Yellow rank 4, Green file d. */
function onPromotionLine(options, seat, sq) {
  const file = sq[0];
  const rank = Number(sq.slice(1));
  if ((options.mode || 'teams') !== 'teams') return false;
  return (seat === 'red' && rank === 11) || (seat === 'blue' && file === 'k') || (seat === 'yellow' && rank === 4) || (seat === 'green' && file === 'd');
}

function inviteLink(id) {
  return `${location.origin}/?room=${encodeURIComponent(id)}`;
}

// ---------------------------------------------------------------- start-up

/** "My ratings" in the header once this device has a player identity. */
function mountPlayerLink() {
  const a = document.getElementById('my-profile');
  const me = storedPlayer();
  if (!a || !me) return;
  a.href = profileLink(me.player_id);
  a.hidden = false;
}

function main() {
  mountLangSelect(document.getElementById('lang-select'));
  applyStatic();
  const params = new URLSearchParams(location.search);
  const room = params.get('room');
  mountPlayerLink();
  let page = null;
  if (params.has('leaderboard')) {
    page = leaderboardView(app, params.get('leaderboard'));
  } else if (params.get('player')) {
    page = profileView(app, params.get('player'));
  } else if (room) {
    page = new RoomPage(room);
    page.start();
    window.fourkings = page; // for debugging in the console
  } else {
    page = lobbyView(app);
  }
  onLangChange(() => page && page.relabel && page.relabel());
}

main();

