// "How to play" pages: /howto.html?game=chaturaji|fourchess, in the chosen language. The text
// lives in /howto/<game>.<lang>.txt in the site's rule-page layout (title, lead, headings, "- " list
// items, "| … |" tables, questions ending in "?"), rendered here without any markup language.
import { t, applyStatic, mountLangSelect, onLangChange, currentLang } from './i18n.js';
import { esc } from './util.js';

const main = document.getElementById('howto');
const game = new URLSearchParams(location.search).get('game') === 'fourchess' ? 'fourchess' : 'chaturaji';

function cells(line) {
  return line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
}

export function renderRules(text) {
  const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');
  const out = [];
  let list = null;
  let table = null;
  const flush = () => {
    if (list) out.push(`<ul>${list.join('')}</ul>`);
    if (table) out.push(`<table>${table.join('')}</table>`);
    list = null;
    table = null;
  };
  lines.forEach((line, i) => {
    const last = i === lines.length - 1;
    const playNow = i === lines.length - 2;
    if (line.startsWith('- ')) {
      if (table) flush();
      (list ||= []).push(`<li>${esc(line.slice(2))}</li>`);
      return;
    }
    if (line.startsWith('|')) {
      if (list) flush();
      if (/^\|[-\s|]+\|$/.test(line)) return; // the header separator row
      const tag = table ? 'td' : 'th';
      (table ||= []).push(`<tr>${cells(line).map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`);
      return;
    }
    flush();
    if (i === 0) out.push(`<h1>${esc(line)}</h1>`);
    else if (last) out.push(`<p class="muted"><small>${esc(line)}</small></p>`);
    else if (playNow) out.push(`<p><a class="play-now" href="/">${esc(line)}</a></p>`);
    else if (line.endsWith('?')) out.push(`<h3>${esc(line)}</h3>`);
    else if (line.length <= 45 && !/[.!:)]$/.test(line)) out.push(`<h2>${esc(line)}</h2>`);
    else out.push(`<p>${esc(line)}</p>`);
  });
  flush();
  return out.join('\n');
}

async function show() {
  const lang = currentLang();
  document.title = t(`howto.title_${game}`);
  let res = await fetch(`/howto/${game}.${lang}.txt`);
  if (!res.ok) res = await fetch(`/howto/${game}.en.txt`);
  const text = await res.text();
  main.innerHTML = `<article class="card" lang="${lang}" id="rules">${renderRules(text)}</article>`;
}

mountLangSelect(document.getElementById('lang-select'));
applyStatic();
onLangChange(show);
show();
