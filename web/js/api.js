// REST calls. Errors come back as {error:{code,message,details}}; they are thrown as ApiError.
export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || { code: 'network', message: `HTTP ${status}` };
    super(err.message);
    this.status = status;
    this.code = err.code;
    this.details = err.details || [];
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
  join: (id, name) => call('POST', `/rooms/${encodeURIComponent(id)}/join`, { body: { name } }),
  seatCpu: (id, token, seat, level = 1) => call('POST', `/rooms/${encodeURIComponent(id)}/cpu`, { token, body: { seat, level } }),
  start: (id, token) => call('POST', `/rooms/${encodeURIComponent(id)}/start`, { token }),
  rematch: (id, token) => call('POST', `/rooms/${encodeURIComponent(id)}/rematch`, { token }),
};
