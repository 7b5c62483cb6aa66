//! End-to-end tests: a real server on port 0 and real WebSocket clients (tokio-tungstenite).

// The store's test harness (a fresh SQLite file or PostgreSQL database per test), shared rather than
// copied.
#[path = "../../../store/tests/common/mod.rs"]
mod common;
mod connections;
mod errors;
mod games;
mod ops;
mod positions;
mod records;
mod rest;
mod restart;
mod support;
