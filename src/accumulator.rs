//! The toolkit every format's stream reader builds on: the [`Accumulator`] of a stream's
//! calls (names and ids set once, arguments appended to one buffer, so feeding costs
//! linear time), values at JSON paths ([`Tree`]), and the helpers that read an event
//! (`event_type`, `index_of`, the provider's error texts). Below the formats: how a
//! format's events map onto the accumulator is its module's `stream_event`. The twin of
//! `python/toolsift/_pure/accumulator.py` (the rules are in `_pure/stream.py`).

use crate::calls::{decode_object, Arguments, Call};
use crate::json::{self, Token};
use crate::node::{Index, Node};
use crate::partial::PartialJson;
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
            Some(text) if self.verbatim && is_text => Arguments::Verbatim(text),
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
            Arguments::Undecodable(Cow::Owned(crate::compact::to_string(&tape, 0)))
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
