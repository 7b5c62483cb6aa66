// Small shared helpers: HTML escaping, error codes and settings in words.
import { t } from './i18n.js';

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** A server or REST error code in words (the server's English message as a tooltip). */
export function errorText(code) {
  const key = `error.${code}`;
  const text = t(key);
  return text === key ? t('error.unknown', { code }) : text;
}

export function settingsSummary(info) {
  const parts = [t(`game.${info.game}`)];
  for (const [k, v] of Object.entries(info.options || {})) {
    parts.push(`${t(`opt.${k}`)}: ${optionValueText(v)}`);
  }
  parts.push(`${t('opt.turn_time')}: ${t(`turn_time.${info.turn_time}`)}`);
  parts.push(info.rated ? t('opt.rated') : t('opt.unrated'));
  return parts.join(' · ');
}

/** A moment in the page's language. `opts` as Intl.DateTimeFormat's; by default short enough for one
 * table cell on a phone ("Dec 2, 2:56 AM"), the year only when it is not this year. */
export function fmtWhen(ms, opts) {
  const d = new Date(ms);
  const short = d.getFullYear() === new Date().getFullYear()
    ? { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }
    : { year: 'numeric', month: 'short', day: 'numeric' };
  try {
    return d.toLocaleString(document.documentElement.lang || undefined, opts || short);
  } catch {
    return String(ms);
  }
}

export function optionValueText(v) {
  if (v === true) return t('value.on');
  if (v === false) return t('value.off');
  if (v === null) return t('value.none');
  if (typeof v === 'string') return t(`value.${v}`);
  return String(v);
}


const shown = new WeakMap();
/**
 * Replace an element's content only when the markup differs from what was last put there.
 * Events arrive many times a second while CPU seats play; rebuilding unchanged buttons would
 * detach them under the player's pointer and lose the click.
 */
export function setHtml(el, html) {
  if (shown.get(el) === html) return false;
  shown.set(el, html);
  el.innerHTML = html;
  return true;
}
