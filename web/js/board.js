// The SVG board: squares, pieces in their seat's colour and symbol shape, the view turned so the
// viewer's seat is at the bottom, and input by click, drag or keyboard (arrow keys + Enter).
import { boardSquares, toDisplay, COLOR, SEATS, KINDS } from './games.js';
import { t } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';
const CELL = 100;

function el(name, attrs = {}, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/** The shape of a seat's symbol (● ▲ ■ ◆), centred in a cell. */
function shape(seat, parent) {
  const c = CELL / 2;
  const fill = COLOR[seat] || COLOR.grey;
  const common = { fill, stroke: '#222', 'stroke-width': 3, class: 'piece-shape' };
  switch (seat) {
    case 'blue': return el('polygon', { ...common, points: `${c},10 ${CELL - 8},${CELL - 14} 8,${CELL - 14}` }, parent);
    case 'yellow': return el('rect', { ...common, x: 14, y: 14, width: CELL - 28, height: CELL - 28, rx: 6 }, parent);
    case 'green': return el('polygon', { ...common, points: `${c},6 ${CELL - 6},${c} ${c},${CELL - 6} 6,${c}` }, parent);
    default: return el('circle', { ...common, cx: c, cy: c, r: CELL / 2 - 10 }, parent);
  }
}

export class Board {
  /**
   * @param {HTMLElement} host
   * @param {{onSquare:(sq:string)=>void}} hooks  a square was activated (click, drop, Enter)
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
    this.cells = new Map();
    this.byDisplay = new Map();
    for (const sq of squares) {
      const { col, row } = toDisplay(sq.x, sq.y, size, this.seat);
      const g = el('g', { class: `sq ${(sq.x + sq.y) % 2 ? 'light' : 'dark'}`, 'data-sq': sq.name, tabindex: '-1', role: 'gridcell',
        transform: `translate(${col * CELL},${row * CELL})` }, svg);
      el('rect', { width: CELL, height: CELL, class: 'sq-bg' }, g);
      // Chaturaji promotion pictures (C.13): every edge square shows the type a pawn arriving there
      // may become; from either corner: boat, horse, elephant, king, king, elephant, horse, boat.
      if (game === 'chaturaji' && (sq.x === 0 || sq.x === 7 || sq.y === 0 || sq.y === 7)) {
        const along = sq.y === 0 || sq.y === 7 ? sq.x : sq.y;
        const pic = el('text', { x: CELL - 6, y: 22, 'text-anchor': 'end', class: 'coord promo-pic' }, g);
        pic.textContent = `↟${'SHEKKEHS'[along]}`;
      }
      // Square names along the viewer's bottom and left edges, so the log's "d2–d4" can be found.
      if (row === size - 1 || col === 0) {
        const label = el('text', { x: 5, y: CELL - 6, class: 'coord' }, g);
        label.textContent = sq.name;
      }
      this.cells.set(sq.name, { g, col, row });
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
   * Draw the position.
   * @param {Map<string,{seat:string,kind:string}>} pieces
   * @param {{selected?:string|null, targets?:Set<string>, movable?:Set<string>, last?:string[]}} marks
   */
  render(pieces, marks = {}) {
    const kinds = KINDS[this.game];
    for (const [name, { g }] of this.cells) {
      for (const old of g.querySelectorAll('.piece, .mark')) old.remove();
      const p = pieces.get(name);
      g.classList.toggle('selected', marks.selected === name);
      g.classList.toggle('target', !!marks.targets?.has(name));
      g.classList.toggle('movable', !!marks.movable?.has(name));
      g.classList.toggle('last', !!marks.last?.includes(name));
      let label = name;
      if (p) {
        const pg = el('g', { class: 'piece' }, g);
        shape(p.seat, pg);
        const txt = el('text', { x: CELL / 2, y: CELL / 2 + (p.seat === 'blue' ? 14 : 4), 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'piece-letter' }, pg);
        txt.textContent = p.kind;
        g.dataset.piece = `${p.seat}:${p.kind}`;
        label = `${name}, ${t(`seat.${p.seat}`)} ${t(`piece.${kinds[p.kind] || 'pawn'}`)}`;
      } else {
        delete g.dataset.piece;
      }
      if (marks.targets?.has(name)) {
        el('circle', { cx: CELL / 2, cy: CELL / 2, r: p ? CELL / 2 - 4 : 14, class: p ? 'mark capture-mark' : 'mark dot-mark' }, g);
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

export { SEATS };
