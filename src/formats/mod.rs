//! One walker per format. Each reads a response through [`Node`] and collects, for every
//! call, the raw `name`, `id` and `arguments` values as found (None where missing);
//! turning those into a normalized call is the caller's job (`crate::call`).
//! These mirror `python/toolsift/_pure/walk.py` line by line.

use crate::json::Keep;
use crate::node::Node;

pub mod anthropic;
pub mod bedrock;
pub mod cohere;
pub mod litert;
pub mod ollama;
pub mod openai_responses;

/// One call as found: the values of its name, id and arguments, where present.
pub struct RawCall<N> {
    pub name: Option<N>,
    pub id: Option<N>,
    pub arguments: Option<N>,
    /// The arguments are free text, not JSON (a custom tool's `input`): a string is kept
    /// in `raw_arguments` as it is, with `arguments={}`.
    pub verbatim: bool,
}

impl<N> RawCall<N> {
    /// A call whose arguments are JSON (an object, or a string holding one).
    pub fn new(name: Option<N>, id: Option<N>, arguments: Option<N>) -> Self {
        RawCall {
            name,
            id,
            arguments,
            verbatim: false,
        }
    }
}

/// Which walker, with its options.
#[derive(Clone, Debug)]
pub enum Format {
    OpenAI,
    Gemini,
    Json(JsonOptions),
    /// LiteRT-LM / Gemma 4 (`litert`): not a walk over one document; see [`litert`].
    LiteRt,
}

#[derive(Clone, Debug)]
pub struct JsonOptions {
    pub path: Vec<String>,
    pub name_key: String,
    pub arguments_key: String,
    pub single: bool,
}

impl Format {
    /// The walker called `name`, or an error that lists the valid names.
    pub fn new(
        name: &str,
        tool_calls_key: &str,
        name_key: &str,
        arguments_key: &str,
        single: bool,
    ) -> Result<Format, String> {
        match name {
            "openai" => Ok(Format::OpenAI),
            "gemini" => Ok(Format::Gemini),
            "json" => Ok(Format::Json(JsonOptions {
                path: tool_calls_key.split('.').map(str::to_owned).collect(),
                name_key: name_key.to_owned(),
                arguments_key: arguments_key.to_owned(),
                single,
            })),
            "litert" => Ok(Format::LiteRt),
            other => Err(format!(
                "unknown format {other:?}; expected one of: openai, gemini, json, litert"
            )),
        }
    }

    /// The parts of a response the walker reads (for `json::parse_pruned`); None when
    /// it needs the whole document.
    pub fn keep(&self) -> Option<Keep> {
        Some(match self {
            // LiteRT-LM responses are read as text (`litert::parse_record`).
            Format::LiteRt => return None,
            Format::OpenAI => path(
                &["choices"],
                items(path(
                    &["message", "tool_calls"],
                    items(members(&[
                        ("id", Keep::all()),
                        (
                            "function",
                            members(&[("name", Keep::all()), ("arguments", Keep::all())]),
                        ),
                    ])),
                )),
            ),
            Format::Gemini => {
                let call = members(&[
                    ("name", Keep::all()),
                    ("id", Keep::all()),
                    ("args", Keep::all()),
                ]);
                path(
                    &["candidates"],
                    items(path(
                        &["content", "parts"],
                        items(members(&[
                            ("function_call", call.clone()),
                            ("functionCall", call),
                        ])),
                    )),
                )
            }
            Format::Json(options) => {
                let mut call = members(&[
                    (options.name_key.as_str(), Keep::all()),
                    ("id", Keep::all()),
                    (options.arguments_key.as_str(), Keep::all()),
                ]);
                call.items = Some(Box::new(call.clone()));
                let path_keys: Vec<&str> = options.path.iter().map(String::as_str).collect();
                let mut root = path(&path_keys, call);
                // An array document is searched item by item.
                root.items = Some(Box::new(root.clone()));
                root
            }
        })
    }

    pub fn walk<N: Node>(&self, doc: &N) -> Result<Vec<RawCall<N>>, N::Error> {
        let mut calls = Vec::new();
        match self {
            Format::OpenAI => openai(doc, &mut calls)?,
            Format::Gemini => gemini(doc, &mut calls)?,
            Format::Json(options) => calls = json(doc, options)?,
            // Read by `litert::parse_record` (text) and the pure `parse_sdk` (objects).
            Format::LiteRt => {}
        }
        Ok(calls)
    }
}

/// Keep `inner` at the end of a path of object keys.
pub fn path(keys: &[&str], inner: Keep) -> Keep {
    keys.iter()
        .rev()
        .fold(inner, |inner, key| members(&[(key, inner)]))
}

/// Keep these members.
pub fn members(keys: &[(&str, Keep)]) -> Keep {
    Keep {
        members: keys
            .iter()
            .map(|(k, keep)| ((*k).to_owned(), keep.clone()))
            .collect(),
        ..Keep::default()
    }
}

/// Keep the items of an array, each as `inner`.
pub fn items(inner: Keep) -> Keep {
    Keep {
        items: Some(Box::new(inner)),
        ..Keep::default()
    }
}

fn elements_of<N: Node>(node: Option<N>) -> Vec<N> {
    node.map(|n| n.elements()).unwrap_or_default()
}

fn field_of<N: Node>(node: &Option<N>, key: &str) -> Result<Option<N>, N::Error> {
    match node {
        Some(n) => n.field(key),
        None => Ok(None),
    }
}

/// `choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`.
fn openai<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for choice in elements_of(doc.field("choices")?) {
        let message = choice.field("message")?;
        for call in elements_of(field_of(&message, "tool_calls")?) {
            let Some(function) = call.field("function")? else {
                continue;
            };
            out.push(RawCall::new(
                function.field("name")?,
                call.field("id")?,
                function.field("arguments")?,
            ));
        }
    }
    Ok(())
}

/// `candidates[].content.parts[].function_call` (or REST `functionCall`).
fn gemini<N: Node>(doc: &N, out: &mut Vec<RawCall<N>>) -> Result<(), N::Error> {
    for candidate in elements_of(doc.field("candidates")?) {
        let content = candidate.field("content")?;
        for part in elements_of(field_of(&content, "parts")?) {
            let call = match part.field("function_call")? {
                Some(call) => call,
                None => match part.field("functionCall")? {
                    Some(call) => call,
                    None => continue,
                },
            };
            out.push(RawCall::new(
                call.field("name")?,
                call.field("id")?,
                call.field("args")?,
            ));
        }
    }
    Ok(())
}

/// Calls at a dot path of object keys; an array is searched item by item, first hit wins.
fn json<N: Node>(doc: &N, options: &JsonOptions) -> Result<Vec<RawCall<N>>, N::Error> {
    if doc.is_array() {
        for item in doc.elements() {
            let found = json_at(&item, options)?;
            if !found.is_empty() {
                return Ok(found);
            }
        }
        return Ok(Vec::new());
    }
    json_at(doc, options)
}

fn json_at<N: Node>(doc: &N, options: &JsonOptions) -> Result<Vec<RawCall<N>>, N::Error> {
    let mut found_at = None;
    for key in &options.path {
        let here = match &found_at {
            None => doc.member(key)?,
            Some(node) => N::member(node, key)?,
        };
        match here {
            Some(node) => found_at = Some(node),
            // A missing key, or a key whose value is null: nothing here (russo's
            // walk reaches null and then finds no list in it).
            None => return Ok(Vec::new()),
        }
    }
    let Some(found_at) = found_at else {
        return Ok(Vec::new());
    };
    let candidates = if options.single {
        vec![found_at]
    } else {
        found_at.elements()
    };
    let mut calls = Vec::new();
    for call in candidates {
        if !call.is_object() {
            continue;
        }
        let name = call.member(&options.name_key)?;
        if !name.as_ref().is_some_and(N::is_nonempty_str) {
            continue; // entries without a name are skipped, as russo does
        }
        calls.push(RawCall::new(
            name,
            call.member("id")?,
            call.member(&options.arguments_key)?,
        ));
    }
    Ok(calls)
}
