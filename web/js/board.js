// The SVG board, a component that knows no rules (lichess' chessground is the model): it draws any
// position given to it — figures in their seat's colour with the seat's shape mark, highlights of
// the last move, the selection and its targets, kings in check, mated kings, promotion pictures —
// turned so the viewer's seat is at the bottom, and reports squares activated by click, drag or
// keyboard (arrow keys + Enter). The room screen and the replay viewer both draw with it.
import { boardSquares, toDisplay, COLOR, SEATS, KINDS } from './games.js';
import { t } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';
const CELL = 100;
const ART = '/art/pieces.svg';

/** The figure (a symbol of `web/art/pieces.svg`) of each piece letter. */
const FIGURE = {
  chaturaji: { K: 'k', E: 'elephant', H: 'n', S: 'boat', P: 'p' },
  fourchess: { K: 'k', Q: 'q', R: 'r', B: 'b', N: 'n', P: 'p', D: 'q' },
};

/** Chaturaji promotion pictures (C.13), from either corner of an edge. */
const PICTURES = ['S', 'H', 'E', 'K', 'K', 'E', 'H', 'S'];

export function figureHref(game, kind) {
  return `${ART}#${FIGURE[game][kind] || 'p'}`;
}

function el(name, attrs = {}, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/** The seat's shape (● ▲ ■ ◆) drawn small in a corner of its pieces, for colour-blind players. */
function seatMark(seat, parent) {
  const s = 9; // half size
  const cx = CELL - 15;
  const cy = 15;
  const common = { class: 'seat-mark' };
  switch (seat) {
    case 'blue': return el('polygon', { ...common, points: `${cx},${cy - s} ${cx + s},${cy + s - 1} ${cx - s},${cy + s - 1}` }, parent);
    case 'yellow': return el('rect', { ...common, x: cx - s + 1, y: cy - s + 1, width: 2 * s - 2, height: 2 * s - 2 }, parent);
    case 'green': return el('polygon', { ...common, points: `${cx},${cy - s} ${cx + s},${cy} ${cx},${cy + s} ${cx - s},${cy}` }, parent);
    case 'red': return el('circle', { ...common, cx, cy, r: s - 1 }, parent);
    default: return null;
  }
}

/** The promotion picture of a Chaturaji edge square, or null when it is on no edge. */
export function promotionPicture(x, y) {
  if (y === 0 || y === 7) return PICTURES[x];
  if (x === 0 || x === 7) return PICTURES[y];
  return null;
}

export class Board {
  /**
   * @param {HTMLElement} host
   * @param {{onSquare:(sq:string, opts?:object)=>void}} hooks  a square was activated (click, drop, Enter)
   */
  constructor(host, hooks) {
    this.host = host;
    this.hooks = hooks;
    this.game = null;
    this.seat = 'red';
    this.cells = new Map();
    this.cursor = null;
    this.dragFrom = null;
  }

  /** Rebuild the grid (a new game kind or a new orientation). */
  setup(game, seat) {
    if (this.game === game && this.seat === seat && this.svg) return;
    this.game = game;
    this.seat = seat || 'red';
    const { size, squares } = boardSquares(game);
    this.size = size;
    const svg = el('svg', { viewBox: `0 0 ${size * CELL} ${size * CELL}`, class: `board board-${game}`, role: 'grid', id: 'board' });
    svg.setAttribute('aria-label', t('board.label'));
    const defs = el('defs', {}, svg);
    const glow = el('radialGradient', { id: 'check-glow' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#ff1a1a', 'stop-opacity': '1' }, glow);
    el('stop', { offset: '45%', 'stop-color': '#e01010', 'stop-opacity': '.85' }, glow);
    el('stop', { offset: '100%', 'stop-color': '#a00000', 'stop-opacity': '0' }, glow);
    this.cells = new Map();
    this.byDisplay = new Map();
    for (const sq of squares) {
      const { col, row } = toDisplay(sq.x, sq.y, size, this.seat);
      const shade = (sq.x + sq.y) % 2 ? 'light' : 'dark';
      const g = el('g', { class: `sq ${shade}`, 'data-sq': sq.name, tabindex: '-1', role: 'gridcell',
        transform: `translate(${col * CELL},${row * CELL})` }, svg);
      el('rect', { width: CELL, height: CELL, class: 'sq-bg' }, g);
      // Highlights are layers over the square's own colour, so they show on light and dark squares alike.
      el('rect', { width: CELL, height: CELL, class: 'hl hl-last' }, g);
      el('rect', { width: CELL, height: CELL, class: 'hl hl-move' }, g);
      el('rect', { width: CELL, height: CELL, class: 'hl hl-sel' }, g);
      el('circle', { cx: CELL / 2, cy: CELL / 2, r: CELL / 2, class: 'hl-check', fill: 'url(#check-glow)' }, g);
      // Square names along the viewer's bottom and left edges (the part that changes along the edge),
      // in the corners, where pieces leave them readable.
      const turned = SEATS.indexOf(this.seat) % 2 === 1;
      const file = sq.name[0];
      const rank = sq.name.slice(1);
      if (row === size - 1 || (game === 'fourchess' && row === 10 && (col < 3 || col > 10))) {
        const label = el('text', { x: CELL - 6, y: CELL - 7, 'text-anchor': 'end', class: `coord coord-${shade}` }, g);
        label.textContent = turned ? rank : file;
      }
      if (col === 0 || (game === 'fourchess' && col === 3 && (row < 3 || row > 10))) {
        const label = el('text', { x: 6, y: 22, class: `coord coord-${shade}` }, g);
        label.textContent = turned ? file : rank;
      }
      el('rect', { x: 4, y: 4, width: CELL - 8, height: CELL - 8, class: 'focus-ring' }, g);
      this.cells.set(sq.name, { g, col, row, x: sq.x, y: sq.y });
      this.byDisplay.set(`${col},${row}`, sq.name);
    }
    svg.addEventListener('click', (e) => {
      const sq = e.target.closest('.sq');
      if (sq && !this.suppressClick) this.activate(sq.dataset.sq);
      this.suppressClick = false;
    });
    svg.addEventListener('pointerdown', (e) => {
      const sq = e.target.closest('.sq');
      this.dragFrom = sq && sq.dataset.piece ? sq.dataset.sq : null;
    });
    svg.addEventListener('pointerup', (e) => {
      const from = this.dragFrom;
      this.dragFrom = null;
      if (!from) return;
      const target = document.elementFromPoint(e.clientX, e.clientY);
      const sq = target && target.closest && target.closest('.sq');
      if (sq && sq.dataset.sq !== from) {
        // A drag: pick up on `from`, put down here. The click that follows is not a second input.
        this.activate(from, { drag: true });
        this.activate(sq.dataset.sq);
        this.suppressClick = true;
      }
    });
    svg.addEventListener('keydown', (e) => this.onKey(e));
    // Focus may arrive by Tab or a click: the roving tab stop follows it.
    svg.addEventListener('focusin', (e) => {
      const sq = e.target.closest?.('.sq');
      if (sq && sq.dataset.sq !== this.cursor) this.setCursor(sq.dataset.sq, false);
    });
    this.svg = svg;
    this.host.replaceChildren(svg);
    this.cursor = null;
  }

  activate(sq, opts = {}) {
    this.setCursor(sq, false);
    this.hooks.onSquare(sq, opts);
  }

  setCursor(sq, focus = true) {
    if (this.cursor && this.cells.get(this.cursor)) this.cells.get(this.cursor).g.setAttribute('tabindex', '-1');
    this.cursor = sq;
    const cell = this.cells.get(sq);
    if (!cell) return;
    cell.g.setAttribute('tabindex', '0');
    if (focus) cell.g.focus();
  }

  onKey(e) {
    const dirs = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const focused = e.target.closest?.('.sq')?.dataset.sq;
    if (focused) this.cursor = focused;
    const cur = this.cells.get(this.cursor);
    if (dirs[e.key] && cur) {
      e.preventDefault();
      e.stopPropagation(); // the arrows walk the board here, not the move list
      let [c, r] = [cur.col, cur.row];
      for (let i = 0; i < this.size; i++) {
        c += dirs[e.key][0];
        r += dirs[e.key][1];
        const name = this.byDisplay.get(`${c},${r}`);
        if (name) { this.setCursor(name); return; }
        if (c < 0 || r < 0 || c >= this.size || r >= this.size) return;
      }
    } else if ((e.key === 'Enter' || e.key === ' ') && cur) {
      e.preventDefault();
      this.activate(this.cursor);
    }
  }

  /**
   * Draw a position.
   * @param {Map<string,{seat:string,kind:string}>} pieces  square → piece (`seat` 'grey' for dead pieces)
   * @param {{selected?:string|null, targets?:Set<string>, movable?:Set<string>, last?:string[],
   *   checks?:Set<string>, mated?:Set<string>, faded?:Set<string>, hints?:Set<string>}} marks
   *   `checks`: squares of kings in check; `mated`: squares of checkmated kings; `faded`: seats whose
   *   pieces are drawn muted (resigned); `hints`: Chaturaji edge squares that show their promotion picture
   */
  render(pieces, marks = {}) {
    const kinds = KINDS[this.game];
    for (const [name, { g, x, y }] of this.cells) {
      for (const old of g.querySelectorAll('.piece, .mark')) old.remove();
      const p = pieces.get(name);
      g.classList.toggle('selected', marks.selected === name);
      g.classList.toggle('target', !!marks.targets?.has(name));
      g.classList.toggle('movable', !!marks.movable?.has(name));
      g.classList.toggle('last', !!marks.last?.includes(name));
      g.classList.toggle('check', !!marks.checks?.has(name));
      g.classList.toggle('mated', !!marks.mated?.has(name));
      let label = name;
      if (marks.hints?.has(name)) {
        const pic = promotionPicture(x, y);
        if (pic) {
          const hint = el('g', { class: 'mark promo-hint' }, g);
          el('use', { href: figureHref(this.game, pic), x: 52, y: 2, width: 46, height: 46 }, hint);
          label += `, ↟ ${t(`piece.${kinds[pic]}`)}`;
        }
      }
      if (p) {
        const faded = p.seat !== 'grey' && marks.faded?.has(p.seat);
        const pg = el('g', { class: `piece piece-${p.seat}${faded ? ' faded' : ''}`, style: `color:${COLOR[p.seat] || COLOR.grey}` }, g);
        el('use', { href: figureHref(this.game, p.kind), x: 2, y: 2, width: CELL - 4, height: CELL - 4 }, pg);
        seatMark(p.seat, pg);
        g.dataset.piece = `${p.seat}:${p.kind}`;
        label = `${label}, ${t(`seat.${p.seat}`)} ${t(`piece.${kinds[p.kind] || 'pawn'}`)}`;
      } else {
        delete g.dataset.piece;
      }
      if (marks.mated?.has(name)) {
        const badge = el('g', { class: 'mark mate-badge' }, g);
        el('circle', { cx: CELL - 17, cy: CELL - 17, r: 14 }, badge);
        el('text', { x: CELL - 17, y: CELL - 17, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, badge).textContent = '#';
      }
      if (marks.targets?.has(name)) {
        el('circle', { cx: CELL / 2, cy: CELL / 2, r: p ? CELL / 2 - 5 : 15, class: p ? 'mark capture-mark' : 'mark dot-mark' }, g);
      }
      g.setAttribute('aria-label', label);
    }
    if (!this.cursor) {
      // Start keyboard focus on the viewer's own side (bottom-left corner of the view).
      const first = [...this.cells.entries()].sort((a, b) => b[1].row - a[1].row || a[1].col - b[1].col)[0];
      if (first) this.setCursor(first[0], false);
    }
  }
}
