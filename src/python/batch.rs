//! `parse_many`: JSON text is parsed on worker threads with the GIL released, while the
//! calling thread turns finished chunks into Python objects (which needs the GIL); the
//! scheduling is `crate::pipeline`'s.

use super::build::{response_from_object, response_from_outcome, Builder};
use super::objects::{surrogatepass, Input};
use crate::bulk::{Outcome, Reader};
use crate::pipeline::{self, Plan, CHUNK};
use pyo3::prelude::*;
use pyo3::types::PyList;

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
    let mut builder = Builder::new(py)?.repairing(reader.repair);
    builder.check_threads(threads)?;
    // More threads than chunks would only wait.
    let threads = thread_count(threads);
    let items: Vec<Bound<'py, PyAny>> = raws.try_iter()?.collect::<PyResult<_>>()?;
    // An input that cannot be read (a released memoryview) is its record's error.
    let inputs: Vec<PyResult<Input<'py>>> = items.iter().map(Input::of).collect();
    // Borrowed views of the text; the Python objects in `inputs` keep them alive.
    let texts: Vec<Option<&[u8]>> = inputs
        .iter()
        .map(|input| input.as_ref().ok().and_then(Input::text))
        .collect();
    let chunks = texts.chunks(CHUNK);

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
        Ok(())
    };
    // The calling thread works too: building the objects of a chunk costs about what
    // parsing it does.
    let plan = Plan {
        threads: threads.min(chunks.len()),
        caller_works: true,
        per_thread: 2,
    };
    // Workers decode argument strings onto tapes, off the thread that builds the
    // objects; in the chunks the calling thread parses itself, they are left as they
    // are and decoded straight into Python objects.
    let decoding = reader.clone().with_decoded_arguments();
    pipeline::run(
        &py,
        plan,
        chunks,
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
    let outcome = match (parsed, input) {
        (Some(outcome), _) => outcome,
        (None, Input::Object) => {
            let response =
                response_from_object(builder, &reader.format, raw, reader.path.as_deref());
            return recorded(builder, raw, response);
        }
        // A str that cannot be UTF-8 (lone surrogates): LiteRT-LM text without calls,
        // else not JSON text.
        (None, _) => match surrogatepass(raw) {
            Ok(encoded) => reader.not_utf8(&encoded),
            Err(err) => return recorded(builder, raw, Err(err)),
        },
    };
    let response = match &outcome {
        // `str(ParseError)`, made in Rust: no Python call for a record that is not JSON.
        Outcome::NotJson(err) => return builder.failed_with(raw, &err.to_string()),
        outcome => response_from_outcome(builder, raw, outcome),
    };
    recorded(builder, raw, response)
}

/// The response, or its error recorded in it.
fn recorded<'py>(
    builder: &Builder<'py>,
    raw: &Bound<'py, PyAny>,
    response: PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match response {
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
/// accepted (as in the pure backend); more than `pipeline::MAX_THREADS` would only wait.
pub(super) fn thread_count(threads: Option<&Bound<'_, PyAny>>) -> usize {
    pipeline::threads(match threads {
        Some(t) if !t.is_none() => Some(t.extract::<usize>().unwrap_or(usize::MAX)),
        _ => None,
    })
}

/// Registered with `os.register_at_fork` by `_native`: thread pools and open iterators
/// must know when they are in a child made by fork() (`pipeline::forks`).
#[pyfunction]
pub fn after_fork_in_child() {
    pipeline::forked();
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
