//! The one response route: how a response is read, a value on a tape or the caller's own
//! Python objects alike (generic over [`Node`]): a whole stream, a piece of one, a walked
//! format's calls, a conversation transcript, or a shape no format recognizes.

use crate::events::{self, Reader};
use crate::formats::messages::{self, MessagesFormat};
use crate::formats::{Format, RawCall, Walk, Walked};
use crate::node::Node;

/// Where a response goes.
pub enum Route<N> {
    /// A conversation transcript, read with these options (`crate::formats::messages`).
    Transcript(MessagesFormat),
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
/// `detected` which walked format `auto` recognizes it as, `decoded` whether it was
/// decoded from JSON text (a tape: its reads cannot fail). For `auto`, a list of
/// messages is a transcript before it is taken for a list of events, and a record no
/// response format recognizes is one where `messages::detect` says so.
pub fn route<N: Node>(
    format: &Format,
    doc: &N,
    holds_stream: impl FnOnce(&N) -> bool,
    is_text: bool,
    detected: impl FnOnce(&N) -> Option<Walked>,
    decoded: bool,
) -> Result<Route<N>, N::Error> {
    if let Some(options) = transcript(format, doc, None) {
        return Ok(Route::Transcript(options));
    }
    if let Some(reader) = Reader::for_records(format).filter(|_| holds_stream(doc)) {
        return Ok(Route::Stream(reader));
    }
    let walked = format.walked(doc, detected);
    if let Some(options) = transcript(format, doc, Some(walked)) {
        return Ok(Route::Transcript(options));
    }
    if let Some(walked) = walked.filter(|_| decoded) {
        // A piece of a stream told on the walk's way where the format can (the pure
        // `decoded_read`); the caller's own objects are asked first, in the order the
        // pure `read` reads them (a read may raise).
        return Ok(match walked.decoded_walk(doc)? {
            Some(calls) => Route::Calls(walked.name(), calls),
            None => Route::Piece(Reader::Walked(walked)),
        });
    }
    if let Some(reader) = events::piece_reader(format, walked, doc, is_text)? {
        return Ok(Route::Piece(reader));
    }
    Ok(match format.walk(doc, |_| walked)? {
        Walk::Calls(name, calls) => Route::Calls(name, calls),
        Walk::Unrecognized => Route::Unrecognized,
    })
}

/// The options `doc` is read as a transcript with: `messages`'s own (asked before
/// detection: `walked` None); for `auto` (with its `text_dialect`, if any), a list of
/// messages before detection, or after it (`walked`: what the response formats say) a
/// record none of them recognizes that `messages::detect` does.
pub fn transcript<N: Node>(
    format: &Format,
    doc: &N,
    walked: Option<Option<Walked>>,
) -> Option<MessagesFormat> {
    let text = match format {
        Format::Messages(options) => return walked.is_none().then(|| options.clone()),
        Format::Auto => None,
        Format::WithText(inner, text) if matches!(**inner, Format::Auto) => Some(text),
        _ => return None,
    };
    let candidate = match walked {
        None => doc.is_list(),
        Some(None) => !doc.is_array(),
        Some(Some(_)) => false,
    };
    (candidate && messages::detect(doc).unwrap_or(false)).then(|| MessagesFormat {
        text: text.cloned(),
    })
}
