// The relay floor of issue 20: a four-seat turn-taking room that relays each `act` to its four seats.
// No rules, no persistence: what any authoritative server must at least do per action.
// Usage: node server.js PORT
"use strict";
const { Server, Room } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");

class Relay extends Room {
  maxClients = 4;

  onCreate() {
    // Opening 19,900 seats keeps the (single) event loop busy for minutes: Colyseus's default 15 s
    // seat reservation then expires between the matchmaker's answer and the seat's WebSocket (1006).
    this.setSeatReservationTime(600);
    this.onMessage("act", (client, message) => {
      this.broadcast("acted", { seat: client.sessionId, n: message.n });
    });
  }
}

const port = Number(process.argv[2] || 2567);
const server = new Server({ transport: new WebSocketTransport() });
server.define("relay", Relay);
server.listen(port).then(() => console.log(`colyseus relay listening on ${port}`));
