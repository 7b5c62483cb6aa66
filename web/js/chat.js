// The room's chat: recent lines (from the snapshot and `chat` messages), the quick phrases (sent as
// an id, shown in the reader's own language), a line of free text, and a per-browser option to hide
// free text and keep only the phrases. The host may hide a line. Text from people is always put in
// as text (esc), never as HTML.
import { t } from './i18n.js';
import { esc, setHtml } from './util.js';
import { SYMBOL, COLOR } from './games.js';

/** The quick phrases, by wire id (the server's fixed set). */
export const PHRASES = ['hello', 'good_luck', 'good_game', 'thanks', 'oops', 'well_played', 'your_turn', 'one_moment'];

const PHRASES_ONLY = 'fk.chat.phrases_only';
const KEEP = 200;

export function phrasesOnly() {
  return localStorage.getItem(PHRASES_ONLY) === '1';
}

export function setPhrasesOnly(on) {
  localStorage.setItem(PHRASES_ONLY, on ? '1' : '0');
}

/** The recent lines, deduplicated by id (a resume sends them again). */
export class ChatLines {
  constructor() {
    this.lines = [];
    this.unread = 0;
  }

  /** Replace all lines (a snapshot). */
  reset(lines) {
    this.lines = (lines || []).slice(-KEEP);
  }

  /** A new line; whether it was new. */
  add(line) {
    if (this.lines.some((l) => l.id === line.id)) return false;
    this.lines.push(line);
    this.lines.sort((a, b) => a.id - b.id);
    if (this.lines.length > KEEP) this.lines.splice(0, this.lines.length - KEEP);
    this.unread++;
    return true;
  }

  hide(id) {
    this.lines = this.lines.filter((l) => l.id !== id);
  }
}

/** Who wrote a line, in words. */
function author(line) {
  if (line.channel === 'spectators' || !line.seat) return `<span class="who">${esc(t('chat.spectator'))}</span>`;
  return `<span class="who" style="color:${COLOR[line.seat]}"><span aria-hidden="true">${SYMBOL[line.seat]}</span> ${esc(line.name || t(`seat.${line.seat}`))}</span>`;
}

/**
 * The chat pane. `who` says what this connection may do: `canWrite` (a seat, or a spectator when the
 * room opened the spectators' channel), `muted`, `host` (a hide button per line).
 */
export function renderChat(el, lines, who) {
  const only = phrasesOnly();
  const shown = lines.filter((l) => !(only && l.text));
  const hidden = lines.length - shown.length;
  const list = shown.length
    ? shown.map((l) => `<li data-id="${l.id}" data-channel="${l.channel}" class="${l.phrase ? 'phrase' : 'text'}${l.channel === 'spectators' ? ' spectators' : ''}">
        ${author(l)} <span class="said">${esc(l.phrase ? t(`phrase.${l.phrase}`) : l.text)}</span>
        ${who.host ? `<button type="button" class="icon hide-line" data-do="hide-line" data-id="${l.id}" title="${esc(t('chat.hide'))}" aria-label="${esc(t('chat.hide'))}">×</button>` : ''}</li>`).join('')
    : `<li class="muted empty">${esc(t('chat.empty'))}</li>`;
  const note = hidden ? `<p class="muted chat-note">${esc(t('chat.hidden_text', { n: hidden }))}</p>` : '';
  let write = '';
  if (who.muted) write = `<p class="muted chat-note" id="chat-muted">${esc(t('chat.you_are_muted'))}</p>`;
  else if (!who.canWrite) write = `<p class="muted chat-note" id="chat-readonly">${esc(t('chat.spectators_read_only'))}</p>`;
  else {
    write = `<div class="phrases" role="group" aria-label="${esc(t('chat.phrases'))}">${PHRASES.map((p) =>
      `<button type="button" class="phrase-btn" data-do="phrase" data-phrase="${p}">${esc(t(`phrase.${p}`))}</button>`).join('')}</div>
      <form id="chat-form" class="chat-form" autocomplete="off">
        <input id="chat-text" name="text" maxlength="200" placeholder="${esc(t(who.spectator ? 'chat.placeholder_spectators' : 'chat.placeholder'))}" aria-label="${esc(t('chat.placeholder'))}"${only ? ' hidden' : ''}>
        <button type="submit" id="chat-send"${only ? ' hidden' : ''}>${esc(t('chat.send'))}</button>
      </form>`;
  }
  const option = `<label class="check chat-option"><input type="checkbox" id="chat-phrases-only"${only ? ' checked' : ''}> ${esc(t('chat.phrases_only'))}</label>`;
  const html = `<ol id="chat-lines" class="chat-lines" aria-live="polite">${list}</ol>${note}${write}${option}`;
  // Keep what is being typed across a redraw.
  const input = el.querySelector('#chat-text');
  const typed = input ? input.value : '';
  const focused = input && document.activeElement === input;
  if (!setHtml(el, html)) return;
  const again = el.querySelector('#chat-text');
  if (again) {
    again.value = typed;
    if (focused) again.focus();
  }
  const ol = el.querySelector('#chat-lines');
  ol.scrollTop = ol.scrollHeight;
}
