//! `parse_many`: JSON text is parsed on worker threads with the GIL released, while the
//! calling thread turns finished chunks into Python objects (which needs the GIL).

use super::build::{response_from_object, response_from_outcome, Builder};
use super::objects::Input;
use crate::bulk::{Outcome, Reader};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::ThreadPool;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// Records per unit of work: large enough to amortize hand-offs, small enough that
/// Ctrl-C is noticed within milliseconds and memory stays bounded.
const CHUNK: usize = 512;

/// The most threads one batch starts.
const MAX_THREADS: usize = 256;

/// One record after the worker threads: `None` when there was no text to parse.
type Parsed<'a> = Option<Outcome<'a>>;

/// `reader` reads each record's text (batch envelopes unwrapped, or the response at its
/// `record_path`) and leaves argument strings undecoded.
pub fn parse_many<'py>(
    reader: &Reader,
    raws: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = raws.py();
    let mut builder = Builder::new(py)?;
    builder.check_threads(threads)?;
    // Any positive int is accepted (as in the pure backend); more threads than chunks,
    // or than MAX_THREADS, would only wait.
    let threads = thread_count(threads)?;
    let items: Vec<Bound<'py, PyAny>> = raws.try_iter()?.collect::<PyResult<_>>()?;
    // An input that cannot be read (a released memoryview) is its record's error.
    let inputs: Vec<PyResult<Input<'py>>> = items.iter().map(Input::of).collect();
    // Borrowed views of the text; the Python objects in `inputs` keep them alive.
    let texts: Vec<Option<&[u8]>> = inputs
        .iter()
        .map(|input| input.as_ref().ok().and_then(Input::text))
        .collect();
    let chunks: Vec<&[Option<&[u8]>]> = texts.chunks(CHUNK).collect();

    // The results are fresh, acyclic objects: full collections while building them would
    // only re-scan them again and again (they cost more than the parsing). The collector
    // is restored when the batch ends, whatever happens.
    let _held = GcHold::new(py)?;
    let mut out = Vec::with_capacity(items.len());
    let consume = |k: usize, parsed: Vec<Parsed<'_>>| -> PyResult<()> {
        for (offset, record) in parsed.into_iter().enumerate() {
            let at = k * CHUNK + offset;
            out.push(response(
                &mut builder,
                reader,
                &items[at],
                &inputs[at],
                record,
            )?);
        }
        py.check_signals() // Ctrl-C stops a long batch between chunks
    };
    let threads = threads.min(chunks.len());
    let mut next = chunks.iter().copied();
    // Workers decode argument strings onto tapes, off the thread that builds the
    // objects; in the chunks the calling thread parses itself, they are left as they
    // are and decoded straight into Python objects.
    let decoding = reader.clone().with_decoded_arguments();
    pipelined(
        py,
        threads,
        || next.next(),
        |chunk, on_caller| parse_chunk(if on_caller { reader } else { &decoding }, chunk),
        consume,
    )?;
    Ok(PyList::new(py, out)?.into_any())
}

fn parse_chunk<'a>(reader: &Reader, chunk: &[Option<&'a [u8]>]) -> Vec<Parsed<'a>> {
    chunk
        .iter()
        .map(|text| text.map(|t| reader.read(t)))
        .collect()
}

/// The AgentResponse of one record; problems with the record are recorded, not raised.
fn response<'py>(
    builder: &mut Builder<'py>,
    reader: &Reader,
    raw: &Bound<'py, PyAny>,
    input: &PyResult<Input<'py>>,
    parsed: Parsed<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let input = match input {
        Ok(input) => input,
        Err(err) => return builder.failed(raw, err.clone_ref(raw.py())),
    };
    let result = match (parsed, input) {
        (Some(outcome), _) => response_from_outcome(builder, raw, &outcome),
        (None, Input::Object) => {
            response_from_object(builder, &reader.format, raw, reader.path.as_deref())
        }
        // A str that cannot be UTF-8 (lone surrogates): LiteRT-LM text without calls,
        // else not JSON text.
        (None, _) if reader.format.reads_text() => {
            response_from_outcome(builder, raw, &reader.not_utf8())
        }
        (None, _) => Err(builder.parse_error(raw, None)?),
    };
    match result {
        Ok(response) => Ok(response),
        // Like `except Exception` in the pure backend: KeyboardInterrupt, SystemExit and
        // GeneratorExit stop the batch.
        Err(err) if err.is_instance_of::<pyo3::exceptions::PyException>(raw.py()) => {
            builder.failed(raw, err)
        }
        Err(err) => Err(err),
    }
}

/// `threads` as given (None: all cores), checked by the caller: any positive int is
/// accepted (as in the pure backend); more than MAX_THREADS would only wait.
pub(super) fn thread_count(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    Ok(match threads {
        Some(t) if !t.is_none() => t.extract::<usize>().unwrap_or(usize::MAX),
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    }
    .min(MAX_THREADS))
}

/// fork() calls between this process and the one that loaded the module, counted by
/// `after_fork_in_child`, which `_native` registers with `os.register_at_fork`. A child
/// made by fork() (multiprocessing's workers on Linux) has none of its parent's threads.
static FORKS: AtomicU64 = AtomicU64::new(0);

#[pyfunction]
pub fn after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// See [`FORKS`]: what was set up with threads before a change of it is useless now.
pub(super) fn forks() -> u64 {
    FORKS.load(Ordering::Relaxed)
}

/// Pools kept at most, and their threads at most (the pool in use is always kept): each
/// distinct `threads=` value needs a pool of its own, and without a bound a program
/// trying many values would keep every one of them, idle.
const POOLS_KEPT: usize = 4;
const THREADS_KEPT: usize = 64;

/// One pool per thread count, made once: starting threads per call would cost more
/// than a small batch. The most recently used are kept (`POOLS_KEPT`, `THREADS_KEPT`);
/// one dropped ends its threads when the last batch using it is done.
pub(super) fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    /// The pools, most recently used last, and `forks()` when they were started.
    type Pools = (u64, Vec<(usize, Arc<ThreadPool>)>);
    static POOLS: Mutex<Pools> = Mutex::new((0, Vec::new()));
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if pools.0 != forks() {
        // A child made by fork() inherits the pools but not their threads: work sent to
        // them would wait forever. Start new ones; the old ones are forgotten, since
        // dropping them would signal threads that do not exist here.
        std::mem::forget(std::mem::replace(&mut *pools, (forks(), Vec::new())));
    }
    let used = match pools.1.iter().position(|(n, _)| *n == threads) {
        Some(at) => pools.1.remove(at).1,
        None => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("toolsift-{i}"))
                .build()
                .map_err(|err| {
                    PyRuntimeError::new_err(format!("cannot start {threads} threads: {err}"))
                })?;
            Arc::new(pool)
        }
    };
    pools.1.push((threads, used.clone()));
    while pools.1.len() > 1
        && (pools.1.len() > POOLS_KEPT || pools.1.iter().map(|p| p.0).sum::<usize>() > THREADS_KEPT)
    {
        pools.1.remove(0);
    }
    Ok(used)
}

/// Work on chunks in parallel, ahead of the calling thread, which hands each finished
/// chunk to `consume` in order (building Python objects needs the GIL, so only the
/// calling thread can do it). The calling thread is one of the `threads`: when it gets
/// to a chunk no worker has started, it works on that chunk itself rather than wait.
/// `next` gives the chunks, on the calling thread (a blocking `next` detaches itself);
/// at most `2 * threads + 1` are taken ahead of `consume`, so memory stays bounded.
/// `work(chunk, on_caller)`: `on_caller` is true when the calling thread does it (the
/// one that will build Python objects from it).
pub(super) fn pipelined<C: Send, O: Send>(
    py: Python<'_>,
    threads: usize,
    next: impl FnMut() -> Option<C>,
    work: impl Fn(C, bool) -> O + Sync,
    consume: impl FnMut(usize, O) -> PyResult<()>,
) -> PyResult<()> {
    pipelined_with(py, threads, true, 2, next, work, consume)
}

/// [`pipelined`]; with `caller_works` false the calling thread only hands chunks out
/// and consumes them, and `threads` workers do the work (better when consuming is
/// cheap, as for Arrow batches). At most `per_thread * threads + 1` chunks are taken
/// ahead of `consume`.
pub(super) fn pipelined_with<C: Send, O: Send>(
    py: Python<'_>,
    threads: usize,
    caller_works: bool,
    per_thread: usize,
    mut next: impl FnMut() -> Option<C>,
    work: impl Fn(C, bool) -> O + Sync,
    mut consume: impl FnMut(usize, O) -> PyResult<()>,
) -> PyResult<()> {
    // A panic is reported as a failed chunk: never unwound into Python, never left to
    // hang the calling thread, which waits for every claimed chunk in turn.
    let guarded = |chunk: C, on_caller: bool| {
        catch_unwind(AssertUnwindSafe(|| work(chunk, on_caller))).map_err(|_| ())
    };
    let panicked = || PyRuntimeError::new_err("toolsift worker thread panicked");
    if threads <= 1 {
        let mut k = 0;
        while let Some(chunk) = next() {
            let done = py
                .detach(|| guarded(chunk, true))
                .map_err(|()| panicked())?;
            consume(k, done)?;
            k += 1;
        }
        return Ok(());
    }
    let pool = pool(if caller_works { threads - 1 } else { threads })?;
    type Slot<C> = Arc<Mutex<Option<C>>>;
    type Done<O> = (usize, Result<O, ()>);
    let cancelled = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Done<O>>();
    let receiver = Mutex::new(receiver);
    let lookahead = per_thread * threads + 1;
    pool.in_place_scope_fifo(|scope| {
        // Each chunk waits in a slot; whoever takes it first (a worker, or the calling
        // thread when it gets there first and `caller_works`) works on it.
        let mut slots: VecDeque<(usize, Slot<C>)> = VecDeque::new();
        let (mut exhausted, mut taken) = (false, 0);
        // Takes the next chunk, if there is one, and offers it to the workers.
        let mut take = |slots: &mut VecDeque<(usize, Slot<C>)>| -> bool {
            if exhausted {
                return false;
            }
            let Some(chunk) = next() else {
                exhausted = true;
                return false;
            };
            let k = taken;
            taken += 1;
            let slot: Slot<C> = Arc::new(Mutex::new(Some(chunk)));
            slots.push_back((k, slot.clone()));
            let sender = sender.clone();
            let (cancelled, guarded) = (&cancelled, &guarded);
            scope.spawn_fifo(move |_| {
                let taken = slot.lock().ok().and_then(|mut s| s.take());
                let Some(chunk) = taken else {
                    return; // the calling thread got to it first
                };
                let done = if cancelled.load(Ordering::Relaxed) {
                    Err(())
                } else {
                    guarded(chunk, false)
                };
                // The receiver outlives the scope, so sending cannot fail.
                let _ = sender.send((k, done));
            });
            true
        };
        while slots.len() < lookahead && take(&mut slots) {}
        let claim = |slot: &Slot<C>| slot.lock().ok().and_then(|mut s| s.take());
        let mut early: HashMap<usize, Result<O, ()>> = HashMap::new();
        while let Some((k, slot)) = slots.pop_front() {
            let done = loop {
                if let Some(done) = early.remove(&k) {
                    break done;
                }
                // The calling thread works on chunk k itself when no worker has
                // started it; while a worker has it, on a later one no worker has
                // started (rather than wait idle).
                if caller_works {
                    if let Some(chunk) = claim(&slot) {
                        break py.detach(|| guarded(chunk, true));
                    }
                    let finished = receiver.lock().ok().and_then(|r| r.try_recv().ok());
                    if let Some((j, done)) = finished {
                        early.insert(j, done);
                        continue;
                    }
                    let later = slots
                        .iter()
                        .find_map(|(j, slot)| claim(slot).map(|chunk| (*j, chunk)));
                    if let Some((j, chunk)) = later {
                        early.insert(j, py.detach(|| guarded(chunk, true)));
                        continue;
                    }
                }
                let received = py.detach(|| receiver.lock().ok().and_then(|r| r.recv().ok()));
                match received {
                    Some((j, done)) => {
                        early.insert(j, done);
                    }
                    None => return Err(PyRuntimeError::new_err("toolsift worker threads stopped")),
                }
            };
            take(&mut slots);
            let outcome = done
                .map_err(|()| panicked())
                .and_then(|done| consume(k, done));
            if let Err(err) = outcome {
                cancelled.store(true, Ordering::Relaxed);
                return Err(err);
            }
        }
        Ok(())
    })
}

/// Holds off the collector's scans of a batch's results while it lives
/// (`toolsift._collector.hold`, shared with the pure backend), then restores it.
pub(super) struct GcHold<'py> {
    release: Bound<'py, PyAny>,
}

impl<'py> GcHold<'py> {
    pub(super) fn new(py: Python<'py>) -> PyResult<Self> {
        let release = py.import("toolsift._collector")?.call_method0("hold")?;
        Ok(GcHold { release })
    }
}

impl Drop for GcHold<'_> {
    fn drop(&mut self) {
        // Restoring cannot fail short of interpreter teardown; nothing to do then.
        let _ = self.release.call0();
    }
}
