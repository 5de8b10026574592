//! Schema typing: the values XML-style dialects carry as text, typed by the tool's JSON
//! Schema. The twin of `python/toolsift/_pure/dialects/_schema.py`, line by line; its
//! docstring is the specification (and holds the table of conversions per type).

use serde_json::Value;

use crate::json::write_str;
use crate::json::{self, Tape, Token};

/// The types a value can be converted to (anything else is read as `string`).
pub const KNOWN_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "object", "array",
];
/// The Python spellings of literals the Qwen3-Coder / Qwen3.5 templates write (`| string`).
const PYTHON_LITERALS: &[(&str, &str)] = &[("True", "true"), ("False", "false"), ("None", "null")];

/// The types `schema` allows, in order: its `type` (a name or a list of names), else the
/// types of its `anyOf` / `oneOf` items in order; unknown names are dropped.
pub fn schema_types(schema: &Value) -> Vec<&str> {
    let Some(schema) = schema.as_object() else {
        return Vec::new();
    };
    match schema.get("type") {
        Some(Value::String(declared)) => KNOWN_TYPES
            .iter()
            .copied()
            .filter(|known| *known == declared)
            .collect(),
        Some(Value::Array(declared)) => (declared.iter())
            .filter_map(Value::as_str)
            .filter(|name| KNOWN_TYPES.contains(name))
            .collect(),
        _ => {
            let mut types = Vec::new();
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(options)) = schema.get(key) {
                    for option in options {
                        types.extend(schema_types(option));
                    }
                }
            }
            types
        }
    }
}

/// Writes the JSON text of the value `text` typed by `schema` (None: undeclared).
pub fn typed_value(out: &mut String, text: &str, schema: Option<&Value>) {
    let types = schema.map(schema_types).unwrap_or_default();
    if types.contains(&"null") && fitted_json(text, "null").is_some() {
        out.push_str("null"); // a nullable parameter's null, whatever comes first
        return;
    }
    for kind in types {
        if kind == "string" {
            break;
        }
        if let Some(fitted) = fitted_json(text, kind) {
            out.push_str(fitted);
            return;
        }
    }
    json_string(out, text);
}

/// The JSON text of `text` as a value of type `kind`, or None when it does not fit.
fn fitted_json<'t>(text: &'t str, kind: &str) -> Option<&'t str> {
    let text = (PYTHON_LITERALS.iter())
        .find(|(python, _)| *python == text)
        .map_or(text, |(_, literal)| literal);
    let tape = decoded(text)?;
    let fits = matches!(
        (kind, &tape.tokens[0]),
        ("null", Token::Null)
            | ("integer", Token::Int(_) | Token::UInt(_) | Token::BigInt(_))
            | (
                "number",
                Token::Int(_) | Token::UInt(_) | Token::BigInt(_) | Token::Float(_)
            )
            | ("boolean", Token::Bool(_))
            | ("object", Token::Object { .. })
            | ("array", Token::Array { .. })
    );
    fits.then_some(text)
}

/// `text` decoded by the project's JSON parser; None when it is not JSON, or holds an
/// integer Python refuses to make.
fn decoded(text: &str) -> Option<Tape<'_>> {
    json::parse_str(text)
        .ok()
        .filter(|tape| !json::holds_too_long_int(tape))
}

/// Writes the JSON text of `text` when it is one JSON value (any type), else `text` as a
/// JSON string.
pub fn json_or_text(out: &mut String, text: &str) {
    if decoded(text).is_some() {
        out.push_str(text);
        return;
    }
    json_string(out, text);
}

/// Writes `text` as a JSON string.
pub fn json_string(out: &mut String, text: &str) {
    write_str(text, out);
}

/// The JSON object text of `(key, value JSON text)` pairs, in order.
pub fn object_text(pairs: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (n, (key, value)) in pairs.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        json_string(&mut out, key);
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str, schema: &str) -> String {
        let schema: Value = serde_json::from_str(schema).unwrap();
        let mut out = String::new();
        typed_value(&mut out, text, Some(&schema));
        out
    }

    #[test]
    fn types_are_tried_in_order_and_text_stays_when_none_fits() {
        assert_eq!(typed("03106", r#"{"type": "integer"}"#), r#""03106""#);
        assert_eq!(typed("42", r#"{"type": ["string", "integer"]}"#), r#""42""#);
        assert_eq!(typed("None", r#"{"type": ["integer", "null"]}"#), "null");
        assert_eq!(typed("null", r#"{"type": ["string", "null"]}"#), "null");
        assert_eq!(typed("nil", r#"{"type": ["string", "null"]}"#), r#""nil""#);
        assert_eq!(typed("1e400", r#"{"type": "number"}"#), r#""1e400""#);
        assert_eq!(typed("True", r#"{"anyOf": [{"type": "boolean"}]}"#), "true");
        assert_eq!(typed("[1]", r#"{"type": "object"}"#), r#""[1]""#);
    }
}
