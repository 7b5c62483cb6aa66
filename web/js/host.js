// The host's screen between games (before the first one and after each): every house rule, the
// turn timer, rated and public, changed with `PUT /rooms/{id}/settings` (the server refuses while a
// game runs and lists every problem with the rules); a CPU of a chosen level for each empty seat
// (`POST /rooms/{id}/cpu`). Start and rematch stay in the room's controls. At any time, the people:
// free a seat before a game, lock the room, hand an absent player's seat to the CPU during a game,
// mute a seat's chat (and, from the chat pane, hide a line).
import { t } from './i18n.js';
import { api } from './api.js';
import { store } from './store.js';
import { esc, errorText, setHtml } from './util.js';
import { SEATS, SYMBOL, COLOR } from './games.js';
import { OPTION_TABLE, optionField, turnTimeField, readOptions, fillOptions, problemText } from './options.js';

/** CPU levels the server takes (1..=3) and their names. */
export const CPU_LEVELS = [1, 2, 3];

export class HostPanel {
  /**
   * @param {HTMLElement} el  the panel's (empty) section
   * @param {{id:string, info:()=>object, onInfo:(info:object)=>void}} room
   */
  constructor(el, room) {
    this.el = el;
    this.room = room;
    // Collapsible, so the settings never push the board down for long.
    el.innerHTML = `<details id="host-details" open><summary><h2>${esc(t('host.title'))}</h2></summary>
      <div id="host-form"></div>
      <p id="settings-status" class="ok" role="status"></p>
      <ul id="settings-problems" class="error problems" role="alert"></ul>
      <div id="host-cpu" class="host-cpu"></div>
      <div id="host-people" class="host-people"></div>
      <p id="people-status" class="error" role="alert"></p></details>`;
    el.addEventListener('submit', (e) => {
      if (e.target.id !== 'settings-form') return;
      e.preventDefault();
      this.save(e.target);
    });
    el.addEventListener('click', (e) => {
      const b = e.target.closest('button[data-host-cpu]');
      if (b) this.seatCpu(b.dataset.hostCpu);
      const p = e.target.closest('button[data-people]');
      if (p) this.order(p.dataset.people, p.dataset.seat ? { seat: p.dataset.seat, ...(p.dataset.people === 'mute' ? { muted: p.dataset.muted === 'true' } : {}) } : {});
    });
  }

  token() {
    return store.host(this.room.id);
  }

  /** Shown to the host: the settings while no game runs, the people always. */
  render() {
    const info = this.room.info();
    this.el.hidden = !this.token();
    if (!this.token()) return;
    this.renderPeople(info);
    const between = info.phase !== 'playing';
    this.el.querySelector('#host-form').hidden = !between;
    this.el.querySelector('#host-cpu').hidden = !between;
    if (!between) return;
    const opts = info.options || {};
    const form = `<form id="settings-form" novalidate data-game="${info.game}">
        <fieldset><legend>${esc(t('lobby.house_rules'))}</legend>
          ${OPTION_TABLE[info.game].map((o) => optionField(o, o.name in opts ? opts[o.name] : o.default, 'set')).join('')}
        </fieldset>
        ${turnTimeField(info.turn_time, 'set')}
        <div class="field check"><input type="checkbox" id="set-rated" name="rated"${info.rated ? ' checked' : ''}><label for="set-rated">${esc(t('opt.rated'))}</label></div>
        <div class="field check"><input type="checkbox" id="set-public" name="public"${info.public ? ' checked' : ''}><label for="set-public">${esc(t('opt.public'))}</label></div>
        <div class="field check"><input type="checkbox" id="set-spectator_chat" name="spectator_chat"${info.spectator_chat ? ' checked' : ''}><label for="set-spectator_chat">${esc(t('opt.spectator_chat'))}</label></div>
        <button type="submit" id="save-settings">${esc(t('host.save'))}</button>
      </form>`;
    // Redraw only when the room's settings change, so an edit in progress survives other events.
    this.redraw(this.el.querySelector('#host-form'), form);
    const empty = SEATS.filter((s, i) => info.seats[i].kind === 'empty');
    const cpu = empty.length ? `<h3>${esc(t('host.cpu_title'))}</h3>${empty.map((s) => `<div class="field cpu-pick" data-seat="${s}">
        <label for="cpu-level-${s}"><span style="color:${COLOR[s]}" aria-hidden="true">${SYMBOL[s]}</span> ${esc(t(`seat.${s}`))}</label>
        <select id="cpu-level-${s}">${CPU_LEVELS.map((l) => `<option value="${l}">${esc(t(`cpu.level_${l}`))}</option>`).join('')}</select>
        <button type="button" data-host-cpu="${s}" id="cpu-${s}">${esc(t('room.add_cpu', { seat: t(`seat.${s}`) }))}</button></div>`).join('')}
        <p class="muted">${esc(t('host.cpu_explain'))}</p>` : '';
    this.redraw(this.el.querySelector('#host-cpu'), cpu);
  }

  /** The moderation buttons: per occupied seat, and the lock. */
  renderPeople(info) {
    const playing = info.phase === 'playing';
    const rows = SEATS.map((s, i) => {
      const o = info.seats[i];
      if (o.kind === 'empty') return '';
      const who = o.kind === 'human' ? o.name : t('seat.cpu', { level: t(`cpu.level_${o.level}`) });
      const buttons = [];
      if (!playing) buttons.push(`<button type="button" data-people="unseat" data-seat="${s}" id="unseat-${s}">${esc(t('host.unseat'))}</button>`);
      if (playing && o.kind === 'human' && !o.connected && !o.handed_over) {
        buttons.push(`<button type="button" data-people="handover" data-seat="${s}" id="handover-${s}">${esc(t('host.handover'))}</button>`);
      }
      if (o.kind === 'human') {
        buttons.push(`<button type="button" data-people="mute" data-seat="${s}" data-muted="${!o.muted}" id="mute-${s}">${esc(t(o.muted ? 'host.unmute' : 'host.mute'))}</button>`);
      }
      if (!buttons.length) return '';
      return `<li class="person" data-seat="${s}"><span style="color:${COLOR[s]}" aria-hidden="true">${SYMBOL[s]}</span> <span class="who">${esc(who)}</span> <span class="person-actions">${buttons.join('')}</span></li>`;
    }).join('');
    const lock = `<button type="button" data-people="${info.locked ? 'unlock' : 'lock'}" id="lock-room">${esc(t(info.locked ? 'host.unlock' : 'host.lock'))}</button>
      <span class="muted">${esc(t(info.locked ? 'host.locked_explain' : 'host.lock_explain'))}</span>`;
    setHtml(this.el.querySelector('#host-people'), `<h3>${esc(t('host.people_title'))}</h3>
      <ul class="people">${rows}</ul><p class="lock-line">${lock}</p>`);
  }

  /** One moderation order over REST; a refusal is shown in words. */
  async order(what, body) {
    const status = this.el.querySelector('#people-status');
    status.textContent = '';
    if (what === 'unseat' && !confirm(t('host.unseat_confirm', { seat: t(`seat.${body.seat}`) }))) return;
    try {
      this.room.onInfo(await api.moderate(this.room.id, this.token(), what, body));
    } catch (e) {
      status.textContent = errorText(e.code);
    }
  }

  /** Hide a chat line for everyone (from the chat pane's × button). */
  hide(id) {
    return this.order('hide', { id });
  }

  redraw(el, html) {
    // Keep a chosen CPU level across a redraw (another seat was taken meanwhile).
    const levels = {};
    for (const s of el.querySelectorAll('select[id^="cpu-level-"]')) levels[s.id] = s.value;
    if (!setHtml(el, html)) return;
    for (const [id, v] of Object.entries(levels)) {
      const s = el.querySelector(`#${id}`);
      if (s) s.value = v;
    }
  }

  /** The form's unsaved values (kept across a language switch). */
  unsaved() {
    const form = this.el.querySelector('#settings-form');
    if (!form) return null;
    return {
      game: form.dataset.game, options: readOptions(form, form.dataset.game),
      turn_time: form.elements.turn_time.value, rated: form.elements.rated.checked, public: form.elements.public.checked,
      spectator_chat: form.elements.spectator_chat.checked,
    };
  }

  restore(saved) {
    const form = this.el.querySelector('#settings-form');
    if (!saved || !form || form.dataset.game !== saved.game) return;
    fillOptions(form, saved.game, saved.options);
    form.elements.turn_time.value = saved.turn_time;
    form.elements.rated.checked = saved.rated;
    form.elements.public.checked = saved.public;
    form.elements.spectator_chat.checked = saved.spectator_chat;
  }

  /** Whether the form holds edits not saved yet. */
  dirty() {
    const now = this.unsaved();
    const info = this.room.info();
    if (!now) return false;
    const norm = (o) => JSON.stringify(Object.keys(o || {}).sort().map((k) => [k, o[k]]));
    return norm(now.options) !== norm(info.options) || now.turn_time !== info.turn_time
      || now.rated !== !!info.rated || now.public !== !!info.public || now.spectator_chat !== !!info.spectator_chat;
  }

  /** Save the form's edits now (before a start); whether they were saved. */
  saveNow() {
    const form = this.el.querySelector('#settings-form');
    return form ? this.save(form) : Promise.resolve(true);
  }

  feedback(status, problems = []) {
    this.el.querySelector('#settings-status').textContent = status;
    this.el.querySelector('#settings-problems').innerHTML = problems.map((p) =>
      `<li data-option="${esc(p.option || '')}" data-code="${esc(p.code || '')}">${esc(p.text ?? problemText(p))}</li>`).join('');
    for (const f of this.el.querySelectorAll('#settings-form .field[data-option]')) {
      f.classList.toggle('bad', problems.some((p) => p.option === f.dataset.option));
    }
  }

  async save(form) {
    const game = form.dataset.game;
    const change = {
      options: readOptions(form, game),
      turn_time: form.elements.turn_time.value,
      rated: form.elements.rated.checked,
      public: form.elements.public.checked,
      spectator_chat: form.elements.spectator_chat.checked,
    };
    this.feedback('');
    try {
      const info = await api.changeSettings(this.room.id, this.token(), change);
      this.room.onInfo(info);
      this.feedback(t('host.saved'));
      return true;
    } catch (e) {
      // bad_options lists every problem; anything else (game_running, bad_token, …) is one line.
      this.feedback('', e.details && e.details.length ? e.details : [{ code: e.code, text: errorText(e.code) }]);
      return false;
    }
  }

  async seatCpu(seat) {
    const select = this.el.querySelector(`#cpu-level-${seat}`);
    const level = Number(select ? select.value : 1);
    try {
      this.room.onInfo(await api.seatCpu(this.room.id, this.token(), seat, level));
      this.feedback('');
    } catch (e) {
      this.feedback('', [{ code: e.code, text: errorText(e.code) }]);
    }
  }
}
