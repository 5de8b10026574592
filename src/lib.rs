//! toolsift's Rust core: JSON text to normalized tool calls.
//!
//! The core ([`json`], [`node`], [`formats`], [`record`]) is plain Rust and is tested
//! with `cargo test` without Python; the PyO3 layer (`python`, behind the `python`
//! feature) turns Python input into core calls and core results into Python objects.

pub mod accumulator;
pub mod bulk;
pub mod calls;
pub mod compact;
pub mod defects;
pub mod dialects;
pub mod events;
pub mod formats;
pub mod framing;
pub mod json;
pub mod json_errors;
pub mod node;
pub mod partial;
pub mod pipeline;
pub mod record;
pub mod route;
pub mod stream;
pub mod sync;
pub mod text_dialect;
pub mod tools;
pub mod violations;

#[cfg(feature = "python")]
mod python;

// Parsing allocates many short-lived buffers (tapes, unescaped strings) per record;
// mimalloc serves them from thread-local pages instead of the system allocator's
// shared arenas, which matters most with several worker threads.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`: the option after
/// `mi_option_deprecated_eager_commit_delay`, before `mi_option_use_numa_nodes` = 16).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long memory freed here stays committed for reuse before mimalloc gives it back
/// to the OS, unless `MIMALLOC_PURGE_DELAY` says otherwise. mimalloc's 1 s made each
/// `to_arrow` call that followed other work (a bench's other entries, a user's loop)
/// fault its buffers in again: 79 ms instead of 73 on the OpenAI Batch file. An idle
/// process purges nothing either way (mimalloc purges when it allocates).
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;

/// Sets [`PURGE_DELAY_MS`]. Call it before any other thread can run this library's code
/// (the extension module's initialization does).
pub fn keep_freed_memory_longer() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: `mi_option_set` stores an integer in mimalloc's static table of options,
        // which its allocator reads on this library's threads only (it is this library's
        // allocator, linked into it). The caller runs before any other thread can run
        // this library's code, so no read races the store; the option's index is
        // mimalloc's `mi_option_purge_delay` (see the constant), and any delay is valid.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    }
}

#[cfg(test)]
mod tests {
    /// The option index is mimalloc's purge delay: it reads the purge delay's documented
    /// default (1000 ms in mimalloc 3), where the environment sets none.
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads an integer of mimalloc's table of options; nothing in the tests
        // writes one (`keep_freed_memory_longer` runs in the Python module only).
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000);
    }
}
