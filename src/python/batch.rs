//! `parse_many`: JSON text is parsed on worker threads with the GIL released, while the
//! calling thread turns finished chunks into Python objects (which needs the GIL).

use super::build::{response_from_node, response_from_record, Builder};
use super::objects::Input;
use crate::formats::Format;
use crate::json::JsonError;
use crate::record::{parse_record, Record};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::ThreadPool;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

/// Records per unit of work: large enough to amortize hand-offs, small enough that
/// Ctrl-C is noticed within milliseconds and memory stays bounded.
const CHUNK: usize = 512;

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
    let threads = thread_count(threads)?;
    let items: Vec<Bound<'py, PyAny>> = raws.try_iter()?.collect::<PyResult<_>>()?;
    let inputs = items.iter().map(Input::of).collect::<PyResult<Vec<_>>>()?;
    // Borrowed views of the text; the Python objects in `inputs` keep them alive.
    let texts: Vec<Option<&[u8]>> = inputs.iter().map(Input::text).collect();
    let chunks: Vec<&[Option<&[u8]>]> = texts.chunks(CHUNK).collect();

    let mut out = Vec::with_capacity(items.len());
    let consume = |k: usize, parsed: Vec<Parsed<'_>>| -> PyResult<()> {
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
    let threads = if chunks.len() <= 1 { 1 } else { threads };
    let mut next = chunks.iter().copied();
    pipelined(
        py,
        threads,
        || next.next(),
        |chunk| parse_chunk(format, chunk),
        consume,
    )?;
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
        (None, Input::Str(_)) => Err(builder.parse_error(raw, None)?),
        (None, _) => response_from_node(builder, format, raw),
    };
    match result {
        Ok(response) => Ok(response),
        Err(err) if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(raw.py()) => {
            Err(err)
        }
        Err(err) => builder.failed(raw, err),
    }
}

/// `threads` as given (None: all cores), checked by the caller.
pub(super) fn thread_count(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    Ok(match threads {
        Some(t) if !t.is_none() => t.extract::<usize>()?,
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    })
}

/// One pool per thread count, made once: starting threads per call would cost more
/// than a small batch.
pub(super) fn pool(threads: usize) -> Arc<ThreadPool> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pools
        .entry(threads)
        .or_insert_with(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("toolsift-{i}"))
                    .build()
                    .expect("a thread pool of a positive size can be built"),
            )
        })
        .clone()
}

/// Work on chunks in parallel, ahead of the calling thread, which hands each finished
/// chunk to `consume` in order. `next` gives the chunks (it runs on the calling thread,
/// with the GIL: a blocking `next` should detach itself); at most `2 * threads + 1`
/// chunks are taken ahead of `consume`, so memory stays bounded. With one thread, each
/// chunk is worked on the calling thread with the GIL released.
pub(super) fn pipelined<C: Send, O: Send>(
    py: Python<'_>,
    threads: usize,
    mut next: impl FnMut() -> Option<C>,
    work: impl Fn(C) -> O + Sync,
    mut consume: impl FnMut(usize, O) -> PyResult<()>,
) -> PyResult<()> {
    // A panic is reported as a failed chunk: never unwound into Python, never left to
    // hang the calling thread, which waits for every chunk in turn.
    let guarded = |chunk: C| catch_unwind(AssertUnwindSafe(|| work(chunk))).map_err(|_| ());
    let panicked = || PyRuntimeError::new_err("toolsift worker thread panicked");
    if threads <= 1 {
        let mut k = 0;
        while let Some(chunk) = next() {
            let done = py.detach(|| guarded(chunk)).map_err(|()| panicked())?;
            consume(k, done)?;
            k += 1;
        }
        return Ok(());
    }
    let pool = pool(threads);
    type Done<O> = (usize, Result<O, ()>);
    let cancelled = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Done<O>>();
    let receiver = Mutex::new(receiver);
    let lookahead = 2 * pool.current_num_threads() + 1;
    pool.in_place_scope(|scope| {
        let spawn = |k: usize, chunk: C| {
            let sender = sender.clone();
            let (cancelled, guarded) = (&cancelled, &guarded);
            scope.spawn(move |_| {
                let done = if cancelled.load(Ordering::Relaxed) {
                    Err(())
                } else {
                    guarded(chunk)
                };
                // The receiver outlives the scope, so sending cannot fail.
                let _ = sender.send((k, done));
            });
        };
        let mut spawned = 0;
        let mut exhausted = false;
        let mut take = |spawned: &mut usize| {
            if exhausted {
                return;
            }
            match next() {
                Some(chunk) => {
                    spawn(*spawned, chunk);
                    *spawned += 1;
                }
                None => exhausted = true,
            }
        };
        while spawned < lookahead {
            let before = spawned;
            take(&mut spawned);
            if spawned == before {
                break;
            }
        }
        let mut early: HashMap<usize, Result<O, ()>> = HashMap::new();
        let mut k = 0;
        while k < spawned {
            let done = loop {
                if let Some(done) = early.remove(&k) {
                    break done;
                }
                let received = py.detach(|| receiver.lock().ok().and_then(|r| r.recv().ok()));
                match received {
                    Some((j, done)) => {
                        early.insert(j, done);
                    }
                    None => return Err(PyRuntimeError::new_err("toolsift worker threads stopped")),
                }
            };
            take(&mut spawned);
            let outcome = done
                .map_err(|()| panicked())
                .and_then(|done| consume(k, done));
            if let Err(err) = outcome {
                cancelled.store(true, Ordering::Relaxed);
                return Err(err);
            }
            k += 1;
        }
        Ok(())
    })
}
