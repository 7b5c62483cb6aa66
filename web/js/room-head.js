// The head of the room screen: the invite link, the settings in words, taking a free seat or
// watching (with the side a spectator sees at the bottom), and the host's Start / Rematch.
import { t } from './i18n.js';
import { store } from './store.js';
import { esc, setHtml, settingsSummary } from './util.js';
import { SEATS, SYMBOL } from './games.js';

export function inviteLink(id) {
  return `${location.origin}/?room=${encodeURIComponent(id)}`;
}

/** @param {HTMLElement} el @param {import('./room-state.js').RoomState} s @param {string} viewSeat */
export function renderHead(el, id, s, viewSeat) {
  const info = s.info;
  const parts = [];
  const link = inviteLink(id);
  parts.push(`<span class="invite">${esc(t('room.invite'))} <a id="invite-link" href="${esc(link)}">${esc(link)}</a>
      <button type="button" data-do="copy-invite">${esc(t('room.copy'))}</button></span>`);
  parts.push(`<span class="settings">${esc(settingsSummary(info))}</span>`);
  const hasFree = info.seats.some((o) => o.kind === 'empty');
  if (!s.mySeat && info.phase === 'lobby' && hasFree && !store.seat(id)) {
    parts.push(`<span class="take-seat"><label>${esc(t('lobby.name'))} <input id="seat-name" maxlength="32" value="${esc(store.name())}"></label>
        <button type="button" data-do="take-seat" id="take-seat">${esc(t('room.take_seat'))}</button></span>`);
  }
  if (!s.mySeat) {
    parts.push(`<span class="watching">${esc(t('room.watching'))}</span>`);
    parts.push(`<label class="view-seat">${esc(t('room.view_from'))} <select id="view-seat">${SEATS.map((seat) =>
      `<option value="${seat}"${seat === viewSeat ? ' selected' : ''}>${SYMBOL[seat]} ${esc(t(`seat.${seat}`))}</option>`).join('')}</select></label>`);
  }
  if (store.host(id)) {
    if (info.phase === 'lobby') {
      parts.push(`<button type="button" data-do="start" id="start-game" class="primary">${esc(t('room.start'))}</button>`);
    }
    if (info.phase === 'finished') parts.push(`<button type="button" data-do="rematch" id="rematch" class="primary">${esc(t('room.rematch'))}</button>`);
  }
  // Redraw only on change, so typing in the name field or a click is not cut short by an event.
  if (setHtml(el, parts.join(' '))) {
    const input = el.querySelector('#seat-name');
    if (input) input.addEventListener('input', () => store.setName(input.value.trim()));
  }
}
