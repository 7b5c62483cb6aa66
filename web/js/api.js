// REST calls. Errors come back as {error:{code,message,details}}; they are thrown as ApiError.
export class ApiError extends Error {
  constructor(status, body) {
    // A body without the API's error shape: the route does not exist on this server (404 from the
    // static files), or something between us and the server failed.
    const fallback = status === 404 ? 'not_found' : status === 405 ? 'not_found' : 'network';
    const err = (body && body.error) || { code: fallback, message: `HTTP ${status}` };
    super(err.message);
    this.status = status;
    this.code = err.code;
    this.details = err.details || [];
    // Whether the server itself answered with an API error (else: no such route, or no server).
    this.fromServer = !!(body && body.error);
  }
}

async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, { error: { code: 'network', message: String(e) } });
  }
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

export const api = {
  listRooms: () => call('GET', '/rooms'),
  getRoom: (id) => call('GET', `/rooms/${encodeURIComponent(id)}`),
  createRoom: (req) => call('POST', '/rooms', { body: req }),
  /** `player` ({player_id, secret}) ties the seat to a rated identity; omitted for a guest seat. */
  join: (id, name, player) => call('POST', `/rooms/${encodeURIComponent(id)}/join`, {
    body: player ? { name, player_id: player.player_id, player_secret: player.secret } : { name },
  }),
  changeSettings: (id, token, change) => call('PUT', `/rooms/${encodeURIComponent(id)}/settings`, { token, body: change }),
  seatCpu: (id, token, seat, level = 1) => call('POST', `/rooms/${encodeURIComponent(id)}/cpu`, { token, body: { seat, level } }),
  start: (id, token) => call('POST', `/rooms/${encodeURIComponent(id)}/start`, { token }),
  /** The current game action by action with the state after each, replayed by the server. */
  positions: (id, from = 0) => call('GET', `/rooms/${encodeURIComponent(id)}/positions?from=${from}`),
  /** The host's orders about people: `what` is unseat, lock, unlock, handover, mute or hide. */
  moderate: (id, token, what, body = {}) => call('POST', `/rooms/${encodeURIComponent(id)}/${what}`, { token, body }),
  rematch: (id, token) => call('POST', `/rooms/${encodeURIComponent(id)}/rematch`, { token }),
  createPlayer: (displayName) => call('POST', '/players', { body: { display_name: displayName } }),
  player: (id) => call('GET', `/players/${encodeURIComponent(id)}`),
  leaderboard: (pool, offset = 0) => call('GET', `/leaderboard?pool=${encodeURIComponent(pool)}&offset=${offset}`),
  /** One page of a player's rating history in one pool, newest first. */
  history: (id, pool, limit = 200) => call('GET', `/players/${encodeURIComponent(id)}/history?pool=${encodeURIComponent(pool)}&limit=${limit}`),
  gameRecord: (id) => call('GET', `/games/${encodeURIComponent(id)}`),
  /** A finished game action by action, replayed by the server from its record. */
  gamePositions: (id, from = 0) => call('GET', `/games/${encodeURIComponent(id)}/positions?from=${from}`),
  /** A page of a room's finished games, the latest first (`cursor`: the previous page's `next_cursor`). */
  roomGames: (id, cursor) => call('GET', `/rooms/${encodeURIComponent(id)}/games${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`),
  /** A page of a player's finished games, newest first. */
  playerGames: (id, cursor) => call('GET', `/players/${encodeURIComponent(id)}/games${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`),
};
