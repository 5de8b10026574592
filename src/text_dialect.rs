//! `text_dialect=`: the tool calls a provider response holds as raw text (a vLLM, SGLang,
//! llama.cpp or Ollama server started without a tool-call parser leaves them in the
//! assistant message's content). Above the formats (each says where its assistant text
//! is: `turns`, through the registry) and the dialects; the twin of
//! `python/toolsift/_pure/assistant_text.py`, whose docstring has the rules.

use crate::calls::Call;
use crate::formats::{RawCall, TextFormat, Walked, AUTO_TEXT};
use crate::node::Node;

/// One call of a response read with a text dialect: one its structure holds (in its
/// message's choice, where the format has choices), or one read from a message's text,
/// with the choice the message is and the name of the dialect that read it (the
/// `call_type` column).
pub enum Found<N> {
    Structured(RawCall<N>),
    Text(Call<'static>, Option<(usize, N)>, &'static str),
}

/// A response's calls, with the content and reasoning of its assistant text.
pub struct TextRead<N> {
    pub calls: Vec<Found<N>>,
    pub content: Option<String>,
    pub reasoning: Option<String>,
}

/// The calls of `doc`'s messages (`walked`'s turns): each message's structured calls, or,
/// where it has none, those its text holds read by `text`; every message's text read
/// for the content and reasoning.
pub fn read<N: Node>(walked: Walked, doc: &N, text: &TextFormat) -> Result<TextRead<N>, N::Error> {
    let mut turns = Vec::new();
    walked.turns(doc, &mut turns)?;
    let mut calls = Vec::new();
    let mut contents = Vec::new();
    let mut reasonings = Vec::new();
    for turn in turns {
        let mut message = String::new();
        for piece in &turn.texts {
            // A str Rust cannot hold (lone surrogates) is left out, as the pure twin does.
            if let Ok(Some(piece)) = piece.text() {
                message.push_str(&piece);
            }
        }
        let read = (!message.is_empty()).then(|| text.record(message.as_bytes()).into_owned());
        let choice = turn.choice;
        let structured = |calls: Vec<RawCall<N>>| {
            calls.into_iter().map(|mut call| {
                call.choice = call.choice.or_else(|| choice.clone());
                Found::Structured(call)
            })
        };
        let Some(read) = read else {
            calls.extend(structured(turn.calls));
            continue;
        };
        contents.extend(read.content);
        reasonings.extend(read.reasoning);
        if turn.calls.is_empty() {
            let dialect = read.format.unwrap_or(AUTO_TEXT);
            let text_calls = read.calls.into_iter();
            calls.extend(text_calls.map(|call| Found::Text(call, choice.clone(), dialect)));
        } else {
            calls.extend(structured(turn.calls));
        }
    }
    Ok(TextRead {
        calls,
        content: joined(contents),
        reasoning: joined(reasonings),
    })
}

/// Several messages' texts, joined by a blank line; None for none.
fn joined(texts: Vec<String>) -> Option<String> {
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}
