// Lists of finished games, each row linking to the game's replay (`/?game=<id>`): a room's games on
// the room page (`GET /rooms/{id}/games`) and a player's recent games on the profile
// (`GET /players/{id}/games`), newest first, a page at a time ("Older games" adds the next).
import { t } from './i18n.js';
import { api } from './api.js';
import { esc, setHtml, fmtWhen } from './util.js';
import { SYMBOL, COLOR } from './games.js';
import { changeText, profileLink } from './ratings.js';
import { cpuName } from './seats.js';

/** The CPU levels' player ids and their numbers (`cpu.level_N`). */
const CPU_LEVEL = { 'cpu:easy': 1, 'cpu:medium': 2, 'cpu:hard': 3 };

export function replayLink(id) {
  return `/?game=${encodeURIComponent(id)}`;
}

/** A seat's holder in words: a CPU by its level in the page's language, else the name it played under. */
function holder(s) {
  const level = CPU_LEVEL[s.player_id];
  return level ? cpuName(level) : s.name || t(`seat.${s.seat}`);
}

function seatChip(s, winner) {
  const name = `<span class="sym" style="color:${COLOR[s.seat]}" aria-hidden="true">${SYMBOL[s.seat]}</span> ${esc(holder(s))}`;
  return `<span class="chip${winner ? ' won' : ''}" data-seat="${s.seat}" title="${esc(t(`seat.${s.seat}`))} · ${esc(t('seat.points', { n: s.points }))}">${name}</span>`;
}

/** The winners in words: their names, or "Draw" when every seat shares the first place. */
export function winnerHtml(g) {
  if (g.winners.length === g.seats.length) return esc(t('over.draw'));
  return g.winners.map((w) => seatChip(g.seats.find((s) => s.seat === w) || { seat: w, points: 0 }, true)).join(' ');
}

function rowHtml(g, player) {
  const won = new Set(g.winners);
  const link = `<a class="replay-link" href="${replayLink(g.game_id)}">${esc(t('replay.open'))}</a>`;
  if (!player) {
    return `<tr data-game="${esc(g.game_id)}"><td class="num">${esc(g.game_no)}</td><td class="when">${esc(fmtWhen(g.finished_at))}</td>
      <td class="winner">${winnerHtml(g)}</td><td>${link}</td></tr>`;
  }
  const mine = g.seats.filter((s) => s.player_id === player);
  const result = mine.map((s) => `<span class="place place-${s.place}">${esc(t('games.place', { place: s.place }))}</span> · ${esc(t('seat.points', { n: s.points }))}`).join('<br>');
  const change = g.rating ? esc(changeText(g.rating)) : `<span class="muted">${esc(t('over.unrated_seat'))}</span>`;
  return `<tr data-game="${esc(g.game_id)}"><td class="when">${esc(fmtWhen(g.finished_at))}</td><td>${esc(t(`pool.${g.pool}`))}</td>
    <td class="players">${g.seats.map((s) => (s.player_id && s.player_id !== player && !s.player_id.startsWith('cpu:') && s.player_id !== 'guest'
    ? `<a href="${profileLink(s.player_id)}">${seatChip(s, won.has(s.seat))}</a>` : seatChip(s, won.has(s.seat)))).join(' ')}</td>
    <td class="result">${result}</td><td class="rating-change">${change}</td><td>${link}</td></tr>`;
}

export class GameList {
  /** @param {'room'|'player'} kind @param {string} id the room's or the player's id */
  constructor(kind, id) {
    this.kind = kind;
    this.id = id;
    this.games = null; // null: not loaded (or no such route on this server)
    this.cursor = null;
    this.el = null;
    this.busy = false;
  }

  /** Draw into `el` (again after a redraw of the page); the first mount loads the newest page. */
  mount(el) {
    if (this.el !== el) {
      el.addEventListener('click', (e) => {
        if (e.target.closest('button[data-do="more-games"]')) this.load(true);
      });
    }
    this.el = el;
    if (this.games === null && !this.busy) this.load(false);
    else this.render();
  }

  /** The newest page again (`more`: the next older page, added below). */
  async load(more) {
    this.busy = true;
    try {
      const fetch = this.kind === 'room' ? api.roomGames : api.playerGames;
      const page = await fetch(this.id, more ? this.cursor : null);
      this.games = more ? [...(this.games || []), ...page.games] : page.games;
      this.cursor = page.next_cursor || null;
    } catch {
      if (!more) this.games = null; // a server without the lists: nothing to show
    }
    this.busy = false;
    this.render();
  }

  render() {
    if (!this.el) return;
    const games = this.games;
    if (!games || (this.kind === 'room' && !games.length)) {
      setHtml(this.el, '');
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    const player = this.kind === 'player' ? this.id : null;
    const head = player
      ? [t('ratings.when'), t('ratings.pool'), t('games.players'), t('games.result'), t('ratings.change'), '']
      : ['#', t('games.date'), t('games.winner'), ''];
    const body = games.length
      ? `<table class="games-list ratings" id="${player ? 'player-games' : 'room-games-table'}"><thead><tr>${head.map((h, i) => `<th${!player && i === 0 ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>
        <tbody>${games.map((g) => rowHtml(g, player)).join('')}</tbody></table>`
      : `<p class="muted" id="player-games-empty">${esc(t('games.none'))}</p>`;
    const more = this.cursor ? `<p class="pager"><button type="button" data-do="more-games" id="${player ? 'player-games-more' : 'room-games-more'}">${esc(t('games.more'))}</button></p>` : '';
    setHtml(this.el, `<h2>${esc(t(player ? 'games.recent' : 'games.title'))}</h2>${body}${more}`);
  }
}
