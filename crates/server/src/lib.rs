//! The fourkings server: axum REST + WebSocket over the room actors, configuration, telemetry, CLI.
//! May depend on every library crate of the workspace but `testkit` (only its tests use that): it
//! wires them together (the store becomes the rooms' log port here). No crate depends on it.
//!
//! Configured by `config/default.toml` and `FOURKINGS_*` variables. [`app::Application::build`] is
//! the test seam: it binds (port 0 in tests) and returns the address before serving.
#![forbid(unsafe_code)]

pub mod app;
mod client;
mod cluster;
pub mod config;
mod error;
pub mod fdlimit;
pub mod heap;
mod linger;
mod listen;
pub mod logging;
pub mod mask;
mod openapi;
mod peers;
mod persist;
mod records;
mod registry;
mod rest;
pub mod shutdown;
pub mod telemetry;
mod textframe;
mod throttle;
mod validate;
pub mod web;
mod ws;

pub use app::Application;
pub use config::Config;
pub use validate::ConfigError;
