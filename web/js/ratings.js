// Ratings in the client: the number shown for a rating, each seat's change after a rated game, the
// leaderboard page (`/?leaderboard=<pool>`) and a player's profile page (`/?player=<id>`). A server
// without ratings (no `/leaderboard`, `/players/{id}` routes) gets a calm "not available" instead.
import { t } from './i18n.js';
import { api } from './api.js';
import { esc, fmtWhen } from './util.js';
import { storedPlayer } from './player.js';
import { GameList, replayLink } from './game-list.js';

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

/** A difference of shown ratings with its sign: "+12", "−61", "±0". */
function signed(d) {
  return `${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)}`;
}

/** "1000 → 1012 (+12)" for one rating change {before, after}. */
export function changeText(change) {
  const a = ratingNumber(change.before);
  const b = ratingNumber(change.after);
  if (a === null || b === null) return '';
  return `${a} → ${b} (${signed(b - a)})`;
}

/** "1012 (+12)": the rating after a change and the change, for narrow columns (`changeText` says
 * it in full, e.g. as the title). */
export function changeShort(change) {
  const a = ratingNumber(change.before);
  const b = ratingNumber(change.after);
  if (a === null || b === null) return '';
  return `${b} (${signed(b - a)})`;
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

class LeaderboardPage {
  constructor(root, pool) {
    this.root = root;
    this.pool = POOLS.includes(pool) ? pool : 'chaturaji';
    this.offset = 0;
    this.data = null;
    this.error = null;
    this.load();
  }

  async load() {
    this.data = null;
    this.error = null;
    this.render();
    const { pool, offset } = this;
    try {
      const data = await api.leaderboard(pool, offset);
      if (pool !== this.pool || offset !== this.offset) return; // another page was chosen meanwhile
      this.data = data && Array.isArray(data.rows) ? data : { rows: [] };
    } catch (e) {
      if (pool !== this.pool || offset !== this.offset) return;
      this.error = failure(e);
    }
    this.render();
  }

  relabel() {
    this.render();
  }

  /** Who is listed, as the server says: established players who played lately. */
  ruleText() {
    const d = this.data;
    if (!d || typeof d.min_games !== 'number') return '';
    return d.active_days ? t('ratings.board_rule_days', { n: d.min_games, days: d.active_days }) : t('ratings.board_rule', { n: d.min_games });
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
          <td><a href="${profileLink(r.player_id)}">${esc(r.display_name)}</a></td>
          <td class="rating" title="μ ${Number(r.mu).toFixed(2)} σ ${Number(r.sigma).toFixed(2)}">${esc(ratingNumber(r))}</td>
          <td class="games">${esc(r.games)}</td></tr>`).join('')}</tbody></table>`;
    }
    const d = this.data;
    const pager = d && (this.offset > 0 || d.next_offset) ? `<p class="pager">
        <button type="button" id="board-prev"${this.offset > 0 ? '' : ' disabled'}>${esc(t('ratings.prev'))}</button>
        <button type="button" id="board-next"${d.next_offset ? '' : ' disabled'}>${esc(t('ratings.next'))}</button></p>` : '';
    const rule = this.ruleText();
    this.root.innerHTML = `<section class="card" id="leaderboard-page">
      <h1>${esc(t('ratings.leaderboard'))}</h1>
      <div class="field"><label for="pool-select">${esc(t('ratings.pool'))}</label>
        <select id="pool-select">${POOLS.map((p) => `<option value="${p}"${p === this.pool ? ' selected' : ''}>${esc(t(`pool.${p}`))}</option>`).join('')}</select></div>
      ${body}${pager}
      ${rule ? `<p class="muted" id="board-rule">${esc(rule)}</p>` : ''}
      <p class="muted">${esc(t('ratings.explain'))}</p>
      <p><a href="/">${esc(t('room.back'))}</a></p></section>`;
    this.root.querySelector('#pool-select').addEventListener('change', (e) => {
      this.pool = e.target.value;
      this.offset = 0;
      history.replaceState(null, '', `/?leaderboard=${encodeURIComponent(this.pool)}`);
      this.load();
    });
    const turn = (to) => { this.offset = Math.max(0, to); this.load(); };
    this.root.querySelector('#board-prev')?.addEventListener('click', () => turn(this.offset - (d.rows.length || 50)));
    this.root.querySelector('#board-next')?.addEventListener('click', () => turn(d.next_offset));
  }
}

/** The points of a rating chart, oldest first: the rating before the first game shown, then after
 * each game. `entries` come newest first, as the server sends them. */
export function chartPoints(entries) {
  const old = [...(entries || [])].sort((a, b) => a.games - b.games);
  if (!old.length) return [];
  const first = old[0];
  return [{ games: first.games - 1, value: ratingNumber(first.before) }, ...old.map((h) => ({ games: h.games, value: ratingNumber(h.after) }))];
}

/** A small line chart of the rating over rated games, drawn as SVG (no library). */
export function chartSvg(points, label) {
  if (points.length < 2) return '';
  const W = 600;
  const H = 180;
  // Room for the labels at the larger size a phone draws them (style.css).
  const pad = { l: 62, r: 14, t: 14, b: 32 };
  const xs = points.map((p) => p.games);
  const ys = points.map((p) => p.value);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y1 - y0 < 20) { const mid = (y0 + y1) / 2; y0 = mid - 10; y1 = mid + 10; }
  const px = (x) => pad.l + ((x - x0) / Math.max(1, x1 - x0)) * (W - pad.l - pad.r);
  const py = (y) => pad.t + (1 - (y - y0) / (y1 - y0)) * (H - pad.t - pad.b);
  const line = points.map((p) => `${px(p.games).toFixed(1)},${py(p.value).toFixed(1)}`).join(' ');
  const last = points[points.length - 1];
  const tick = (y) => `<line x1="${pad.l}" x2="${W - pad.r}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" class="grid"/>
    <text x="${pad.l - 6}" y="${py(y).toFixed(1)}" text-anchor="end" dominant-baseline="middle">${Math.round(y)}</text>`;
  return `<svg class="rating-chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)}">
    ${tick(y0)}${tick(y1)}
    <text x="${px(x0)}" y="${H - 6}" text-anchor="start">${x0}</text>
    <text x="${px(x1)}" y="${H - 6}" text-anchor="end">${x1}</text>
    <polyline points="${line}" class="line"/>
    ${points.length <= 60 ? points.map((p) => `<circle cx="${px(p.games).toFixed(1)}" cy="${py(p.value).toFixed(1)}" r="3"/>`).join('') : ''}
    <circle cx="${px(last.games).toFixed(1)}" cy="${py(last.value).toFixed(1)}" r="5" class="now"/>
  </svg>`;
}

/** The latest rating changes a profile lists per pool (the chart draws up to 200; the recent games
 * list pages further back). */
const HISTORY_ROWS = 10;

class ProfilePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.data = null;
    this.error = null;
    this.charts = {}; // pool -> history entries (newest first)
    this.games = new GameList('player', id); // recent games, each with its replay
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
    if (!this.data || this.data.player.is_cpu) return;
    // One chart per pool played: its history, up to the last 200 games.
    await Promise.all((this.data.ratings || []).map(async (r) => {
      try {
        const page = await api.history(this.id, r.pool);
        this.charts[r.pool] = (page && page.entries) || [];
      } catch {
        this.charts[r.pool] = [];
      }
    }));
    this.render();
  }

  relabel() {
    this.render();
  }

  /** Per pool played: its chart (once its history is loaded) and its latest rating changes (from that
   * history, or until then from the profile's latest changes in every pool), one
   * line each (when, the rating after, the change, the replay), narrow enough for a phone. */
  historyHtml(ratings, history) {
    const parts = ratings.map((r) => {
      const svg = chartSvg(chartPoints(this.charts[r.pool]), t('ratings.chart_label', { pool: t(`pool.${r.pool}`) }));
      const rows = (this.charts[r.pool] || history.filter((h) => h.pool === r.pool)).slice(0, HISTORY_ROWS);
      if (!svg && !rows.length) return '';
      const table = rows.length ? `<table class="ratings history" data-pool="${esc(r.pool)}"><thead><tr><th>${esc(t('ratings.when'))}</th><th class="num">${esc(t('ratings.rating'))}</th><th class="num">${esc(t('ratings.change'))}</th><th></th></tr></thead>
        <tbody>${rows.map((h) => {
          const [a, b] = [ratingNumber(h.before), ratingNumber(h.after)];
          return `<tr data-game="${esc(h.game_id)}"><td class="when" title="${esc(fmtWhen(h.at, { dateStyle: 'full', timeStyle: 'medium' }))}">${esc(fmtWhen(h.at))}</td>
            <td class="num rating">${esc(b)}</td><td class="num delta ${b > a ? 'up' : b < a ? 'down' : ''}">${esc(signed(b - a))}</td>
            <td><a class="replay-link" href="${replayLink(h.game_id)}">${esc(t('replay.open'))}</a></td></tr>`;
        }).join('')}</tbody></table>` : '';
      return `<section class="pool-history" data-pool="${esc(r.pool)}"><h3>${esc(t(`pool.${r.pool}`))}</h3>
        ${svg ? `<figure class="chart">${svg}</figure>` : ''}${table}</section>`;
    }).join('');
    return `<h2>${esc(t('ratings.history'))}</h2>${parts ? `<div id="profile-history">${parts}</div>` : `<p class="muted">${esc(t('ratings.no_games'))}</p>`}`;
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
      const provisional = ratings.some((r) => r.provisional);
      body = `<h1 id="profile-name">${esc(p.player.display_name)}${p.player.is_cpu ? ` <em class="tag">${esc(t('tag.cpu'))}</em>` : ''}${me && me.player_id === p.player.id ? ` <em class="tag">${esc(t('tag.you'))}</em>` : ''}</h1>
        <h2>${esc(t('ratings.ratings'))}</h2>
        ${ratings.length ? `<table id="profile-ratings" class="ratings"><thead><tr><th>${esc(t('ratings.pool'))}</th><th>${esc(t('ratings.rating'))}</th><th>${esc(t('ratings.games'))}</th></tr></thead>
          <tbody>${ratings.map((r) => `<tr data-pool="${esc(r.pool)}"${r.provisional ? ' data-provisional="true"' : ''}><td><a href="/?leaderboard=${encodeURIComponent(r.pool)}">${esc(t(`pool.${r.pool}`))}</a></td>
            <td><span class="rating">${esc(ratingNumber(r))}</span>${r.provisional ? ` <em class="tag provisional" title="${esc(t('ratings.provisional_hint'))}">${esc(t('ratings.provisional'))}</em>` : ''}</td><td>${esc(r.games)}</td></tr>`).join('')}</tbody></table>
          ${provisional ? `<p class="muted" id="provisional-hint">${esc(t('ratings.provisional_hint'))}</p>` : ''}
          ${p.player.is_cpu ? `<p class="muted">${esc(t('ratings.anchor_hint'))}</p>` : ''}`
          : `<p class="muted">${esc(t('ratings.no_games'))}</p>`}
        ${this.historyHtml(ratings, history)}
        <section id="profile-games" class="profile-games" hidden></section>`;
    }
    this.root.innerHTML = `<section class="card" id="profile-page">${body}
      <p><a href="/?leaderboard">${esc(t('ratings.leaderboard'))}</a> · <a href="/">${esc(t('room.back'))}</a></p></section>`;
    const games = this.root.querySelector('#profile-games');
    if (games) this.games.mount(games);
  }
}

export function leaderboardView(root, pool) {
  return new LeaderboardPage(root, pool);
}

export function profileView(root, id) {
  return new ProfilePage(root, id);
}
