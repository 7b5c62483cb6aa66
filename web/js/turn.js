// Whose turn it is and the seat's own controls: the turn line with the time left, End turn
// (Chaturaji) and Resign, and the choice of piece when a pawn promotes.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { parseFen4, SEATS } from './games.js';
import { resignedSeats } from './seats.js';

/** The turn line, redrawn every quarter second for the countdown. */
export function renderClock(el, s) {
  if (!el || !s.info) return;
  const g = s.game;
  if (!g) {
    el.textContent = t('room.waiting');
    return;
  }
  if (g.outcome) {
    el.textContent = '';
    return;
  }
  let text = g.to_act ? t('turn.of', { seat: t(`seat.${g.to_act}`) }) : '';
  if (s.myTurn()) text = t('turn.yours');
  if (g.deadline) {
    const left = Math.max(0, Math.ceil((g.deadline - Date.now()) / 1000));
    text += ` · ${t('turn.seconds', { n: left })}`;
  }
  el.textContent = text;
}

/** Whether the seat left the game: resigned, or out (four-player chess FFA). */
export function seatGone(s, seat) {
  const g = s.game;
  if (!g || !seat) return false;
  if (resignedSeats(s.history.steps).has(seat)) return true;
  return !!(g.state && g.state.fen4 && parseFen4(g.state.fen4).eliminated[SEATS.indexOf(seat)]);
}

/** End turn and Resign for a seated player while the game runs and the seat is still in it. */
export function renderActions(el, s) {
  const g = s.game;
  const parts = [];
  if (s.mySeat && g && !g.outcome && !seatGone(s, s.mySeat)) {
    if (s.info.game === 'chaturaji') {
      const canEnd = s.myTurn() && (s.legal || []).some((a) => a.type === 'end_turn');
      parts.push(`<button type="button" data-do="end-turn" id="end-turn" ${canEnd ? '' : 'disabled'}>${esc(t('game.end_turn'))}</button>`);
    }
    parts.push(`<button type="button" data-do="resign" id="resign">${esc(t('game.resign'))}</button>`);
  }
  setHtml(el, parts.join(' '));
}

/** The pending promotion choice (a list of candidate actions), or nothing. */
export function renderPromotion(el, promotion) {
  if (promotion) {
    el.hidden = false;
    setHtml(el, `<span>${esc(t('game.promote_to'))}</span> ` + promotion.map((a, i) =>
      `<button type="button" data-do="promote" data-i="${i}" data-kind="${a.promotion}">${esc(t(`piece.${a.promotion}`))}</button>`).join(' '));
  } else {
    el.hidden = true;
    setHtml(el, '');
  }
}
