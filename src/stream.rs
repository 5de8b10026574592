//! Streams of tool-call events assembled into calls: the twin of
//! `python/toolsift/_pure/stream.py` (its docstring states the rules).
//!
//! Written once for every format: the [`Sse`] splitter, [`partial_json`], the
//! [`Accumulator`] of fragments (names and ids set once, arguments appended to one
//! buffer, so feeding costs linear time) and [`Stream`]. How a format's events map onto
//! the accumulator is its module's `stream_event`, reached through the registry.

use crate::calls::{decode_object, Arguments, Call, Record};
use crate::formats::{Format, JsonOptions, Walked};
use crate::json::{self, JsonError, Tape, Token};
pub use crate::node::Index;
use crate::node::{Node, TapeNode};
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use std::borrow::Cow;
use std::sync::OnceLock;

/// The maps of a stream's calls, keyed by indices the stream's events give: FxHash
/// (SipHash's resistance to chosen keys is not needed for the few keys of one stream,
/// and costs more than the rest of reading a small event).
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Where a call sits in the provider's order: (choice or block group, index).
pub type Key = (Index, Index);

/// A key of small indices.
pub fn key(major: i64, minor: i64) -> Key {
    (Index::Int(major), Index::Int(minor))
}

/// A whole arguments value: a string as it is, any other value as its JSON text.
#[derive(Clone, Debug)]
pub enum Whole {
    Text(String),
    Json(String),
}

/// One call being assembled.
#[derive(Debug)]
pub struct Slot {
    pub key: Key,
    /// The provider's item id, where calls are found by it too.
    pub item: Option<String>,
    pub name: Option<String>,
    pub id: Option<String>,
    pub text: String,
    pub whole: Option<Whole>,
    pub verbatim: bool,
    pub done: bool,
    /// Arguments streamed as values at JSON paths (Gemini 3 `partial_args`), in order.
    pub paths: Vec<PathValue>,
    /// What `partial()` read of the argument text so far (fragments only extend it).
    partial: PartialJson,
    /// The arguments of a completed call as decoded (with `verbatim` as it was then), so
    /// that `finish()` does not decode again what `feed()` gave; cleared by any change
    /// to them.
    cache: OnceLock<(bool, Arguments<'static>)>,
}

/// A value at a JSON path, and whether (a string) it goes on in the next one.
#[derive(Clone, Debug)]
pub struct PathValue {
    pub path: String,
    pub value: Tree,
    pub continuing: bool,
}

/// A JSON value built from values at paths.
#[derive(Clone, Debug)]
pub enum Tree {
    /// `null`, or nothing there yet (a container is made in its place where needed).
    Null,
    Str(String),
    /// A number or a boolean, as JSON text.
    Json(String),
    Obj(Vec<(String, Tree)>),
    Arr(Vec<Tree>),
}

impl Slot {
    fn new(key: Key, item: Option<String>) -> Self {
        Slot {
            key,
            item,
            name: None,
            id: None,
            text: String::new(),
            whole: None,
            verbatim: false,
            done: false,
            paths: Vec::new(),
            partial: PartialJson::default(),
            cache: OnceLock::new(),
        }
    }

    /// A value at a JSON path; a string continues the one before at the same path where
    /// that one said it would go on.
    pub fn add_path_value(&mut self, path: String, value: Tree, continuing: bool) {
        self.cache = OnceLock::new();
        if let (Some(last), Tree::Str(more)) = (self.paths.last_mut(), &value) {
            if last.path == path && last.continuing {
                if let Tree::Str(text) = &mut last.value {
                    text.push_str(more);
                    last.continuing = continuing;
                    return;
                }
            }
        }
        self.paths.push(PathValue {
            path,
            value,
            continuing,
        });
    }

    /// Set once: the first non-empty string.
    pub fn set_name<N: Node>(&mut self, name: Option<N>) -> Result<(), N::Error> {
        if self.name.is_none() {
            self.name = text_of(name)?.filter(|n| !n.is_empty());
        }
        Ok(())
    }

    /// An argument fragment (a string; anything else is ignored).
    pub fn append<N: Node>(&mut self, fragment: Option<N>) -> Result<(), N::Error> {
        if let Some(text) = text_of(fragment)? {
            self.cache = OnceLock::new();
            if self.text.is_empty() {
                // `partial()` may have read the whole value's text till now.
                self.partial = PartialJson::default();
            }
            self.text.push_str(&text);
        }
        Ok(())
    }

    /// The whole argument text (a `.done` event's): it replaces the fragments.
    pub fn set_text<N: Node>(&mut self, text: Option<N>) -> Result<(), N::Error> {
        if let Some(text) = text_of(text)? {
            self.cache = OnceLock::new();
            self.partial = PartialJson::default();
            self.text = text;
        }
        Ok(())
    }

    /// The whole arguments value (an object, or the whole text); fragments, where any
    /// came, stay ahead of it.
    pub fn set_whole<N: Node>(&mut self, value: Option<N>) -> Result<(), N::Error> {
        if let Some(value) = value {
            self.cache = OnceLock::new();
            self.partial = PartialJson::default();
            self.whole = Some(match value.text()? {
                Some(text) => Whole::Text(text),
                None => Whole::Json(value.to_json()?),
            });
        }
        Ok(())
    }

    /// The call as assembled, owning its strings (for a record's calls).
    pub fn owned_call(&self) -> Call<'static> {
        let (text, is_text) = self.arguments_text();
        let text = text.map(|text| Cow::Owned(text.into_owned()));
        Call {
            name: self.name.clone().map(Cow::Owned),
            id: self.id.clone().map(Cow::Owned),
            arguments: self.decoded(text, is_text),
        }
    }

    /// The arguments (`text`, or the JSON text of a whole value) decoded as `parse`
    /// decodes them.
    fn decoded<'a>(&self, text: Option<Cow<'a, str>>, is_text: bool) -> Arguments<'a> {
        match text {
            None => Arguments::Missing,
            Some(text) if self.verbatim && is_text => Arguments::Undecodable(text),
            Some(text) if text.is_empty() => Arguments::Missing, // a tool with no arguments
            Some(text) if is_text => decode_object(text),
            Some(json) => whole_value(json),
        }
    }

    /// The arguments as found: the fragments, else the whole value; and whether it is
    /// text (rather than the JSON text of some other value).
    fn arguments_text(&self) -> (Option<Cow<'_, str>>, bool) {
        if !self.text.is_empty() {
            return (Some(Cow::Borrowed(&self.text)), true);
        }
        if !self.paths.is_empty() {
            return (Some(Cow::Owned(object_at_paths(&self.paths))), false);
        }
        match &self.whole {
            Some(Whole::Text(text)) => (Some(Cow::Borrowed(text)), true),
            Some(Whole::Json(json)) => (Some(Cow::Borrowed(json)), false),
            None => (None, false),
        }
    }

    /// The call as assembled so far (arguments decoded as `parse` decodes them).
    pub fn call(&self) -> StreamCall<'_> {
        let decode = || {
            let (text, is_text) = self.arguments_text();
            self.decoded(text, is_text)
        };
        let arguments = if self.done {
            let (verbatim, cached) = self.cache.get_or_init(|| {
                let (text, is_text) = self.arguments_text();
                let text = text.map(|text| Cow::Owned(text.into_owned()));
                (self.verbatim, self.decoded(text, is_text))
            });
            if *verbatim == self.verbatim {
                cached.clone()
            } else {
                decode()
            }
        } else {
            decode()
        };
        StreamCall {
            name: self.name.as_deref(),
            id: self.id.as_deref(),
            arguments,
            raw: None,
        }
    }

    /// The argument text still arriving (see [`arriving_text`]).
    fn arriving_text(&self) -> Option<&str> {
        arriving_text(
            self.done || self.verbatim,
            &self.text,
            &self.paths,
            &self.whole,
        )
    }

    /// Read the argument text still arriving as far as it came (what
    /// [`Slot::partial_call`] reads then, from what earlier reads learned).
    pub fn read_partial(&mut self) {
        let closed = self.done || self.verbatim;
        if let Some(text) = arriving_text(closed, &self.text, &self.paths, &self.whole) {
            self.partial.read(text);
        }
    }

    /// [`Slot::call`], with arguments still arriving decoded as far as they are complete.
    pub fn partial_call(&self) -> StreamCall<'_> {
        let Some(text) = self.arriving_text() else {
            return self.call();
        };
        // What `read_partial` read; read here where it did not read this text.
        let fresh;
        let scan = if self.partial.read == text.len() {
            &self.partial
        } else {
            let mut scan = PartialJson::default();
            scan.read(text);
            fresh = scan;
            &fresh
        };
        if !scan.waiting {
            // The text may be whole (where it is waiting, it ends inside its value).
            let call = self.call();
            if !matches!(call.arguments, Arguments::Undecodable(_)) {
                return call;
            }
        }
        let closed = match scan.closed.as_str() {
            "" => "{}".to_owned(),
            closed => closed.to_owned(),
        };
        let arguments = match decode_object(Cow::Owned(closed)) {
            decoded @ Arguments::Decoded(_) => decoded,
            _ => Arguments::Missing,
        };
        StreamCall {
            name: self.name.as_deref(),
            id: self.id.as_deref(),
            arguments,
            raw: Some(text),
        }
    }
}

/// The argument text still arriving, which [`Slot::partial_call`] decodes as far as it
/// is complete: the text (the fragments, else a whole string) of a call not completed
/// and not verbatim (`closed` otherwise), where it is not empty.
fn arriving_text<'a>(
    closed: bool,
    text: &'a str,
    paths: &[PathValue],
    whole: &'a Option<Whole>,
) -> Option<&'a str> {
    let text = match whole {
        _ if closed => return None,
        _ if !text.is_empty() => text,
        Some(Whole::Text(text)) if paths.is_empty() => text,
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// The arguments given whole as a value other than a string (its JSON text): an object
/// is the arguments; any other value is kept as `parse` keeps it (its JSON text, written
/// from the value as Python writes it: `1e400` as `Infinity`).
fn whole_value(json: Cow<'_, str>) -> Arguments<'_> {
    let parsed = match json {
        Cow::Borrowed(text) => json::parse_str(text).map_err(|_| Cow::Borrowed(text)),
        Cow::Owned(text) => json::parse_string(text).map_err(|(_, text)| Cow::Owned(text)),
    };
    match parsed {
        // Kept as its JSON text as Python writes the value (`1e400` as `Infinity`).
        Ok(tape) if json::holds_too_long_int(&tape) => {
            Arguments::Undecodable(Cow::Owned(crate::bulk::compact::to_string(&tape, 0)))
        }
        Ok(tape) if matches!(tape.tokens[0], Token::Object { .. }) => Arguments::Decoded(tape),
        Ok(tape) => Arguments::Value(tape),
        Err(text) => Arguments::Undecodable(text),
    }
}

/// A call of a stream: as [`crate::calls::Call`], and, for a call in progress, its
/// argument text (kept in `raw_arguments`) beside the arguments decoded so far.
pub struct StreamCall<'a> {
    pub name: Option<&'a str>,
    pub id: Option<&'a str>,
    pub arguments: Arguments<'a>,
    pub raw: Option<&'a str>,
}

/// The calls of one stream, keyed the provider's way.
#[derive(Default, Debug)]
pub struct Accumulator {
    pub slots: Vec<Slot>,
    by_key: HashMap<Key, usize>,
    /// Lookups that would otherwise scan every call (a stream may hold thousands): the
    /// first call to arrive with each (group, id) and each item id, and the largest
    /// minor key of each group.
    by_id: HashMap<(Index, String), usize>,
    by_item: HashMap<String, usize>,
    last_minor: HashMap<Index, Index>,
    /// The calls completed by the event being read, in order.
    pub done_now: Vec<usize>,
    pub serial: i64,
    /// For formats to find calls by their own rules: a key to the call it now means,
    /// and the latest call of each group.
    pub routes: HashMap<Key, usize>,
    pub latest: HashMap<Index, usize>,
    /// Messages started so far (Anthropic `message_start`, Bedrock `messageStart`): the
    /// group of the blocks now arriving, as each message's block indices start at 0.
    pub message: i64,
    /// A piece of a call whose start was not fed (Gemini 3 `partial_args` without a
    /// name, no call going on): it gives no call; where no call came, [`FRAGMENT`].
    pub fragment: bool,
    /// The first error event of the provider's (see [`Accumulator::provider_error`]).
    pub error: Option<String>,
}

impl Accumulator {
    /// An error event of the provider's: the stream failed there. Where no call came,
    /// the response's `error` is `stream error: ` and the error's text
    /// ([`error_text`]; `code` where the event names the error by its key, as Bedrock
    /// does); the first one is kept.
    pub fn provider_error<N: Node>(
        &mut self,
        error: Option<&N>,
        code: Option<&str>,
    ) -> Result<(), N::Error> {
        if self.error.is_none() {
            let text = match error {
                Some(error) => error_text(error, code)?,
                None => None,
            };
            self.error = Some(format!(
                "{STREAM_ERROR}: {}",
                text.as_deref().unwrap_or("(no message)")
            ));
        }
        Ok(())
    }

    /// The call at `key` (made if new).
    pub fn slot(&mut self, key: Key, item: Option<String>) -> usize {
        match self.by_key.get(&key) {
            Some(&found) => {
                let slot = &mut self.slots[found];
                if slot.item.is_none() && item.is_some() {
                    slot.item = item;
                    self.index_item(found);
                }
                found
            }
            None => {
                let at = self.slots.len();
                self.by_key.insert(key.clone(), at);
                match self.last_minor.get_mut(&key.0) {
                    Some(last) if *last >= key.1 => {}
                    Some(last) => *last = key.1.clone(),
                    None => {
                        self.last_minor.insert(key.0.clone(), key.1.clone());
                    }
                }
                self.slots.push(Slot::new(key, item));
                self.index_item(at);
                at
            }
        }
    }

    fn index_item(&mut self, at: usize) {
        if let Some(item) = &self.slots[at].item {
            keep_first(&mut self.by_item, item.clone(), at);
        }
    }

    /// Set once: the first non-empty string (the call is then found by it).
    pub fn set_id<N: Node>(&mut self, at: usize, id: Option<N>) -> Result<(), N::Error> {
        if self.slots[at].id.is_none() {
            self.set_id_text(at, text_of(id)?);
        }
        Ok(())
    }

    /// [`Accumulator::set_id`] of an id read already.
    pub fn set_id_text(&mut self, at: usize, id: Option<String>) {
        let slot = &mut self.slots[at];
        if let (None, Some(id)) = (&slot.id, id.filter(|id| !id.is_empty())) {
            keep_first(&mut self.by_id, (slot.key.0.clone(), id.clone()), at);
            slot.id = Some(id);
        }
    }

    pub fn existing(&self, key: &Key) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    /// The call of group `major` with this id, if one was started.
    pub fn by_id(&self, major: &Index, id: &str) -> Option<usize> {
        // (A key of borrowed parts would spare the copies; ids are short.)
        self.by_id.get(&(major.clone(), id.to_owned())).copied()
    }

    /// The call with this provider item id, if one was started.
    pub fn by_item(&self, item: &str) -> Option<usize> {
        self.by_item.get(item).copied()
    }

    /// The call a start event begins at `index` of `group` (without an index: after the
    /// group's others); it is now the group's latest.
    pub fn start(&mut self, group: Index, index: Option<Index>, item: Option<String>) -> usize {
        let key = index.map_or_else(|| self.new_key(&group), |i| (group.clone(), i));
        let at = self.slot(key, item);
        self.latest.insert(group, at);
        at
    }

    /// The call started at `index` of `group` (without an index: the group's latest), if
    /// one was.
    pub fn started(&self, group: Index, index: Option<Index>) -> Option<usize> {
        match index {
            None => self.latest.get(&group).copied(),
            Some(index) => self.existing(&(group, index)),
        }
    }

    /// A key after every other one of `major` (a call with no index of its own).
    pub fn new_key(&self, major: &Index) -> Key {
        let last = self.last_minor.get(major);
        (major.clone(), last.map_or(Index::Int(0), Index::next))
    }

    /// A call that arrived whole (Gemini, Ollama): started and completed at once.
    pub fn whole_call<N: Node>(
        &mut self,
        name: Option<N>,
        id: Option<N>,
        arguments: Option<N>,
        verbatim: bool,
    ) -> Result<(), N::Error> {
        let at = self.slot(key(-1, self.serial), None);
        self.serial += 1;
        self.slots[at].set_name(name)?;
        self.set_id(at, id)?;
        let slot = &mut self.slots[at];
        slot.set_whole(arguments)?;
        slot.verbatim = verbatim;
        self.complete(at);
        Ok(())
    }

    pub fn complete(&mut self, at: usize) {
        if !self.slots[at].done {
            self.slots[at].done = true;
            self.done_now.push(at);
        }
    }

    /// Every call (of group `major`, where given) not completed yet, in key order.
    pub fn complete_all(&mut self, major: Option<&Index>) {
        for at in self.ordered() {
            if major.is_none_or(|major| self.slots[at].key.0 == *major) {
                self.complete(at);
            }
        }
    }

    /// The calls in the provider's order: by key (stable: then by arrival).
    pub fn ordered(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.slots.len()).collect();
        order.sort_by(|&a, &b| self.slots[a].key.cmp(&self.slots[b].key));
        order
    }
}

/// `index[key] = at`, unless a call that arrived before it is there.
fn keep_first<K: std::hash::Hash + Eq>(index: &mut HashMap<K, usize>, key: K, at: usize) {
    let there = index.entry(key).or_insert(at);
    *there = (*there).min(at);
}

/// A JSON path of more steps is ignored (it sets nothing).
pub const MAX_PATH_STEPS: usize = 64;
/// A JSON path with a larger array index is ignored (it sets nothing).
pub const MAX_PATH_INDEX: usize = 10_000;

/// One step of a JSON path.
#[derive(Debug, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// `$.a.b[0]['c d']` as its steps; None for what is not such a path (see `path_steps`
/// in the Python twin).
pub fn path_steps(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    let mut rest = rest;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if rest.starts_with("['") || rest.starts_with("[\"") {
            let quote = &rest[1..2];
            let close = format!("{quote}]");
            let end = rest[2..].find(&close)? + 2;
            steps.push(Step::Key(rest[2..end].to_owned()));
            rest = &rest[end + 2..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let digits = &after[..end];
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let index = digits
                .parse::<usize>()
                .ok()
                .filter(|&i| i <= MAX_PATH_INDEX)?;
            steps.push(Step::Index(index));
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    (!steps.is_empty() && steps.len() <= MAX_PATH_STEPS).then_some(steps)
}

/// The JSON text of the object the values at their paths make, in order (see
/// `object_at_paths` in the Python twin).
pub fn object_at_paths(paths: &[PathValue]) -> String {
    let mut root = Tree::Obj(Vec::new());
    for value in paths {
        match path_steps(&value.path) {
            Some(steps) if matches!(steps[0], Step::Key(_)) => {
                set_path(&mut root, &steps, &value.value);
            }
            _ => {}
        }
    }
    let mut out = String::new();
    render(&root, &mut out);
    out
}

fn set_path(node: &mut Tree, steps: &[Step], value: &Tree) {
    let Some((step, rest)) = steps.split_first() else {
        return;
    };
    let Some(following) = rest.first() else {
        if let Some(slot) = child_slot(node, step) {
            *slot = value.clone();
        }
        return;
    };
    let Some(slot) = child_slot(node, step) else {
        return;
    };
    let wants_object = matches!(following, Step::Key(_));
    if matches!(slot, Tree::Null) {
        *slot = if wants_object {
            Tree::Obj(Vec::new())
        } else {
            Tree::Arr(Vec::new())
        };
    }
    if matches!(
        (wants_object, &*slot),
        (true, Tree::Obj(_)) | (false, Tree::Arr(_))
    ) {
        set_path(slot, rest, value);
    }
}

/// The place of `step` in `node` (made, null, where missing); None where `node` is not
/// the container the step needs.
fn child_slot<'t>(node: &'t mut Tree, step: &Step) -> Option<&'t mut Tree> {
    match (step, node) {
        (Step::Key(key), Tree::Obj(members)) => {
            let at = match members.iter().position(|(k, _)| k == key) {
                Some(at) => at,
                None => {
                    members.push((key.clone(), Tree::Null));
                    members.len() - 1
                }
            };
            Some(&mut members[at].1)
        }
        (Step::Index(index), Tree::Arr(items)) => {
            if items.len() <= *index {
                items.resize(index + 1, Tree::Null);
            }
            Some(&mut items[*index])
        }
        _ => None,
    }
}

fn render(tree: &Tree, out: &mut String) {
    match tree {
        Tree::Null => out.push_str("null"),
        Tree::Str(text) => out.push_str(&serde_json::to_string(text).unwrap_or_default()),
        Tree::Json(json) => out.push_str(json),
        Tree::Obj(members) => {
            out.push('{');
            for (n, (key, value)) in members.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push(':');
                render(value, out);
            }
            out.push('}');
        }
        Tree::Arr(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                render(item, out);
            }
            out.push(']');
        }
    }
}

/// An event's `type`, where it is a string.
pub fn event_type<N: Node>(event: &N) -> Result<Option<String>, N::Error> {
    kind_at(event, "type")
}

/// The kind named at `key` of an event (`type`, `event_type`): see [`Node::kind`].
pub fn kind_at<N: Node>(event: &N, key: &str) -> Result<Option<String>, N::Error> {
    match event.field(key)? {
        Some(value) => value.kind(),
        None => Ok(None),
    }
}

/// A string's text, where the value is a string.
pub fn text_of<N: Node>(value: Option<N>) -> Result<Option<String>, N::Error> {
    match value {
        Some(value) => value.text(),
        None => Ok(None),
    }
}

/// Whether an event's `type` is one of `types` (a provider's stream event names).
pub fn typed_event<N: Node>(event: &N, types: &[&str]) -> Result<bool, N::Error> {
    Ok(event_type(event)?.is_some_and(|kind| types.contains(&kind.as_str())))
}

/// The `type` of an error event (Anthropic's, the Responses API's), for [`typed_event`].
pub const ERROR_TYPE: &[&str] = &["error"];

/// An index: an integer (not a bool).
pub fn index_of<N: Node>(value: Option<N>) -> Result<Option<Index>, N::Error> {
    match value {
        Some(value) => value.index(),
        None => Ok(None),
    }
}

/// Server-sent-event text, fed in chunks cut anywhere: the `data` of each complete
/// event; lines end at CRLF, LF or CR (see `Sse` in the Python twin).
#[derive(Default, Debug)]
pub struct Sse {
    /// The start of a line whose end has not come yet.
    pending: Vec<u8>,
    /// The last chunk ended with a CR: an LF next ends no line.
    after_cr: bool,
    /// The event's `data:` lines so far, joined with `\n`; `has_data` where there is one.
    data: Vec<u8>,
    has_data: bool,
}

impl Sse {
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        let mut chunk = chunk;
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
            self.after_cr = false;
        }
        if let Some(&last) = chunk.last() {
            self.after_cr = last == b'\r';
        }
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(n) = memchr::memchr2(b'\n', b'\r', &chunk[start..]) {
            let end = start + n;
            let piece = &chunk[start..end];
            if self.pending.is_empty() {
                self.line(piece, &mut events);
            } else {
                // A line begun in an earlier chunk.
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(piece);
                self.line(&line, &mut events);
                line.clear();
                self.pending = line;
            }
            start = end + 1;
            if chunk[end] == b'\r' && chunk.get(start) == Some(&b'\n') {
                start += 1; // CRLF: one line end
            }
        }
        self.pending.extend_from_slice(&chunk[start..]);
        events
    }

    /// The last event, where the text ended without its empty line.
    pub fn end(&mut self) -> Vec<Vec<u8>> {
        let mut events = Vec::new();
        let pending = std::mem::take(&mut self.pending);
        if !pending.is_empty() {
            self.line(&pending, &mut events);
        }
        self.line(b"", &mut events);
        events
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<Vec<u8>>) {
        if line.is_empty() {
            if self.has_data {
                self.has_data = false;
                let data = std::mem::take(&mut self.data);
                if data.trim_ascii() != b"[DONE]" {
                    events.push(data);
                }
            }
            return;
        }
        if let Some(value) = line.strip_prefix(b"data:") {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data
                .extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
            self.has_data = true;
        }
        // `event:`, `id:`, `retry:` and `:` comments: the event's type is in its data.
    }
}

/// The bytes that may begin a JSON value.
const VALUE_FIRST: &[u8] = b"{[\"-0123456789tfn";

/// A UTF-8 byte order mark: not JSON (`parse` says so by name).
const BOM: &[u8] = b"\xef\xbb\xbf";

/// JSON text that is not SSE, fed in chunks cut anywhere (an Ollama NDJSON body, a
/// Gemini REST stream's JSON array): the text of each value once it is complete, and of
/// each object directly in an array as it completes, the array itself then only where
/// it is not JSON (see `JsonValues` in the Python twin for the rules).
#[derive(Default, Debug)]
pub struct JsonValues {
    text: Vec<u8>,
    /// Where the open value begins (or, with none open, the next one).
    start: usize,
    /// How far the open value was read.
    scanned: usize,
    /// The open value's brackets not yet closed.
    depth: usize,
    in_string: bool,
    /// A value has begun (its first byte, at `start`, tells its kind).
    open: bool,
    /// Where the open array's open object begins (an array's objects are given as they
    /// come).
    item: Option<usize>,
}

impl JsonValues {
    /// No value begun, and no text kept.
    pub fn idle(&self) -> bool {
        !self.open && self.start == self.text.len()
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        // Drop what was given already: once a chunk, not once a value.
        if self.start > 0 {
            self.text.drain(..self.start);
            self.scanned -= self.start;
            if let Some(item) = &mut self.item {
                *item -= self.start;
            }
            self.start = 0;
        }
        self.text.extend_from_slice(chunk);
    }

    /// The next complete value's text, or None where none is complete yet.
    pub fn next_value(&mut self) -> Option<Vec<u8>> {
        while let Some((value, objects_given)) = self.scan() {
            if !objects_given || json::parse(&value).is_err() {
                return Some(value);
            }
        }
        None
    }

    /// The value left open where the text ended (a number, or a value cut off; not an
    /// array, whose objects were given).
    pub fn end(&mut self) -> Option<Vec<u8>> {
        if !self.open {
            // Where text is kept, a byte order mark cut short.
            let rest = self.text[self.start..].to_vec();
            self.start = self.text.len();
            self.scanned = self.start;
            return (!rest.is_empty()).then_some(rest);
        }
        let (value, objects_given) = self.take(self.text.len());
        (!objects_given).then_some(value)
    }

    /// The next complete value or object in an array ([`Self::next_value`]), and
    /// whether it is an array whose objects were given.
    fn scan(&mut self) -> Option<(Vec<u8>, bool)> {
        let len = self.text.len();
        if !self.open {
            let Some(first) = self.text[self.start..].iter().position(|&b| !is_ws(b)) else {
                self.start = len;
                self.scanned = len;
                return None;
            };
            self.start += first;
            let byte = self.text[self.start];
            if !VALUE_FIRST.contains(&byte) {
                // Not JSON, whatever follows: given now, alone; a byte order mark whole
                // (so that reading it says what it is, as `parse` does).
                let mark = &self.text[self.start..len.min(self.start + BOM.len())];
                if mark != BOM && BOM.starts_with(mark) {
                    self.scanned = self.start;
                    return None; // the rest of it may come
                }
                let size = if mark == BOM { BOM.len() } else { 1 };
                return Some(self.take(self.start + size));
            }
            self.open = true;
            self.scanned = self.start + 1;
            self.in_string = byte == b'"';
            self.depth = usize::from(matches!(byte, b'{' | b'['));
        }
        let first = self.text[self.start];
        // A number or a literal: neither a container nor a string.
        let scalar = !matches!(first, b'{' | b'[' | b'"');
        let array = first == b'[';
        let mut at = self.scanned;
        loop {
            if self.in_string {
                let Some(n) = memchr::memchr2(b'"', b'\\', &self.text[at..]) else {
                    self.scanned = len;
                    return None;
                };
                let found = at + n;
                if self.text[found] == b'\\' {
                    if found + 1 == len {
                        self.scanned = found; // its escape is still to come
                        return None;
                    }
                    at = found + 2;
                    continue;
                }
                at = found + 1;
                self.in_string = false;
                if self.depth == 0 {
                    return Some(self.take(at));
                }
            } else if scalar {
                let Some(n) = self.text[at..].iter().position(|&b| is_ws(b)) else {
                    self.scanned = len;
                    return None;
                };
                return Some(self.take(at + n));
            } else {
                let brackets = |b: &u8| matches!(b, b'"' | b'{' | b'}' | b'[' | b']');
                let Some(n) = self.text[at..].iter().position(brackets) else {
                    self.scanned = len;
                    return None;
                };
                let byte = self.text[at + n];
                at += n + 1;
                match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => {
                        self.depth += 1;
                        if array && self.depth == 2 && byte == b'{' {
                            self.item = Some(at - 1);
                        }
                    }
                    _ => {
                        self.depth -= 1;
                        if self.depth == 1 {
                            if let Some(item) = self.item.take() {
                                // An object in the array.
                                self.scanned = at;
                                return Some((self.text[item..at].to_vec(), false));
                            }
                        }
                        if self.depth == 0 {
                            return Some(self.take(at));
                        }
                    }
                }
            }
        }
    }

    fn take(&mut self, end: usize) -> (Vec<u8>, bool) {
        let array = self.text[self.start] == b'[';
        let value = (self.text[self.start..end].to_vec(), array);
        self.start = end;
        self.scanned = end;
        self.open = false;
        self.in_string = false;
        self.item = None;
        self.depth = 0;
        value
    }
}

/// Text that starts with a server-sent-event field (or with the start of one: a chunk
/// may be cut inside `data:`) begins an SSE stream.
pub fn starts_sse(data: &[u8]) -> bool {
    let data = data.trim_ascii_start();
    !data.is_empty()
        && [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
            .iter()
            .any(|field| data.starts_with(field) || field.starts_with(data))
}

/// What `partial_json` reads next.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum State {
    #[default]
    Value,
    Key,
    KeyOrClose,
    ValueOrClose,
    After,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The longest complete prefix of a JSON text, its open objects and arrays closed (see
/// `partial_json` in the Python twin). One pass, no recursion.
pub fn partial_json(text: &str) -> String {
    let mut scan = PartialJson::default();
    scan.read(text);
    scan.closed
}

/// [`partial_json`] of a text that grows (see `PartialJson` in the Python twin): each
/// [`PartialJson::read`] is given the text of the one before with more appended, and
/// reads only what is new, so `partial()` after every fragment costs linear time overall.
#[derive(Debug, Default, Clone)]
pub struct PartialJson {
    /// The text kept.
    out: String,
    /// What closes each open container, innermost last.
    closers: Vec<u8>,
    /// The last point where the kept text plus the closers is complete JSON: (length of
    /// `out`, open containers).
    safe: (usize, usize),
    state: State,
    /// Where reading goes on: the start of a token not read yet.
    at: usize,
    /// In a string starting at `at`: where its check goes on.
    checked: usize,
    /// Nothing more can change the result: the first value is complete, or a character
    /// that cannot continue JSON was met.
    stopped: bool,
    /// The text ran out inside its first value (or before it): it is not JSON yet.
    waiting: bool,
    /// The length of the text read last.
    read: usize,
    /// The result: `partial_json` of the text read last.
    closed: String,
}

/// How a token of [`PartialJson`] was read.
enum Scanned {
    /// It ends here.
    End(usize),
    /// The text ends inside it.
    More,
    /// It cannot be JSON.
    Invalid,
}

impl PartialJson {
    /// `partial_json(text)` into `closed`; `text` starts with the text of the last read.
    pub fn read(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let (mut i, mut state) = (self.at, self.state);
        while i < n && !self.stopped {
            let c = bytes[i];
            if is_ws(c) {
                i += 1;
                continue;
            }
            if state == State::After {
                let Some(&closer) = self.closers.last() else {
                    self.stopped = true; // the first value is complete
                    break;
                };
                if c == b',' {
                    self.out.push(',');
                    state = if closer == b'}' {
                        State::Key
                    } else {
                        State::Value
                    };
                    i += 1;
                    continue;
                }
                if c != closer {
                    self.stopped = true;
                    break;
                }
            }
            if matches!(
                state,
                State::After | State::KeyOrClose | State::ValueOrClose
            ) && self.closers.last() == Some(&c)
            {
                self.closers.pop();
                self.out.push(c as char);
                i += 1;
                state = State::After;
                self.safe = (self.out.len(), self.closers.len());
                continue;
            }
            if matches!(state, State::Key | State::KeyOrClose) {
                let scanned = if c == b'"' {
                    self.string_end(bytes, i)
                } else {
                    Scanned::Invalid
                };
                let end = match scanned {
                    Scanned::End(end) => end,
                    Scanned::More => break,
                    Scanned::Invalid => {
                        self.stopped = true;
                        break;
                    }
                };
                let mut j = end;
                while j < n && is_ws(bytes[j]) {
                    j += 1;
                }
                if j >= n || bytes[j] != b':' {
                    self.stopped = j < n;
                    self.checked = end - 1; // the key is read: only its closing quote again
                    break;
                }
                self.out.push_str(&text[i..end]);
                self.out.push(':');
                i = j + 1;
                self.checked = 0;
                state = State::Value;
                continue;
            }
            if c == b'{' || c == b'[' {
                self.out.push(c as char);
                self.closers.push(if c == b'{' { b'}' } else { b']' });
                state = if c == b'{' {
                    State::KeyOrClose
                } else {
                    State::ValueOrClose
                };
                i += 1;
                self.safe = (self.out.len(), self.closers.len());
                continue;
            }
            let scanned = if c == b'"' {
                self.string_end(bytes, i)
            } else {
                scalar_end(bytes, i)
            };
            let end = match scanned {
                Scanned::End(end) => end,
                Scanned::More => break,
                Scanned::Invalid => {
                    self.stopped = true;
                    break;
                }
            };
            self.out.push_str(&text[i..end]);
            i = end;
            self.checked = 0;
            state = State::After;
            self.safe = (self.out.len(), self.closers.len());
        }
        (self.at, self.state, self.read) = (i, state, n);
        let complete = state == State::After && self.closers.is_empty();
        self.waiting = !(self.stopped || complete);
        let (kept, depth) = self.safe;
        self.closed.clear();
        self.closed.push_str(&self.out[..kept]);
        (self.closed).extend(self.closers[..depth].iter().rev().map(|&c| c as char));
    }

    /// The end of the JSON string starting at `bytes[i]` (a quote): [`Scanned::More`]
    /// where the text ends first (the check goes on from there next time), invalid where
    /// it holds a control character or an invalid escape.
    fn string_end(&mut self, bytes: &[u8], i: usize) -> Scanned {
        let n = bytes.len();
        let mut j = (i + 1).max(self.checked);
        loop {
            // Characters that need no check.
            j += bytes[j..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < b' ')
                .unwrap_or(n - j);
            let Some(&c) = bytes.get(j) else {
                break;
            };
            match c {
                b'"' => return Scanned::End(j + 1),
                b'\\' => {
                    let Some(&escape) = bytes.get(j + 1) else {
                        break;
                    };
                    if escape == b'u' {
                        let Some(hex) = bytes.get(j + 2..j + 6) else {
                            break;
                        };
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Scanned::Invalid;
                        }
                        j += 6;
                    } else if b"\"\\/bfnrt".contains(&escape) {
                        j += 2;
                    } else {
                        return Scanned::Invalid;
                    }
                }
                _ => return Scanned::Invalid, // a control character
            }
        }
        self.checked = j;
        Scanned::More
    }
}

/// The end of the number or literal at `bytes[i]`: [`Scanned::More`] where the text ends
/// inside it (a number that reaches the end: more digits may follow), invalid where it
/// is not one.
fn scalar_end(bytes: &[u8], i: usize) -> Scanned {
    let n = bytes.len();
    for literal in [&b"true"[..], b"false", b"null"] {
        if bytes[i..].starts_with(literal) {
            return Scanned::End(i + literal.len());
        }
        if literal.starts_with(&bytes[i..]) {
            return Scanned::More;
        }
    }
    // Where a digit is needed at `j`: the text ends, or it is not one.
    let missing = |j: usize| {
        if j >= n {
            Scanned::More
        } else {
            Scanned::Invalid
        }
    };
    let digit = |j: usize| j < n && bytes[j].is_ascii_digit();
    let mut j = i;
    if j < n && bytes[j] == b'-' {
        j += 1;
    }
    if j < n && bytes[j] == b'0' {
        j += 1;
    } else if j < n && (b'1'..=b'9').contains(&bytes[j]) {
        while digit(j) {
            j += 1;
        }
    } else {
        return missing(j);
    }
    if j < n && bytes[j] == b'.' {
        j += 1;
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return missing(j);
        }
    }
    if j < n && (bytes[j] == b'e' || bytes[j] == b'E') {
        j += 1;
        if j < n && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        let start = j;
        while digit(j) {
            j += 1;
        }
        if j == start {
            return missing(j);
        }
    }
    if j < n {
        Scanned::End(j)
    } else {
        Scanned::More
    }
}

/// How a stream's events are read: a walked format's reader, the `json` format's
/// (each event a whole response), or, for `auto`, the reader of the first format that
/// recognizes an event.
#[derive(Clone, Debug)]
pub enum Reader {
    Walked(Walked),
    Json(JsonOptions),
    Auto,
}

impl Reader {
    /// The reader of records that hold a whole stream (a list of events, or SSE text):
    /// the walked formats' and auto's; `json` reads lists its own way, `litert` text.
    pub fn for_records(format: &Format) -> Option<Reader> {
        match format {
            Format::Walked(walked) => Some(Reader::Walked(*walked)),
            Format::Auto => Some(Reader::Auto),
            Format::Json(_) | Format::LiteRt => None,
        }
    }
}

/// The error of a record holding a stream with an event that is not JSON text.
pub const NOT_JSON: &str = "a stream event is not JSON";

/// How the `error` of a stream that failed (an error event of the provider's) and gave
/// no call begins.
pub const STREAM_ERROR: &str = "stream error";

/// Whether a stream's `error` says its response is still one (no call, and why), not a
/// record that could not be read: [`FRAGMENT`], or the provider's error event.
pub fn response_error(message: &str) -> bool {
    message == FRAGMENT || message.starts_with(STREAM_ERROR)
}

/// A provider's error value as one line: a string as it is; an object's `message` (a
/// string) after its code: `code` where given, else its own `code` (a string, or an
/// integer of 64 bits), `type` or `status` (a string); the code alone where there is no
/// message (the Realtime API's `{type, code}`). None with neither.
pub fn error_text<N: Node>(error: &N, code: Option<&str>) -> Result<Option<String>, N::Error> {
    if let Some(text) = error.text()? {
        return Ok(Some(text));
    }
    let message = text_of(error.field("message")?)?;
    let code = match code {
        Some(code) => Some(code.to_owned()),
        None => error_code(error)?,
    };
    Ok(match (code, message) {
        (Some(code), Some(message)) => Some(format!("{code}: {message}")),
        (code, message) => message.or(code),
    })
}

fn error_code<N: Node>(error: &N) -> Result<Option<String>, N::Error> {
    if let Some(code) = error.field("code")? {
        if let Some(text) = code.text()? {
            return Ok(Some(text));
        }
        if let Some(Index::Int(number)) = code.index()? {
            return Ok(Some(number.to_string()));
        }
    }
    for key in ["type", "status"] {
        if let Some(text) = text_of(error.field(key)?)? {
            return Ok(Some(text));
        }
    }
    Ok(None)
}

/// The `error` of a response, or a stream, holding only pieces of calls whose start it
/// does not hold (Gemini 3 `partial_args` without a name): no call is made of them.
pub const FRAGMENT: &str = "a functionCall with partialArgs but no name: a piece of a stream; \
                            read the whole stream (parser.stream(), --stream)";

/// The reader `parse` reads a document with as a stream of that one event, where it is
/// a piece of a stream: a response its format says is one (`Walked::is_stream_piece`:
/// an event of the stream given alone, a Gemini 3 chunk with `partial_args`); or, for
/// auto, a document that is not text and that no format recognizes as a response (`walked`
/// is None): an event given alone, which the auto stream recognizes, or names as an
/// unrecognized shape.
pub fn piece_reader<N: Node>(
    format: &Format,
    walked: Option<Walked>,
    doc: &N,
    is_text: bool,
) -> Result<Option<Reader>, N::Error> {
    Ok(match walked {
        Some(walked) => walked
            .is_stream_piece(doc)?
            .then_some(Reader::Walked(walked)),
        None if matches!(format, Format::Auto) && !is_text => Some(Reader::Auto),
        None => None,
    })
}

/// Whether the value at `root` holds a whole stream: a list, or SSE text.
pub fn holds_stream(tape: &Tape<'_>, root: usize) -> bool {
    match &tape.tokens[root] {
        Token::Array { .. } => true,
        Token::Str(_) => tape
            .str_at(root)
            .is_some_and(|text| starts_sse(text.as_bytes())),
        _ => false,
    }
}

/// A record that holds a whole stream, assembled: its calls (owning their strings),
/// and the format that read them (auto: the error where no event is of any format).
pub fn record<'a>(reader: Reader, tape: Tape<'a>, root: usize) -> Record<'a> {
    let mut stream = Stream::new(reader);
    let read = match tape.str_at(root) {
        Some(text) => stream
            .feed_text(text.as_bytes())
            .map_err(|_| NOT_JSON.to_owned()),
        None => stream
            .decoded(&TapeNode {
                tape: &tape,
                idx: root,
            })
            .map_err(|_| NOT_JSON.to_owned()),
    };
    stream.finish();
    let calls = stream.owned_calls();
    let format = read.and_then(|()| {
        // The stream's error first: a Bedrock exception may end a stream no event of
        // which was recognized (auto).
        if let Some(error) = stream.error(calls.is_empty()) {
            return Err(error.to_owned());
        }
        stream
            .format_name()
            .ok_or_else(|| crate::record::unrecognized_shape(&tape, root))
    });
    Record {
        tape,
        calls,
        format,
    }
}

/// `parser.stream()`'s state: feed events, read the calls so far, finish.
#[derive(Debug)]
pub struct Stream {
    reader: Reader,
    pub acc: Accumulator,
    sse: Option<Sse>,
    /// Text that is not SSE.
    values: JsonValues,
    pub finished: bool,
}

/// Text that is not JSON: the error and the text it was found in.
pub type TextError = (JsonError, Vec<u8>);

/// Why an event could not be read: the node's own error (an SDK object's attribute that
/// raised, a Python string Rust cannot hold), or text inside it that is not JSON.
#[derive(Debug)]
pub enum EventError<E> {
    Node(E),
    Text(TextError),
}

impl<E> From<E> for EventError<E> {
    fn from(err: E) -> Self {
        EventError::Node(err)
    }
}

/// The exceptions a Bedrock runtime stream (ConverseStream, InvokeModelWithResponseStream)
/// may end with, each an event of its own: `{"throttlingException": {"message": ...}}`.
pub const BEDROCK_EXCEPTIONS: [&str; 6] = [
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "modelTimeoutException",
    "serviceUnavailableException",
];

/// A Bedrock runtime stream's exception event, an object of that one member (as boto3
/// gives it, a dict): its name and its value. None for any other event.
pub fn bedrock_exception<N: Node>(event: &N) -> Result<Option<(&'static str, N)>, N::Error> {
    if !event.single_member() {
        return Ok(None); // most events: no lookup of each name
    }
    for name in BEDROCK_EXCEPTIONS {
        if let Some(error) = event.member(name)? {
            return Ok(Some((name, error)));
        }
    }
    Ok(None)
}

/// An error event `auto` reads before any event told it the stream's format (a stream
/// that failed at once): `{"error": E}` (OpenAI, Gemini, Ollama, and Anthropic's `{"type":
/// "error", "error": E}`) is the stream's error E, and `{"type": "error", ...}` (the
/// Responses API's `code` and `message`) the event itself. Other events are no error.
fn undetected_error<N: Node>(event: &N, acc: &mut Accumulator) -> Result<(), N::Error> {
    if let Some(error) = event.field("error")? {
        return acc.provider_error(Some(&error), None);
    }
    if typed_event(event, ERROR_TYPE)? {
        return acc.provider_error(Some(event), None);
    }
    Ok(())
}

/// Base64 as Python's `base64.b64decode(text, validate=True)` reads it: the standard
/// alphabet, padding required, bits after the last byte ignored.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// The event a Bedrock `InvokeModelWithResponseStream` event wraps: `{"chunk": {"bytes":
/// B}}`, B the model's own event as JSON text (Anthropic's events for Claude models).
/// boto3 gives B as `bytes`; the wire and JSON logs as base64 text. Text that is not
/// base64 is taken as the JSON itself (a log that decoded the bytes). None for any
/// other event.
fn chunk_payload<N: Node>(event: &N) -> Result<Option<Vec<u8>>, N::Error> {
    // Members of objects only: boto3 gives dicts, and SDK objects are no chunks (an
    // attribute read that fails costs more than reading a small event).
    let Some(part) = event.member("chunk")? else {
        return Ok(None);
    };
    let Some(data) = part.member("bytes")? else {
        return Ok(None);
    };
    if let Some(blob) = data.blob()? {
        return Ok(Some(blob));
    }
    Ok(data
        .text()?
        .map(|text| BASE64.decode(&text).unwrap_or_else(|_| text.into_bytes())))
}

impl Stream {
    pub fn new(reader: Reader) -> Self {
        Stream {
            reader,
            acc: Accumulator::default(),
            sse: None,
            values: JsonValues::default(),
            finished: false,
        }
    }

    /// Start reading one event (the calls it completes gather in `acc.done_now`).
    pub fn begin(&mut self) {
        self.acc.done_now.clear();
    }

    /// `str` / `bytes`: JSON text (one event, or any piece of any number of them), or a
    /// chunk of SSE text.
    pub fn feed_text(&mut self, data: &[u8]) -> Result<(), TextError> {
        if self.sse.is_none() && self.values.idle() && starts_sse(data) {
            self.sse = Some(Sse::default());
        }
        match &mut self.sse {
            Some(sse) => {
                let events = sse.feed(data);
                self.read_texts(events)
            }
            None => self.json_text(data),
        }
    }

    /// JSON text that is not SSE: most often one whole event, read as it is; else cut
    /// into values ([`JsonValues`]), each read once it is complete.
    fn json_text(&mut self, data: &[u8]) -> Result<(), TextError> {
        if self.values.idle() && matches!(data.trim_ascii_start().first(), Some(b'{' | b'[')) {
            if let Ok(tape) = json::parse(data) {
                return self.read_tape(&tape);
            }
        }
        // A piece of a value, several values, or text that is not JSON: split.
        self.values.feed(data);
        let values: Vec<_> = std::iter::from_fn(|| self.values.next_value()).collect();
        self.read_texts(values)
    }

    /// Each JSON text in turn; the first one that is not JSON is the error once the
    /// others were read.
    fn read_texts(&mut self, texts: Vec<Vec<u8>>) -> Result<(), TextError> {
        let mut error = None;
        for text in texts {
            if let Err(err) = self.json_event(&text) {
                error.get_or_insert(err);
            }
        }
        error.map_or(Ok(()), Err)
    }

    fn json_event(&mut self, data: &[u8]) -> Result<(), TextError> {
        let tape = json::parse(data).map_err(|err| (err, data.to_vec()))?;
        self.read_tape(&tape)
    }

    fn read_tape(&mut self, tape: &Tape<'_>) -> Result<(), TextError> {
        match self.decoded(&TapeNode::root(tape)) {
            Ok(()) => Ok(()),
            Err(EventError::Text(err)) => Err(err),
        }
    }

    /// A decoded JSON event: an object, or a list of them; other values (a number, a
    /// string, a list in the list) are no event of any provider.
    fn decoded<N: Node>(&mut self, event: &N) -> Result<(), EventError<N::Error>> {
        if !event.is_array() {
            return match event.is_object() {
                true => self.feed_node(event),
                false => Ok(()),
            };
        }
        for item in event.elements() {
            if item.is_object() {
                self.feed_node(&item)?;
            }
        }
        Ok(())
    }

    /// An event object (a dict, an SDK object, or a decoded JSON object); a Bedrock
    /// `chunk` is read as the event it wraps.
    pub fn feed_node<N: Node>(&mut self, event: &N) -> Result<(), EventError<N::Error>> {
        if let Some(payload) = chunk_payload(event)? {
            return self.json_event(&payload).map_err(EventError::Text);
        }
        if let Some((name, error)) = bedrock_exception(event)? {
            return Ok(self.acc.provider_error(Some(&error), Some(name))?);
        }
        if let Reader::Auto = self.reader {
            for &walked in Walked::ALL {
                if walked.stream_detect(event)? {
                    self.reader = Reader::Walked(walked);
                    break;
                }
            }
        }
        match &self.reader {
            Reader::Walked(walked) => Ok(walked.stream_event(event, &mut self.acc)?),
            Reader::Json(options) => {
                let calls = crate::formats::json_path::walk(event, options)?;
                for call in calls {
                    self.acc
                        .whole_call(call.name, call.id, call.arguments, call.verbatim)?;
                }
                Ok(())
            }
            Reader::Auto => Ok(undetected_error(event, &mut self.acc)?),
        }
    }

    /// The end of the stream: an SSE event left without its empty line is read (where
    /// it is not JSON, the stream was cut inside it).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        // Where the text ended inside its last event, the stream was cut there.
        if let Some(mut sse) = self.sse.take() {
            for event in sse.end() {
                let _ = self.json_event(&event);
            }
        } else if let Some(last) = self.values.end() {
            let _ = self.json_event(&last);
        }
    }

    /// Where the stream gave no call: the provider's error event
    /// ([`Accumulator::provider_error`]), else [`FRAGMENT`] where it held pieces of calls.
    pub fn error(&self, no_calls: bool) -> Option<&str> {
        if !no_calls {
            return None;
        }
        match &self.acc.error {
            Some(error) => Some(error),
            None => self.acc.fragment.then_some(FRAGMENT),
        }
    }

    /// The format whose reader reads the events (auto: once an event was recognized).
    pub fn format_name(&self) -> Option<&'static str> {
        match &self.reader {
            Reader::Walked(walked) => Some(walked.name()),
            Reader::Json(_) => Some(crate::formats::json_path::NAME),
            Reader::Auto => None,
        }
    }

    /// Every call, in the provider's order, owning its strings.
    pub fn owned_calls(&self) -> Vec<Call<'static>> {
        let order = self.acc.ordered();
        order
            .iter()
            .map(|&at| self.acc.slots[at].owned_call())
            .collect()
    }

    /// Every call, in the provider's order.
    pub fn calls(&self) -> Vec<StreamCall<'_>> {
        let order = self.acc.ordered();
        order.iter().map(|&at| self.acc.slots[at].call()).collect()
    }

    /// Every call started so far, arguments still arriving decoded as far as they are
    /// complete (each read from where the last `partial` read it).
    pub fn partial(&mut self) -> Vec<StreamCall<'_>> {
        for slot in &mut self.acc.slots {
            slot.read_partial();
        }
        let order = self.acc.ordered();
        order
            .iter()
            .map(|&at| self.acc.slots[at].partial_call())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_json_closes_what_is_complete() {
        for (text, expected) in [
            ("", ""),
            ("{", "{}"),
            ("{\"a", "{}"),
            ("{\"a\": 1", "{}"),
            ("{\"a\": 1,", "{\"a\":1}"),
            ("{\"a\": 1, \"b\": [1, 2", "{\"a\":1,\"b\":[1]}"),
            ("{\"a\": \"x\\u00", "{}"),
            ("{\"a\": {\"b\": tr", "{\"a\":{}}"),
            ("[1,]", "[1]"),
            ("{\"a\":1}garbage", "{\"a\":1}"),
        ] {
            assert_eq!(partial_json(text), expected, "{text}");
        }
    }

    #[test]
    fn sse_keeps_a_character_cut_between_chunks() {
        let text = "data: {\"a\":\"é\"}\n\n".as_bytes();
        let mut sse = Sse::default();
        let cut = text.iter().position(|&b| b >= 0x80).unwrap() + 1;
        assert!(sse.feed(&text[..cut]).is_empty());
        assert_eq!(
            sse.feed(&text[cut..]),
            vec![b"{\"a\":\"\xc3\xa9\"}".to_vec()]
        );
    }

    #[test]
    fn sse_lines_end_at_lf_crlf_or_cr_however_the_text_is_cut() {
        let text = b"event: e\rdata: 1\r\ndata: 2\r\rdata: 3\n\r\n: c\r\rdata: 4";
        let expected = vec![b"1\n2".to_vec(), b"3".to_vec(), b"4".to_vec()];
        for size in 1..=text.len() {
            let mut sse = Sse::default();
            let mut found: Vec<Vec<u8>> = Vec::new();
            for piece in text.chunks(size) {
                found.extend(sse.feed(piece));
            }
            found.extend(sse.end());
            assert_eq!(found, expected, "pieces of {size}");
        }
    }

    #[test]
    fn partial_json_read_on_is_partial_json_from_scratch() {
        let texts = [
            "{\"a\": [1, 2.5e-3, true, null, {\"b\": \"x\\u00e9\\n\\\"\"}], \"c\" : -0}  x",
            "[\"\\u12\", 1]",
            "{\"k\" x",
            "\"s\u{1}\"",
        ];
        for text in texts {
            for step in 1..=4 {
                let mut scan = PartialJson::default();
                let mut end = 0;
                while end < text.len() {
                    end = (end + step).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    scan.read(&text[..end]);
                    assert_eq!(
                        scan.closed,
                        partial_json(&text[..end]),
                        "{:?}",
                        &text[..end]
                    );
                }
            }
        }
    }

    /// Every value of `text`, fed in pieces of `size` bytes, then the one left open.
    fn values_of(text: &[u8], size: usize) -> Vec<Vec<u8>> {
        let mut values = JsonValues::default();
        let mut found = Vec::new();
        for piece in text.chunks(size) {
            values.feed(piece);
            while let Some(value) = values.next_value() {
                found.push(value);
            }
        }
        found.extend(values.end());
        found
    }

    #[test]
    fn json_values_are_the_same_however_the_text_is_cut() {
        let text = "{\"a\":\"}\\\"{é\"}\n[1,{\"b\":[]},[{}]][1 {}]{}\r\n\"s \\\" ]\" 12 true\t-0.5e+3 x y\n[{\"c\":{}},{";
        let expected: Vec<&[u8]> = vec![
            b"{\"a\":\"}\\\"{\xc3\xa9\"}",
            b"{\"b\":[]}", // an object in an array: given as it completes (the array is JSON)
            b"{}",
            b"[1 {}]", // an array that is not JSON: given too, after its object, to raise
            b"{}",
            b"\"s \\\" ]\"",
            b"12",
            b"true",
            b"-0.5e+3",
            b"x",
            b"y",
            b"{\"c\":{}}", // then the array is left open: not given (its objects were)
        ];
        for size in 1..=text.len() {
            assert_eq!(
                values_of(text.as_bytes(), size),
                expected,
                "pieces of {size}"
            );
        }
    }
}
