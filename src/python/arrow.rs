//! `to_arrow` and `arrow_batches`: rows of calls built on worker threads with the GIL
//! released (`crate::pipeline::run`, `crate::bulk::rows`) and handed to pyarrow through
//! the Arrow C data interface (arrow-pyarrow): no Python object per call on this path.
//! Files are read and decompressed on a thread of their own
//! (`crate::bulk::block_source`), or by the one thread itself when `threads` is 1.

use super::build::Builder;
use super::files::{report, FilePath};
use super::objects::{surrogatepass, Input};
use crate::bulk::rows::{Chunk, Counts, Rows};
use crate::bulk::source::{self, Block, Line};
use crate::bulk::{Carry, Outcome, Reader};
use crate::pipeline::{self, Plan, CHUNK};
use crate::violations::Checks;
use arrow_array::{
    make_array, Array, BinaryArray, LargeBinaryArray, LargeStringArray, StringArray,
};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::ArrowError;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::sync::Arc;

/// Blocks the reader thread reads ahead of the workers, whose pipeline takes blocks
/// ahead itself: a reader held mid-file holds them all (issue 37).
const READ_AHEAD: usize = 1;
/// Chunks taken ahead of the consumer, per thread (and one more): a reader held
/// mid-file holds them all, parsed (`parse_file` takes 2).
const PER_THREAD: usize = 1;

fn arrow_error(err: ArrowError) -> PyErr {
    PyRuntimeError::new_err(format!("toolsift could not build Arrow columns: {err}"))
}

/// The rows of a block's (non-blank) lines, numbered from 0 at the block's first line,
/// and the number of lines (blank ones too) in the block.
fn rows_of_block(reader: &Reader, block: &Block, options: &RowOptions) -> (Rows, i64) {
    let mut rows = options.rows(Rows::for_text(block.text().len()).repairing(reader.repair));
    let mut lines = 0;
    for line in block.lines() {
        match line {
            Line::Text(text) if source::is_blank(text) => {}
            Line::Text(text) => {
                let outcome = options.read(reader, &mut rows, text);
                rows.add(lines, outcome);
            }
            Line::TooLong => {
                if let Some((_, outcome)) = reader.read_line(Line::TooLong) {
                    options.carry_of(&mut rows, b"");
                    rows.add(lines, outcome);
                }
            }
        }
        lines += 1;
    }
    (rows, lines)
}

/// What rows to make beyond one per call: a row for each record without calls too
/// (`Rows::with_every_record`), and the carried fields (`carry=`: their dot paths).
pub struct RowOptions {
    pub every_record: bool,
    pub carry: Option<(Vec<String>, Carry)>,
    /// The `violations` column's checks (None: nulls).
    pub checks: Option<Arc<Checks>>,
}

impl RowOptions {
    fn rows(&self, rows: Rows) -> Rows {
        let rows = (rows.with_every_record(self.every_record)).with_checks(self.checks.clone());
        match &self.carry {
            Some((names, _)) => rows.with_carried(names),
            None => rows,
        }
    }

    /// The carried fields of the record `text` (none where `text` is None: not text).
    fn carry_of(&self, rows: &mut Rows, text: &[u8]) {
        if let Some((_, carry)) = &self.carry {
            rows.carry(carry.values(text));
        }
    }

    /// `reader.read(text)`, the record's carried fields handed to `rows` (read from the
    /// document parsed for its calls: `Reader::read_carrying`).
    fn read<'a>(&self, reader: &Reader, rows: &mut Rows, text: &'a [u8]) -> Outcome<'a> {
        let Some((_, carry)) = &self.carry else {
            return reader.read(text);
        };
        let mut carried = Vec::new();
        let outcome = reader.read_carrying(text, carry, &mut carried);
        rows.carry(carried);
        outcome
    }
}

/// Hands each chunk's batch to `sink`, and counts.
struct Emitter<'py> {
    sink: Bound<'py, PyAny>,
    counts: Counts,
}

impl<'py> Emitter<'py> {
    fn emit(&mut self, chunk: Chunk) -> PyResult<()> {
        self.counts += chunk.counts;
        if chunk.batch.num_rows() > 0 {
            self.sink
                .call1((chunk.batch.to_pyarrow(self.sink.py())?,))?;
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

/// The rows of `source`'s records, read by `reader` (its format, record path, line limit
/// and repair; argument strings left encoded), with the rows `options` asks for, handed
/// to `sink`; the counts.
pub fn arrow_batches<'py>(
    reader: &Reader,
    source: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
    sink: &Bound<'py, PyAny>,
    options: RowOptions,
) -> PyResult<Bound<'py, PyDict>> {
    let py = source.py();
    Builder::new(py)?.check_threads(threads)?;
    let threads = super::batch::thread_count(threads);
    let progress = progress.filter(|p| !p.is_none());
    let mut emitter = Emitter {
        sink: sink.clone(),
        counts: Counts::default(),
    };
    if source.is_instance_of::<PyString>() {
        let file = FilePath::new(source)?;
        arrow_file(&mut emitter, (reader, &options), &file, threads, progress)?;
    } else if source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>() {
        arrow_items(&mut emitter, (reader, &options), source, threads, progress)?;
    } else {
        arrow_array(&mut emitter, (reader, &options), source, threads, progress)?;
    }
    emitter.summary()
}

fn arrow_file<'py>(
    emitter: &mut Emitter<'py>,
    (reader, options): (&Reader, &RowOptions),
    file: &FilePath,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let py = emitter.sink.py();
    let mut blocks = file.open(py, reader.max_line, threads, READ_AHEAD)?;
    let mut first_line = 0; // the number of the next block's first line
    let plan = Plan {
        threads,
        caller_works: false,
        per_thread: PER_THREAD,
    };
    pipeline::run(
        &py,
        plan,
        std::iter::from_fn(|| py.detach(|| blocks.next())),
        |block: Block, _| {
            let (rows, lines) = rows_of_block(reader, &block, options);
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
            emitter.emit(chunk.map_err(arrow_error)?)?;
            emitter.counts.text_bytes = text_read;
            first_line += lines;
            report(progress, consumed)
        },
    )?;
    file.result(py, &mut blocks)
}

/// An in-memory record.
enum Item<'a> {
    Text(&'a [u8]),
    /// A `str` holding lone surrogates (not UTF-8, so not JSON), written as
    /// `encode("utf-8", "surrogatepass")` writes it (its error says where).
    NotUtf8(Vec<u8>),
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
fn rows_of_items(reader: &Reader, first: usize, items: &[Item<'_>], options: &RowOptions) -> Rows {
    let mut rows = options.rows(Rows::new().repairing(reader.repair));
    for (offset, item) in items.iter().enumerate() {
        let number = (first + offset) as i64;
        match item {
            Item::Text(text) if source::is_blank(text) => {}
            Item::Text(text) => {
                let outcome = options.read(reader, &mut rows, text);
                rows.add(number, outcome);
            }
            // (A record that is not UTF-8, or not text, is not JSON: nothing carried.)
            Item::NotUtf8(encoded) => {
                options.carry_of(&mut rows, b"");
                rows.add(number, reader.not_utf8(encoded));
            }
            Item::NotText(message) => {
                options.carry_of(&mut rows, b"");
                rows.add_failed(number, None, message);
            }
        }
    }
    rows
}

fn arrow_chunks<'py>(
    emitter: &mut Emitter<'py>,
    (reader, options): (&Reader, &RowOptions),
    items: &[Item<'_>],
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<()> {
    let py = emitter.sink.py();
    emitter.counts.text_bytes += items
        .iter()
        .map(|item| match item {
            Item::Text(text) => text.len() as u64,
            Item::NotUtf8(encoded) => encoded.len() as u64,
            Item::NotText(_) => 0,
        })
        .sum::<u64>();
    let chunks = items.chunks(CHUNK);
    // Consuming a batch is cheap: the calling thread only hands chunks out.
    let plan = Plan {
        threads: if chunks.len() <= 1 { 1 } else { threads },
        caller_works: false,
        per_thread: PER_THREAD,
    };
    pipeline::run(
        &py,
        plan,
        chunks.enumerate(),
        |(k, chunk), _| rows_of_items(reader, k * CHUNK, chunk, options).finish(),
        |k, chunk| {
            emitter.emit(chunk.map_err(arrow_error)?)?;
            report(progress, (((k + 1) * CHUNK).min(items.len())) as u64)
        },
    )?;
    if items.is_empty() {
        report(progress, 0)?;
    }
    Ok(())
}

fn arrow_items<'py>(
    emitter: &mut Emitter<'py>,
    (reader, options): (&Reader, &RowOptions),
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
            (Input::Str(_), None) => Item::NotUtf8(surrogatepass(object)?),
            _ if object.is_none() => Item::NotText(NO_RESPONSE.to_owned()),
            _ => Item::NotText(not_text(&object.get_type().name()?.to_string())),
        });
    }
    arrow_chunks(emitter, (reader, options), &items, threads, progress)
}

/// A pyarrow Array or ChunkedArray of (large) strings or binaries, read in place.
fn arrow_array<'py>(
    emitter: &mut Emitter<'py>,
    (reader, options): (&Reader, &RowOptions),
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
    arrow_chunks(emitter, (reader, options), &items, threads, progress)
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
