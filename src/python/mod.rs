//! The PyO3 layer: Python input in, core calls, Python objects out.

mod arrow;
mod batch;
mod build;
mod files;
mod litert;
mod objects;
mod stream;
mod strings;

use crate::bulk::source::MAX_LINE_BYTES;
use crate::bulk::Reader as RecordReader;
use crate::events::Reader;
use crate::formats::Format;
use crate::pipeline::{Broken, Host};
use build::{calls_from_record, response_from_object, response_from_outcome, Builder};
use objects::{surrogatepass, Input};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};
use std::borrow::Cow;
use std::sync::Arc;

/// The pipeline's host: the GIL detached while the calling thread works or waits,
/// Ctrl-C checked between chunks.
impl Host for Python<'_> {
    type Error = PyErr;
    fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        Python::detach(*self, f)
    }
    fn check(&self) -> PyResult<()> {
        self.check_signals()
    }
}

impl From<Broken> for PyErr {
    fn from(broken: Broken) -> PyErr {
        PyRuntimeError::new_err(broken.to_string())
    }
}

/// One configured walker (the public parser classes delegate to it).
#[pyclass(frozen, module = "toolsift._native")]
struct Parser {
    format: Format,
    /// How `parse` reads text without a `record_path` (envelopes unwrapped), made once.
    reader: RecordReader,
    /// The tools' JSON text as given (a raw-text dialect's stream is the pure twin's).
    tools: Option<String>,
    /// The public parser this core serves (`set_owner`): the core pickles as its `_core`.
    owner: std::sync::OnceLock<Py<PyAny>>,
}

impl Parser {
    /// The reader of records whose response is at `path` (None: the record, or inside
    /// its batch envelope).
    fn reader(&self, path: Option<Vec<String>>) -> Cow<'_, RecordReader> {
        match path {
            None => Cow::Borrowed(&self.reader),
            Some(path) => Cow::Owned(
                RecordReader::new(&self.format, Some(path))
                    .with_encoded_arguments()
                    .without_context()
                    .with_repair(self.reader.repair),
            ),
        }
    }
}

#[pymethods]
impl Parser {
    #[new]
    #[allow(clippy::too_many_arguments)] // the Python constructor's keywords, one each
    #[pyo3(signature = (format, tool_calls_key="tool_calls", name_key="name", arguments_key="arguments", single=None, tools=None, text_dialect=None, repair=None))]
    fn new(
        format: &str,
        tool_calls_key: &str,
        name_key: &str,
        arguments_key: &str,
        single: Option<&Bound<'_, PyAny>>,
        tools: Option<&str>,
        text_dialect: Option<&str>,
        repair: Option<&str>,
    ) -> PyResult<Self> {
        // `single` is read for its truth value, as russo does.
        let single = single.map_or(Ok(false), |s| s.is_truthy())?;
        let format = Format::new(format, tool_calls_key, name_key, arguments_key, single)
            .and_then(|format| format.with_text_dialect(text_dialect, tools))
            .map_err(PyValueError::new_err)?;
        // Argument strings are decoded straight into Python objects while building.
        let reader = RecordReader::new(&format, None)
            .with_encoded_arguments()
            .without_context()
            .with_repair(repair == Some("safe")); // (the public classes check the value)
        Ok(Parser {
            format,
            reader,
            tools: tools.map(str::to_owned),
            owner: std::sync::OnceLock::new(),
        })
    }

    /// `owner`, the public parser that holds this core as `_core`, is what the core
    /// pickles as: a public parser with nothing to add to `parse` hands out the core's own
    /// (`parser.parse`), and `pickle` (a `multiprocessing.Pool.map(parser.parse, ...)`)
    /// takes that for the public parser's. Set once; later calls change nothing.
    fn set_owner(&self, owner: Bound<'_, PyAny>) {
        let _ = self.owner.set(owner.unbind());
    }

    /// `getattr(owner, "_core")` (a core without an owner does not pickle).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let Some(owner) = self.owner.get() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "cannot pickle a core Parser without its public parser",
            ));
        };
        let getattr = py.import("builtins")?.getattr("getattr")?;
        (getattr, (owner.clone_ref(py), "_core")).into_pyobject(py)
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(owner) = self.owner.get() {
            visit.call(owner)?;
        }
        Ok(())
    }

    /// The calls in one response; raises ParseError for text that is not JSON. A batch
    /// envelope is unwrapped (or the response taken at `record_path`, a dot path): the
    /// public `parse`'s signature, so that a parser with nothing to do after it calls
    /// this directly.
    #[pyo3(signature = (raw, /, *, record_path=None))]
    fn parse<'py>(
        &self,
        raw: &Bound<'py, PyAny>,
        record_path: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = raw.py();
        let mut builder = Builder::new(py)?.repairing(self.reader.repair);
        let record_path = match record_path {
            Some(path) => builder.record_path_keys(path)?,
            None => None,
        };
        let input = Input::of(raw)?;
        let outcome = match (input.text(), &input) {
            // A str's text is UTF-8 already (`to_str`): not checked again.
            (Some(_), Input::Str(text)) => self.reader(record_path).read_str(text.to_str()?),
            (Some(text), _) => self.reader(record_path).read(text),
            (None, Input::Object) => {
                return response_from_object(
                    &mut builder,
                    &self.format,
                    raw,
                    record_path.as_deref(),
                )
            }
            // A str with lone surrogates cannot be UTF-8, so it is not JSON text
            // (LiteRT-LM: text without calls).
            (None, _) => self.reader(record_path).not_utf8(&surrogatepass(raw)?),
        };
        response_from_outcome(&mut builder, raw, &outcome)
    }

    /// An accumulator of this format's stream events (`toolsift._pure.stream`); a
    /// raw-text dialect's stream of text deltas is the pure twin's
    /// (`toolsift._pure.dialects._stream`), so both backends report the same calls.
    /// With `text_dialect`, the provider's stream: its structured calls.
    fn stream<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let reader = match self.format.provider() {
            Format::Walked(walked) => Reader::Walked(*walked),
            Format::Json(options) => Reader::Json(options.clone()),
            Format::Auto => Reader::Auto,
            Format::LiteRt => {
                return Err(PyValueError::new_err(
                    "the 'litert' format has no stream reader",
                ))
            }
            Format::Text(text) => {
                let name = text.dialect.map_or(crate::formats::AUTO_TEXT, |d| d.name());
                return stream::text_stream(py, name, self.tools.as_deref());
            }
            // `provider()` unwraps it: never here.
            Format::WithText(..) => {
                return Err(PyValueError::new_err(
                    "a provider format has no text stream",
                ))
            }
            Format::Messages(_) => {
                return Err(PyValueError::new_err(
                    "the 'messages' format has no stream reader",
                ))
            }
        };
        Ok(Bound::new(py, stream::Stream::new(reader))?.into_any())
    }

    /// A raw-text dialect's calls in `text` as it is (no envelope, no JSON string decoded):
    /// what a text stream reads of each piece of its text (`_pure.dialects._stream`).
    fn text_calls<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let Format::Text(format) = &self.format else {
            return Err(PyValueError::new_err("text_calls: not a raw-text dialect"));
        };
        let record = format.record(text.as_bytes());
        calls_from_record(&mut Builder::new(py)?, &record)
    }

    /// `parse` over many responses, in order; text is parsed on worker threads with the
    /// GIL released. A record that cannot be read is recorded in its `error`.
    #[pyo3(signature = (raws, threads=None, record_path=None))]
    fn parse_many<'py>(
        &self,
        raws: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
        record_path: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        batch::parse_many(&self.reader(record_path), raws, threads)
    }

    /// The AgentResponses of a JSONL file, streamed (`toolsift._bulk` checks the
    /// arguments first). `record_path` is the list of keys.
    #[pyo3(signature = (path, record_path=None, threads=None, progress=None, max_line_bytes=None))]
    fn parse_file(
        &self,
        path: &Bound<'_, PyString>,
        record_path: Option<Vec<String>>,
        threads: Option<&Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
        max_line_bytes: Option<usize>,
    ) -> PyResult<files::FileResponses> {
        if let Some(threads) = threads {
            Builder::new(threads.py())?.check_threads(Some(threads))?;
        }
        let file = files::FilePath::new(path)?;
        let max_line = max_line_bytes.unwrap_or(MAX_LINE_BYTES);
        let reader = RecordReader::new(&self.format, record_path)
            .without_context()
            .with_max_line(max_line)
            .with_repair(self.reader.repair);
        files::FileResponses::open(path.py(), reader, file, threads, progress)
    }

    /// Rows of the calls in `source` (a path, a list of records or a pyarrow array),
    /// handed to `sink` as pyarrow RecordBatches; returns the counts. `schema` is the
    /// pure backend's (the Rust one builds the same one itself).
    #[allow(clippy::too_many_arguments)] // the Python signature, one argument each
    #[pyo3(signature = (source, record_path, threads, progress, sink, schema=None, max_line_bytes=None, checks=None, every_record=false, carry=None))]
    fn arrow_batches<'py>(
        &self,
        source: &Bound<'py, PyAny>,
        record_path: Option<Vec<String>>,
        threads: Option<&Bound<'py, PyAny>>,
        progress: Option<&Bound<'py, PyAny>>,
        sink: &Bound<'py, PyAny>,
        schema: Option<&Bound<'py, PyAny>>,
        max_line_bytes: Option<usize>,
        checks: Option<PyRef<'py, Checks>>,
        every_record: bool,
        carry: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = schema;
        let carry = carry.map(|names| {
            let paths = names
                .iter()
                .map(|name| name.split('.').map(str::to_owned).collect())
                .collect();
            (names, crate::bulk::Carry::new(paths))
        });
        let mut reader = RecordReader::new(&self.format, record_path)
            .with_encoded_arguments()
            .with_max_line(max_line_bytes.unwrap_or(MAX_LINE_BYTES))
            .with_repair(self.reader.repair);
        if let Some((_, carry)) = &carry {
            reader = reader.with_carry(carry); // the carried fields read off the same tape
        }
        let counts = arrow::arrow_batches(
            &reader,
            source,
            threads,
            progress,
            sink,
            arrow::RowOptions {
                every_record,
                checks: checks.map(|checks| checks.inner.clone()),
                carry,
            },
        )?;
        Ok(counts.into_any())
    }
}

/// The tools calls are checked against (`toolsift._pure.violations.Checks`): `tools`
/// (the JSON text of definitions) and `requests` (a JSONL request file's bytes, or a
/// binary file object to read them from; `name` names it in errors). ValueError for
/// tools of no shape; what the file object raises, as it raised it.
#[pyclass(frozen, module = "toolsift._native")]
struct Checks {
    inner: Arc<crate::violations::Checks>,
}

/// A Python binary file object as a `Read`: each read is one `read(n)` call. The first
/// exception it raises is kept, to be raised as it is.
struct PyFile<'py> {
    file: Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl std::io::Read for PyFile<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.file.call_method1("read", (buf.len(),));
        let piece = read.and_then(|piece| Ok(piece.cast_into::<PyBytes>()?));
        let copied = piece.and_then(|piece| match piece.as_bytes() {
            bytes if bytes.len() <= buf.len() => {
                buf[..bytes.len()].copy_from_slice(bytes);
                Ok(bytes.len())
            }
            _ => Err(PyValueError::new_err("read(n) returned more than n bytes")),
        });
        copied.map_err(|err| {
            let message = err.to_string();
            self.raised.get_or_insert(err);
            std::io::Error::other(message)
        })
    }
}

#[pymethods]
impl Checks {
    #[new]
    #[pyo3(signature = (tools=None, requests=None, name="requests"))]
    fn new(tools: Option<&str>, requests: Option<Bound<'_, PyAny>>, name: &str) -> PyResult<Self> {
        let inner = match requests {
            None => crate::violations::Checks::new(tools, None, name),
            Some(bytes) if bytes.is_instance_of::<PyBytes>() => {
                let mut bytes = bytes.cast::<PyBytes>()?.as_bytes();
                crate::violations::Checks::new(tools, Some(&mut bytes), name)
            }
            Some(file) => {
                let mut file = PyFile { file, raised: None };
                let checks = crate::violations::Checks::new(tools, Some(&mut file), name);
                if let Some(raised) = file.raised {
                    return Err(raised);
                }
                checks
            }
        };
        Ok(Checks {
            inner: Arc::new(inner.map_err(PyValueError::new_err)?),
        })
    }

    /// The codes of a call whose arguments are the JSON object text `arguments` (None:
    /// they did not decode).
    #[pyo3(signature = (custom_id, name, arguments))]
    fn violations(
        &self,
        custom_id: Option<&str>,
        name: &str,
        arguments: Option<&str>,
    ) -> Vec<String> {
        let mut codes = Vec::new();
        self.inner
            .violations(custom_id, name, arguments, &mut codes);
        codes
    }
}

// Free-threaded CPython: the module says it needs the GIL, so importing it there turns
// the GIL back on (with a warning) rather than run code never checked without it: the
// thread pools and fork hooks (`crate::pipeline`, files.rs, arrow.rs) and the raw writes
// into new objects (build/) were written and tested with the GIL serializing
// Python-side access. (The abi3 wheel does not load on free-threaded builds anyway: they
// have no stable ABI.)
#[pymodule(gil_used = true)]
mod _native {
    #[pymodule_export]
    use super::arrow::release_memory;
    #[pymodule_export]
    use super::files::FileResponses;
    #[pymodule_export]
    use super::litert::{clean_raw_for_history, extract_tool_calls};
    #[pymodule_export]
    use super::stream::Stream;
    #[pymodule_export]
    use super::Checks;
    #[pymodule_export]
    use super::Parser;

    use super::{batch, Format, MAX_LINE_BYTES};
    use pyo3::prelude::*;
    use pyo3::types::{PyDict, PyTuple};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::keep_freed_memory_longer(); // before any of this module's threads start
                                           // Thread pools and open iterators must know when they are in a child made by
                                           // fork().
        let hook = wrap_pyfunction!(batch::after_fork_in_child, m)?;
        let os = m.py().import("os")?;
        if os.hasattr("register_at_fork")? {
            let kwargs = PyDict::new(m.py());
            kwargs.set_item("after_in_child", hook)?;
            os.call_method("register_at_fork", (), Some(&kwargs))?;
        }
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("MAX_DEPTH", crate::json::MAX_DEPTH)?;
        m.add("MAX_LINE_BYTES", MAX_LINE_BYTES)?;
        m.add("FORMATS", PyTuple::new(m.py(), Format::names())?)?;
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        m.add("BUILD_PROFILE", profile)?;
        Ok(())
    }
}
