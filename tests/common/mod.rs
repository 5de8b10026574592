//! What the cargo tests over the shared vectors (tests/vectors/) have in common: loading
//! a vector file, a tape value as serde_json's, and type-exact JSON equality.

use serde_json::{Map, Value};
use std::path::Path;
use toolsift::calls::{Arguments, Call};
use toolsift::json::{Tape, Token};

pub fn load(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("vector file");
    serde_json::from_str(&text).expect("vector file is JSON")
}

/// The tape value at `idx` as a serde_json value (duplicate keys: the last wins).
pub fn value(tape: &Tape<'_>, idx: usize) -> Value {
    match &tape.tokens[idx] {
        Token::Null => Value::Null,
        Token::Bool(b) => Value::Bool(*b),
        Token::Int(i) => Value::from(*i),
        Token::UInt(u) => Value::from(*u),
        Token::BigInt(digits) | Token::HugeFloat(digits) => {
            serde_json::from_str(tape.text(digits)).unwrap()
        }
        Token::Float(f) => Value::from(*f),
        Token::Str(s) => Value::String(tape.text(s).to_string()),
        Token::Array { end, .. } => {
            let mut items = Vec::new();
            let mut at = idx + 1;
            while at < *end as usize {
                items.push(value(tape, at));
                at = tape.skip(at);
            }
            Value::Array(items)
        }
        Token::Object { end, .. } => {
            let mut map = Map::new();
            let mut at = idx + 1;
            while at < *end as usize {
                let key = tape.str_at(at).expect("keys are strings");
                map.insert(key.to_string(), value(tape, at + 1));
                at = tape.skip(at + 1);
            }
            Value::Object(map)
        }
    }
}

/// Equal JSON values; numbers compare by value and kind (integer or float).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.to_string(), y.to_string());
            match (x.parse::<i128>(), y.parse::<i128>()) {
                (Ok(i), Ok(j)) => i == j,
                (Err(_), Err(_)) => {
                    x.parse::<f64>().unwrap().to_bits() == y.parse::<f64>().unwrap().to_bits()
                }
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(i, j)| same(i, j))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A call of a parsed response as the vectors write it: `{name, arguments, id,
/// raw_arguments}`.
#[allow(dead_code)] // not every test file reads parsed responses
pub fn call_value(tape: &Tape<'_>, call: &Call<'_>) -> Value {
    let (arguments, raw) = match &call.arguments {
        Arguments::Missing => (Value::Object(Map::new()), Value::Null),
        Arguments::Object(idx) => (value(tape, *idx), Value::Null),
        Arguments::Decoded(args) => (value(args, 0), Value::Null),
        Arguments::Undecodable(text) | Arguments::Verbatim(text) => {
            (Value::Object(Map::new()), Value::String(text.to_string()))
        }
        Arguments::Value(value_tape) => (
            Value::Object(Map::new()),
            Value::String(serde_json::to_string(&value(value_tape, 0)).unwrap()),
        ),
        Arguments::Other(idx) => (
            Value::Object(Map::new()),
            Value::String(serde_json::to_string(&value(tape, *idx)).unwrap()),
        ),
        Arguments::Encoded(_) => panic!("parse_record decodes arguments"),
    };
    let name = Value::String(call.name.as_deref().unwrap_or_default().to_owned());
    let id = call
        .id
        .as_deref()
        .map_or(Value::Null, |id| Value::String(id.to_owned()));
    serde_json::json!({"name": name, "arguments": arguments, "id": id, "raw_arguments": raw})
}
