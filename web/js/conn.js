// One WebSocket to one room. It joins (with the seat token when this device holds one, and the last
// event version it has seen so the server can send only what was missed), and when the connection
// drops it says so and reconnects by itself with a growing pause. In cluster mode a node that does not
// serve the room answers `redirect`: the next connection goes straight to the node named, once; any
// later reconnect starts again from this page's own host (the node named may be the one that died).
export class RoomConnection {
  /**
   * @param {string} room
   * @param {string|null} token  seat token, or null to watch
   * @param {{onMessage:(m:object)=>void, onStatus:(s:'connecting'|'open'|'lost')=>void, lastV:()=>number|null}} hooks
   */
  constructor(room, token, hooks) {
    this.room = room;
    this.token = token;
    this.hooks = hooks;
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
    this.redirectTo = null;
    // The server remembers recent ack ids per seat and answers a repeated id without applying it
    // again (safe resends). A reloaded page must therefore never reuse an id of its previous life:
    // start from the clock (microsecond-sized steps, far below 2^53).
    this.nextAck = Date.now() * 1000;
    this.open();
  }

  open() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // The room id rides in the query too, so a load balancer can hash on it (docs/cluster/nginx.conf).
    const base = this.redirectTo || `${proto}//${location.host}/ws`;
    this.redirectTo = null;
    const ws = new WebSocket(`${base}?room=${encodeURIComponent(this.room)}`);
    this.ws = ws;
    this.hooks.onStatus('connecting');
    ws.onopen = () => {
      this.retry = 0;
      const msg = { t: 'join', room: this.room };
      if (this.token) msg.token = this.token;
      const v = this.hooks.lastV();
      if (v !== null && v !== undefined) msg.v = v;
      ws.send(JSON.stringify(msg));
      this.hooks.onStatus('open');
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.t === 'redirect') {
        // The server closes this connection next; the close handler reconnects to `url` at once.
        this.redirectTo = msg.url;
        return;
      }
      this.hops = 0;
      this.hooks.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws || this.closed) return;
      if (this.redirectTo) {
        // A bounded number of immediate hops: a redirect loop (a room moving) backs off like a drop.
        if (this.hops++ < 3) { this.open(); return; }
      }
      this.hooks.onStatus('lost');
      const pause = Math.min(8000, 300 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.open(), pause);
    };
  }

  /** Send an action; returns its ack id. */
  act(action) {
    const ack = this.nextAck++;
    this.send({ t: 'act', ack, action });
    return ack;
  }

  resign() {
    const ack = this.nextAck++;
    this.send({ t: 'resign', ack });
    return ack;
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}
