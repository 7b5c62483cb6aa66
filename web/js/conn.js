// One WebSocket to one room. It joins (with the seat token when this device holds one, and the last
// event version it has seen so the server can send only what was missed), and when the connection
// drops it says so and reconnects by itself with a growing pause.
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
    // The server remembers recent ack ids per seat and answers a repeated id without applying it
    // again (safe resends). A reloaded page must therefore never reuse an id of its previous life:
    // start from the clock (microsecond-sized steps, far below 2^53).
    this.nextAck = Date.now() * 1000;
    this.open();
  }

  open() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
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
      this.hooks.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws || this.closed) return;
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
