// Ratings in the client: the number shown for a rating, each seat's change after a rated game, the
// leaderboard page (`/?leaderboard=<pool>`) and a player's profile page (`/?player=<id>`). A server
// without ratings (no `/leaderboard`, `/players/{id}` routes) gets a calm "not available" instead.
import { t } from './i18n.js';
import { api } from './api.js';
import { esc } from './util.js';
import { storedPlayer } from './player.js';

export const POOLS = ['chaturaji', 'fourchess_teams', 'fourchess_ffa'];

/** The rating pool of a game: Chaturaji, or four-player chess by its mode. */
export function poolOf(game, options) {
  if (game === 'chaturaji') return 'chaturaji';
  return (options && options.mode) === 'ffa' ? 'fourchess_ffa' : 'fourchess_teams';
}

/** The number people see: the server's `display` when it sends one, else the same formula as the
 * rating crate's `Rating::display`, round(1000 + 40·(mu − 3·sigma)). */
export function ratingNumber(r) {
  if (!r) return null;
  if (typeof r.display === 'number') return Math.round(r.display);
  if (r.rating) return ratingNumber(r.rating); // a profile's {pool, rating, games}
  if (typeof r.mu !== 'number' || typeof r.sigma !== 'number') return null;
  return Math.round(1000 + 40 * (r.mu - 3 * r.sigma));
}

/** "1000 → 1012 (+12)" for one rating change {before, after}. */
export function changeText(change) {
  const a = ratingNumber(change.before);
  const b = ratingNumber(change.after);
  if (a === null || b === null) return '';
  const d = b - a;
  return `${a} → ${b} (${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)})`;
}

/** The change of the player who held `seat`, from a `rated` event's or a game record's list. */
export function changeForSeat(changes, seat) {
  return (changes || []).find((c) => (c.seats || []).includes(seat)) || null;
}

export function profileLink(id) {
  return `/?player=${encodeURIComponent(id)}`;
}

export function gameLink(id) {
  return `/games/${encodeURIComponent(id)}`;
}

/** Why rating data could not be shown, in the current language (kept as data: the language may
 * change while the page is open). No route at all means this server keeps no ratings. */
function failure(e) {
  if (e.fromServer && e.code === 'not_found') return { key: 'ratings.no_player' };
  return e.fromServer ? { key: 'ratings.error', detail: e.message } : { key: 'ratings.unavailable' };
}

function failureHtml(f) {
  return `<p class="error" id="ratings-error" role="alert">${esc(t(f.key))}${f.detail ? ` (${esc(f.detail)})` : ''}</p>`;
}

function fmtTime(ms) {
  try {
    return new Date(ms).toLocaleString(document.documentElement.lang || undefined);
  } catch {
    return String(ms);
  }
}

class LeaderboardPage {
  constructor(root, pool) {
    this.root = root;
    this.pool = POOLS.includes(pool) ? pool : 'chaturaji';
    this.data = null;
    this.error = null;
    this.load();
  }

  async load() {
    this.data = null;
    this.error = null;
    this.render();
    const pool = this.pool;
    try {
      const data = await api.leaderboard(pool);
      if (pool !== this.pool) return; // another pool was chosen meanwhile
      this.data = data && Array.isArray(data.rows) ? data : { rows: [] };
    } catch (e) {
      if (pool !== this.pool) return;
      this.error = failure(e);
    }
    this.render();
  }

  relabel() {
    this.render();
  }

  render() {
    const me = storedPlayer();
    let body;
    if (this.error) body = failureHtml(this.error);
    else if (!this.data) body = `<p class="muted">${esc(t('room.loading'))}</p>`;
    else if (!this.data.rows.length) body = `<p class="muted" id="leaderboard-empty">${esc(t('ratings.no_rows'))}</p>`;
    else {
      body = `<table id="leaderboard" class="ratings" data-pool="${esc(this.pool)}"><thead><tr>
        <th>${esc(t('ratings.rank'))}</th><th>${esc(t('over.player'))}</th><th>${esc(t('ratings.rating'))}</th><th>${esc(t('ratings.games'))}</th>
        </tr></thead><tbody>${this.data.rows.map((r) => `<tr data-player="${esc(r.player_id)}"${me && me.player_id === r.player_id ? ' class="me"' : ''}>
          <td>${esc(r.rank)}</td>
          <td><a href="${profileLink(r.player_id)}">${esc(r.display_name)}</a>${r.is_cpu ? ` <em class="tag">${esc(t('tag.cpu'))}</em>` : ''}</td>
          <td class="rating" title="μ ${Number(r.mu).toFixed(2)} σ ${Number(r.sigma).toFixed(2)}">${esc(ratingNumber(r))}</td>
          <td>${esc(r.games)}</td></tr>`).join('')}</tbody></table>`;
    }
    this.root.innerHTML = `<section class="card" id="leaderboard-page">
      <h1>${esc(t('ratings.leaderboard'))}</h1>
      <div class="field"><label for="pool-select">${esc(t('ratings.pool'))}</label>
        <select id="pool-select">${POOLS.map((p) => `<option value="${p}"${p === this.pool ? ' selected' : ''}>${esc(t(`pool.${p}`))}</option>`).join('')}</select></div>
      ${body}
      <p class="muted">${esc(t('ratings.explain'))}</p>
      <p><a href="/">${esc(t('room.back'))}</a></p></section>`;
    this.root.querySelector('#pool-select').addEventListener('change', (e) => {
      this.pool = e.target.value;
      history.replaceState(null, '', `/?leaderboard=${encodeURIComponent(this.pool)}`);
      this.load();
    });
  }
}

class ProfilePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.data = null;
    this.error = null;
    this.render();
    this.load();
  }

  async load() {
    try {
      this.data = await api.player(this.id);
      if (!this.data || !this.data.player) throw Object.assign(new Error('bad answer'), { fromServer: false });
    } catch (e) {
      this.data = null;
      this.error = failure(e);
    }
    this.render();
  }

  relabel() {
    this.render();
  }

  render() {
    let body;
    if (this.error) body = failureHtml(this.error);
    else if (!this.data) body = `<p class="muted">${esc(t('room.loading'))}</p>`;
    else {
      const p = this.data;
      const ratings = p.ratings || [];
      const history = p.history || [];
      const me = storedPlayer();
      body = `<h1 id="profile-name">${esc(p.player.display_name)}${p.player.is_cpu ? ` <em class="tag">${esc(t('tag.cpu'))}</em>` : ''}${me && me.player_id === p.player.id ? ` <em class="tag">${esc(t('tag.you'))}</em>` : ''}</h1>
        <h2>${esc(t('ratings.ratings'))}</h2>
        ${ratings.length ? `<table id="profile-ratings" class="ratings"><thead><tr><th>${esc(t('ratings.pool'))}</th><th>${esc(t('ratings.rating'))}</th><th>${esc(t('ratings.games'))}</th></tr></thead>
          <tbody>${ratings.map((r) => `<tr data-pool="${esc(r.pool)}"><td><a href="/?leaderboard=${encodeURIComponent(r.pool)}">${esc(t(`pool.${r.pool}`))}</a></td>
            <td class="rating">${esc(ratingNumber(r))}</td><td>${esc(r.games)}</td></tr>`).join('')}</tbody></table>`
          : `<p class="muted">${esc(t('ratings.no_games'))}</p>`}
        <h2>${esc(t('ratings.history'))}</h2>
        ${history.length ? `<table id="profile-history" class="ratings"><thead><tr><th>${esc(t('ratings.when'))}</th><th>${esc(t('ratings.pool'))}</th><th>${esc(t('ratings.change'))}</th><th>${esc(t('ratings.game'))}</th></tr></thead>
          <tbody>${history.map((h) => `<tr data-game="${esc(h.game_id)}"><td>${esc(fmtTime(h.at))}</td><td>${esc(t(`pool.${h.pool}`))}</td>
            <td class="rating-change">${esc(changeText(h))}</td><td><a href="${gameLink(h.game_id)}">${esc(h.game_id)}</a></td></tr>`).join('')}</tbody></table>`
          : `<p class="muted">${esc(t('ratings.no_games'))}</p>`}`;
    }
    this.root.innerHTML = `<section class="card" id="profile-page">${body}
      <p><a href="/?leaderboard">${esc(t('ratings.leaderboard'))}</a> · <a href="/">${esc(t('room.back'))}</a></p></section>`;
  }
}

export function leaderboardView(root, pool) {
  return new LeaderboardPage(root, pool);
}

export function profileView(root, id) {
  return new ProfilePage(root, id);
}
