//! `parse_many`: JSON text is parsed on worker threads with the GIL released, while the
//! calling thread turns finished chunks into Python objects (which needs the GIL).

use super::build::{response_from_node, response_from_record, Builder};
use super::objects::Input;
use crate::formats::Format;
use crate::json::JsonError;
use crate::record::{parse_record, Record};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyModule};
use rayon::ThreadPool;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

/// Records per unit of work: large enough to amortize hand-offs, small enough that
/// Ctrl-C is noticed within milliseconds and memory stays bounded.
const CHUNK: usize = 512;

/// The most threads one batch starts.
const MAX_THREADS: usize = 256;

/// One record after the worker threads: `None` when there was no text to parse.
type Parsed<'a> = Option<Result<Record<'a>, JsonError>>;

pub fn parse_many<'py>(
    format: &Format,
    raws: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = raws.py();
    let mut builder = Builder::new(py)?;
    builder.check_threads(threads)?;
    // Any positive int is accepted (as in the pure backend); more threads than chunks,
    // or than MAX_THREADS, would only wait.
    let threads = match threads {
        Some(t) => t.extract::<usize>().unwrap_or(usize::MAX),
        None => std::thread::available_parallelism().map_or(1, usize::from),
    }
    .min(MAX_THREADS);
    let items: Vec<Bound<'py, PyAny>> = raws.try_iter()?.collect::<PyResult<_>>()?;
    let inputs = items.iter().map(Input::of).collect::<PyResult<Vec<_>>>()?;
    // Borrowed views of the text; the Python objects in `inputs` keep them alive.
    let texts: Vec<Option<&[u8]>> = inputs.iter().map(Input::text).collect();
    let chunks: Vec<&[Option<&[u8]>]> = texts.chunks(CHUNK).collect();

    // The results are fresh, acyclic objects: collecting while building them would only
    // re-scan them again and again (it costs more than the parsing). The collector is
    // back on, as it was, when the batch ends, whatever happens.
    let _paused = GcPause::new(py)?;
    let mut out = Vec::with_capacity(items.len());
    let mut consume = |k: usize, parsed: Vec<Parsed<'_>>| -> PyResult<()> {
        for (offset, record) in parsed.into_iter().enumerate() {
            let at = k * CHUNK + offset;
            out.push(response(
                &mut builder,
                format,
                &items[at],
                &inputs[at],
                record,
            )?);
        }
        py.check_signals() // Ctrl-C stops a long batch between chunks
    };
    let threads = threads.min(chunks.len());
    if threads <= 1 {
        for (k, chunk) in chunks.iter().enumerate() {
            let parsed = py.detach(|| parse_chunk(format, chunk));
            consume(k, parsed)?;
        }
    } else {
        // The calling thread is one of the `threads`: it builds the results and parses
        // whatever the workers have not started.
        pipelined(py, &*pool(threads - 1)?, format, &chunks, consume)?;
    }
    Ok(PyList::new(py, out)?.into_any())
}

fn parse_chunk<'a>(format: &Format, chunk: &[Option<&'a [u8]>]) -> Vec<Parsed<'a>> {
    chunk
        .iter()
        .map(|text| text.map(|t| parse_record(format, t)))
        .collect()
}

/// The AgentResponse of one record; problems with the record are recorded, not raised.
fn response<'py>(
    builder: &mut Builder<'py>,
    format: &Format,
    raw: &Bound<'py, PyAny>,
    input: &Input<'py>,
    parsed: Parsed<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let result = match (parsed, input) {
        (Some(Ok(record)), _) => response_from_record(builder, raw, &record),
        (Some(Err(err)), _) => Err(builder.parse_error(raw, Some(&err))?),
        // A str that cannot be UTF-8 (lone surrogates) is not JSON text.
        (None, Input::Str(_)) if !matches!(format, Format::LiteRt) => {
            Err(builder.parse_error(raw, None)?)
        }
        (None, _) => response_from_node(builder, format, raw),
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

/// One pool per thread count, made once: starting threads per call would cost more
/// than a small batch.
fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(pool) = pools.get(&threads) {
        return Ok(pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("toolsift-{i}"))
        .build()
        .map_err(|err| PyRuntimeError::new_err(format!("cannot start {threads} threads: {err}")))?;
    Ok(pools.entry(threads).or_insert(Arc::new(pool)).clone())
}

/// Parse chunks on the pool, ahead of the calling thread, which hands each finished
/// chunk to `consume` in order (building Python objects needs the GIL, so only the
/// calling thread can do it). Each chunk is claimed once: when the calling thread gets
/// to a chunk no worker has started, it parses that chunk itself rather than wait.
fn pipelined<'a>(
    py: Python<'_>,
    pool: &ThreadPool,
    format: &Format,
    chunks: &[&[Option<&'a [u8]>]],
    mut consume: impl FnMut(usize, Vec<Parsed<'a>>) -> PyResult<()>,
) -> PyResult<()> {
    type Done<'a> = (usize, Result<Vec<Parsed<'a>>, ()>);
    let claimed: Vec<AtomicBool> = chunks.iter().map(|_| AtomicBool::new(false)).collect();
    let cancelled = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Done<'a>>();
    let receiver = Mutex::new(receiver);
    let lookahead = 2 * pool.current_num_threads() + 1;
    pool.in_place_scope(|scope| {
        let spawn = |k: usize| {
            let sender = sender.clone();
            let (chunk, claimed, cancelled) = (chunks[k], &claimed[k], &cancelled);
            scope.spawn(move |_| {
                if claimed.swap(true, Ordering::AcqRel) {
                    return; // the calling thread got to it first
                }
                let parsed = if cancelled.load(Ordering::Relaxed) {
                    Ok(Vec::new())
                } else {
                    // A panic is reported as a failed chunk rather than left to hang
                    // the calling thread, which waits for every claimed chunk in turn.
                    catch_unwind(AssertUnwindSafe(|| parse_chunk(format, chunk))).map_err(|_| ())
                };
                // The receiver outlives the scope, so sending cannot fail.
                let _ = sender.send((k, parsed));
            });
        };
        for k in 0..lookahead.min(chunks.len()) {
            spawn(k);
        }
        let mut early: HashMap<usize, Result<Vec<Parsed<'a>>, ()>> = HashMap::new();
        for k in 0..chunks.len() {
            let parsed = loop {
                if let Some(parsed) = early.remove(&k) {
                    break parsed;
                }
                if !claimed[k].swap(true, Ordering::AcqRel) {
                    break Ok(py.detach(|| parse_chunk(format, chunks[k])));
                }
                let received = py.detach(|| receiver.lock().ok().and_then(|r| r.recv().ok()));
                match received {
                    Some((j, parsed)) => {
                        early.insert(j, parsed);
                    }
                    None => return Err(PyRuntimeError::new_err("toolsift worker threads stopped")),
                }
            };
            if k + lookahead < chunks.len() {
                spawn(k + lookahead);
            }
            let outcome = parsed
                .map_err(|()| PyRuntimeError::new_err("toolsift worker thread panicked"))
                .and_then(|parsed| consume(k, parsed));
            if let Err(err) = outcome {
                cancelled.store(true, Ordering::Relaxed);
                return Err(err);
            }
        }
        Ok(())
    })
}

/// Turns Python's cyclic garbage collector off while it lives, if it was on.
struct GcPause<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> GcPause<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if !gc.call_method0("isenabled")?.is_truthy()? {
            return Ok(GcPause { gc: None });
        }
        gc.call_method0("disable")?;
        Ok(GcPause { gc: Some(gc) })
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            // Re-enabling cannot fail short of interpreter teardown; nothing to do then.
            let _ = gc.call_method0("enable");
        }
    }
}
