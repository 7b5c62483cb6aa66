// The event log: every room event in words of the current language, newest last.
import { esc, setHtml } from './util.js';

const SHOWN = 60;

/** @param {HTMLElement} el  the log's <ol> @param {import('./room-state.js').RoomState} s */
export function renderLog(el, s) {
  setHtml(el, s.logLines().slice(-SHOWN).map((l) => `<li>${esc(l)}</li>`).join(''));
  el.scrollTop = el.scrollHeight;
}
