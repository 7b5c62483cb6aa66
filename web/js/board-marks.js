// What the board marks on a position, from the server's public state and the game so far: the
// last move, kings in check (the state names them), a checkmated king, resigned seats' pieces
// muted, and Chaturaji pawns waiting on their far edge with the picture they wait for.
import { parseSquare } from './games.js';

/** Chaturaji: whether a `seat` pawn on `sq` stands on its far edge (C.5). */
function onFarEdge(seat, sq) {
  const { x, y } = parseSquare(sq);
  return { red: y === 7, blue: x === 7, yellow: y === 0, green: x === 0 }[seat] || false;
}

function kingOf(pieces, seat) {
  for (const [sq, p] of pieces) if (p.seat === seat && p.kind === 'K') return sq;
  return null;
}

/**
 * @param {'chaturaji'|'fourchess'} kind
 * @param {Map<string,{seat:string,kind:string}>} pieces
 * @param {object|null} state  the public state drawn
 * @param {{outcome?:object|null, resigned?:Set<string>, last?:string[]}} game
 */
export function boardMarks(kind, pieces, state, { outcome = null, resigned = new Set(), last = [] } = {}) {
  const checks = new Set();
  const mated = new Set();
  const hints = new Set();
  for (const seat of (state && state.checks) || []) {
    const sq = kingOf(pieces, seat);
    if (sq) checks.add(sq);
  }
  const reason = outcome && outcome.reason;
  if (reason && reason.reason === 'checkmate' && reason.seat) {
    const sq = kingOf(pieces, reason.seat);
    if (sq) mated.add(sq);
  }
  if (kind === 'chaturaji') {
    for (const [sq, p] of pieces) if (p.kind === 'P' && onFarEdge(p.seat, sq)) hints.add(sq);
  }
  return { last, checks, mated, faded: resigned, hints };
}
