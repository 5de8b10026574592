//! `parse_file` and `arrow_batches`: records parsed on worker threads with the GIL
//! released (`batch::pipelined`), files read and decompressed on a thread of their own
//! (`crate::bulk::source`), or by the one thread itself when `threads` is 1. Arrow columns are built on the worker threads and handed
//! to pyarrow through the Arrow C data interface (arrow-pyarrow): no Python object per
//! call on that path.

use super::batch::{forks, pipelined_with, pool, thread_count};
use super::build::{response_from_outcome, Builder};
use super::objects::Input;
use crate::bulk::rows::{self, Chunk, Counts, Rows};
use crate::bulk::source::{self, Block};
use crate::bulk::{Outcome, Reader};
use crate::formats::Format;
use arrow_array::{
    make_array, Array, BinaryArray, LargeBinaryArray, LargeStringArray, StringArray,
};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::ArrowError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rayon::ThreadPool;
use std::collections::{HashMap, VecDeque};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};

/// Blocks the reader thread reads ahead of the parsers (of `parse_file`).
const READ_AHEAD: usize = 4;
/// The same for `arrow_batches`, whose pipeline takes blocks ahead itself: a reader held
/// mid-file holds them all (issue 37).
const ARROW_READ_AHEAD: usize = 1;
/// Chunks `arrow_batches` takes ahead of its consumer, per thread (and one more): a
/// reader held mid-file holds them all, parsed (`parse_file` takes 2).
const ARROW_LOOKAHEAD: usize = 1;
/// In-memory records per chunk of work.
const CHUNK: usize = 512;

fn arrow_error(err: ArrowError) -> PyErr {
    PyRuntimeError::new_err(format!("toolsift could not build Arrow columns: {err}"))
}

/// The file's blocks, read ahead on a reader thread of their own or, for one thread,
/// read and decompressed by the calling thread itself when it needs the next one
/// (`threads=1` keeps one core busy, which is what an engine's task asks for). A read
/// error is kept to be raised after the blocks read before it are out.
struct BlockSource {
    blocks: Blocks,
    error: Option<io::Error>,
    done: bool,
}

enum Blocks {
    Ahead(Mutex<Receiver<io::Result<Block>>>),
    Inline(Mutex<source::Blocks<Box<dyn io::Read + Send>>>),
}

impl BlockSource {
    /// Opens the file with the GIL released (opening a FIFO waits for its writer).
    fn open(
        py: Python<'_>,
        file: &FilePath,
        max_line: usize,
        threads: usize,
        read_ahead: usize,
    ) -> PyResult<Self> {
        let path = Path::new(OsStr::from_bytes(&file.bytes));
        let blocks = py
            .detach(|| {
                if threads <= 1 {
                    let (reader, count) = source::open(path)?;
                    let blocks = source::Blocks::new(reader, count, source::BLOCK, max_line);
                    Ok(Blocks::Inline(Mutex::new(blocks)))
                } else {
                    source::spawn_reader(path, read_ahead, max_line, forks())
                        .map(|receiver| Blocks::Ahead(Mutex::new(receiver)))
                }
            })
            .map_err(|err| file.error(py, err))?;
        Ok(BlockSource {
            blocks,
            error: None,
            done: false,
        })
    }

    /// The next block if the reader thread has one ready (None also at the end, and
    /// always when reading inline: then `next` tells).
    fn try_next(&mut self) -> Option<Block> {
        let Blocks::Ahead(receiver) = &self.blocks else {
            return None;
        };
        if self.done {
            return None;
        }
        let block = lock(receiver).try_recv().ok()?;
        self.took(Some(block))
    }

    /// The next block, waited for or read with the GIL released.
    fn next(&mut self, py: Python<'_>) -> Option<Block> {
        if self.done {
            return None;
        }
        let block = match &self.blocks {
            Blocks::Ahead(receiver) => py.detach(|| lock(receiver).recv().ok()),
            Blocks::Inline(blocks) => py.detach(|| {
                // As on a reader thread: a panic is the file's error, not the end.
                catch_unwind(AssertUnwindSafe(|| lock(blocks).next()))
                    .unwrap_or_else(|_| Some(Err(io::Error::other("toolsift reading panicked"))))
            }),
        };
        self.took(block)
    }

    fn took(&mut self, block: Option<io::Result<Block>>) -> Option<Block> {
        match block {
            Some(Ok(block)) => Some(block),
            Some(Err(err)) => {
                self.error = Some(err);
                self.done = true;
                None
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

fn report(progress: Option<&Bound<'_, PyAny>>, done: u64) -> PyResult<()> {
    if let Some(progress) = progress {
        progress.call1((done,))?;
    }
    Ok(())
}

/// A path from Python: its bytes (`os.fsencode`) to open, and its str to name it in
/// errors (file names need not be UTF-8).
pub struct FilePath {
    pub bytes: Vec<u8>,
    pub name: Py<PyAny>,
}

impl FilePath {
    pub fn new(name: &Bound<'_, PyAny>) -> PyResult<FilePath> {
        let os = name.py().import("os")?;
        Ok(FilePath {
            bytes: os.call_method1("fsencode", (name,))?.extract()?,
            name: name.clone().unbind(),
        })
    }

    /// An error reading the file, as the pure backend says it: an error of the system
    /// as `OSError(errno, strerror, NAME)` (FileNotFoundError, PermissionError...), one
    /// of the data as `OSError("NAME: what is wrong")`.
    fn error(&self, py: Python<'_>, err: io::Error) -> PyErr {
        let name = self.name.bind(py);
        if let Some(code) = err.raw_os_error() {
            return match py
                .import("os")
                .and_then(|os| os.call_method1("strerror", (code,)))
            {
                Ok(strerror) => {
                    PyOSError::new_err((code, strerror.unbind(), name.clone().unbind()))
                }
                Err(err) => err,
            };
        }
        match name.add(format!(": {err}")) {
            Ok(message) => PyOSError::new_err(message.unbind()),
            Err(err) => err,
        }
    }
}

/// The rows of a block's (non-blank) lines, numbered from 0 at the block's first line,
/// and the number of lines (blank ones too) in the block.
fn rows_of_block(reader: &Reader, block: &Block) -> (Rows, i64) {
    let mut rows = Rows::for_text(block.text().len());
    let mut lines = 0;
    for line in block.lines() {
        if let Some((text, outcome)) = reader.read_line(line) {
            rows.add(lines, Some(text), outcome);
        }
        lines += 1;
    }
    (rows, lines)
}

// ------------------------------------------------------------------ parse_file

/// The non-blank lines of a block and what each gave (borrowing the block's text).
type Lines<'a> = Vec<(&'a [u8], Outcome<'a>)>;

self_cell::self_cell!(
    /// A block with its lines read.
    struct ReadBlock {
        owner: Block,
        #[covariant]
        dependent: Lines,
    }
);

fn read_block(reader: &Reader, block: Block) -> ReadBlock {
    ReadBlock::new(block, |block| {
        block
            .lines()
            .filter_map(|line| reader.read_line(line))
            .collect()
    })
}

/// A block handed out for reading: whoever takes it first reads it (a worker, or the
/// calling thread when it needs the block before any worker got to it).
type Slot = Arc<Mutex<Option<Block>>>;

/// A block read on a worker (Err: the worker panicked), with its place in the file.
type Done = (u64, Result<ReadBlock, ()>);

/// The iterator `parse_file` returns. Worker threads read blocks ahead, with the GIL
/// released; each AgentResponse is built when it is asked for, so the caller's loop
/// takes it while it is fresh in the cache and memory stays flat.
#[pyclass(module = "toolsift._native")]
pub struct FileResponses {
    /// How the workers read lines: argument strings decoded onto tapes, off the GIL.
    reader: Arc<Reader>,
    /// How the calling thread reads the blocks it reads itself: argument strings left as
    /// they are, to be decoded straight into Python objects when built.
    own_reader: Reader,
    blocks: BlockSource,
    /// The workers (None: one thread, the calling one, does all the work).
    pool: Option<Arc<ThreadPool>>,
    /// Blocks handed out at most (memory stays bounded).
    lookahead: usize,
    /// The blocks handed out, in file order; the first is number `next_block`.
    handed_out: VecDeque<Slot>,
    next_block: u64,
    done: Mutex<(Sender<Done>, Receiver<Done>)>,
    /// Blocks read before the ones ahead of them.
    early: HashMap<u64, Result<ReadBlock, ()>>,
    /// The block being turned into responses, and its next line.
    current: Option<(ReadBlock, usize)>,
    progress: Option<Py<PyAny>>,
    file: FilePath,
    /// `forks()` when the file was opened: a child made by fork() since has none of the
    /// threads reading it.
    forks: u64,
}

impl FileResponses {
    pub fn open(
        py: Python<'_>,
        format: &Format,
        file: FilePath,
        path: Option<Vec<String>>,
        threads: Option<&Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
        max_line: usize,
    ) -> PyResult<Self> {
        let threads = thread_count(threads)?;
        super::build::sync_int_limit(py)?; // for the workers that read ahead
        let reader = Reader::new(format, path).with_max_line(max_line);
        Ok(FileResponses {
            own_reader: reader.clone().with_encoded_arguments(),
            reader: Arc::new(reader),
            blocks: BlockSource::open(py, &file, max_line, threads, READ_AHEAD)?,
            pool: if threads > 1 {
                Some(pool(threads - 1)?)
            } else {
                None
            },
            lookahead: 2 * threads,
            handed_out: VecDeque::new(),
            next_block: 0,
            done: Mutex::new(mpsc::channel()),
            early: HashMap::new(),
            current: None,
            progress: progress.filter(|p| !p.is_none()).map(Bound::unbind),
            file,
            forks: forks(),
        })
    }

    /// Hands blocks out up to the lookahead: waits for the reader thread only when none
    /// is handed out yet.
    fn hand_out(&mut self, py: Python<'_>) {
        while self.handed_out.len() < self.lookahead {
            let block = if self.handed_out.is_empty() {
                self.blocks.next(py)
            } else {
                self.blocks.try_next()
            };
            let Some(block) = block else { break };
            let slot: Slot = Arc::new(Mutex::new(Some(block)));
            if let Some(pool) = &self.pool {
                let number = self.next_block + self.handed_out.len() as u64;
                let (slot, reader) = (slot.clone(), self.reader.clone());
                let sender = lock(&self.done).0.clone();
                pool.spawn_fifo(move || {
                    let block = lock(&slot).take(); // not held while reading
                    if let Some(block) = block {
                        // The receiver is gone when the iterator was dropped: no one waits.
                        let _ = sender.send((number, guarded_read(&reader, block)));
                    }
                });
            }
            self.handed_out.push_back(slot);
        }
    }

    /// The next block of the file, read; None at the end.
    fn next_read_block(&mut self, py: Python<'_>) -> PyResult<Option<ReadBlock>> {
        self.hand_out(py);
        let Some(slot) = self.handed_out.pop_front() else {
            return Ok(None);
        };
        let number = self.next_block;
        self.next_block += 1;
        let FileResponses {
            own_reader: reader,
            done,
            early,
            handed_out,
            ..
        } = self;
        let read = py.detach(|| {
            let block = lock(&slot).take();
            if let Some(block) = block {
                return guarded_read(reader, block);
            }
            // A worker has it: until that one is done, read blocks further on that no
            // worker has started (their turn comes next).
            let done = lock(done);
            loop {
                if let Some(read) = early.remove(&number) {
                    return read;
                }
                match done.1.try_recv() {
                    Ok((k, read)) => {
                        early.insert(k, read);
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return Err(()),
                    Err(TryRecvError::Empty) => {}
                }
                let unstarted = handed_out.iter().zip(number + 1..).find_map(|(slot, k)| {
                    let block = lock(slot).take();
                    block.map(|block| (k, block))
                });
                match unstarted {
                    Some((k, block)) => {
                        early.insert(k, guarded_read(reader, block));
                    }
                    None => match done.1.recv() {
                        Ok((k, read)) => {
                            early.insert(k, read);
                        }
                        Err(_) => return Err(()),
                    },
                }
            }
        });
        read.map(Some)
            .map_err(|()| PyRuntimeError::new_err("toolsift worker thread panicked"))
    }

    /// The response of the next line of the current block, if it has one left.
    fn next_response<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((block, at)) = &mut self.current else {
            return Ok(None);
        };
        let Some((line, outcome)) = block.borrow_dependent().get(*at) else {
            return Ok(None);
        };
        *at += 1;
        let mut builder = Builder::new(py)?;
        let raw = PyBytes::new(py, line).into_any();
        response(&mut builder, &raw, outcome).map(Some)
    }
}

impl Drop for FileResponses {
    /// An iterator dropped before its end takes back the blocks no worker has started,
    /// so that the work queued for them finds nothing to do: thousands of abandoned
    /// iterators would otherwise queue megabytes of reading each.
    fn drop(&mut self) {
        for slot in self.handed_out.drain(..) {
            if let Some(block) = lock(&slot).take() {
                block.recycle();
            }
        }
    }
}

fn guarded_read(reader: &Reader, block: Block) -> Result<ReadBlock, ()> {
    // A panic is reported as an error, never unwound into Python.
    catch_unwind(AssertUnwindSafe(|| read_block(reader, block))).map_err(|_| ())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The AgentResponse of one line; problems with the line are recorded, not raised.
fn response<'py>(
    builder: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    outcome: &Outcome<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match response_from_outcome(builder, raw, outcome) {
        Ok(response) => Ok(response),
        Err(err) if err.is_instance_of::<PyKeyboardInterrupt>(raw.py()) => Err(err),
        Err(err) => builder.failed(raw, err),
    }
}

#[pymethods]
impl FileResponses {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(mut slf: PyRefMut<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        let py = slf.py();
        if slf.forks != forks() {
            // Its reader thread stayed in the parent: waiting for it would never end.
            let message = py
                .import("toolsift._errors")?
                .getattr("OPENED_BEFORE_FORK")?;
            return Err(PyRuntimeError::new_err(message.unbind()));
        }
        loop {
            if let Some(response) = slf.next_response(py)? {
                return Ok(Some(response.unbind()));
            }
            if let Some((block, _)) = slf.current.take() {
                let block = block.into_owner();
                report(slf.progress.as_ref().map(|p| p.bind(py)), block.consumed)?;
                block.recycle();
                py.check_signals()?; // Ctrl-C stops a long file between blocks
            }
            match slf.next_read_block(py)? {
                Some(block) => slf.current = Some((block, 0)),
                None => {
                    return match slf.blocks.error.take() {
                        Some(err) => Err(slf.file.error(py, err)),
                        None => Ok(None),
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------ arrow_batches

/// Hands the chunk's batch to `sink`, with the text of its JSON errors filled in.
struct Emitter<'py> {
    builder: Builder<'py>,
    sink: Bound<'py, PyAny>,
    counts: Counts,
}

impl<'py> Emitter<'py> {
    fn emit(
        &mut self,
        chunk: Chunk,
        raw_of: impl Fn(i64) -> Option<Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        let py = self.sink.py();
        self.counts += chunk.counts;
        let batch = if chunk.pending.is_empty() {
            chunk.batch
        } else {
            let mut messages = Vec::with_capacity(chunk.pending.len());
            for pending in &chunk.pending {
                let raw = match &pending.text {
                    Some(text) => Some(PyBytes::new(py, text).into_any()),
                    None => raw_of(pending.number),
                };
                let message = match raw {
                    Some(raw) => {
                        let err = self.builder.parse_error(&raw, Some(&pending.error))?;
                        self.builder.error_text(&err)?
                    }
                    None => format!("{} at byte {}", pending.error.message, pending.error.pos),
                };
                messages.push((pending.row, message));
            }
            rows::with_errors(&chunk.batch, &messages).map_err(arrow_error)?
        };
        if batch.num_rows() > 0 {
            self.sink.call1((batch.to_pyarrow(py)?,))?;
        }
        Ok(())
    }

    fn summary(&self) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.sink.py());
        let c = self.counts;
        dict.set_item("records", c.records)?;
        dict.set_item("records_with_calls", c.records_with_calls)?;
        dict.set_item("calls", c.calls)?;
        dict.set_item("undecodable_arguments", c.undecodable_arguments)?;
        dict.set_item("failed", c.failed)?;
        dict.set_item("text_bytes", c.text_bytes)?;
        Ok(dict)
    }
}

pub fn arrow_batches<'py>(
    format: &Format,
    source: &Bound<'py, PyAny>,
    path: Option<Vec<String>>,
    threads: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
    sink: &Bound<'py, PyAny>,
    max_line: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let py = source.py();
    let builder = Builder::new(py)?;
    builder.check_threads(threads)?;
    let threads = thread_count(threads)?;
    let progress = progress.filter(|p| !p.is_none());
    let reader = Reader::new(format, path)
        .with_encoded_arguments()
        .with_max_line(max_line);
    let mut emitter = Emitter {
        builder,
        sink: sink.clone(),
        counts: Counts::default(),
    };
    if source.is_instance_of::<PyString>() {
        let file = FilePath::new(source)?;
        arrow_file(&mut emitter, &reader, &file, threads, progress)?;
    } else if source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>() {
        arrow_items(&mut emitter, &reader, source, threads, progress)?;
    } else {
        arrow_array(&mut emitter, &reader, source, threads, progress)?;
    }
    emitter.summary()
}

fn arrow_file<'py>(
    emitter: &mut Emitter<'py>,
    reader: &Reader,
    file: &FilePath,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let py = emitter.sink.py();
    let mut blocks = BlockSource::open(py, file, reader.max_line, threads, ARROW_READ_AHEAD)?;
    let mut first_line = 0; // the number of the next block's first line
    pipelined_with(
        py,
        threads,
        false,
        ARROW_LOOKAHEAD,
        || blocks.next(py),
        |block: Block, _| {
            let (rows, lines) = rows_of_block(reader, &block);
            let (consumed, text_read) = (block.consumed, block.text_read);
            let long = block.text().len() > source::LONG_BLOCK;
            block.recycle(); // now: its rows wait without it
            let chunk = rows.finish();
            if long {
                source::release_freed_memory(); // the line, and the copies made of it
            }
            (chunk, lines, consumed, text_read)
        },
        |_, (chunk, lines, consumed, text_read)| {
            let chunk = chunk.and_then(|chunk| chunk.renumbered(first_line));
            emitter.emit(chunk.map_err(arrow_error)?, |_| None)?;
            emitter.counts.text_bytes = text_read;
            first_line += lines;
            report(progress, consumed)?;
            py.check_signals()
        },
    )?;
    match blocks.error.take() {
        Some(err) => Err(file.error(py, err)),
        None => Ok(()),
    }
}

/// An in-memory record.
enum Item<'a> {
    Text(&'a [u8]),
    /// A `str` holding lone surrogates (not UTF-8, so not JSON), and its length in bytes
    /// with them written as UTF-8 would write them.
    NotUtf8(u64),
    /// Not text at all: the record's error.
    NotText(String),
}

fn not_text(type_name: &str) -> String {
    format!("TypeError: a record must be str or bytes, not {type_name}")
}

/// The error of a record that is None (a null in a column of responses): the pure
/// `NO_RESPONSE`.
const NO_RESPONSE: &str = "no response (null)";

/// The rows of a chunk of in-memory records, the first numbered `first`.
fn rows_of_items(reader: &Reader, first: usize, items: &[Item<'_>]) -> Rows {
    let mut rows = Rows::new();
    for (offset, item) in items.iter().enumerate() {
        let number = (first + offset) as i64;
        match item {
            Item::Text(text) if source::is_blank(text) => {}
            Item::Text(text) => rows.add(number, Some(text), reader.read(text)),
            Item::NotUtf8(_) => rows.add(number, None, reader.not_utf8()),
            Item::NotText(message) => rows.add_failed(number, None, message),
        }
    }
    rows
}

fn arrow_chunks<'py>(
    emitter: &mut Emitter<'py>,
    reader: &Reader,
    items: &[Item<'_>],
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
    raw_of: impl Fn(i64) -> Option<Bound<'py, PyAny>>,
) -> PyResult<()> {
    let py = emitter.sink.py();
    emitter.counts.text_bytes += items
        .iter()
        .map(|item| match item {
            Item::Text(text) => text.len() as u64,
            Item::NotUtf8(len) => *len,
            Item::NotText(_) => 0,
        })
        .sum::<u64>();
    let chunks: Vec<&[Item<'_>]> = items.chunks(CHUNK).collect();
    let threads = if chunks.len() <= 1 { 1 } else { threads };
    let mut next = chunks.iter().copied().enumerate();
    pipelined_with(
        py,
        threads,
        false,
        ARROW_LOOKAHEAD,
        || next.next(),
        |(k, chunk), _| rows_of_items(reader, k * CHUNK, chunk).finish(),
        |k, chunk| {
            emitter.emit(chunk.map_err(arrow_error)?, &raw_of)?;
            report(progress, (((k + 1) * CHUNK).min(items.len())) as u64)?;
            py.check_signals()
        },
    )?;
    if items.is_empty() {
        report(progress, 0)?;
    }
    Ok(())
}

fn arrow_items<'py>(
    emitter: &mut Emitter<'py>,
    reader: &Reader,
    source: &Bound<'py, PyAny>,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let objects: Vec<Bound<'py, PyAny>> = source.try_iter()?.collect::<PyResult<_>>()?;
    let inputs: Vec<Input<'py>> = objects.iter().map(Input::of).collect::<PyResult<_>>()?;
    let mut items = Vec::with_capacity(inputs.len());
    for (object, input) in objects.iter().zip(&inputs) {
        items.push(match (input, input.text()) {
            (_, Some(text)) => Item::Text(text),
            (Input::Str(_), None) => Item::NotUtf8(
                object
                    .call_method1("encode", ("utf-8", "surrogatepass"))?
                    .len()? as u64,
            ),
            _ if object.is_none() => Item::NotText(NO_RESPONSE.to_owned()),
            _ => Item::NotText(not_text(&object.get_type().name()?.to_string())),
        });
    }
    let raw_of = |number: i64| objects.get(number as usize).cloned();
    arrow_chunks(emitter, reader, &items, threads, progress, raw_of)
}

/// A pyarrow Array or ChunkedArray of (large) strings or binaries, read in place.
fn arrow_array<'py>(
    emitter: &mut Emitter<'py>,
    reader: &Reader,
    source: &Bound<'py, PyAny>,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let pieces: Vec<Bound<'py, PyAny>> = if source.hasattr("chunks")? {
        source
            .getattr("chunks")?
            .try_iter()?
            .collect::<PyResult<_>>()?
    } else {
        vec![source.clone()]
    };
    let mut arrays = Vec::with_capacity(pieces.len());
    for piece in &pieces {
        arrays.push(make_array(ArrayData::from_pyarrow_bound(piece)?));
    }
    let mut items: Vec<Item<'_>> = Vec::new();
    for array in &arrays {
        let any = array.as_any();
        let value = |i: usize| -> Option<&[u8]> {
            if array.is_null(i) {
                return None;
            }
            if let Some(a) = any.downcast_ref::<StringArray>() {
                Some(a.value(i).as_bytes())
            } else if let Some(a) = any.downcast_ref::<LargeStringArray>() {
                Some(a.value(i).as_bytes())
            } else if let Some(a) = any.downcast_ref::<BinaryArray>() {
                Some(a.value(i))
            } else {
                any.downcast_ref::<LargeBinaryArray>().map(|a| a.value(i))
            }
        };
        let known = any.is::<StringArray>()
            || any.is::<LargeStringArray>()
            || any.is::<BinaryArray>()
            || any.is::<LargeBinaryArray>();
        if !known {
            return Err(PyTypeError::new_err(format!(
                "a pyarrow source must hold string, large_string, binary or large_binary, got {}",
                array.data_type()
            )));
        }
        for i in 0..array.len() {
            items.push(match value(i) {
                Some(text) => Item::Text(text),
                None => Item::NotText(NO_RESPONSE.to_owned()),
            });
        }
    }
    arrow_chunks(emitter, reader, &items, threads, progress, |_| None)
}

/// Gives the memory this thread freed (and memory other threads freed of what it had
/// allocated) back to the system now, rather than after mimalloc's purge delay: called
/// by a reading thread of `arrow_batches` about to wait for its consumer, which may
/// never come back (a reader held mid-file), and which allocates nothing meanwhile, so
/// mimalloc would purge nothing.
#[pyfunction]
pub fn release_memory(py: Python<'_>) {
    py.detach(source::release_freed_memory);
}
