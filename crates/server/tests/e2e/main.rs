//! End-to-end tests: a real server on port 0 and real WebSocket clients (tokio-tungstenite).

mod connections;
mod errors;
mod games;
mod ops;
mod rest;
mod restart;
mod support;
