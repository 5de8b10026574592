//! toolsift's Rust core: JSON text to normalized tool calls.
//!
//! The core ([`json`], [`node`], [`formats`], [`record`]) is plain Rust and is tested
//! with `cargo test` without Python; the PyO3 layer (`python`, behind the `python`
//! feature) turns Python input into core calls and core results into Python objects.

pub mod formats;
pub mod json;
pub mod node;
pub mod record;

#[cfg(feature = "python")]
mod python;
