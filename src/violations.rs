//! Checks against the declared tools: the `violations` of each call. The twin of
//! `python/toolsift/_pure/violations.py`, line by line; its docstring is the
//! specification (and holds the table of codes). Every distinct schema is compiled once,
//! when the checks are made (the pure twin compiles each when first used: the same codes).

use crate::calls::string_at;
use crate::compact;
use crate::json::{self, Text, Token};
use crate::node::value;
use crate::tools::{read_definitions, Definitions};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::types::JsonType;
use jsonschema::{ValidationError, Validator};
use memchr::memmem::Finder;
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, OnceLock};

mod instance;

use instance::{Args, Doc};

/// The keys of a request line that name it, in order (batch input files).
const REQUEST_KEYS: [&str; 3] = ["custom_id", "recordId", "key"];
/// The keys of a request line that hold its body, in order; none: the line is the body.
const BODY_KEYS: [&str; 4] = ["body", "params", "request", "modelInput"];

/// A declared tool: its compiled schema (None: not checked), or a schema that did not
/// compile.
#[derive(Clone)]
enum Tool {
    Unchecked,
    Invalid,
    Schema(Arc<Compiled>),
}

/// A schema compiled for the arguments as [`instance`] reads them, and, when first
/// needed, for the `Value` of arguments it leaves to serde_json.
struct Compiled {
    schema: Value,
    args: Validator<Args>,
    value: OnceLock<Option<Validator>>,
}

impl Compiled {
    fn value(&self) -> Option<&Validator> {
        let compile = || options().build(&self.schema).ok();
        self.value.get_or_init(compile).as_ref()
    }
}

/// The options every schema is compiled with.
fn options<F: jsonschema::json::Json>(
) -> jsonschema::ValidationOptions<'static, Arc<dyn jsonschema::Retrieve>, F> {
    jsonschema::options_for::<F>().should_validate_formats(false)
}

/// The tools by name (looked up once a call: a fast hash).
type ToolSet = FxHashMap<String, Tool>;

/// The tools calls are checked against: `tools=` and each request's, by key.
pub struct Checks {
    tools: Option<Arc<ToolSet>>,
    requests: Option<FxHashMap<String, Arc<ToolSet>>>,
}

/// Compiles each distinct schema once (by its JSON text).
#[derive(Default)]
struct Compiler {
    compiled: HashMap<String, Tool>,
}

impl Compiler {
    fn tool_set(&mut self, definitions: Definitions) -> ToolSet {
        (definitions.into_iter())
            .map(|(name, schema)| (name, schema.map_or(Tool::Unchecked, |s| self.tool(&s))))
            .collect()
    }

    fn tool(&mut self, schema: &Value) -> Tool {
        let key = schema.to_string();
        (self.compiled.entry(key))
            .or_insert_with(|| compile(schema))
            .clone()
    }
}

fn compile(schema: &Value) -> Tool {
    if !schema.is_object() && !schema.is_boolean() {
        return Tool::Invalid;
    }
    match options::<Args>().build(schema) {
        Ok(args) => Tool::Schema(Arc::new(Compiled {
            schema: schema.clone(),
            args,
            value: OnceLock::new(),
        })),
        Err(_) => Tool::Invalid,
    }
}

impl Checks {
    /// Checks of `tools` (the JSON text of definitions) and `requests` (a JSONL request
    /// file's text, read line by line; `name` names it in errors, a read error among them).
    pub fn new(
        tools: Option<&str>,
        requests: Option<&mut dyn Read>,
        name: &str,
    ) -> Result<Checks, String> {
        let mut compiler = Compiler::default();
        let tools = match tools {
            None => None,
            Some(text) => {
                let value: Value =
                    serde_json::from_str(text).map_err(|err| format!("tools: not JSON: {err}"))?;
                Some(Arc::new(compiler.tool_set(read_definitions(&value)?)))
            }
        };
        let requests = match requests {
            None => None,
            Some(text) => Some(read_requests(text, name, &mut compiler)?),
        };
        Ok(Checks { tools, requests })
    }

    /// The codes of a call whose arguments are the JSON object text `arguments` (None:
    /// they did not decode), written to `out` (cleared first), sorted, each once.
    pub fn violations(
        &self,
        custom_id: Option<&str>,
        name: &str,
        arguments: Option<&str>,
        out: &mut Vec<String>,
    ) {
        out.clear();
        let mut tools = self.tools.as_ref();
        if let Some(requests) = &self.requests {
            let found = custom_id.and_then(|key| requests.get(key));
            tools = found.or(tools);
            if tools.is_none() {
                return out.push("missing_request".into());
            }
        }
        let Some(tools) = tools else {
            return;
        };
        let validator = match tools.get(name) {
            None => return out.push("unknown_tool".into()),
            Some(Tool::Unchecked) => return,
            Some(Tool::Invalid) => None,
            Some(Tool::Schema(validator)) => Some(validator),
        };
        let Some(arguments) = arguments else {
            return out.push("undecodable_arguments".into());
        };
        let Some(compiled) = validator else {
            return out.push("invalid_schema".into());
        };
        let mut codes = BTreeSet::new();
        let read = instance::with_scratch(|scratch| {
            let doc = Doc::parse(arguments, scratch)?;
            // The common case: the call fits, and nothing is built.
            if !compiled.args.is_valid(doc.root()) {
                for error in compiled.args.iter_errors(doc.root()) {
                    add_codes(&error, &mut codes);
                }
            }
            doc.into_scratch(scratch);
            Some(())
        });
        if read.is_none() {
            if let Err(code) = value_codes(compiled, arguments, &mut codes) {
                return out.push(code.into());
            }
        }
        out.extend(codes);
    }
}

/// The room a `Value` of arguments nested `json::MAX_DEPTH` deep needs to be read,
/// checked (against a schema that recurses with it) and dropped: each recurses once a
/// level.
const DEEP_VALUE_STACK: usize = json::MAX_DEPTH * 8 * 1024;

/// The codes of `arguments` that the pass leaves (see `instance`), checked as a `Value`:
/// decodable where `json::parse` reads them, nested up to `json::MAX_DEPTH` deep (past
/// serde_json's own limit of 128 levels: lifted for them, on a stack grown to hold them).
fn value_codes(
    compiled: &Compiled,
    arguments: &str,
    codes: &mut BTreeSet<String>,
) -> Result<(), &'static str> {
    if let Ok(instance) = serde_json::from_str::<Value>(arguments) {
        return value_checked(compiled, &instance, codes);
    }
    json::parse(arguments.as_bytes()).map_err(|_| "undecodable_arguments")?;
    stacker::maybe_grow(DEEP_VALUE_STACK, 2 * DEEP_VALUE_STACK, || {
        let mut reader = serde_json::Deserializer::from_str(arguments);
        reader.disable_recursion_limit();
        let instance: Value =
            serde::Deserialize::deserialize(&mut reader).map_err(|_| "undecodable_arguments")?;
        value_checked(compiled, &instance, codes)
    })
}

fn value_checked(
    compiled: &Compiled,
    instance: &Value,
    codes: &mut BTreeSet<String>,
) -> Result<(), &'static str> {
    let validator = compiled.value().ok_or("invalid_schema")?;
    if !validator.is_valid(instance) {
        for error in validator.iter_errors(instance) {
            add_codes(&error, codes);
        }
    }
    Ok(())
}

/// `/`-joined path segments, each escaped (RFC 6901).
fn pointer_to(out: &mut String, part: &str) {
    out.push('/');
    out.push_str(&part.replace('~', "~0").replace('/', "~1"));
}

fn pointer(location: &Location) -> String {
    let mut out = String::new();
    for segment in location.segments() {
        match segment {
            LocationSegment::Property(key) => pointer_to(&mut out, &key),
            LocationSegment::Index(index) => pointer_to(&mut out, &index.to_string()),
        }
    }
    out
}

/// Whether `text` is a whole JSON number (a string holding one is a `numeric_string`).
fn is_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digits = |at: &mut usize| {
        let start = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - start
    };
    let start = at;
    match digits(&mut at) {
        0 => return false,
        n if n > 1 && bytes[start] == b'0' => return false,
        _ => {}
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if digits(&mut at) == 0 {
            return false;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return false;
        }
    }
    at == bytes.len()
}

fn wants_number(kind: &TypeKind) -> bool {
    let number = |t: JsonType| matches!(t, JsonType::Integer | JsonType::Number);
    match kind {
        TypeKind::Single(t) => number(*t),
        TypeKind::Multiple(set) => set.iter().any(number),
    }
}

/// The codes of one error of the validator.
fn add_codes(error: &ValidationError<'_>, codes: &mut BTreeSet<String>) {
    use ValidationErrorKind as K;
    let path = pointer(error.instance_path());
    let code = match error.kind() {
        K::Required { property } => {
            let mut code = format!("missing_required:{path}");
            pointer_to(&mut code, property.as_str().unwrap_or_default());
            codes.insert(code);
            return;
        }
        K::AdditionalProperties { unexpected } => {
            for key in unexpected {
                let mut code = format!("unexpected_property:{path}");
                pointer_to(&mut code, key);
                codes.insert(code);
            }
            return;
        }
        K::Type { kind } => match error.instance().as_ref() {
            Value::String(text) if wants_number(kind) && is_number(text) => "numeric_string",
            _ => "wrong_type",
        },
        K::UnevaluatedProperties { .. } => "unevaluated_property",
        K::Enum { .. } | K::Constant { .. } => "not_in_enum",
        K::Pattern { .. } => "pattern",
        K::MinLength { .. } | K::MaxLength { .. } => "length",
        K::Minimum { .. }
        | K::Maximum { .. }
        | K::ExclusiveMinimum { .. }
        | K::ExclusiveMaximum { .. }
        | K::MultipleOf { .. } => "range",
        K::MinItems { .. }
        | K::MaxItems { .. }
        | K::UniqueItems
        | K::Contains
        | K::AdditionalItems { .. }
        | K::UnevaluatedItems { .. } => "items",
        K::MinProperties { .. } | K::MaxProperties { .. } | K::PropertyNames { .. } => "properties",
        K::AnyOf { .. } | K::OneOfNotValid { .. } | K::OneOfMultipleValid { .. } => "no_match",
        K::Not { .. } | K::FalseSchema => "not",
        _ => "other",
    };
    codes.insert(format!("{code}:{path}"));
}

/// Each request's tools by its key, from JSONL `text` (the twin's `read_requests`).
///
/// Most request files declare the same tools on every line, and those are most of the
/// line (kilobytes of schemas): a line is read without them where it can be
/// ([`Requests::add_cut`]), its tools then found by their raw text among those read
/// before, and read (and compiled) only when new. A line it cannot settle so is parsed
/// whole ([`Requests::add_parsed`]), as the twin reads every line: the same results,
/// errors included.
fn read_requests(
    text: &mut dyn Read,
    name: &str,
    compiler: &mut Compiler,
) -> Result<FxHashMap<String, Arc<ToolSet>>, String> {
    let mut reader = Requests::new(name, compiler);
    let mut stripped = Vec::new();
    // A line at a time through one buffer: a request file is often larger than the
    // output it checks, and reading it whole into fresh memory costs more than reading it.
    let mut text = BufReader::with_capacity(1 << 20, text);
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = text.read_until(b'\n', &mut line);
        match read.map_err(|err| format!("{name}: {err}"))? {
            0 => break,
            _ if line.last() == Some(&b'\n') => {
                line.pop();
            }
            _ => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !reader.add_cut(&line, number, &mut stripped)? {
            reader.add_parsed(&line, number)?;
        }
    }
    Ok(reader.requests)
}

/// The members of a request body that declare its tools, and the bracket each one's
/// value opens (a value of another kind declares none).
const TOOL_FIELDS: [(&str, u8); 2] = [("tools", b'['), ("toolConfig", b'{')];

/// A tools value cut out of a request line ([`Requests::add_cut`]): the opening quote of
/// its key, and the value's bytes, `start..end` (`TOOL_FIELDS[field]`).
#[derive(Clone, Copy)]
struct Cut {
    field: usize,
    key: usize,
    start: usize,
    end: usize,
}

/// `line` into `stripped` with each cut value emptied (`[]` or `{}`): each cut key's
/// place there, just past its opening quote.
fn strip_cuts(line: &[u8], cuts: &[Cut], stripped: &mut Vec<u8>) -> Vec<usize> {
    stripped.clear();
    let mut expected = Vec::with_capacity(cuts.len());
    let mut from = 0;
    for cut in cuts {
        stripped.extend_from_slice(&line[from..cut.key]);
        expected.push(stripped.len() + 1);
        stripped.extend_from_slice(&line[cut.key..cut.start]);
        let open = TOOL_FIELDS[cut.field].1;
        stripped.extend_from_slice(if open == b'[' { b"[]" } else { b"{}" });
        from = cut.end;
    }
    stripped.extend_from_slice(&line[from..]);
    expected
}

/// The state of [`read_requests`].
struct Requests<'c> {
    name: &'c str,
    compiler: &'c mut Compiler,
    requests: FxHashMap<String, Arc<ToolSet>>,
    /// The tools of each declaration read, by its compact text: the same tools, read once.
    by_text: HashMap<String, Arc<ToolSet>>,
    /// The same, by the text [`Requests::add_cut`] keys them by (raw cut values).
    by_raw: FxHashMap<String, Arc<ToolSet>>,
    /// The last raw key found, and its tools: most lines repeat it.
    last: Option<(String, Arc<ToolSet>)>,
    /// The tools of the last line whose only declarations were cut out, with the fields
    /// cut (a bit each): those of a line declaring just the `known` values of the same
    /// fields (forgotten when one changes).
    last_known: Option<(u8, Arc<ToolSet>)>,
    /// The raw value of each field last cut out, known to be plain JSON.
    known: [String; 2],
    /// A search for each field's key (`"tools"`, with its quotes).
    finders: [Finder<'static>; 2],
}

impl<'c> Requests<'c> {
    fn new(name: &'c str, compiler: &'c mut Compiler) -> Self {
        let finder = |field: &str| Finder::new(format!("\"{field}\"").as_bytes()).into_owned();
        Requests {
            name,
            compiler,
            requests: FxHashMap::default(),
            by_text: HashMap::new(),
            by_raw: FxHashMap::default(),
            last: None,
            last_known: None,
            known: Default::default(),
            finders: TOOL_FIELDS.map(|(field, _)| finder(field)),
        }
    }

    /// Reads `line` parsed whole (the twin's way).
    fn add_parsed(&mut self, line: &[u8], number: usize) -> Result<(), String> {
        let name = self.name;
        let tape =
            json::parse(line).map_err(|err| format!("{name}, line {number}: not JSON: {err}"))?;
        if !matches!(tape.tokens[0], Token::Object { .. }) {
            return Ok(());
        }
        let Some(key) = request_key(&tape) else {
            return Ok(());
        };
        if self.requests.contains_key(key.as_ref()) {
            return Ok(());
        }
        let body = body_of(&tape);
        let mut declared = String::from("{");
        for (field, open) in TOOL_FIELDS {
            if let Some(idx) = tool_value(&tape, body, field, open) {
                add_member(&mut declared, field);
                compact::write_value(&tape, idx, &mut declared);
            }
        }
        declared.push('}');
        let tools = self.tools_of(declared, number)?;
        self.requests.insert(key.into_owned(), tools);
        Ok(())
    }

    /// Reads `line` with its tools values cut out (`stripped`: a buffer for the rest);
    /// false when it cannot settle the line, which must then be parsed whole.
    ///
    /// Why this reads what parsing the line reads: each value is cut where a search finds
    /// its key, and the rest, each value an empty container in its place, parsed; the cut
    /// holds when that parse finds each key where the search did, as the body's member
    /// (then its value is the cut one). Each cut value is plain JSON (parsed alone, or
    /// equal to one that was), so the line is JSON, of the same values, since an empty
    /// container and the value put back are both whole values; the nesting of each part
    /// within 64 (plain), so of the line within 128.
    fn add_cut(
        &mut self,
        line: &[u8],
        number: usize,
        stripped: &mut Vec<u8>,
    ) -> Result<bool, String> {
        // UTF-8 is checked piece by piece: the rest where it is parsed, each cut value
        // where it is parsed or found equal to the known one (pieces split at ASCII bytes).
        let cuts = self.cuts(line);
        if cuts.is_empty() {
            return Ok(false); // a short line: parsed whole as fast
        }
        let expected = strip_cuts(line, &cuts, stripped);
        let Some(tape) = json::parse_plain(stripped) else {
            return Ok(false);
        };
        if !matches!(tape.tokens[0], Token::Object { .. }) {
            return Ok(false);
        }
        let Some(key) = request_key(&tape) else {
            return Ok(false);
        };
        let body = body_of(&tape);
        for (cut, &at) in cuts.iter().zip(&expected) {
            let (field, open) = TOOL_FIELDS[cut.field];
            let Some(idx) = tool_value(&tape, body, field, open) else {
                return Ok(false);
            };
            let empty = matches!(
                tape.tokens[idx],
                Token::Array { len: 0, .. } | Token::Object { len: 0, .. }
            );
            let placed = matches!(tape.tokens[idx - 1], Token::Str(Text::Source { start, .. }) if start as usize == at);
            if !(empty && placed) {
                return Ok(false);
            }
        }
        // Each cut value is plain JSON: the known one, or parsed now (kept for its text).
        let mut parsed: [Option<json::Tape<'_>>; 2] = [None, None];
        for cut in &cuts {
            let raw = &line[cut.start..cut.end];
            if self.known[cut.field].as_bytes() != raw {
                match json::parse_plain(raw) {
                    Some(value) => parsed[cut.field] = Some(value),
                    None => return Ok(false),
                }
            }
        }
        let fields = cuts.iter().fold(0u8, |fields, cut| fields | 1 << cut.field);
        let only_cut = (TOOL_FIELDS.iter().enumerate()).all(|(field, &(name, open))| {
            fields & 1 << field != 0 || tool_value(&tape, body, name, open).is_none()
        });
        let mut read = None;
        if !self.requests.contains_key(key.as_ref()) {
            let unchanged = parsed.iter().all(Option::is_none); // every cut value known
            let tools = match &self.last_known {
                Some((cut, tools)) if unchanged && only_cut && *cut == fields => tools.clone(),
                _ => {
                    let Ok(line) = std::str::from_utf8(line) else {
                        return Ok(false); // not reached: every piece is UTF-8
                    };
                    self.tools_of_cut(line, &cuts, &tape, body, &mut parsed, number)?
                }
            };
            read = only_cut.then(|| (fields, tools.clone()));
            self.requests.insert(key.into_owned(), tools);
        }
        for cut in &cuts {
            if let Some(value) = &parsed[cut.field] {
                self.known[cut.field] = value.source.to_string(); // its raw text
                self.last_known = None;
            }
        }
        // The known values are now this line's.
        self.last_known = read.or(self.last_known.take());
        Ok(true)
    }

    /// The tools of a line read by [`Requests::add_cut`]: by the raw text of its
    /// declaration (the cut values as they were written), else read from its compact text.
    fn tools_of_cut<'l>(
        &mut self,
        line: &'l str,
        cuts: &[Cut],
        tape: &json::Tape<'_>,
        body: usize,
        parsed: &mut [Option<json::Tape<'l>>; 2],
        number: usize,
    ) -> Result<Arc<ToolSet>, String> {
        let cut_of = |field: usize| cuts.iter().find(|cut| cut.field == field);
        let mut raw = String::from("{");
        for (field, (name, open)) in TOOL_FIELDS.into_iter().enumerate() {
            if let Some(cut) = cut_of(field) {
                add_member(&mut raw, name);
                raw.push_str(&line[cut.start..cut.end]);
            } else if let Some(idx) = tool_value(tape, body, name, open) {
                add_member(&mut raw, name);
                compact::write_value(tape, idx, &mut raw);
            }
        }
        raw.push('}');
        if let Some((last, tools)) = &self.last {
            if *last == raw {
                return Ok(tools.clone());
            }
        }
        let tools = match self.by_raw.get(&raw) {
            Some(tools) => tools.clone(),
            None => {
                let mut declared = String::from("{");
                for (field, (name, open)) in TOOL_FIELDS.into_iter().enumerate() {
                    if let Some(cut) = cut_of(field) {
                        let value = match &parsed[field] {
                            Some(value) => value,
                            None => {
                                let text = &line[cut.start..cut.end];
                                parsed[field] = json::parse_plain(text.as_bytes());
                                parsed[field].as_ref().ok_or("a known value parses")?
                            }
                        };
                        add_member(&mut declared, name);
                        compact::write_value(value, 0, &mut declared);
                    } else if let Some(idx) = tool_value(tape, body, name, open) {
                        add_member(&mut declared, name);
                        compact::write_value(tape, idx, &mut declared);
                    }
                }
                declared.push('}');
                let tools = self.tools_of(declared, number)?;
                self.by_raw.insert(raw.clone(), tools.clone());
                tools
            }
        };
        self.last = Some((raw, tools.clone()));
        Ok(tools)
    }

    /// The tools a declaration (the compact JSON text of the tools members of a request
    /// body) declares: read and compiled once per text.
    fn tools_of(&mut self, declared: String, number: usize) -> Result<Arc<ToolSet>, String> {
        if let Some(tools) = self.by_text.get(&declared) {
            return Ok(tools.clone());
        }
        let name = self.name;
        let definitions = if declared.len() == 2 {
            Definitions::new()
        } else {
            let value: Value = serde_json::from_str(&declared)
                .map_err(|err| format!("{name}, line {number}: {err}"))?;
            read_definitions(&value).map_err(|err| format!("{name}, line {number}: {err}"))?
        };
        let tools = Arc::new(self.compiler.tool_set(definitions));
        self.by_text.insert(declared, tools.clone());
        Ok(tools)
    }

    /// Where `line`'s tools values may be: for each field, the first place its key is
    /// followed by a colon and a whole container of its kind (the known value, else one
    /// whose brackets close), not inside another field's; in the order of the line.
    fn cuts(&self, line: &[u8]) -> Vec<Cut> {
        let mut cuts: Vec<Cut> = Vec::with_capacity(TOOL_FIELDS.len());
        for field in 0..TOOL_FIELDS.len() {
            let mut from = 0;
            loop {
                // Searched up to the next cut made (a key inside one is not the body's),
                // then on past it: most of a line is its tools value.
                let next =
                    (cuts.iter().filter(|cut| cut.start >= from)).min_by_key(|cut| cut.start);
                let stop = next.map_or(line.len(), |cut| cut.start);
                let Some(found) = self.finders[field].find(&line[from..stop]) else {
                    match next {
                        Some(cut) => {
                            from = cut.end;
                            continue;
                        }
                        None => break,
                    }
                };
                let key = from + found;
                from = key + 1;
                if let Some(cut) = self.cut_at(line, field, key) {
                    // A value holding an earlier field's cut holds that key too: keep it.
                    cuts.retain(|inner| !(cut.start..cut.end).contains(&inner.key));
                    cuts.push(cut);
                    break;
                }
            }
        }
        cuts.sort_by_key(|cut| cut.key);
        cuts
    }

    /// The cut of `field`'s value after the key whose opening quote is at `key`.
    fn cut_at(&self, line: &[u8], field: usize, key: usize) -> Option<Cut> {
        let (name, open) = TOOL_FIELDS[field];
        let colon = skip_space(line, key + name.len() + 2);
        if line.get(colon) != Some(&b':') {
            return None;
        }
        let start = skip_space(line, colon + 1);
        if line.get(start) != Some(&open) {
            return None;
        }
        let known = self.known[field].as_bytes();
        let end = if !known.is_empty() && line[start..].starts_with(known) {
            start + known.len()
        } else {
            json::container_end(line, start, line.len())?
        };
        Some(Cut {
            field,
            key,
            start,
            end,
        })
    }
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line
        .get(at)
        .is_some_and(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
    {
        at += 1;
    }
    at
}

/// `"name":` after the `{` or the members of an object's text.
fn add_member(object: &mut String, name: &str) {
    if object.len() > 1 {
        object.push(',');
    }
    object.push('"');
    object.push_str(name);
    object.push_str("\":");
}

/// A request's key: the first of `REQUEST_KEYS` whose value is a string.
fn request_key<'a>(tape: &json::Tape<'a>) -> Option<Cow<'a, str>> {
    (REQUEST_KEYS.iter()).find_map(|key| value(tape, 0, key).and_then(|idx| string_at(tape, idx)))
}

/// A request's body: the first of `BODY_KEYS` whose value is an object, else the request.
fn body_of(tape: &json::Tape<'_>) -> usize {
    (BODY_KEYS.iter())
        .filter_map(|key| value(tape, 0, key))
        .find(|&idx| matches!(tape.tokens[idx], Token::Object { .. }))
        .unwrap_or(0)
}

/// The value of the body's member `field` when it opens with `open` (a container of the
/// field's kind).
fn tool_value(tape: &json::Tape<'_>, body: usize, field: &str, open: u8) -> Option<usize> {
    let idx = value(tape, body, field)?;
    match tape.tokens[idx] {
        Token::Array { .. } if open == b'[' => Some(idx),
        Token::Object { .. } if open == b'{' => Some(idx),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key's tool names, the file read as `read_requests` reads it, or every line
    /// parsed whole (`add_parsed`).
    fn names(text: &str, whole: bool) -> Result<Vec<(String, Vec<String>)>, String> {
        let mut compiler = Compiler::default();
        let requests = if whole {
            let mut reader = Requests::new("r", &mut compiler);
            for (number, line) in text.lines().enumerate() {
                reader.add_parsed(line.as_bytes(), number + 1)?;
            }
            reader.requests
        } else {
            read_requests(&mut text.as_bytes(), "r", &mut compiler)?
        };
        let mut names: Vec<_> = (requests.into_iter())
            .map(|(key, tools)| {
                let mut names: Vec<String> = tools.keys().cloned().collect();
                names.sort();
                (key, names)
            })
            .collect();
        names.sort();
        Ok(names)
    }

    #[test]
    fn cut_lines_read_as_parsed_lines() {
        let tools =
            |name: &str| format!(r#"[{{"type": "function", "function": {{"name": "{name}"}}}}]"#);
        let (f, g) = (tools("f"), tools("g"));
        let config = r#"{"tools": [{"toolSpec": {"name": "h", "inputSchema": {"json": {}}}}]}"#;
        let lines = [
            format!(
                r#"{{"custom_id": "a", "body": {{"messages": [{{"c": "\"tools\": [1]"}}], "tools": {f}}}}}"#
            ),
            format!(r#"{{"custom_id": "b", "body": {{"tools": {f}}}}}"#),
            format!(r#"{{"custom_id": "c", "body": {{"m": [{{"tools": [1]}}], "tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "d", "body": {{"tools": {f}, "tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "a", "body": {{"tools": {g}}}}}"#),
            format!(r#"{{"recordId": "r", "modelInput": {{"toolConfig": {config}}}}}"#),
            format!(r#"{{"custom_id": "t", "body": {{"tools" : {f} , "toolConfig": {config}}}}}"#),
            format!(r#"{{"custom_id": "u", "body": {{"toolConfig": {config}, "tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "z", "tools": {g}, "body": {{"tools": {f}}}}}"#),
            format!(r#"{{"key": "l", "tools": {g}}}"#),
            format!(r#"{{"custom_id": "m", "body": {{"tools": {f}}}}}"#),
            format!(r#"{{"custom_id": "n", "body": {{"tools": {f}}}}}"#),
            format!(r#"{{"custom_id": "m", "body": {{"tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "o", "body": {{"tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "p", "body": {{"tools": {g}, "toolConfig": {config}}}}}"#),
            format!(r#"{{"custom_id": "q", "body": {{"tools": {g}}}}}"#),
            format!(r#"{{"custom_id": "s", "body": {{"tools": {g}, "toolConfig": {config}}}}}"#),
            format!(
                r#"{{"custom_id": "v", "body": {{"tools": {g}, "toolConfig": {{"x": {f}}}}}}}"#
            ),
            format!(r#"{{"custom_id": "w", "body": {{"tools": {g}}}}}"#),
        ];
        let text = lines.join("\n");
        assert_eq!(names(&text, false), names(&text, true));
        let broken = format!("{}\n{}]", lines[1], lines[1]);
        let error = names(&broken, false).unwrap_err();
        assert!(error.starts_with("r, line 2: not JSON"), "{error}");
    }

    /// A line is UTF-8 checked piece by piece when cut: a byte that is not, outside the
    /// tools value or inside it, is refused as when the line is parsed whole.
    #[test]
    fn cut_lines_that_are_not_utf8_are_refused() {
        let line = |key: &str, name: &str| {
            let tools = format!(r#"[{{"type": "function", "function": {{"name": "{name}"}}}}]"#);
            format!(r#"{{"custom_id": "{key}", "body": {{"tools": {tools}}}}}"#).into_bytes()
        };
        let replace = |mut bytes: Vec<u8>, at: &str| {
            let found = memchr::memmem::find(&bytes, at.as_bytes()).unwrap();
            bytes[found] = 0xff;
            bytes
        };
        for bad in [
            replace(line("b", "f"), "b\""),
            replace(line("b", "gg"), "gg"),
        ] {
            let text = [line("a", "f"), bad].join(&b'\n');
            let error = read_requests(&mut text.as_slice(), "r", &mut Compiler::default())
                .err()
                .unwrap();
            assert!(error.starts_with("r, line 2: not JSON"), "{error}");
        }
    }

    /// The codes of `instance` against `validator` (any representation).
    fn codes_of<'a, F: jsonschema::json::Json>(
        validator: &'a Validator<F>,
        instance: F::Node<'a>,
    ) -> BTreeSet<String> {
        let mut codes = BTreeSet::new();
        for error in validator.iter_errors(instance.clone()) {
            add_codes(&error, &mut codes);
        }
        assert_eq!(validator.is_valid(instance), codes.is_empty());
        codes
    }

    /// Schemas whose keywords read the instance each its own way, under every draft.
    const SCHEMAS: [&str; 12] = [
        r#"{"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"}}, "required": ["n"], "additionalProperties": false}"#,
        r#"{"properties": {"n": {"type": ["integer", "null"], "minimum": -5, "maximum": 1e19, "multipleOf": 2}, "x": {"exclusiveMinimum": 0, "multipleOf": 0.5}}}"#,
        r#"{"properties": {"é/~": {"type": "string", "pattern": "^[A-Zé]", "minLength": 2, "maxLength": 3}, "🦀": {"maxLength": 1}}, "patternProperties": {"^ключ": {"type": "boolean"}}}"#,
        r#"{"properties": {"e": {"enum": ["a", 1, 2.5, {"k": [1, "v"]}, [1, {"z": null}], null]}, "c": {"const": {"a": [1, 2.0], "b": {"c": "d"}}}, "d": {"const": 10000000000000000000000}}}"#,
        r#"{"properties": {"u": {"type": "array", "uniqueItems": true, "minItems": 1, "maxItems": 3, "items": {"type": ["number", "object", "string", "array"]}}}}"#,
        r#"{"propertyNames": {"pattern": "^[a-zé🦀]+$", "maxLength": 4}, "minProperties": 1, "maxProperties": 5}"#,
        r##"{"definitions": {"p": {"type": "object", "properties": {"q": {"$ref": "#/definitions/q"}}, "required": ["q"]}, "q": {"type": "integer", "minimum": 0}}, "properties": {"p": {"$ref": "#/definitions/p"}, "list": {"type": "array", "items": {"$ref": "#/definitions/p"}}}}"##,
        r#"{"properties": {"a": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^x"}]}, "o": {"oneOf": [{"type": "number"}, {"type": "integer"}]}, "no": {"not": {"type": "null"}}, "f": false}}"#,
        r#"{"properties": {"n": {"type": "integer"}, "m": {"type": "number"}}, "dependencies": {"n": ["m"]}}"#,
        r#"{"properties": {"c": {"contains": {"const": 2}}, "t": {"items": [{"type": "string"}], "additionalItems": false}}}"#,
        r#"{"properties": {"big": {"type": "integer", "maximum": 18446744073709551615, "minimum": -9223372036854775808}, "f": {"type": "number", "maximum": 1.5e300}}}"#,
        r#"{"type": "object", "properties": {"x": {"type": "integer"}}, "unevaluatedProperties": false}"#,
    ];

    /// Arguments that touch each keyword, numbers of every spelling among them.
    fn instances() -> Vec<String> {
        let mut texts: Vec<String> = [
            r#"{}"#,
            r#"{"n": 1, "x": 1.5, "s": "a"}"#,
            r#"{"n": "42", "x": "-1.5e3", "s": 5, "z": null}"#,
            r#"{"é/~": "Éa", "🦀": "🦀", "ключ1": true}"#,
            r#"{"é/~": "éé", "🦀": "🦀🦀", "ключ2": 1}"#,
            r#"{"\u00e9/~": "\u00c9\ud83e\udd80", "\ud83e\udd80": "\u00e9", "a\"b": "\n"}"#,
            r#"{"e": {"k": [1.0, "v"]}, "c": {"b": {"c": "d"}, "a": [1.0, 2]}, "d": 1e22}"#,
            r#"{"e": [1, {"z": null}], "c": {"a": [1, 2.5], "b": {"c": "d"}}, "d": 10000000000000000000000.0}"#,
            r#"{"e": 2.50, "c": 1, "d": 10000000000000000000001}"#,
            r#"{"u": [1, 1.0]}"#,
            r#"{"u": [{"a": 1, "b": [2]}, {"b": [2.0], "a": 1.0}]}"#,
            r#"{"u": ["x", "y", 1e400]}"#,
            r#"{"u": []}"#,
            r#"{"abc": 1, "ÉTÉ": 2, "🦀🦀🦀🦀🦀": 3}"#,
            r#"{"p": {"q": 3}, "list": [{"q": -1}, {"r": 1}, {"q": "7"}]}"#,
            r#"{"a": 1.5, "o": 2, "no": null, "f": 1}"#,
            r#"{"a": "xa", "o": 2.5, "no": 0}"#,
            r#"{"n": 3}"#,
            r#"{"c": [1, 2.0], "t": ["a", 1]}"#,
            r#"{"c": [], "t": [1]}"#,
            r#"{"big": 18446744073709551616, "f": 1e301}"#,
            r#"{"big": -9223372036854775809, "f": -1e400}"#,
            r#"{"big": 18446744073709551615, "f": 1.5e300, "x": 2}"#,
            r#"{"x": 1, "y": 2}"#,
            r#"[1, 2]"#,
            r#""text""#,
        ]
        .map(String::from)
        .to_vec();
        for number in instance::tests::NUMBERS {
            texts.push(format!(
                r#"{{"n": {number}, "x": {number}, "m": {number}, "big": {number}, "d": {number}, "u": [{number}, 0]}}"#
            ));
        }
        texts
    }

    /// The codes of the arguments as read here are the codes of their `Value`: every
    /// schema, under every draft, against every instance.
    #[test]
    fn arguments_are_checked_as_their_values() {
        let drafts = [
            "http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-06/schema#",
            "http://json-schema.org/draft-07/schema#",
            "https://json-schema.org/draft/2019-09/schema",
            "https://json-schema.org/draft/2020-12/schema",
        ];
        let (mut checked, mut found) = (0, 0);
        let mut scratch = instance::Scratch::default();
        for schema in SCHEMAS {
            for draft in drafts {
                let mut schema: Value = serde_json::from_str(schema).unwrap();
                schema["$schema"] = Value::from(draft);
                let (args, value) = (
                    options::<Args>().build(&schema),
                    options::<jsonschema::json::SerdeJson>().build(&schema),
                );
                assert_eq!(args.is_ok(), value.is_ok(), "{schema}");
                let (Ok(args), Ok(value)) = (args, value) else {
                    continue; // not a schema of this draft
                };
                for text in instances() {
                    let doc = Doc::parse(&text, &mut scratch).expect(&text);
                    let instance: Value = serde_json::from_str(&text).unwrap();
                    let ours = codes_of(&args, doc.root());
                    assert_eq!(ours, codes_of(&value, &instance), "{schema} {text}");
                    doc.into_scratch(&mut scratch);
                    checked += 1;
                    found += usize::from(!ours.is_empty());
                }
            }
        }
        assert!(
            checked > 3000 && found > checked / 3,
            "{found} of {checked}"
        );
    }

    /// What the pass leaves is checked as a `Value`: a duplicate key (the last one
    /// counts), nesting deeper than the pass reads (128); a lone surrogate does not decode.
    #[test]
    fn text_left_to_the_value_is_checked_as_before() {
        let tools = r#"{"f": {"properties": {"n": {"type": "integer"}, "d": {"type": "array"}}}}"#;
        let checks = Checks::new(Some(tools), None, "requests").unwrap();
        let mut codes = Vec::new();
        checks.violations(None, "f", Some(r#"{"n": "x", "n": 1}"#), &mut codes);
        assert!(codes.is_empty(), "{codes:?}");
        checks.violations(None, "f", Some(r#"{"n": 1, "n": "2"}"#), &mut codes);
        assert_eq!(codes, ["numeric_string:/n"]);
        // Past the pass's depth, and past serde_json's own limit: up to `json::MAX_DEPTH`
        // levels, as `json::parse` reads them.
        for (levels, expected) in [
            (200, "wrong_type:/n"),
            (json::MAX_DEPTH - 1, "wrong_type:/n"),
            (json::MAX_DEPTH, "undecodable_arguments"),
        ] {
            let deep = format!(
                r#"{{"n": 1.5, "d": {}{}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            );
            checks.violations(None, "f", Some(&deep), &mut codes);
            assert_eq!(codes, [expected], "{levels}");
        }
        // A schema that recurses as deep as the arguments, checked on a worker's stack.
        let nested = r##"{"f": {"properties": {"d": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}}}"##;
        let deeply = Checks::new(Some(nested), None, "requests").unwrap();
        let levels = json::MAX_DEPTH - 1;
        let deep = format!(r#"{{"d": {}7{}}}"#, "[".repeat(levels), "]".repeat(levels));
        let found = std::thread::spawn(move || {
            let mut codes = Vec::new();
            deeply.violations(None, "f", Some(&deep), &mut codes);
            codes
        });
        let expected = format!("wrong_type:/d{}", "/0".repeat(levels));
        assert_eq!(found.join().unwrap(), [expected]);
        checks.violations(None, "f", Some(r#"{"n": "\ud800"}"#), &mut codes);
        assert_eq!(codes, ["undecodable_arguments"]);
    }

    #[test]
    fn numbers_are_whole_json_numbers() {
        for yes in ["0", "-1", "42", "1.5", "1e3", "-0.5E-2"] {
            assert!(is_number(yes), "{yes}");
        }
        for no in ["", "-", "01", "1.", ".5", "+1", "1e", " 1", "0x1F", "NaN"] {
            assert!(!is_number(no), "{no}");
        }
    }
}
