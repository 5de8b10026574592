//! `parse_file`: the iterator of a JSONL file's AgentResponses. The file is read and
//! decompressed on a thread of its own (`crate::bulk::block_source`), its blocks read on
//! worker threads with the GIL released (`crate::pipeline::Ordered`); this file only
//! builds each AgentResponse when it is asked for.

use super::build::{response_from_outcome, Builder};
use crate::bulk::block_source::BlockSource;
use crate::bulk::source::Block;
use crate::bulk::{Outcome, Reader};
use crate::pipeline::{self, Ordered};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

/// Blocks the reader thread reads ahead of the parsers.
const READ_AHEAD: usize = 4;
/// Blocks handed out per thread at most (memory stays bounded).
const PER_THREAD: usize = 2;

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

    /// Its blocks (`BlockSource`), opened with the GIL released (opening a FIFO waits for
    /// its writer).
    pub fn open(
        &self,
        py: Python<'_>,
        max_line: usize,
        threads: usize,
        read_ahead: usize,
    ) -> PyResult<BlockSource> {
        let path = Path::new(OsStr::from_bytes(&self.bytes));
        let forks = pipeline::forks();
        py.detach(|| BlockSource::open(path, max_line, threads, read_ahead, forks))
            .map_err(|err| self.error(py, err))
    }

    /// An error reading the file, as the pure backend says it: an error of the system
    /// as `OSError(errno, strerror, NAME)` (FileNotFoundError, PermissionError...), one
    /// of the data as `OSError("NAME: what is wrong")`.
    pub fn error(&self, py: Python<'_>, err: io::Error) -> PyErr {
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

    /// The error that ended the reading of `blocks`, if one did.
    pub fn result(&self, py: Python<'_>, blocks: &mut BlockSource) -> PyResult<()> {
        match blocks.take_error() {
            Some(err) => Err(self.error(py, err)),
            None => Ok(()),
        }
    }
}

/// Tells `progress` (if given) how far the run got.
pub fn report(progress: Option<&Bound<'_, PyAny>>, done: u64) -> PyResult<()> {
    if let Some(progress) = progress {
        progress.call1((done,))?;
    }
    Ok(())
}

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

/// The iterator `parse_file` returns. Worker threads read blocks ahead, with the GIL
/// released; each AgentResponse is built when it is asked for, so the caller's loop
/// takes it while it is fresh in the cache and memory stays flat.
#[pyclass(module = "toolsift._native")]
pub struct FileResponses {
    blocks: BlockSource,
    /// The blocks being read, in file order.
    read: Ordered<Block, ReadBlock>,
    /// The block being turned into responses, and its next line.
    current: Option<(ReadBlock, usize)>,
    progress: Option<Py<PyAny>>,
    file: FilePath,
    /// `forks()` when the file was opened: a child made by fork() since has none of the
    /// threads reading it.
    forks: u64,
    /// `repair="safe"`: the responses have the arguments the audited repairs make.
    repair: bool,
}

impl FileResponses {
    /// The responses of `file`'s lines, read by `workers` (its format, record path, line
    /// limit and repair).
    pub fn open(
        py: Python<'_>,
        workers: Reader,
        file: FilePath,
        threads: Option<&Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let threads = super::batch::thread_count(threads);
        super::build::sync_int_limit(py)?; // for the workers that read ahead
                                           // The workers decode argument strings onto tapes, off the GIL; the calling
                                           // thread leaves them as they are, to be decoded straight into Python objects.
        let (max_line, repair) = (workers.max_line, workers.repair);
        let caller = workers.clone().with_encoded_arguments();
        let work: pipeline::Work<Block, ReadBlock> = Arc::new(move |block, on_caller| {
            read_block(if on_caller { &caller } else { &workers }, block)
        });
        Ok(FileResponses {
            blocks: file.open(py, max_line, threads, READ_AHEAD)?,
            read: Ordered::new(threads, PER_THREAD, work)?,
            current: None,
            progress: progress.filter(|p| !p.is_none()).map(Bound::unbind),
            file,
            forks: pipeline::forks(),
            repair,
        })
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
        let mut builder = Builder::new(py)?.repairing(self.repair);
        let raw = PyBytes::new(py, line).into_any();
        response(&mut builder, &raw, outcome).map(Some)
    }

    /// The next block of the file, read; None at the end. Ctrl-C stops a long file
    /// between blocks.
    fn next_read_block(&mut self, py: Python<'_>) -> PyResult<Option<ReadBlock>> {
        let FileResponses { blocks, read, .. } = self;
        read.next(&py, |wait| {
            if wait {
                py.detach(|| blocks.next())
            } else {
                blocks.try_next()
            }
        })
    }
}

impl Drop for FileResponses {
    /// An iterator dropped before its end takes back the blocks no worker has started,
    /// so that the work queued for them finds nothing to do: thousands of abandoned
    /// iterators would otherwise queue megabytes of reading each.
    fn drop(&mut self) {
        for block in self.read.take_back() {
            block.recycle();
        }
    }
}

/// The AgentResponse of one line; problems with the line are recorded, not raised.
fn response<'py>(
    builder: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    outcome: &Outcome<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let response = match outcome {
        // `str(ParseError)`, made in Rust: no Python call for a line that is not JSON.
        Outcome::NotJson(err) => return builder.failed_with(raw, &err.to_string()),
        outcome => response_from_outcome(builder, raw, outcome),
    };
    match response {
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
        if slf.forks != pipeline::forks() {
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
            }
            match slf.next_read_block(py)? {
                Some(block) => slf.current = Some((block, 0)),
                None => {
                    let this = &mut *slf;
                    this.file.result(py, &mut this.blocks)?;
                    return Ok(None);
                }
            }
        }
    }
}
