//! The context columns (`model`, `response_id`, `finish_reason`, `choice_index`,
//! `call_type`) of the Arrow rows: tests/vectors/context.json, which pytest runs on both
//! backends too (tests/test_context.py). Each object record is read as the bulk reader
//! reads it (the hand-written full parse) and again on a pruned tape (a number beyond
//! the float range turns the full parse down): the members the context reads are kept.

#[allow(dead_code)] // not every helper is used here
mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::Array;
use common::load;
use serde_json::Value;
use toolsift::bulk::rows::Rows;
use toolsift::bulk::Reader;
use toolsift::formats::Format;

/// `[name, model, response_id, finish_reason, choice_index, call_type]` of every row
/// (`every_record`: a record without calls has a row too, its name null).
fn rows(format: &Format, text: &str, every_record: bool) -> Vec<Value> {
    let reader = Reader::new(format, None).with_encoded_arguments();
    let mut rows = Rows::new().with_every_record(every_record);
    rows.add(0, reader.read(text.as_bytes()));
    let batch = rows.finish().unwrap().batch;
    let strings = |name: &str| {
        batch
            .column_by_name(name)
            .unwrap()
            .as_string::<i32>()
            .clone()
    };
    let [name, model, id, finish, kind] =
        ["name", "model", "response_id", "finish_reason", "call_type"].map(strings);
    let choice = batch.column_by_name("choice_index").unwrap();
    let choice = choice.as_primitive::<Int32Type>();
    let text = |column: &arrow_array::StringArray, row: usize| {
        if column.is_null(row) {
            Value::Null
        } else {
            Value::from(column.value(row))
        }
    };
    (0..batch.num_rows())
        .map(|row| {
            let index = if choice.is_null(row) {
                Value::Null
            } else {
                Value::from(choice.value(row))
            };
            Value::Array(vec![
                text(&name, row),
                text(&model, row),
                text(&id, row),
                text(&finish, row),
                index,
                text(&kind, row),
            ])
        })
        .collect()
}

#[test]
fn context_vectors() {
    for case in load("context.json") {
        let name = case["name"].as_str().unwrap();
        let format = Format::new(
            case["format"].as_str().unwrap(),
            "tool_calls",
            "name",
            "arguments",
            false,
        )
        .unwrap()
        .with_text_dialect(case["text_dialect"].as_str(), None)
        .unwrap();
        let text = case["text"].as_str().unwrap();
        let expected = case["rows"].as_array().unwrap();
        // A record without calls: its one row (`every_record`) has the model and id.
        let by_record = case.get("by_record").filter(|_| expected.is_empty());
        let check = |text: &str| {
            assert_eq!(&rows(&format, text, false), expected, "{name}");
            if let Some(by_record) = by_record {
                let [row] = &rows(&format, text, true)[..] else {
                    panic!("{name}: one row")
                };
                let (row, want) = (row.as_array().unwrap(), by_record.as_array().unwrap());
                assert_eq!(row[1..3], want[..2], "{name}: by record");
            }
        };
        check(text);
        // On a pruned tape (an object record only: the others are read in full).
        if let Some(inner) = text.strip_suffix('}').filter(|_| text.starts_with('{')) {
            check(&format!("{inner},\"zz\":1e400}}"));
        }
    }
}
