//! The one response route: how a response is read, a value on a tape or the caller's own
//! Python objects alike (generic over [`Node`]): a whole stream, a piece of one, a walked
//! format's calls, or a shape no format recognizes.

use crate::events::{self, Reader};
use crate::formats::{Format, RawCall, Walk, Walked};
use crate::node::Node;

/// Where a response goes.
pub enum Route<N> {
    /// A whole stream (a list of events), read by this reader.
    Stream(Reader),
    /// One event of a stream, read as a stream of one event.
    Piece(Reader),
    /// The calls a walked format found (its name).
    Calls(&'static str, Vec<RawCall<N>>),
    /// No format recognized the response.
    Unrecognized,
}

/// The route of `doc` read as `format`: `holds_stream` says whether it is a list of
/// events (asked only of a format that reads streams), `is_text` whether it is a string,
/// `detected` which walked format `auto` recognizes it as.
pub fn route<N: Node>(
    format: &Format,
    doc: &N,
    holds_stream: impl FnOnce(&N) -> bool,
    is_text: bool,
    detected: impl FnOnce(&N) -> Option<Walked>,
) -> Result<Route<N>, N::Error> {
    if let Some(reader) = Reader::for_records(format).filter(|_| holds_stream(doc)) {
        return Ok(Route::Stream(reader));
    }
    let walked = format.walked(doc, detected);
    if let Some(reader) = events::piece_reader(format, walked, doc, is_text)? {
        return Ok(Route::Piece(reader));
    }
    Ok(match format.walk(doc, |_| walked)? {
        Walk::Calls(name, calls) => Route::Calls(name, calls),
        Walk::Unrecognized => Route::Unrecognized,
    })
}
