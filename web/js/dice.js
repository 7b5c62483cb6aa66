// The dice of the Chaturaji turn: each die's face, the piece class it moves, and whether it is
// used, declined, or why it cannot be used.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';

export const DIE_FACE = ['', '⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];

/** @param {HTMLElement} el @param {import('./room-state.js').RoomState} s */
export function renderDice(el, s) {
  const dice = s.game?.state?.dice;
  if (s.info.game !== 'chaturaji' || !dice) {
    setHtml(el, '');
    return;
  }
  setHtml(el, `<h2>${esc(t('dice.title'))}</h2>` + dice.map((d, i) => {
    let why = t(`die.${d.state}`);
    if (d.state === 'unused' && d.unusable) why = t(`unusable.${d.unusable}`);
    else if (d.state === 'unused') why = t('die.usable');
    return `<div class="die die-${d.state}${d.unusable ? ' die-unusable' : ''}" data-die="${i}" data-face="${d.face}" data-state="${d.state}">
          <span class="face" aria-hidden="true">${DIE_FACE[d.face] || d.face}</span>
          <span class="num">${d.face}</span> <span class="class">${esc(t(`class.${d.class}`))}</span>
          <span class="why">${esc(why)}</span></div>`;
  }).join(''));
}
