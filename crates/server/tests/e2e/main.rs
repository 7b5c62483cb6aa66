//! End-to-end tests: a real server on port 0 and real WebSocket clients (tokio-tungstenite).

// The store's test harness (a fresh SQLite file or PostgreSQL database per test), shared rather than
// copied.
mod abuse;
mod chat;
#[path = "../../../store/tests/common/mod.rs"]
mod common;
mod connections;
mod errors;
mod game_lists;
mod games;
mod moderation;
mod ops;
mod positions;
// The seat-playing helpers of the binary tests; this binary uses only some of them.
#[allow(dead_code)]
#[path = "../play/mod.rs"]
mod play;
mod ratings;
// The server binary in its own process (a fresh metrics recorder); only part of it is used here.
#[allow(dead_code)]
#[path = "../process/mod.rs"]
mod process;
mod records;
mod rest;
mod restart;
mod support;
