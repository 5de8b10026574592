//! The shared stream vectors in tests/vectors/<format>.stream.json, run on the Rust core
//! (pytest runs the same files on both backends, feeding dicts, SDK objects and text).
//! Here every event is fed as text: an object as its JSON text, a string as it is, and
//! `{"$hex": ...}` as its bytes.

mod common;

use common::{load, same, value};
use serde_json::{Map, Value};
use toolsift::accumulator::StreamCall;
use toolsift::calls::Arguments;
use toolsift::events::Reader;
use toolsift::formats::{Format, Walked};
use toolsift::framing::starts_sse;
use toolsift::record::parse_record;
use toolsift::stream::Stream;

/// Every case of the stream vectors, with the reader of its file's format.
fn stream_cases() -> Vec<(Walked, Value)> {
    Walked::ALL
        .iter()
        .flat_map(|&walked| {
            let cases = load(&format!("{}.stream.json", walked.name()));
            cases.into_iter().map(move |case| (walked, case))
        })
        .collect()
}

/// A call as the vectors write it: `{name, arguments, id, raw_arguments}`.
fn call_value(call: &StreamCall<'_>) -> Value {
    let (arguments, raw) = match &call.arguments {
        Arguments::Missing => (Value::Object(Map::new()), Value::Null),
        Arguments::Decoded(args) => (value(args, 0), Value::Null),
        Arguments::Undecodable(text) | Arguments::Verbatim(text) => {
            (Value::Object(Map::new()), Value::String(text.to_string()))
        }
        // Another value given whole: kept as its JSON text.
        Arguments::Value(tape) => (
            Value::Object(Map::new()),
            Value::String(toolsift::compact::to_string(tape, 0)),
        ),
        other => panic!("a stream call's arguments are never {other:?}"),
    };
    let raw = call.raw.map_or(raw, |text| Value::String(text.to_owned()));
    let name = Value::String(call.name.unwrap_or_default().to_owned());
    let id = call
        .id
        .map_or(Value::Null, |id| Value::String(id.to_owned()));
    serde_json::json!({"name": name, "arguments": arguments, "id": id, "raw_arguments": raw})
}

fn bytes_of(event: &Value) -> Vec<u8> {
    match event {
        Value::String(text) => text.as_bytes().to_vec(),
        Value::Object(map) if map.contains_key("$hex") => {
            let hex = map["$hex"].as_str().unwrap();
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()
        }
        other => serde_json::to_vec(other).unwrap(),
    }
}

fn check(name: &str, got: &[Value], expected: &Value) {
    let expected = expected.as_array().unwrap();
    assert!(
        got.len() == expected.len() && got.iter().zip(expected).all(|(g, e)| same(g, e)),
        "{name}:\n got      {got:?}\n expected {expected:?}"
    );
}

#[test]
fn stream_vectors() {
    let mut checked = 0;
    for (_, case) in stream_cases() {
        let name = case["name"].as_str().unwrap();
        let parser = Walked::named(case["parser"].as_str().unwrap()).unwrap();
        for reader in [Reader::Walked(parser), Reader::Auto] {
            let mut stream = Stream::new(reader);
            let mut done = Vec::new();
            for event in case["events"].as_array().unwrap() {
                let completed = stream
                    .feed_text(&bytes_of(event))
                    .unwrap_or_else(|(err, _)| panic!("{name}: {err}"));
                done.push(Value::from(completed.len()));
            }
            if let Some(expected) = case.get("done") {
                assert_eq!(&Value::Array(done), expected, "{name}: done");
            }
            stream.finish();
            let got: Vec<Value> = stream.calls().iter().map(call_value).collect();
            check(name, &got, &case["calls"]);
            let error = stream.error(got.is_empty()).map(Value::from);
            assert_eq!(error.as_ref(), case.get("error"), "{name}: error");
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} stream vectors checked");
}

/// The vectors' `response`: the non-streamed response of the same call, or the event
/// itself where it is given alone, which `parse` reads as a stream of that one event,
/// named and auto: the same calls and error.
#[test]
fn stream_vectors_response() {
    let (mut checked, mut alone) = (0, 0);
    for (_, case) in stream_cases() {
        let Some(response) = case.get("response") else {
            continue;
        };
        let name = case["name"].as_str().unwrap();
        let parser = Walked::named(case["parser"].as_str().unwrap()).unwrap();
        let mut formats = vec![Format::Walked(parser)];
        if case["events"].as_array().unwrap() == std::slice::from_ref(response) {
            formats.push(Format::Auto);
            alone += 1;
        }
        let text = serde_json::to_vec(response).unwrap();
        for format in &formats {
            let record = parse_record(format, &text).unwrap();
            let got: Vec<Value> = (record.calls.iter())
                .map(|call| common::call_value(&record.tape, call))
                .collect();
            check(name, &got, &case["calls"]);
            let error = record.format.err().map(Value::from);
            assert_eq!(
                error.as_ref(),
                case.get("error"),
                "{name} ({format:?}): error"
            );
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked} responses checked");
    assert!(alone >= 10, "{alone} events given alone checked");
}

/// `partial` vectors: what `partial()` gives after the named event.
#[test]
fn stream_partial_vectors() {
    let mut checked = 0;
    for (walked, case) in stream_cases() {
        let Some(partial) = case.get("partial") else {
            continue;
        };
        let name = case["name"].as_str().unwrap();
        let at = partial[0].as_u64().unwrap() as usize;
        let mut stream = Stream::new(Reader::Walked(walked));
        for event in &case["events"].as_array().unwrap()[..=at] {
            stream.feed_text(&bytes_of(event)).unwrap();
        }
        let got: Vec<Value> = stream.partial().iter().map(call_value).collect();
        check(name, &got, &partial[1]);
        checked += 1;
    }
    assert!(checked >= 2);
}

/// Cut after any event (and the SSE transcripts after any byte): reading never fails
/// for a cut, and the calls completed so far stay completed at `finish`.
#[test]
fn stream_every_prefix() {
    for (walked, case) in stream_cases() {
        let events: Vec<Vec<u8>> = case["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(bytes_of)
            .collect();
        let whole: Vec<u8> = events.concat();
        let sse = events.first().is_some_and(|e| starts_sse(e));
        let cuts: Vec<Vec<Vec<u8>>> = if sse {
            // One transcript fed in two pieces, cut at every byte.
            (0..=whole.len())
                .map(|cut| vec![whole[..cut].to_vec(), whole[cut..].to_vec()])
                .collect()
        } else {
            (0..=events.len())
                .map(|cut| events[..cut].to_vec())
                .collect()
        };
        for events in cuts {
            let mut stream = Stream::new(Reader::Walked(walked));
            let mut completed = 0;
            for event in &events {
                completed += stream.feed_text(event).unwrap().len();
                let _ = stream.partial();
            }
            stream.finish();
            assert!(stream.calls().len() >= completed);
        }
    }
}

/// `json::parse_plain` (the stream events' fast path) builds the tape `json::parse`
/// builds, on every vector file and every stream event, where it reads the text at all.
#[test]
fn parse_plain_agrees_with_parse() {
    let mut read = 0;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read(&path).unwrap();
            let doc: Value = serde_json::from_slice(&text).unwrap();
            texts.push(text);
            let mut todo = vec![doc];
            while let Some(value) = todo.pop() {
                match value {
                    Value::String(s) => texts.push(s.into_bytes()),
                    Value::Array(items) => todo.extend(items),
                    Value::Object(members) => {
                        texts.push(serde_json::to_vec(&Value::Object(members.clone())).unwrap());
                        todo.extend(members.into_iter().map(|(_, v)| v));
                    }
                    _ => {}
                }
            }
        }
    }
    for text in &texts {
        if let Some(plain) = toolsift::json::parse_plain(text) {
            let full = toolsift::json::parse(text).expect("parse_plain reads only JSON");
            let first = (plain.tokens.iter().zip(&full.tokens)).position(|(a, b)| a != b);
            assert!(
                first.is_none() && plain.tokens.len() == full.tokens.len(),
                "token {first:?} of {}: {:?} against {:?}",
                String::from_utf8_lossy(&text[..text.len().min(200)]),
                first.map(|at| &plain.tokens[at]),
                first.map(|at| &full.tokens[at]),
            );
            read += 1;
        }
    }
    assert!(read > 1000, "{read} texts read");
}
