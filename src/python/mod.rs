//! The PyO3 layer: Python input in, core calls, Python objects out.

mod batch;
mod build;
mod bulk;
mod litert;
mod objects;
mod stream;

use crate::bulk::source::MAX_LINE_BYTES;
use crate::formats::Format;
use crate::record::parse_record_with;
use crate::stream::Reader;
use build::{response_from_node, response_from_record, Builder};
use objects::Input;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// One configured walker (the public parser classes delegate to it).
#[pyclass(frozen, module = "toolsift._native")]
struct Parser {
    format: Format,
}

#[pymethods]
impl Parser {
    #[new]
    #[pyo3(signature = (format, tool_calls_key="tool_calls", name_key="name", arguments_key="arguments", single=None))]
    fn new(
        format: &str,
        tool_calls_key: &str,
        name_key: &str,
        arguments_key: &str,
        single: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        // `single` is read for its truth value, as russo does.
        let single = single.map_or(Ok(false), |s| s.is_truthy())?;
        Format::new(format, tool_calls_key, name_key, arguments_key, single)
            .map(|format| Parser { format })
            .map_err(PyValueError::new_err)
    }

    /// The calls in one response; raises ParseError for text that is not JSON.
    fn parse<'py>(&self, raw: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = raw.py();
        let mut builder = Builder::new(py)?;
        let input = Input::of(raw)?;
        match (input.text(), &input) {
            (Some(text), _) => parse_text(&mut builder, &self.format, raw, text),
            (None, Input::Object) => response_from_node(&mut builder, &self.format, raw),
            // LiteRT-LM never raises: text that is not Unicode has no calls.
            (None, _) if self.format.reads_text() => {
                response_from_node(&mut builder, &self.format, raw)
            }
            // A str with lone surrogates cannot be UTF-8, so it is not JSON text.
            (None, _) => Err(builder.parse_error(raw, None)?),
        }
    }

    /// An accumulator of this format's stream events (`toolsift._pure.stream`).
    fn stream(&self) -> PyResult<stream::Stream> {
        let reader = match &self.format {
            Format::Walked(walked) => Reader::Walked(*walked),
            Format::Json(options) => Reader::Json(options.clone()),
            Format::Auto => Reader::Auto,
            Format::LiteRt => {
                return Err(PyValueError::new_err(
                    "the 'litert' format has no stream reader",
                ))
            }
        };
        Ok(stream::Stream::new(reader))
    }

    /// `parse` over many responses, in order; text is parsed on worker threads with the
    /// GIL released. A record that cannot be read is recorded in its `error`.
    #[pyo3(signature = (raws, threads=None))]
    fn parse_many<'py>(
        &self,
        raws: &Bound<'py, PyAny>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        batch::parse_many(&self.format, raws, threads)
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
    ) -> PyResult<bulk::FileResponses> {
        if let Some(threads) = threads {
            Builder::new(threads.py())?.check_threads(Some(threads))?;
        }
        let file = bulk::FilePath::new(path)?;
        let max_line = max_line_bytes.unwrap_or(MAX_LINE_BYTES);
        bulk::FileResponses::open(
            path.py(),
            &self.format,
            file,
            record_path,
            threads,
            progress,
            max_line,
        )
    }

    /// Rows of the calls in `source` (a path, a list of records or a pyarrow array),
    /// handed to `sink` as pyarrow RecordBatches; returns the counts. `schema` is the
    /// pure backend's (the Rust one builds the same one itself).
    #[allow(clippy::too_many_arguments)] // the Python signature, one argument each
    #[pyo3(signature = (source, record_path, threads, progress, sink, schema=None, max_line_bytes=None))]
    fn arrow_batches<'py>(
        &self,
        source: &Bound<'py, PyAny>,
        record_path: Option<Vec<String>>,
        threads: Option<&Bound<'py, PyAny>>,
        progress: Option<&Bound<'py, PyAny>>,
        sink: &Bound<'py, PyAny>,
        schema: Option<&Bound<'py, PyAny>>,
        max_line_bytes: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = schema;
        let max_line = max_line_bytes.unwrap_or(MAX_LINE_BYTES);
        let counts = bulk::arrow_batches(
            &self.format,
            source,
            record_path,
            threads,
            progress,
            sink,
            max_line,
        )?;
        Ok(counts.into_any())
    }
}

fn parse_text<'py>(
    builder: &mut Builder<'py>,
    format: &Format,
    raw: &Bound<'py, PyAny>,
    text: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    if format.reads_text() {
        let record = litert::parse_record(raw.py(), text);
        return response_from_record(builder, raw, &record);
    }
    // Argument strings are decoded straight into Python objects while building.
    match parse_record_with(format, text, false) {
        Ok(record) => response_from_record(builder, raw, &record),
        Err(err) => Err(builder.parse_error(raw, Some(&err))?),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::keep_freed_memory_longer(); // before any of this module's threads start
    m.add_class::<Parser>()?;
    m.add_function(wrap_pyfunction!(litert::extract_tool_calls, m)?)?;
    m.add_function(wrap_pyfunction!(litert::clean_raw_for_history, m)?)?;
    m.add_class::<bulk::FileResponses>()?;
    m.add_function(wrap_pyfunction!(bulk::release_memory, m)?)?;
    m.add_class::<stream::Stream>()?;
    // Thread pools and open iterators must know when they are in a child made by fork().
    let hook = wrap_pyfunction!(batch::after_fork_in_child, m)?;
    let os = m.py().import("os")?;
    if os.hasattr("register_at_fork")? {
        let kwargs = pyo3::types::PyDict::new(m.py());
        kwargs.set_item("after_in_child", hook)?;
        os.call_method("register_at_fork", (), Some(&kwargs))?;
    }
    m.add("MAX_DEPTH", crate::json::MAX_DEPTH)?;
    m.add("MAX_LINE_BYTES", MAX_LINE_BYTES)?;
    m.add(
        "FORMATS",
        pyo3::types::PyTuple::new(m.py(), Format::names())?,
    )?;
    m.add(
        "BUILD_PROFILE",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    Ok(())
}
