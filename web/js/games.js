// The two games as the client draws them: board geometry, reading the server's position text
// (Chaturaji notation, four-player chess FEN4), and the pieces' names. No rules are judged here:
// the server sends the legal moves.

export const SEATS = ['red', 'blue', 'yellow', 'green'];
export const SEAT_LETTER = { r: 'red', b: 'blue', y: 'yellow', g: 'green' };
export const SYMBOL = { red: '●', blue: '▲', yellow: '■', green: '◆' };
export const COLOR = { red: '#d03a2f', blue: '#2f6fd0', yellow: '#d9a400', green: '#2e9e4f', grey: '#8a8a8a' };
const FILES = 'abcdefghijklmn';

export function squareName(x, y) {
  return `${FILES[x]}${y + 1}`;
}

export function parseSquare(name) {
  return { x: FILES.indexOf(name[0]), y: Number(name.slice(1)) - 1 };
}

/** Piece kinds by letter, per game, with the i18n key of their name. */
export const KINDS = {
  chaturaji: { K: 'king', E: 'elephant', H: 'horse', S: 'boat', P: 'pawn' },
  fourchess: { K: 'king', Q: 'queen', R: 'rook', B: 'bishop', N: 'knight', P: 'pawn', D: 'one_point_queen' },
};

/** Letters of the rules' snake_case kinds (what events carry). */
export const KIND_LETTER = {
  king: 'K', elephant: 'E', horse: 'H', boat: 'S', pawn: 'P',
  queen: 'Q', rook: 'R', bishop: 'B', knight: 'N', one_point_queen: 'D',
};

/** The playable squares of a game. */
export function boardSquares(game) {
  const size = game === 'chaturaji' ? 8 : 14;
  const out = [];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (game === 'fourchess' && (x < 3 || x > 10) && (y < 3 || y > 10)) continue;
      out.push({ x, y, name: squareName(x, y) });
    }
  }
  return { size, squares: out };
}

/** Chaturaji notation, first field: rank 8 first, `/` between ranks, digits = empty squares. */
export function parseChaturaji(notation) {
  const board = notation.split(' ')[0];
  const pieces = new Map();
  board.split('/').forEach((row, i) => {
    const y = 7 - i;
    let x = 0;
    for (let j = 0; j < row.length; j++) {
      const c = row[j];
      if (/\d/.test(c)) { x += Number(c); continue; }
      pieces.set(squareName(x, y), { seat: SEAT_LETTER[c], kind: row[j + 1] });
      j++;
      x++;
    }
  });
  return pieces;
}

/** FEN4: the board is the last `-` field; rank 14 first; `,` between squares; `x` a missing corner
 * square; a number a run of empty (or missing) squares; `d` + letter(s) a grey piece. */
export function parseFen4(fen) {
  const fields = fen.split('-');
  const board = fields[fields.length - 1];
  const pieces = new Map();
  board.split('/').forEach((row, i) => {
    const y = 13 - i;
    let x = 0;
    for (const tok of row.split(',')) {
      if (tok === '') continue;
      if (/^\d+$/.test(tok)) { x += Number(tok); continue; }
      if (tok === 'x') { x += 1; continue; }
      if (tok[0] === 'd') {
        pieces.set(squareName(x, y), { seat: 'grey', kind: tok[tok.length - 1] });
      } else {
        pieces.set(squareName(x, y), { seat: SEAT_LETTER[tok[0]], kind: tok[1] });
      }
      x += 1;
    }
  });
  const eliminated = (fields[1] || '').split(',').map((v) => v === '1');
  return { pieces, eliminated };
}

/** Rotate board coordinates so that `seat` sits at the bottom: each seat further clockwise turns the
 * view a quarter turn counter-clockwise (Blue's left edge comes to the bottom). Returns display
 * column/row with row 0 at the top. */
export function toDisplay(x, y, size, seat) {
  const turns = Math.max(0, SEATS.indexOf(seat));
  let a = x;
  let b = y;
  for (let i = 0; i < turns; i++) {
    [a, b] = [size - 1 - b, a];
  }
  return { col: a, row: size - 1 - b };
}

/** Teams promotion line (F.8): Red rank 11, Blue file k, Yellow rank 4, Green file d. */
export function onPromotionLine(options, seat, sq) {
  const file = sq[0];
  const rank = Number(sq.slice(1));
  if ((options.mode || 'teams') !== 'teams') return false;
  return (seat === 'red' && rank === 11) || (seat === 'blue' && file === 'k') || (seat === 'yellow' && rank === 4) || (seat === 'green' && file === 'd');
}
