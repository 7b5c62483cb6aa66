// The lobby: display name, open rooms, a room by invite link, and creating a room with every house
// rule of the chosen game (each with the spec's default).
import { t } from './i18n.js';
import { api } from './api.js';
import { store } from './store.js';
import { esc, errorText, settingsSummary } from './util.js';
import { SEATS, SYMBOL, COLOR } from './games.js';
import { joinRoom } from './player.js';
import { OPTION_TABLE, optionField, turnTimeField, readOptions, fillOptions, problemText } from './options.js';

class Lobby {
  constructor(root) {
    this.root = root;
    this.game = 'chaturaji';
    this.rooms = [];
    this.error = '';
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
  }

  async refresh() {
    try {
      this.rooms = (await api.listRooms()).rooms;
      this.renderRooms();
    } catch (e) {
      this.rooms = [];
    }
  }

  relabel() {
    const keep = this.root.querySelector('#create-form');
    const opts = keep ? readOptions(keep, this.game) : null;
    this.render();
    if (opts) this.fillOptions(opts);
  }

  fillOptions(opts) {
    fillOptions(this.root.querySelector('#create-form'), this.game, opts);
  }

  render() {
    this.root.innerHTML = `
      <section class="card lobby-name">
        <label for="player-name">${esc(t('lobby.name'))}</label>
        <input id="player-name" maxlength="32" autocomplete="nickname" value="${esc(store.name())}">
      </section>
      <section class="card">
        <h2>${esc(t('lobby.rooms'))}</h2>
        <div id="room-list"></div>
        <form id="invite-form" class="inline">
          <label for="invite-input">${esc(t('lobby.invite'))}</label>
          <input id="invite-input" placeholder="https://…/?room=…">
          <button type="submit">${esc(t('lobby.open'))}</button>
        </form>
      </section>
      <section class="card">
        <h2>${esc(t('lobby.create'))}</h2>
        <form id="create-form">
          <div class="field"><label for="create-game">${esc(t('lobby.game'))}</label>
            <select id="create-game" name="game">
              <option value="chaturaji"${this.game === 'chaturaji' ? ' selected' : ''}>${esc(t('game.chaturaji'))}</option>
              <option value="fourchess"${this.game === 'fourchess' ? ' selected' : ''}>${esc(t('game.fourchess'))}</option>
            </select></div>
          <fieldset><legend>${esc(t('lobby.house_rules'))}</legend>
            ${OPTION_TABLE[this.game].map((o) => optionField(o)).join('')}
          </fieldset>
          ${turnTimeField()}
          <div class="field check"><input type="checkbox" id="opt-rated" name="rated"><label for="opt-rated">${esc(t('opt.rated'))}</label></div>
          <div class="field check"><input type="checkbox" id="opt-public" name="public" checked><label for="opt-public">${esc(t('opt.public'))}</label></div>
          <div class="field check"><input type="checkbox" id="opt-sit" name="sit" checked><label for="opt-sit">${esc(t('lobby.sit_down'))}</label></div>
          <button type="submit" class="primary" id="create-room">${esc(t('lobby.create_button'))}</button>
          <p id="create-error" class="error" role="alert">${esc(this.error)}</p>
        </form>
      </section>`;
    const name = this.root.querySelector('#player-name');
    name.addEventListener('input', () => store.setName(name.value.trim()));
    this.root.querySelector('#create-game').addEventListener('change', (e) => {
      this.game = e.target.value;
      this.error = '';
      this.render();
    });
    this.root.querySelector('#create-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.create();
    });
    this.root.querySelector('#invite-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const text = this.root.querySelector('#invite-input').value.trim();
      if (!text) return;
      let id = text;
      try { id = new URL(text, location.href).searchParams.get('room') || text; } catch { id = text; }
      location.href = `/?room=${encodeURIComponent(id)}`;
    });
    this.renderRooms();
  }

  renderRooms() {
    const list = this.root.querySelector('#room-list');
    if (!list) return;
    if (!this.rooms.length) {
      list.innerHTML = `<p class="muted">${esc(t('lobby.no_rooms'))}</p>`;
      return;
    }
    // Rooms that wait for players first, then games to watch; finished rooms are not listed.
    const order = { lobby: 0, playing: 1 };
    const rooms = this.rooms.filter((r) => r.phase in order).sort((a, b) => order[a.phase] - order[b.phase]);
    if (!rooms.length) {
      list.innerHTML = `<p class="muted">${esc(t('lobby.no_rooms'))}</p>`;
      return;
    }
    list.innerHTML = `<ul class="rooms">${rooms.map((r) => {
      const seats = r.seats.map((o, i) => {
        const s = SEATS[i];
        const who = o.kind === 'human' ? o.name : o.kind === 'cpu' ? t('tag.cpu') : t('seat.empty');
        return `<span class="mini-seat"><span style="color:${COLOR[s]}">${SYMBOL[s]}</span> ${esc(who)}</span>`;
      }).join(' ');
      return `<li class="room-row" data-room="${esc(r.id)}"><a href="/?room=${encodeURIComponent(r.id)}">${esc(t(`game.${r.game}`))} · ${esc(r.id)}</a>
        <span class="phase">${esc(t(`phase.${r.phase}`))}</span> ${seats}
        <small class="muted">${esc(settingsSummary(r))}</small></li>`;
    }).join('')}</ul>`;
  }

  async create() {
    const form = this.root.querySelector('#create-form');
    const name = this.root.querySelector('#player-name').value.trim();
    const sit = form.elements.sit.checked;
    if (sit && !name) {
      this.error = t('lobby.name_needed');
      this.root.querySelector('#create-error').textContent = this.error;
      return;
    }
    if (name) store.setName(name);
    const req = {
      game: this.game,
      options: readOptions(form, this.game),
      turn_time: form.elements.turn_time.value,
      rated: form.elements.rated.checked,
      public: form.elements.public.checked,
    };
    try {
      const created = await api.createRoom(req);
      store.setHost(created.room, created.host_token);
      if (sit) {
        const joined = await joinRoom(created.room, name);
        store.setSeat(created.room, joined.seat, joined.seat_token);
      }
      location.href = `/?room=${encodeURIComponent(created.room)}`;
    } catch (e) {
      const details = (e.details || []).map(problemText).join('; ');
      this.error = errorText(e.code) + (details ? ` (${details})` : '');
      this.root.querySelector('#create-error').textContent = this.error;
    }
  }
}

export function lobbyView(root) {
  return new Lobby(root);
}
