// Translations: five languages, one flat dictionary of keys per language (js/i18n/<code>.js).
// The language comes from the saved choice, else navigator.language, else English.
import en from './i18n/en.js';
import sw from './i18n/sw.js';
import id from './i18n/id.js';
import ru from './i18n/ru.js';
import pt from './i18n/pt.js';

export const DICTS = { en, sw, id, ru, pt };
export const LANGS = ['en', 'sw', 'id', 'ru', 'pt'];
const STORE_KEY = 'fk.lang';

function detect() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && DICTS[saved]) return saved;
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const code = String(tag).toLowerCase().split('-')[0];
    if (DICTS[code]) return code;
  }
  return 'en';
}

let lang = detect();
const listeners = new Set();

export function currentLang() {
  return lang;
}

export function setLang(code) {
  if (!DICTS[code] || code === lang) return;
  lang = code;
  localStorage.setItem(STORE_KEY, code);
  document.documentElement.lang = code;
  applyStatic();
  for (const fn of listeners) fn(code);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

const PLURAL = /^(zero|one|two|few|many|other):/;

/** A text with plural forms (`one:{n} pt|other:{n} pts`, categories of Intl.PluralRules): the form
 * for `n` in language `code`, else the `other` form. */
function pluralForm(text, code, n) {
  const forms = Object.fromEntries(text.split('|').map((f) => {
    const i = f.indexOf(':');
    return [f.slice(0, i), f.slice(i + 1)];
  }));
  const category = new Intl.PluralRules(code).select(Number(n));
  return forms[category] ?? forms.other ?? Object.values(forms)[0];
}

/** The text of `key` in the current language with `{name}` placeholders filled from `params`; a
 * text with plural forms takes the form for `params.n`. */
export function t(key, params = {}) {
  let code = lang;
  let text = DICTS[lang][key];
  if (text === undefined) { text = DICTS.en[key]; code = 'en'; }
  if (text === undefined) return key;
  if (PLURAL.test(text)) text = pluralForm(text, code, params.n);
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Whether `key` exists (used for server codes the dictionary may not know yet). */
export function has(key) {
  return key in DICTS.en;
}

/** Fill every element carrying data-i18n (text) or data-i18n-aria (aria-label). */
export function applyStatic(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
}

/** The language <select> in the header. */
export function mountLangSelect(select) {
  select.replaceChildren();
  for (const code of LANGS) {
    const opt = document.createElement('option');
    opt.value = code;
    opt.textContent = DICTS[code]['lang.name'];
    select.append(opt);
  }
  select.value = lang;
  select.addEventListener('change', () => setLang(select.value));
  onLangChange((code) => { select.value = code; });
  document.documentElement.lang = lang;
}
