//! toolsift's Rust core: JSON text to normalized tool calls.
//!
//! The core ([`json`], [`node`], [`formats`], [`record`]) is plain Rust and is tested
//! with `cargo test` without Python; the PyO3 layer (`python`, behind the `python`
//! feature) turns Python input into core calls and core results into Python objects.

pub mod bulk;
pub mod calls;
pub mod formats;
pub mod json;
pub mod node;
pub mod record;
pub mod stream;

#[cfg(feature = "python")]
mod python;

// Parsing allocates many short-lived buffers (tapes, unescaped strings) per record;
// mimalloc serves them from thread-local pages instead of the system allocator's
// shared arenas, which matters most with several worker threads.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
