// What this device remembers: the display name, and per room the seat token and host token.
// "Same device" is how a player gets a seat back after a reload (the design notes).
const get = (k) => { try { return JSON.parse(localStorage.getItem(k)); } catch { return null; } };
const put = (k, v) => localStorage.setItem(k, JSON.stringify(v));

export const store = {
  name: () => localStorage.getItem('fk.name') || '',
  setName: (n) => localStorage.setItem('fk.name', n),
  seat: (room) => get(`fk.seat.${room}`), // {seat, token}
  setSeat: (room, seat, token) => put(`fk.seat.${room}`, { seat, token }),
  host: (room) => localStorage.getItem(`fk.host.${room}`),
  setHost: (room, token) => localStorage.setItem(`fk.host.${room}`, token),
};
