//! Conversation transcripts (`messages`, `MessagesParser`): every assistant turn's calls
//! in a list of chat messages, each with its turn and its tool's result. The Rust twin of
//! `python/toolsift/_pure/formats/messages.py`, whose docstring has the rules.

use super::{anthropic, elements_of, field_of, items, members, openai, RawCall, TextFormat};
use crate::calls::Call;
use crate::json::Keep;
use crate::node::Node;
use std::collections::HashMap;

/// The roles of the messages that make calls (Gemini's is `model`).
const ASSISTANT: &[&str] = &["assistant", "model"];

/// The roles auto-detection knows a transcript by.
const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
    "model",
];

/// The options of `messages`: the dialect of the turns of raw text (`text_dialect=`).
#[derive(Clone, Debug, Default)]
pub struct MessagesFormat {
    pub text: Option<TextFormat>,
}

/// A call as found: its values on the document, or (a turn of raw text) made by a dialect.
pub enum Found<N> {
    Raw(RawCall<N>),
    Made(Call<'static>),
}

/// A call of a transcript, the index of its message, and its result where it has one:
/// the result's value (None where it has none) and whether it says the call failed.
pub struct Exchange<N> {
    pub call: Found<N>,
    pub turn: usize,
    pub result: Option<(Option<N>, bool)>,
}

/// A tool result as found.
struct Answer<N> {
    position: usize,
    id: Option<String>,
    value: Option<N>,
    error: bool,
}

/// The messages of a transcript: the document itself when it is a list; else its
/// `messages` list, or Gemini's `contents`; else one assistant message.
fn transcript<N: Node + Clone>(doc: &N) -> Result<Option<Vec<N>>, N::Error> {
    if doc.is_array() {
        return Ok(Some(doc.elements().collect()));
    }
    for key in ["messages", "contents"] {
        if let Some(messages) = doc.member(key)?.filter(|m| m.is_array()) {
            return Ok(Some(messages.elements().collect()));
        }
    }
    Ok(is_assistant(doc)?.then(|| vec![doc.clone()]))
}

fn is_assistant<N: Node + Clone>(message: &N) -> Result<bool, N::Error> {
    let role = message.field("role")?;
    Ok(role.is_some_and(|role| ASSISTANT.iter().any(|name| role.is_str(name))))
}

fn has_role<N: Node + Clone>(message: &N, roles: &[&str]) -> Result<bool, N::Error> {
    let role = message.field("role")?;
    Ok(role.is_some_and(|role| roles.iter().any(|name| role.is_str(name))))
}

/// For auto-detection, after every response format: a list of messages, a record whose
/// `messages` (or `contents`) member is one, or one assistant message (see the pure
/// `detect`).
pub fn detect<N: Node + Clone>(doc: &N) -> Result<bool, N::Error> {
    if doc.is_array() {
        return is_message_list(doc);
    }
    if !doc.is_object() {
        return Ok(false);
    }
    for key in ["messages", "contents"] {
        if let Some(messages) = doc.member(key)? {
            if messages.is_array() {
                return is_message_list(&messages);
            }
        }
    }
    let role = doc.member("role")?;
    if role.as_ref().is_some_and(|r| r.is_str("assistant")) {
        return Ok(doc.member("content")?.is_some() || doc.member("tool_calls")?.is_some());
    }
    Ok(role.is_some_and(|r| r.is_str("model"))
        && doc.member("parts")?.is_some_and(|p| p.is_array()))
}

/// Every item an object with a string `role` or a `parts` list, one role a chat role.
fn is_message_list<N: Node + Clone>(list: &N) -> Result<bool, N::Error> {
    let mut known = false;
    for item in list.elements() {
        if !item.is_object() {
            return Ok(false);
        }
        match item
            .member("role")?
            .filter(|role| role.is_nonempty_str() || role.is_str(""))
        {
            Some(role) => known = known || ROLES.iter().any(|name| role.is_str(name)),
            None => {
                if !item.member("parts")?.is_some_and(|p| p.is_array()) {
                    return Ok(false);
                }
            }
        }
    }
    Ok(known)
}

/// The parts of a transcript [`walk`] and [`detect`] read.
pub fn keep() -> Keep {
    let mut message = openai::message_keep();
    for key in [
        "role",
        "content",
        "tool_call_id",
        "parts",
        "type",
        "name",
        "id",
        "input",
    ] {
        message.merge(&members(&[(key, Keep::all())]));
    }
    let list = items(message.clone());
    let mut keep = list.clone();
    keep.merge(&members(&[("messages", list.clone()), ("contents", list)]));
    keep.merge(&message);
    // The record's `model` (a rollout's, a request log's): the `model` column.
    keep.merge(&members(&[("model", Keep::all())]));
    keep
}

/// The calls of the transcript in `doc`, each with its turn and paired result (the pure
/// `read`); `text` reads the turns of raw text.
pub fn walk<N: Node + Clone>(
    doc: &N,
    options: &MessagesFormat,
) -> Result<Vec<Exchange<N>>, N::Error> {
    let Some(messages) = transcript(doc)? else {
        return Ok(Vec::new());
    };
    let mut calls: Vec<(Found<N>, usize)> = Vec::new();
    let mut answers: Vec<Answer<N>> = Vec::new();
    let mut assistants = Vec::new();
    for (position, message) in messages.iter().enumerate() {
        if is_assistant(message)? {
            assistants.push(position);
            let mut found = Vec::new();
            structured_calls(message, &mut found)?;
            let before = calls.len();
            calls.extend(found.into_iter().map(|call| (Found::Raw(call), position)));
            if calls.len() == before {
                if let Some(text) = &options.text {
                    if let Some(content) = text_of(message.field("content")?)? {
                        let record = text.record(content.as_bytes());
                        calls.extend(
                            record
                                .calls
                                .into_iter()
                                .map(|call| (Found::Made(call.into_owned()), position)),
                        );
                    }
                }
            }
        }
        results_of(message, position, &mut answers)?;
    }
    let mut ids = Vec::with_capacity(calls.len());
    for (call, _) in &calls {
        ids.push(match call {
            Found::Raw(raw) => match &raw.id {
                Some(id) => id.text()?,
                None => None,
            },
            Found::Made(made) => made.id.as_deref().map(str::to_owned),
        });
    }
    let turns: Vec<usize> = calls.iter().map(|(_, turn)| *turn).collect();
    let paired = pair(&ids, &turns, &answers, &assistants);
    let mut answers: Vec<Option<Answer<N>>> = answers.into_iter().map(Some).collect();
    Ok(calls
        .into_iter()
        .zip(paired)
        .map(|((call, turn), at)| Exchange {
            call,
            turn,
            result: at
                .and_then(|at| answers[at].take())
                .map(|answer| (answer.value, answer.error)),
        })
        .collect())
}

/// An assistant message's calls: OpenAI `tool_calls` (and `function_call`), Anthropic
/// `tool_use` blocks, Gemini `functionCall` parts.
fn structured_calls<N: Node + Clone>(
    message: &N,
    out: &mut Vec<RawCall<N>>,
) -> Result<(), N::Error> {
    openai::message_calls(&Some(message.clone()), out)?;
    anthropic::walk(message, out)?;
    for part in elements_of(message.field("parts")?) {
        if let Some(call) = either(&part, "functionCall", "function_call")? {
            out.push(RawCall::new(
                call.field("name")?,
                call.field("id")?,
                call.field("args")?,
            ));
        }
    }
    Ok(())
}

/// The tool results a message holds.
fn results_of<N: Node + Clone>(
    message: &N,
    position: usize,
    out: &mut Vec<Answer<N>>,
) -> Result<(), N::Error> {
    if has_role(message, &["tool", "function"])? {
        out.push(Answer {
            position,
            id: text_of(message.field("tool_call_id")?)?,
            value: message.field("content")?,
            error: false,
        });
        return Ok(());
    }
    for block in elements_of(message.field("content")?) {
        if block
            .field("type")?
            .is_some_and(|t| t.is_str("tool_result"))
        {
            let error = match block.field("is_error")? {
                Some(flag) => flag.is_bool() && flag.to_json()? == "true",
                None => false,
            };
            out.push(Answer {
                position,
                id: text_of(block.field("tool_use_id")?)?,
                value: block.field("content")?,
                error,
            });
        }
    }
    for part in elements_of(message.field("parts")?) {
        if let Some(response) = either(&part, "functionResponse", "function_response")? {
            let value = response.field("response")?;
            let error = field_of(&value, "error")?.is_some();
            out.push(Answer {
                position,
                id: text_of(response.field("id")?)?,
                value,
                error,
            });
        }
    }
    Ok(())
}

/// The result (its index) each call takes: by id, else by order (the pure `pair`).
/// `turns` and `assistants` are ascending.
fn pair<N>(
    ids: &[Option<String>],
    turns: &[usize],
    answers: &[Answer<N>],
    assistants: &[usize],
) -> Vec<Option<usize>> {
    let mut paired = vec![None; ids.len()];
    let mut taken = vec![false; answers.len()];
    let mut by_id: HashMap<&str, (Vec<usize>, usize)> = HashMap::new();
    for (at, answer) in answers.iter().enumerate() {
        if let Some(id) = &answer.id {
            by_id.entry(id).or_default().0.push(at);
        }
    }
    for (call, id) in ids.iter().enumerate() {
        let Some((queue, cursor)) = id.as_deref().and_then(|id| by_id.get_mut(id)) else {
            continue;
        };
        while *cursor < queue.len() && answers[queue[*cursor]].position <= turns[call] {
            *cursor += 1;
        }
        if *cursor < queue.len() {
            paired[call] = Some(queue[*cursor]);
            taken[queue[*cursor]] = true;
            *cursor += 1;
        }
    }
    let known: std::collections::HashSet<&str> = ids.iter().flatten().map(String::as_str).collect();
    let loose: Vec<usize> = (0..answers.len())
        .filter(|&at| {
            !taken[at]
                && answers[at]
                    .id
                    .as_deref()
                    .is_none_or(|id| !known.contains(id))
        })
        .collect();
    let mut cursor = 0;
    let mut next = 0;
    for (call, &turn) in turns.iter().enumerate() {
        while next < assistants.len() && assistants[next] <= turn {
            next += 1;
        }
        let end = assistants.get(next).copied().unwrap_or(usize::MAX);
        if paired[call].is_some() {
            continue;
        }
        while cursor < loose.len() && answers[loose[cursor]].position <= turn {
            cursor += 1;
        }
        if cursor < loose.len() && answers[loose[cursor]].position < end {
            paired[call] = Some(loose[cursor]);
            cursor += 1;
        }
    }
    paired
}

fn either<N: Node + Clone>(obj: &N, camel: &str, snake: &str) -> Result<Option<N>, N::Error> {
    match obj.field(camel)? {
        Some(value) => Ok(Some(value)),
        None => obj.field(snake),
    }
}

fn text_of<N: Node + Clone>(value: Option<N>) -> Result<Option<String>, N::Error> {
    match value {
        Some(value) => value.text(),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(position: usize, id: Option<&str>) -> Answer<()> {
        Answer {
            position,
            id: id.map(str::to_owned),
            value: None,
            error: false,
        }
    }

    /// By id (an id reused in a later turn pairs there), else by order within the turn.
    #[test]
    fn pairing() {
        let ids = [Some("a".to_owned()), None, Some("a".to_owned()), None];
        let turns = [1, 1, 4, 6];
        let answers = [
            answer(2, None),
            answer(3, Some("a")),
            answer(5, Some("a")),
            answer(7, Some("zz")),
        ];
        let paired = pair(&ids, &turns, &answers, &[1, 4, 6]);
        assert_eq!(paired, vec![Some(1), Some(0), Some(2), Some(3)]);
        // A result after the next assistant turn is not taken by order.
        let paired = pair(&[None, None], &[1, 3], &[answer(4, None)], &[1, 3]);
        assert_eq!(paired, vec![None, Some(0)]);
    }
}
