// What a square activated on the board means for the seat to act: select one of its pieces, move
// the selected piece to a legal target, ask which piece a pawn promotes to, or say why not. The
// legal moves are the server's list; with the house rule that hides them, the server judges each
// move and refuses with an error.
import { onPromotionLine } from './games.js';

export class MoveInput {
  /**
   * @param {import('./room-state.js').RoomState} state
   * @param {{send:(action:object)=>void, say:(key:string, params?:object)=>void}} out
   */
  constructor(state, out) {
    this.state = state;
    this.out = out;
    this.selected = null;
    this.promotion = null; // candidate actions of a pending promotion choice
  }

  reset() {
    this.selected = null;
    this.promotion = null;
  }

  /** A square was activated by click, drop or Enter. */
  onSquare(sq) {
    const s = this.state;
    this.promotion = null; // a pending promotion choice is dropped by any other board input
    const here = s.pieces().get(sq);
    if (!s.game || s.game.outcome) return;
    if (!s.mySeat) return this.out.say('msg.spectator');
    if (!s.myTurn()) return this.out.say('msg.not_your_turn');
    if (!s.legalShown()) return this.onSquareBlind(sq, here);
    const idx = s.moveIndex();
    if (this.selected && idx.get(this.selected)?.has(sq)) {
      this.choose(idx.get(this.selected).get(sq));
      return;
    }
    if (here && here.seat === s.mySeat && idx.has(sq)) {
      this.selected = sq;
      return;
    }
    const from = this.selected;
    this.selected = null;
    if (from && sq !== from) this.out.say('msg.illegal_target', { from, to: sq });
    else if (here && here.seat === s.mySeat) this.out.say('msg.no_moves_from', { sq });
    else if (here) this.out.say('msg.not_your_piece');
  }

  /** House rules hide the legal moves: the server judges every move and refuses with a message. */
  onSquareBlind(sq, here) {
    const s = this.state;
    if (!this.selected) {
      if (here && here.seat === s.mySeat) this.selected = sq;
      else if (here) this.out.say('msg.not_your_piece');
      return;
    }
    if (sq === this.selected) {
      this.selected = null;
      return;
    }
    if (here && here.seat === s.mySeat) {
      this.selected = sq;
      return;
    }
    const from = this.selected;
    const moving = s.pieces().get(from);
    const action = { type: 'move', from, to: sq };
    if (s.info.game === 'fourchess' && moving && moving.kind === 'P' && onPromotionLine(s.game.options, s.mySeat, sq)) {
      this.choose(['queen', 'rook', 'bishop', 'knight'].map((k) => ({ ...action, promotion: k })));
      return;
    }
    this.choose([action]);
  }

  /** Send one of the candidate actions for a from/to pair: a promotion asks which piece first. */
  choose(options) {
    const promos = options.filter((a) => a.promotion);
    if (promos.length > 1) {
      this.promotion = promos;
      return;
    }
    this.send(options[0]);
  }

  /** The promotion button `i` was chosen. */
  promote(i) {
    if (this.promotion && this.promotion[i]) this.send(this.promotion[i]);
  }

  send(action) {
    this.reset();
    this.out.send(action);
  }
}
