// The room's store: what the server said about the room, updated by the WebSocket messages and
// the REST answers, and read by every component of the room screen. It holds no DOM and knows no
// rules: positions are read from the server's state, legal moves are the server's list.
import { t } from './i18n.js';
import { describe } from './events.js';
import { SEATS, parseChaturaji, parseFen4 } from './games.js';
import { ChatLines } from './chat.js';

// Start positions, used until the first action of a game brings the server's state.
const START = {
  chaturaji: 'bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rSrHrErK2gPgS r - 0,0,0,0 - 0 0 - - - -',
  fourchess: 'R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x',
};

const LOG_KEEP = 300;

export class RoomState {
  constructor() {
    this.info = null; // the room (RoomInfo): game kind, settings, seats, phase
    this.game = null; // {kind, game_no, first, options, state, to_act, deadline, outcome, dice_seed, dice_commit, rolls, ratings, record}
    this.v = null; // the last event version applied
    this.mySeat = null;
    this.legal = null; // the legal actions the server sent for this seat, or null
    this.lastMove = [];
    this.log = [];
    // The game action by action: `steps[seq]` = {seq, seat, by, action, applied, state}, from
    // `GET /rooms/{id}/positions` after a snapshot and from `acted` events since; `start` is the
    // public state before the first action (null: the start position of START).
    this.history = { game_no: null, start: null, steps: [] };
    this.chat = new ChatLines();
  }

  names() {
    const out = {};
    if (!this.info) return out;
    this.info.seats.forEach((o, i) => { if (o.kind === 'human') out[SEATS[i]] = o.name; });
    return out;
  }

  /** Log entries are kept as data and put in words when drawn, so a new language rewrites them:
   * `{event, game, names}` for a room event, `{key, seat}` for a notice of the page's own. */
  addLog(entry) {
    this.log.push(entry);
    if (this.log.length > LOG_KEEP) this.log.splice(0, this.log.length - LOG_KEEP);
  }

  /** The log in the current language, oldest first. */
  logLines() {
    return this.log.flatMap((e) => (e.event
      ? describe(e.event, e.game, e.names)
      : [t(e.key, e.seat ? { seat: t(`seat.${e.seat}`) } : {})]));
  }

  /** The room as a REST answer gave it: events may have moved it on meanwhile, the version tells. */
  setInfo(info) {
    if (!this.info || info.v >= this.info.v) this.info = info;
  }

  /**
   * One server message. Returns what the page should do about it: `render`, `bad_token` (the seat
   * token is not this room's), `error` (with `code` and `message`), or nothing.
   */
  receive(m) {
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
        return { render: true, snapshot: !!m.snapshot };
      case 'event':
        if (this.v !== null && m.v <= this.v) return null; // already seen (a resent history)
        this.v = m.v;
        this.applyEvent(m);
        return { render: true, event: m.event };
      case 'view':
        if (m.seat !== this.mySeat) return null;
        this.legal = m.legal || [];
        this.legalV = m.v;
        return { render: true };
      case 'error':
        return { render: true, error: { code: m.code, message: m.message } };
      case 'chat':
        return this.chat.add(m) ? { render: true, chat: m } : null;
      case 'chat_hidden':
        this.chat.hide(m.id);
        return { render: true };
      default:
        return null;
    }
  }

  applySnapshot(snap) {
    this.info = snap.room;
    this.chat.reset(snap.chat);
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
        actions: (g.actions || []).length, // the next action's seq
      };
      if (this.history.game_no !== g.game_no) this.history = { game_no: g.game_no, start: null, steps: [] };
    } else {
      this.game = null;
    }
    this.addLog({ key: 'log.synced' });
  }

  applyEvent(m) {
    const ev = m.event;
    const seatIx = ev.seat ? SEATS.indexOf(ev.seat) : -1;
    this.legal = null; // a new event: the server sends a fresh view if this seat is to act
    this.addLog({ event: ev, game: this.info.game, names: this.names() });
    const seats = this.info.seats;
    switch (ev.e) {
      case 'seat_taken':
        seats[seatIx] = { kind: 'human', name: ev.name, connected: false, cpu_playing: false };
        break;
      case 'cpu_seated':
        seats[seatIx] = { kind: 'cpu', level: ev.level };
        break;
      case 'connection':
        if (seats[seatIx].kind === 'human') seats[seatIx].connected = ev.connected;
        break;
      case 'control':
        if (seats[seatIx].kind === 'human') {
          seats[seatIx].cpu_playing = ev.cpu;
          seats[seatIx].handed_over = ev.reason === 'host';
        }
        break;
      case 'settings_changed':
        Object.assign(this.info, {
          options: ev.options, turn_time: ev.turn_time, rated: ev.rated, public: ev.public, spectator_chat: !!ev.spectator_chat,
        });
        break;
      case 'unseated':
        seats[seatIx] = { kind: 'empty' };
        break;
      case 'locked':
        this.info.locked = ev.locked;
        break;
      case 'muted':
        if (seats[seatIx].kind === 'human') seats[seatIx].muted = ev.muted;
        break;
      case 'game_started':
        this.info.phase = 'playing';
        for (const o of seats) if (o.kind === 'human') o.handed_over = false;
        this.info.game_no = ev.game_no;
        this.info.game = ev.game;
        this.game = {
          kind: ev.game, game_no: ev.game_no, first: ev.first, options: ev.options, state: null,
          outcome: null, dice_seed: null, dice_commit: ev.dice_commit || null, rolls: [], ratings: null, record: null, actions: 0,
        };
        this.history = { game_no: ev.game_no, start: null, steps: [] };
        this.lastMove = [];
        break;
      case 'acted':
        if (this.game) {
          this.game.state = ev.state;
          if (ev.action && ev.action.type === 'roll') this.game.rolls.push(ev.action.dice);
          if (ev.action && ev.action.type === 'move') this.lastMove = [ev.action.from, ev.action.to];
          const seq = this.game.actions++;
          this.history.steps[seq] = { seq, seat: ev.seat, by: ev.by, action: ev.action, applied: ev.applied, state: ev.state };
        }
        break;
      case 'game_over':
        this.info.phase = 'finished';
        // Every mute lasts to the end of a game: this one.
        for (const o of seats) if (o.kind === 'human') o.muted = false;
        if (this.game) {
          this.game.outcome = ev.outcome;
          this.game.dice_seed = ev.dice_seed || null;
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
  }

  /**
   * The game's steps as the server replayed them (`GET /rooms/{id}/positions`): they fill in what
   * this page did not see live. Steps already known from events stay (they are the same).
   */
  mergePositions(positions) {
    if (!this.game || positions.game_no !== this.game.game_no) return false;
    const h = this.history;
    h.start = positions.start;
    for (const step of positions.steps) if (!h.steps[step.seq]) h.steps[step.seq] = step;
    if (!this.lastMove.length) this.lastMove = lastMoveOf(h.steps, h.steps.length - 1);
    return true;
  }

  /** Whether every action of the game so far is in the history (no gap left by a reload). */
  historyComplete() {
    const steps = this.history.steps;
    if (!this.game) return true;
    for (let i = 0; i < this.game.actions; i++) if (!steps[i]) return false;
    return true;
  }

  /** The house rule `show_legal_moves` (four-player chess); Chaturaji always shows them. */
  legalShown() {
    const opts = (this.game && this.game.options) || this.info.options || {};
    return opts.show_legal_moves !== false;
  }

  myTurn() {
    return !!(this.game && !this.game.outcome && this.mySeat && this.game.to_act === this.mySeat);
  }

  /** The pieces on the board now: square name → {seat, kind}. */
  pieces() {
    return piecesOf(this.info.game, this.game && this.game.state);
  }

  /** Legal moves grouped by origin square, then by target square. */
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
}

/** The pieces of a public state (the start position for none): square name → {seat, kind}. */
export function piecesOf(kind, state) {
  if (!state) return kind === 'chaturaji' ? parseChaturaji(START[kind]) : parseFen4(START[kind]).pieces;
  return kind === 'chaturaji' ? parseChaturaji(state.position) : parseFen4(state.fen4).pieces;
}

/** The from/to squares of the last move at or before step `i`, or []. */
export function lastMoveOf(steps, i) {
  for (let k = i; k >= 0; k--) {
    const a = steps[k] && steps[k].action;
    if (a && a.type === 'move') return [a.from, a.to];
  }
  return [];
}
