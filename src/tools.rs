//! Tool definitions: the one reader of what a request declared, in every provider's shape.
//! The twin of `python/toolsift/_pure/tools.py`, line by line; its docstring is the
//! specification (and holds the table of shapes). The raw-text dialects read it to type
//! argument values, the checks against the declared tools (`crate::violations`) to find
//! each tool's schema.

use serde_json::{Map, Value};
use std::collections::HashMap;

/// Each declared tool's arguments schema by name (None: a tool whose calls are not
/// checked: a custom tool, or a mapping's null).
pub type Definitions = HashMap<String, Option<Value>>;

/// The tools `value` declares (the shapes of the twin's docstring); an error for a value
/// of no shape.
pub fn read_definitions(value: &Value) -> Result<Definitions, String> {
    let mut found = Definitions::new();
    let object = match value {
        Value::Array(items) => {
            for item in items {
                read_item(item, &mut found);
            }
            return Ok(found);
        }
        Value::Object(object) => object,
        _ => return Err("tools: expected a list of tool definitions or an object".to_owned()),
    };
    if let Some(Value::Array(tools)) = object
        .get("toolConfig")
        .and_then(Value::as_object)
        .and_then(|config| config.get("tools"))
    {
        return read_definitions(&Value::Array(tools.clone()));
    }
    if let Some(tools @ Value::Array(_)) = object.get("tools") {
        return read_definitions(tools);
    }
    if declarations(object).is_some() {
        read_item(value, &mut found);
        return Ok(found);
    }
    for (name, schema) in object {
        if !schema.is_object() && !schema.is_null() {
            let name = Value::String(name.clone());
            return Err(format!("tools: the schema of {name} is not an object"));
        }
        found
            .entry(name.clone())
            .or_insert_with(|| (!schema.is_null()).then(|| schema.clone()));
    }
    Ok(found)
}

fn declarations(item: &Map<String, Value>) -> Option<&Vec<Value>> {
    ["functionDeclarations", "function_declarations"]
        .iter()
        .find_map(|key| item.get(*key).and_then(Value::as_array))
}

fn read_item(item: &Value, found: &mut Definitions) {
    let Some(item) = item.as_object() else {
        return;
    };
    if let Some(declared) = declarations(item) {
        for declaration in declared.iter().filter_map(Value::as_object) {
            let name = declaration.get("name");
            let schema = match declaration.get("parametersJsonSchema") {
                Some(schema) => schema.clone(),
                None => openapi(declaration.get("parameters").unwrap_or(&empty())),
            };
            add(found, name, Some(schema));
        }
        return;
    }
    if let Some(spec) = item.get("toolSpec").and_then(Value::as_object) {
        let schema = match spec.get("inputSchema") {
            Some(Value::Object(input)) => input.get("json").cloned().unwrap_or_else(empty),
            _ => empty(),
        };
        add(found, spec.get("name"), Some(schema));
        return;
    }
    let definition = match item.get("function") {
        Some(Value::Object(function)) => function,
        _ => item,
    };
    let name = definition.get("name");
    if item.get("type").and_then(Value::as_str) == Some("custom") {
        return add(found, name, None);
    }
    for key in ["parameters", "input_schema"] {
        if let Some(schema) = definition.get(key) {
            return add(found, name, Some(schema.clone()));
        }
    }
    add(found, name, Some(empty()));
}

/// A schema of null is none (the tool's calls are not checked).
fn add(found: &mut Definitions, name: Option<&Value>, schema: Option<Value>) {
    if let Some(Value::String(name)) = name {
        let schema = schema.filter(|schema| !schema.is_null());
        found.entry(name.clone()).or_insert(schema);
    }
}

fn empty() -> Value {
    Value::Object(Map::new())
}

/// Gemini's OpenAPI schema as JSON Schema: `type` names lower-cased, `nullable: true` a
/// `"null"` type, at every level.
fn openapi(schema: &Value) -> Value {
    match schema {
        Value::Array(items) => Value::Array(items.iter().map(openapi).collect()),
        Value::Object(object) => {
            let mut read: Map<String, Value> = (object.iter())
                .map(|(key, item)| (key.clone(), openapi(item)))
                .collect();
            if let Some(Value::String(kind)) = read.get("type") {
                let kind = kind.to_lowercase();
                let nullable = read.get("nullable") == Some(&Value::Bool(true));
                let typed = if nullable {
                    Value::Array(vec![Value::String(kind), Value::String("null".into())])
                } else {
                    Value::String(kind)
                };
                read.insert("type".into(), typed);
            }
            Value::Object(read)
        }
        other => other.clone(),
    }
}
