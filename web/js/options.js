// House rules as form fields: each game's options table (name, kind, default — the rules specs'
// tables), one field per option, and reading a form back into the JSON the server takes. Shared by
// the lobby's "create a room" form and the host's settings form between games.
import { t, currentLang } from './i18n.js';
import { esc } from './util.js';

/** Each game's house rules: name, kind, default (the rules specs' option tables). */
export const OPTION_TABLE = {
  chaturaji: [
    { name: 'dice', kind: 'choice', values: ['cube', 'long'], default: 'cube' },
    { name: 'promotion', kind: 'choice', values: ['lost_type_only', 'always'], default: 'lost_type_only' },
    { name: 'boat_triumph', kind: 'bool', default: true },
    { name: 'throne_points', kind: 'bool', default: false },
    { name: 'dice_use', kind: 'choice', values: ['optional', 'forced'], default: 'optional' },
    { name: 'round_limit', kind: 'number', min: 1, max: 200, default: 30 },
    { name: 'first_seat_next_game', kind: 'choice', values: ['rotate', 'fixed'], default: 'rotate' },
  ],
  fourchess: [
    { name: 'mode', kind: 'choice', values: ['teams', 'ffa'], default: 'teams' },
    { name: 'move_limit', kind: 'optional_number', min: 1, default: null },
    { name: 'show_legal_moves', kind: 'bool', default: true },
    { name: 'rotate_starter', kind: 'bool', default: true },
  ],
};

export const TURN_TIMES = ['none', '30s', '60s'];

/**
 * One option's field. `value` is the current value (the option's default when undefined); `prefix`
 * keeps ids unique when two forms are on one page.
 */
export function optionField(o, value = o.default, prefix = 'opt') {
  const id = `${prefix}-${o.name}`;
  const label = `<label for="${id}">${esc(t(`opt.${o.name}`))}</label>`;
  switch (o.kind) {
    case 'choice':
      return `<div class="field" data-option="${o.name}">${label}<select id="${id}" name="${o.name}">${o.values.map((v) =>
        `<option value="${v}"${v === value ? ' selected' : ''}>${esc(t(`value.${v}`))}</option>`).join('')}</select></div>`;
    case 'bool':
      return `<div class="field check" data-option="${o.name}"><input type="checkbox" id="${id}" name="${o.name}"${value ? ' checked' : ''}>${label}</div>`;
    case 'number':
      return `<div class="field" data-option="${o.name}">${label}<input type="number" id="${id}" name="${o.name}" min="${o.min}" max="${o.max}" value="${esc(value)}" required></div>`;
    default:
      return `<div class="field" data-option="${o.name}">${label}<input type="number" id="${id}" name="${o.name}" min="${o.min}" value="${value === null ? '' : esc(value)}" placeholder="${esc(t('value.none'))}"></div>`;
  }
}

/** The turn timer as a select. */
export function turnTimeField(value = 'none', prefix = 'opt') {
  return `<div class="field"><label for="${prefix}-turn_time">${esc(t('opt.turn_time'))}</label>
    <select id="${prefix}-turn_time" name="turn_time">
      ${TURN_TIMES.map((v) => `<option value="${v}"${v === value ? ' selected' : ''}>${esc(t(`turn_time.${v}`))}</option>`).join('')}
    </select></div>`;
}

/** The house rules in `form` as the server's JSON (every option of `game`). */
export function readOptions(form, game) {
  const out = {};
  for (const o of OPTION_TABLE[game]) {
    const input = form.elements[o.name];
    if (o.kind === 'bool') out[o.name] = input.checked;
    else if (o.kind === 'number') out[o.name] = Number(input.value); // empty: 0, which the server refuses with its reason
    else if (o.kind === 'optional_number') out[o.name] = input.value === '' ? null : Number(input.value);
    else out[o.name] = input.value;
  }
  return out;
}

/** Put `opts` back into the fields of `form` (after the form was drawn again). */
export function fillOptions(form, game, opts) {
  for (const o of OPTION_TABLE[game]) {
    const input = form.elements[o.name];
    if (!(o.name in opts)) continue;
    if (o.kind === 'bool') input.checked = opts[o.name];
    else input.value = opts[o.name] === null ? '' : opts[o.name];
  }
}

/** The server's list of problems with submitted house rules, in words from their codes: "Round
 * limit: out of range". The server's own message is English, so it is added only in English. */
export function problemText(p) {
  const label = p.option && t(`opt.${p.option}`) !== `opt.${p.option}` ? t(`opt.${p.option}`) : p.option;
  const key = `problem.${p.code}`;
  const what = t(key) === key ? p.code : t(key);
  const detail = currentLang() === 'en' && p.message ? ` (${p.message})` : '';
  return `${label ? `${label}: ` : ''}${what}${detail}`;
}
