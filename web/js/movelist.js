// The move list beside the board, built from the game's steps (the store's history: the server's
// replay after a reload, `acted` events since), so it is the same before and after a reload.
// Four-player chess: chess.com's PGN4 move style, one row per round of four (`1. h2-h3 b7-c7 …`),
// long algebraic with `x` for captures, `=` for promotion, one `+` per king checked, `#` for mate.
// Chaturaji: one row per turn, its throw and its moves, captures with their points. Pieces are
// figurines in the seat's colour (no letter that only makes sense in English). Each move is a
// button: activating it shows the board after it.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { COLOR, KIND_LETTER } from './games.js';
import { figureHref } from './board.js';
import { DIE_FACE } from './dice.js';

const SEATS = ['red', 'blue', 'yellow', 'green'];

/** A piece as a figurine. `kind` is a letter (K, Q, …, E, H, S); `seat` its owner or 'grey'. */
export function figurine(game, kind, seat) {
  return `<svg class="fig" viewBox="0 0 40 40" aria-hidden="true" style="color:${COLOR[seat] || COLOR.grey}"><use href="${figureHref(game, kind)}"/></svg>`;
}

const ownerOf = (owner) => (owner && owner.seat) || 'grey';

/** One four-player chess move (the rules' MoveReport) in PGN4 style, as HTML. */
function fourchessMove(r) {
  let out;
  if (r.castling_long === true) out = 'O-O-O';
  else if (r.castling_long === false) out = 'O-O';
  else {
    const letter = KIND_LETTER[r.piece];
    out = (letter === 'P' ? '' : figurine('fourchess', letter, r.seat)) + r.mv.from;
    const caps = r.captures || [];
    const c = caps.find((x) => x.square === r.mv.to) || caps[0];
    if (c) {
      const cl = KIND_LETTER[c.piece.kind];
      out += `x${cl === 'P' ? '' : figurine('fourchess', cl, ownerOf(c.piece.owner))}`;
    } else out += '-';
    out += r.mv.to;
    if (r.mv.promotion) out += `=${figurine('fourchess', KIND_LETTER[r.mv.promotion], r.seat)}`;
  }
  if ((r.mated || []).length) out += '#';
  else out += '+'.repeat((r.checks || []).length);
  return out;
}

/** The cells of one step, or none (Chaturaji's end of turn shows no cell of its own). */
function cellsOf(game, step) {
  const a = step.action || {};
  if (a.type === 'resign') return [{ text: esc(t('moves.resigns', { seat: t(`seat.${a.seat || step.seat}`) })), cls: 'resign' }];
  if (game === 'fourchess') {
    const cells = [];
    if (step.applied && step.applied.move) cells.push({ text: fourchessMove(step.applied.move) });
    for (const e of (step.applied && step.applied.eliminations) || []) {
      if (e.cause === 'stalemate') cells.push({ text: esc(t('moves.stalemated', { seat: t(`seat.${e.seat}`) })), cls: 'resign' });
    }
    return cells;
  }
  if (a.type === 'roll') return [{ text: a.dice.map((f) => DIE_FACE[f] || f).join(''), cls: 'throw' }];
  if (a.type !== 'move') return [];
  const effects = step.applied || [];
  const moved = effects.find((e) => e.type === 'moved');
  const letter = KIND_LETTER[moved ? moved.piece : 'pawn'];
  const caps = effects.filter((e) => e.type === 'captured');
  let text = figurine('chaturaji', letter, step.seat) + a.from + (caps.length ? 'x' : '-') + a.to;
  const promoted = effects.find((e) => e.type === 'promoted');
  if (promoted) text += `=${figurine('chaturaji', KIND_LETTER[promoted.to], step.seat)}`;
  // Points scored by this move: captures, thrones, boat triumph, the Chaturaji bonus.
  let points = 0;
  for (const e of effects) {
    if (e.type === 'captured' || e.type === 'throne_points' || e.type === 'boat_triumph') points += e.points || 0;
    if (e.type === 'chaturaji') points += (e.points_after || 0) - (e.points_before || 0);
  }
  if (points) text += ` <span class="pts">+${points}</span>`;
  return [{ text }];
}

/**
 * The rows of the list: `{n, cells: [{seq, seat, text, cls}]}`. A new row starts at each throw
 * (Chaturaji) or whenever the turn comes round past the first seat again (four-player chess).
 */
export function moveRows(game, first, steps) {
  const rows = [];
  const order = (s) => (SEATS.indexOf(s) - SEATS.indexOf(first) + 4) % 4;
  let lastOrder = null;
  for (const step of steps) {
    if (!step) continue;
    const cells = cellsOf(game, step);
    if (!cells.length) continue;
    const newRow = game === 'chaturaji'
      ? step.action.type === 'roll' || !rows.length
      : step.action.type !== 'resign' && (lastOrder === null || order(step.seat) <= lastOrder);
    // A resignation before any move (the first action of a game) starts the first row.
    if (newRow || !rows.length) rows.push({ n: rows.length + 1, cells: [] });
    if (game === 'fourchess' && step.action.type !== 'resign') lastOrder = order(step.seat);
    for (const c of cells) rows[rows.length - 1].cells.push({ seq: step.seq, seat: step.seat, ...c });
  }
  return rows;
}

/** The seqs the list shows (what the arrow keys step through), in order. */
export function shownSeqs(game, first, steps) {
  const out = [];
  for (const row of moveRows(game, first, steps)) {
    for (const c of row.cells) if (out[out.length - 1] !== c.seq) out.push(c.seq);
  }
  return out;
}

/** @param {HTMLElement} el @param {number|null} current the seq shown on the board (null: the live game) */
export function renderMoveList(el, game, first, steps, current) {
  const rows = moveRows(game, first, steps);
  if (!rows.length) {
    setHtml(el, `<p class="muted">${esc(t('moves.none'))}</p>`);
    return;
  }
  const live = current === null;
  const lastSeq = rows[rows.length - 1].cells.at(-1).seq;
  const changed = setHtml(el, `<ol class="move-rows">${rows.map((r) => `<li><span class="move-no">${r.n}.</span>${r.cells.map((c) => {
    const on = live ? c.seq === lastSeq : c.seq === current;
    return `<button type="button" class="mv mv-${c.seat}${c.cls ? ` mv-${c.cls}` : ''}${on ? ' current' : ''}" data-seq="${c.seq}"${on ? ' aria-current="true"' : ''}>${c.text}</button>`;
  }).join('')}</li>`).join('')}</ol>`);
  // Keep the current move in sight inside the list (never scroll the page itself).
  const cur = el.querySelector('.mv.current');
  if (changed && cur) {
    const top = cur.offsetTop; // the list is the offset parent (position: relative)
    if (top < el.scrollTop || top + cur.offsetHeight > el.scrollTop + el.clientHeight) el.scrollTop = top - el.clientHeight / 2;
  }
}
