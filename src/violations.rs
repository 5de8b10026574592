//! Checks against the declared tools: the `violations` of each call. The twin of
//! `python/toolsift/_pure/violations.py`, line by line; its docstring is the
//! specification (and holds the table of codes). Every distinct schema is compiled once,
//! when the checks are made (the pure twin compiles each when first used: the same codes).

use crate::calls::string_at;
use crate::compact;
use crate::json::{self, Token};
use crate::node::value;
use crate::tools::{read_definitions, Definitions};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::types::JsonType;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

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
    Schema(Arc<Validator>),
}

type ToolSet = HashMap<String, Tool>;

/// The tools calls are checked against: `tools=` and each request's, by key.
pub struct Checks {
    tools: Option<Arc<ToolSet>>,
    requests: Option<HashMap<String, Arc<ToolSet>>>,
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
    match jsonschema::options()
        .should_validate_formats(false)
        .build(schema)
    {
        Ok(validator) => Tool::Schema(Arc::new(validator)),
        Err(_) => Tool::Invalid,
    }
}

impl Checks {
    /// Checks of `tools` (the JSON text of definitions) and `requests` (a JSONL request
    /// file's text; `name` names it in errors).
    pub fn new(tools: Option<&str>, requests: Option<&[u8]>, name: &str) -> Result<Checks, String> {
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
        let Some(validator) = validator else {
            return out.push("invalid_schema".into());
        };
        let Ok(instance) = serde_json::from_str::<Value>(arguments) else {
            return out.push("undecodable_arguments".into());
        };
        if validator.is_valid(&instance) {
            return; // the common case: no error values made
        }
        let mut codes = BTreeSet::new();
        for error in validator.iter_errors(&instance) {
            add_codes(&error, &mut codes);
        }
        out.extend(codes);
    }
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

/// Each request's tools by its key, from JSONL `text` (the twin's `read_requests`). Each
/// line is read on the project's tape (no value built); only tools not seen before are
/// read into definitions.
fn read_requests(
    text: &[u8],
    name: &str,
    compiler: &mut Compiler,
) -> Result<HashMap<String, Arc<ToolSet>>, String> {
    let mut requests = HashMap::new();
    let mut seen: HashMap<String, Arc<ToolSet>> = HashMap::new(); // the same tools, read once
    let mut declared = String::new();
    for (number, line) in text.split(|&byte| byte == b'\n').enumerate() {
        let number = number + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let tape =
            json::parse(line).map_err(|err| format!("{name}, line {number}: not JSON: {err}"))?;
        if !matches!(tape.tokens[0], Token::Object { .. }) {
            continue;
        }
        let key = (REQUEST_KEYS.iter())
            .find_map(|key| value(&tape, 0, key).and_then(|idx| string_at(&tape, idx)));
        let Some(key) = key else {
            continue;
        };
        if requests.contains_key(key.as_ref()) {
            continue;
        }
        let body = (BODY_KEYS.iter())
            .filter_map(|key| value(&tape, 0, key))
            .find(|&idx| matches!(tape.tokens[idx], Token::Object { .. }))
            .unwrap_or(0);
        // The tools as a JSON object text `{"tools": ..., "toolConfig": ...}`: the key.
        declared.clear();
        declared.push('{');
        for (field, array) in [("tools", true), ("toolConfig", false)] {
            let Some(idx) = value(&tape, body, field) else {
                continue;
            };
            let fits = match tape.tokens[idx] {
                Token::Array { .. } => array,
                Token::Object { .. } => !array,
                _ => false,
            };
            if fits {
                if declared.len() > 1 {
                    declared.push(',');
                }
                declared.push_str(&format!("\"{field}\":"));
                compact::write_value(&tape, idx, &mut declared);
            }
        }
        declared.push('}');
        let tools = match seen.get(&declared) {
            Some(tools) => tools.clone(),
            None => {
                let definitions = if declared.len() == 2 {
                    Definitions::new()
                } else {
                    let value: Value = serde_json::from_str(&declared)
                        .map_err(|err| format!("{name}, line {number}: {err}"))?;
                    read_definitions(&value)
                        .map_err(|err| format!("{name}, line {number}: {err}"))?
                };
                let tools = Arc::new(compiler.tool_set(definitions));
                seen.insert(declared.clone(), tools.clone());
                tools
            }
        };
        requests.insert(key.into_owned(), tools);
    }
    Ok(requests)
}

#[cfg(test)]
mod tests {
    use super::*;

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
