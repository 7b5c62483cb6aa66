// The replay of a finished game at `/?game=<id>`, a game review as chess.com and lichess show one:
// the board with the live screen's pieces and highlights (board.js, board-marks.js), the seats with
// their points at the position shown, Chaturaji's throw of the turn, the move list (movelist.js),
// first / back / play / forward / last under the board, a slider over the whole game, the keyboard
// (← → Home End, Space plays), then the final standings with points and rating changes, the dice
// proof with "verify" (dice-verify.js) and the downloads. Every position is the server's: it replays
// the stored record through the rules (`GET /games/{id}/positions`); nothing is judged here.
import { t } from './i18n.js';
import { api } from './api.js';
import { Board } from './board.js';
import { SEATS, SYMBOL } from './games.js';
import { esc, setHtml, fmtWhen } from './util.js';
import { checkDice } from './dice-verify.js';
import { piecesOf, lastMoveOf } from './room-state.js';
import { renderSeats, resignedSeats, cpuName } from './seats.js';
import { renderMoveList, shownSeqs } from './movelist.js';
import { boardMarks } from './board-marks.js';
import { renderDice } from './dice.js';
import { renderGameOver } from './gameover.js';
import { reasonText } from './events.js';
import { poolOf } from './ratings.js';
import { winnerHtml } from './game-list.js';
import { storedPlayer } from './player.js';

/** Milliseconds between two positions while the replay plays by itself. */
const AUTOPLAY_MS = 900;

const LETTER_SEAT = { r: 'red', b: 'blue', y: 'yellow', g: 'green' };

/** The seat to move in a public state: Chaturaji's notation names it in its second field, FEN4 in
 * its first letter. */
function toActOf(kind, state) {
  if (!state) return null;
  const letter = kind === 'chaturaji' ? (state.position || '').split(' ')[1] : (state.fen4 || '')[0];
  return LETTER_SEAT[String(letter || '').toLowerCase()] || null;
}

/** Small drawn icons for the controls (emoji fonts are not everywhere). */
const ICON = {
  first: '<path d="M6 5h2v14H6zM19 5v14l-10-7z"/>',
  prev: '<path d="M17 5v14L6 12z"/>',
  next: '<path d="M7 5v14l11-7z"/>',
  last: '<path d="M16 5h2v14h-2zM5 5v14l10-7z"/>',
  play: '<path d="M7 4v16l13-8z"/>',
  pause: '<path d="M6 4h4v16H6zM14 4h4v16h-4z"/>',
};

function icon(name) {
  return `<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="currentColor">${ICON[name]}</svg>`;
}

export class ReplayPage {
  /** @param {HTMLElement} root @param {string} id the finished game's id (`{room}-{game_no}`) */
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.body = null; // GET /games/{id}: {record, rating_changes, unrated_reason}
    this.start = null; // the public state before the first action
    this.steps = []; // steps[seq]: {seq, seat, by, action, applied, state}
    this.seqs = []; // the seqs the move list shows, in order
    this.at = 0; // 0: the start position; k: after seqs[k - 1]
    this.error = null;
    this.verify = null; // the dice check's result: {key, params}, put in words when drawn
    this.timer = null;
    this.board = null;
    const saved = localStorage.getItem('fk.view');
    this.viewSeat = SEATS.includes(saved) ? saved : null;
    this.listen();
  }

  /** What the browser tests read. */
  get total() { return this.seqs.length; }

  async load() {
    this.root.innerHTML = `<section class="card"><p class="muted">${esc(t('replay.loading'))}</p></section>`;
    try {
      this.body = await api.gameRecord(this.id);
      let from = 0;
      for (;;) {
        const page = await api.gamePositions(this.id, from);
        if (from === 0) this.start = page.start;
        for (const step of page.steps) this.steps[step.seq] = step;
        from += page.steps.length;
        if (!page.steps.length || from >= page.total) break;
      }
    } catch (e) {
      this.error = e.fromServer && e.code === 'not_found' ? 'replay.not_found' : 'replay.error';
      this.errorDetail = e.fromServer ? e.message : '';
      this.renderError();
      return;
    }
    const doc = this.body.record;
    this.seqs = shownSeqs(doc.game, doc.first, this.steps);
    if (!this.viewSeat) {
      // A player sees the game from their own seat, as they played it.
      const me = storedPlayer();
      const mine = me && doc.seats.find((s) => s.player_id === me.player_id);
      this.viewSeat = mine ? mine.seat : doc.first;
    }
    // A link may ask for a position (`&at=12`); the replay opens at the end, as chess.com's does.
    const param = new URLSearchParams(location.search).get('at');
    const asked = param === null ? NaN : Number(param);
    this.at = Number.isInteger(asked) && asked >= 0 && asked <= this.total ? asked : this.total;
    this.render();
  }

  renderError() {
    this.root.innerHTML = `<section class="card" id="replay-error"><p class="error" role="alert">${esc(t(this.error))}${this.errorDetail ? ` (${esc(this.errorDetail)})` : ''}</p>
      <p><a href="/">${esc(t('room.back'))}</a></p></section>`;
  }

  relabel() {
    if (this.error) return this.renderError();
    if (!this.body) return;
    this.shell = false;
    this.render();
  }

  listen() {
    this.root.addEventListener('click', (e) => {
      const mv = e.target.closest('button.mv[data-seq]');
      if (mv) return this.go(this.seqs.indexOf(Number(mv.dataset.seq)) + 1);
      const b = e.target.closest('button[data-do]');
      if (!b) return;
      const what = b.dataset.do;
      if (what === 'nav') this.step(b.dataset.to);
      else if (what === 'play') this.togglePlay();
      else if (what === 'verify') this.verifyDice();
    });
    this.root.addEventListener('input', (e) => {
      if (e.target.id === 'replay-slider') this.go(Number(e.target.value), { keepPlaying: false });
    });
    this.root.addEventListener('change', (e) => {
      if (e.target.id !== 'replay-view') return;
      this.viewSeat = e.target.value;
      localStorage.setItem('fk.view', this.viewSeat);
      this.render();
    });
    document.addEventListener('keydown', (e) => {
      if (!this.shell || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.target.closest && e.target.closest('input, select, textarea, .sq')) return;
      if (e.key === ' ' && !(e.target.closest && e.target.closest('button, a'))) {
        e.preventDefault();
        this.togglePlay();
        return;
      }
      const to = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last', ArrowUp: 'first', ArrowDown: 'last' }[e.key];
      if (!to) return;
      e.preventDefault();
      this.step(to);
    });
  }

  step(to) {
    const target = { first: 0, prev: this.at - 1, next: this.at + 1, last: this.total }[to];
    this.go(target, { keepPlaying: false });
  }

  /** Show position `k` (0: the start, k: after the k-th shown move). */
  go(k, { keepPlaying = true } = {}) {
    if (!keepPlaying) this.stop();
    this.at = Math.max(0, Math.min(this.total, Number.isFinite(k) ? k : 0));
    this.render();
  }

  togglePlay() {
    if (this.timer) return this.stop(), this.render();
    if (this.at >= this.total) this.at = 0; // from the end, play it again from the start
    this.timer = setInterval(() => {
      if (this.at >= this.total) {
        this.stop();
        this.render();
      } else {
        this.go(this.at + 1);
      }
    }, AUTOPLAY_MS);
    this.render();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async verifyDice() {
    const doc = this.body.record;
    const rolls = doc.actions.filter((a) => a.action.type === 'roll').map((a) => a.action.dice);
    this.verify = await checkDice(doc.dice_seed, doc.dice_commit, doc.options && doc.options.dice, rolls);
    this.render();
  }

  /** The seq shown on the board, or null for the start position. */
  seq() {
    return this.at === 0 ? null : this.seqs[this.at - 1];
  }

  /**
   * The room-state shape the live screen's components draw from (seats.js, dice.js, gameover.js),
   * at the position shown: the seats from the record, the state after the step, the steps so far;
   * the outcome only at the end.
   */
  viewState() {
    const doc = this.body.record;
    const seq = this.seq();
    const state = seq === null ? this.start : thrownDiceShown(this.steps[seq]);
    const end = this.at === this.total;
    const seats = doc.seats.map((s) => (s.cpu_level
      ? { kind: 'cpu', level: s.cpu_level }
      : { kind: 'human', name: s.name, connected: true, cpu_playing: false }));
    return {
      info: { game: doc.game, seats, options: doc.options, phase: 'finished', id: doc.room },
      game: {
        kind: doc.game,
        game_no: doc.game_no,
        first: doc.first,
        options: doc.options,
        state,
        to_act: end ? null : toActOf(doc.game, state),
        outcome: end ? doc.outcome : null,
        dice_seed: doc.dice_seed,
        dice_commit: doc.dice_commit,
        ratings: (this.body.rating_changes || []).length ? this.body.rating_changes : null,
        record: null,
      },
      history: { steps: seq === null ? [] : this.steps.slice(0, seq + 1) },
      mySeat: null,
    };
  }

  /** The final standings drawn by the game-over panel, whatever position the board shows. */
  finalState() {
    const s = this.viewState();
    const doc = this.body.record;
    const lastSeq = this.seqs[this.total - 1];
    s.game.outcome = doc.outcome;
    s.game.state = lastSeq === undefined ? this.start : this.steps[lastSeq].state;
    s.history = { steps: this.steps };
    return s;
  }

  buildShell() {
    this.shell = true;
    const doc = this.body.record;
    const nav = (to, label, id) => `<button type="button" class="icon-btn" data-do="nav" data-to="${to}" id="${id}" aria-label="${esc(t(label))}" title="${esc(t(label))}">${icon(to)}</button>`;
    this.root.innerHTML = `
      <section class="replay" id="replay" data-game="${esc(doc.game)}">
        <header class="replay-head">
          <div>
            <h1 id="replay-title"></h1>
            <p class="replay-sub" id="replay-sub"></p>
          </div>
          <p class="replay-result" id="replay-result"></p>
        </header>
        <div class="replay-body">
          <div class="board-wrap">
            <div id="board-host"></div>
            <div class="replay-bar">
              <input type="range" id="replay-slider" min="0" step="1" aria-label="${esc(t('replay.slider'))}">
              <div class="replay-nav">
                ${nav('first', 'moves.first', 'replay-first')}
                ${nav('prev', 'moves.prev', 'replay-prev')}
                <button type="button" class="icon-btn play" data-do="play" id="replay-play"></button>
                ${nav('next', 'moves.next', 'replay-next')}
                ${nav('last', 'moves.last', 'replay-last')}
              </div>
              <p class="replay-pos" id="replay-pos" aria-live="polite"></p>
            </div>
          </div>
          <aside class="side">
            <label class="view-seat replay-view">${esc(t('room.view_from'))} <select id="replay-view">${SEATS.map((seat) =>
              `<option value="${seat}">${SYMBOL[seat]} ${esc(t(`seat.${seat}`))}</option>`).join('')}</select></label>
            <ol id="seats" class="seats"></ol>
            <div id="dice" class="dice"></div>
            <div class="pane replay-moves">
              <h2>${esc(t('moves.title'))}</h2>
              <div id="moves" class="moves"></div>
            </div>
            <div id="gameover" class="gameover card"></div>
            <div id="downloads" class="downloads card"></div>
          </aside>
        </div>
        <p class="muted replay-keys">${esc(t('replay.keys'))}</p>
      </section>`;
    this.board = new Board(this.el('board-host'), { onSquare: () => {} });
  }

  el(id) {
    return document.getElementById(id);
  }

  render() {
    if (!this.body) return;
    if (!this.shell) this.buildShell();
    const doc = this.body.record;
    const kind = doc.game;
    const s = this.viewState();
    const seq = this.seq();
    const root = this.el('replay');
    root.dataset.at = String(this.at);
    root.dataset.total = String(this.total);
    root.dataset.seq = seq === null ? '' : String(seq);
    root.dataset.playing = String(!!this.timer);
    root.dataset.view = this.viewSeat;
    document.title = `${t('replay.title')} · ${t(`game.${kind}`)} · fourkings`;

    this.el('replay-title').textContent = `${t(`game.${kind}`)} · ${t('replay.game_no', { n: doc.game_no })}`;
    const pool = poolOf(kind, doc.options);
    const sub = [kind === 'fourchess' ? t(`pool.${pool}`) : null, doc.rated ? t('opt.rated') : t('opt.unrated'), fmtWhen(doc.finished_at, { dateStyle: 'long', timeStyle: 'short' })].filter(Boolean);
    setHtml(this.el('replay-sub'), `${sub.map(esc).join(' · ')} · <a href="/?room=${encodeURIComponent(doc.room)}">${esc(t('replay.room', { id: doc.room }))}</a>`);
    const winners = doc.outcome.standings.filter((x) => x.place === 1).map((x) => x.seat);
    const listed = { winners, seats: doc.seats.map((x) => ({ ...x, name: x.cpu_level ? cpuName(x.cpu_level) : x.name, points: doc.outcome.standings.find((st) => st.seat === x.seat)?.points || 0 })) };
    setHtml(this.el('replay-result'), `<span class="label">${esc(t('games.winner'))}</span> ${winnerHtml(listed)}<br><span class="muted">${esc(reasonText(doc.outcome.reason))}</span>`);

    const view = this.el('replay-view');
    if (view.value !== this.viewSeat) view.value = this.viewSeat;
    const slider = this.el('replay-slider');
    slider.max = String(this.total);
    if (Number(slider.value) !== this.at) slider.value = String(this.at);
    this.el('replay-first').disabled = this.at === 0;
    this.el('replay-prev').disabled = this.at === 0;
    this.el('replay-next').disabled = this.at === this.total;
    this.el('replay-last').disabled = this.at === this.total;
    const play = this.el('replay-play');
    setHtml(play, icon(this.timer ? 'pause' : 'play'));
    play.title = t(this.timer ? 'replay.pause' : 'replay.play');
    play.setAttribute('aria-label', play.title);
    play.setAttribute('aria-pressed', String(!!this.timer));
    this.el('replay-pos').textContent = this.at === 0
      ? t('replay.start')
      : t('moves.viewing', { n: this.at, total: this.total });

    renderSeats(this.el('seats'), s);
    renderDice(this.el('dice'), s);
    renderMoveList(this.el('moves'), kind, doc.first, this.steps, seq === null ? -1 : seq);
    renderGameOver(this.el('gameover'), this.finalState(), this.verify ? t(this.verify.key, this.verify.params) : '', { replay: false });
    this.renderDownloads();
    this.renderBoard(s);
  }

  renderBoard(s) {
    const kind = s.info.game;
    const seq = this.seq();
    this.board.setup(kind, this.viewSeat);
    const pieces = piecesOf(kind, s.game.state);
    const marks = boardMarks(kind, pieces, s.game.state, {
      outcome: s.game.outcome,
      resigned: resignedSeats(s.history.steps),
      last: seq === null ? [] : lastMoveOf(this.steps, seq),
    });
    this.board.render(pieces, marks);
  }

  renderDownloads() {
    const doc = this.body.record;
    const id = encodeURIComponent(this.id);
    const pgn4 = doc.game === 'fourchess'
      ? `<a class="button" id="download-pgn4" href="/games/${id}/pgn4" download="${esc(this.id)}.pgn4">${esc(t('replay.download_pgn4'))}</a>`
      : '';
    setHtml(this.el('downloads'), `<h2>${esc(t('replay.downloads'))}</h2>
      <p class="download-links">${pgn4}<a class="button" id="download-json" href="/games/${id}" download="${esc(this.id)}.json">${esc(t('replay.download_json'))}</a></p>
      <details><summary>${esc(t('over.verify_title'))}</summary><p>${esc(t('over.verify_steps'))}</p><pre><code>fourkings verify ${esc(this.id)}.json</code></pre></details>`);
  }
}

export function replayView(root, id) {
  const page = new ReplayPage(root, id);
  page.load();
  return page;
}

/**
 * The state after a step, with the throw on the table: when neither die of a throw can be used the
 * turn passes at once (C.9) and the state after it holds no dice, so the step's `rolled` event
 * supplies them (each marked with why it cannot be used).
 */
function thrownDiceShown(step) {
  if (!step.state || step.state.dice || !step.action || step.action.type !== 'roll') return step.state;
  const rolled = (step.applied || []).find((e) => e.type === 'rolled');
  return rolled ? { ...step.state, dice: rolled.dice } : step.state;
}
