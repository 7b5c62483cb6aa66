// The seat panels: each seat's colour and symbol, who holds it, tags (CPU, away, you, out,
// resigned), its points and whether it is to move.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { SEATS, SYMBOL, COLOR, parseFen4 } from './games.js';

/** @param {HTMLElement} el  the seats' <ol> @param {import('./room-state.js').RoomState} s */
export function renderSeats(el, s) {
  const g = s.game;
  const pts = g?.state?.points || [0, 0, 0, 0];
  const elim = g?.state?.fen4 ? parseFen4(g.state.fen4).eliminated : [];
  setHtml(el, SEATS.map((seat, i) => {
    const o = s.info.seats[i];
    let who;
    const tags = [];
    if (o.kind === 'empty') who = t('seat.empty');
    else if (o.kind === 'cpu') { who = t('seat.cpu', { level: o.level }); tags.push(t('tag.cpu')); }
    else {
      who = o.name;
      if (!o.connected) tags.push(t('tag.away'));
      if (o.cpu_playing) tags.push(t('tag.cpu_playing'));
    }
    if (seat === s.mySeat) tags.push(t('tag.you'));
    if (elim[i]) tags.push(t('tag.out'));
    if (g?.outcome?.standings?.[i]?.resigned) tags.push(t('tag.resigned'));
    const toAct = g && !g.outcome && g.to_act === seat;
    return `<li class="seat seat-${seat}${toAct ? ' to-act' : ''}" data-seat="${seat}">
        <span class="sym" style="color:${COLOR[seat]}" aria-hidden="true">${SYMBOL[seat]}</span>
        <span class="seat-name">${esc(t(`seat.${seat}`))}</span>
        <span class="who">${esc(who)}</span>
        <span class="tags">${tags.map((x) => `<em class="tag">${esc(x)}</em>`).join(' ')}</span>
        <span class="points" data-points="${pts[i]}">${esc(t('seat.points', { n: pts[i] }))}</span>
        ${toAct ? `<span class="turn-mark">${esc(t('seat.to_act'))}</span>` : ''}
      </li>`;
  }).join(''));
}
