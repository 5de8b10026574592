//! Bulk reading: records (lines of a file, items of a batch) to calls, with batch
//! envelopes unwrapped, and calls to Arrow columns. Plain Rust, no PyO3: the Python
//! layer (`src/python/bulk.rs`) runs this on worker threads with the GIL released.
//! `python/toolsift/_pure/bulk.py` is the specification.

pub mod compact;
pub mod envelope;
pub mod rows;
pub mod source;

use crate::formats::Format;
use crate::json::{self, JsonError};
use crate::record::{record_at, Record};
use std::borrow::Cow;

/// What one (non-blank) record gave.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// The response was found; its calls (maybe none).
    Read {
        record: Record<'a>,
        custom_id: Option<Cow<'a, str>>,
    },
    /// A batch envelope reported a failure, or `record_path` led nowhere.
    Failed {
        custom_id: Option<Cow<'a, str>>,
        error: String,
    },
    /// The record is not JSON. The error's text is `str(ParseError)` from the Python
    /// side (`toolsift._jsontext.error_for`), asked for once the chunk is done.
    NotJson(JsonError),
}

/// Read one record: decode, find the response (see [`envelope::locate`]), walk it.
pub fn read_record<'a>(format: &Format, text: &'a [u8], path: Option<&[String]>) -> Outcome<'a> {
    let tape = match json::parse(text) {
        Ok(tape) => tape,
        Err(err) => return Outcome::NotJson(err),
    };
    let located = envelope::locate(&tape, path);
    match located.response {
        Ok(root) => Outcome::Read {
            record: record_at(format, tape, root),
            custom_id: located.custom_id,
        },
        Err(error) => Outcome::Failed {
            custom_id: located.custom_id,
            error,
        },
    }
}
