//! Calls to Arrow columns: one row per call, one row per record that could not be read.
//! The schema and the values are those of `ArrowColumns` in the pure backend.

use super::canonical::{self, Stop};
use super::Outcome;
use crate::calls::{decode_object, Arguments};
use crate::compact;
use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use std::borrow::Cow;
use std::ops::AddAssign;
use std::sync::{Arc, OnceLock};

/// `record` (int64, not null), `custom_id`, `format`, `call_index` (int32), `id`,
/// `name`, `arguments`, `raw_arguments`, `error` (strings); a transcript's `turn`
/// (int32), `result` (string) and `result_error` (bool).
pub fn schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let text = |name| Field::new(name, DataType::Utf8, true);
            Arc::new(Schema::new(vec![
                Field::new("record", DataType::Int64, false),
                text("custom_id"),
                text("format"),
                Field::new("call_index", DataType::Int32, true),
                text("id"),
                text("name"),
                text("arguments"),
                text("raw_arguments"),
                text("error"),
                Field::new("turn", DataType::Int32, true),
                text("result"),
                Field::new("result_error", DataType::Boolean, true),
            ]))
        })
        .clone()
}

/// What a run found, for the summary.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub records: u64,
    pub records_with_calls: u64,
    pub calls: u64,
    pub undecodable_arguments: u64,
    pub failed: u64,
    /// Bytes of text read (decompressed; blank records included).
    pub text_bytes: u64,
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.records += other.records;
        self.records_with_calls += other.records_with_calls;
        self.calls += other.calls;
        self.undecodable_arguments += other.undecodable_arguments;
        self.failed += other.failed;
        self.text_bytes += other.text_bytes;
    }
}

/// The rows of one chunk of records.
#[derive(Debug)]
pub struct Chunk {
    pub batch: RecordBatch,
    pub counts: Counts,
}

impl Chunk {
    /// The same rows, their records numbered `first` higher.
    pub fn renumbered(mut self, first: i64) -> Result<Chunk, ArrowError> {
        if first == 0 {
            return Ok(self);
        }
        let numbers = self
            .batch
            .column(0)
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| ArrowError::SchemaError("record is not an int64 column".into()))?;
        let mut columns = self.batch.columns().to_vec();
        columns[0] = Arc::new(numbers.unary::<_, Int64Type>(|number| number + first));
        self.batch = RecordBatch::try_new(self.batch.schema(), columns)?;
        Ok(self)
    }
}

/// Builds the rows of one chunk of records.
pub struct Rows {
    record: Int64Builder,
    custom_id: StringBuilder,
    format: StringBuilder,
    call_index: Int32Builder,
    id: StringBuilder,
    name: StringBuilder,
    arguments: StringBuilder,
    raw_arguments: StringBuilder,
    error: StringBuilder,
    turn: Int32Builder,
    result: StringBuilder,
    result_error: BooleanBuilder,
    rows: usize,
    counts: Counts,
    scratch: String,
    kept: String,
}

impl Default for Rows {
    fn default() -> Self {
        Rows::new()
    }
}

impl Rows {
    pub fn new() -> Self {
        Rows::for_text(0)
    }

    /// Rows for about `bytes` of records: the arguments column is sized for about half
    /// of them at once, rather than grown (and copied) step by step.
    pub fn for_text(bytes: usize) -> Self {
        let rows = bytes / 1024 + 64;
        let text = |per_row: usize| StringBuilder::with_capacity(rows, rows * per_row);
        Rows {
            record: Int64Builder::with_capacity(rows),
            custom_id: text(16),
            format: text(8),
            call_index: Int32Builder::with_capacity(rows),
            id: text(32),
            name: text(16),
            // (At most 1 MiB: for a block of one long line, half its size set aside and
            // then grown to its arguments' size copied it and kept both.)
            arguments: StringBuilder::with_capacity(rows, (bytes / 2).min(1 << 20) + 1024),
            raw_arguments: StringBuilder::new(),
            error: StringBuilder::new(),
            turn: Int32Builder::new(),
            result: StringBuilder::new(),
            result_error: BooleanBuilder::new(),
            rows: 0,
            counts: Counts::default(),
            scratch: String::new(),
            kept: String::new(),
        }
    }

    /// The rows of one non-blank record.
    pub fn add(&mut self, number: i64, outcome: Outcome<'_>) {
        match outcome {
            // `str(ParseError)`, as in the pure backend.
            Outcome::NotJson(error) => self.add_failed(number, None, &error.to_string()),
            Outcome::Failed { custom_id, error } => {
                self.add_failed(number, custom_id.as_deref(), &error);
            }
            Outcome::Read { record, custom_id } => {
                let format = match record.format {
                    Ok(format) => format,
                    Err(error) => return self.add_failed(number, custom_id.as_deref(), &error),
                };
                self.counts.records += 1;
                if !record.calls.is_empty() {
                    self.counts.records_with_calls += 1;
                }
                for (index, call) in record.calls.iter().enumerate() {
                    self.counts.calls += 1;
                    self.rows += 1;
                    self.record.append_value(number);
                    self.custom_id.append_option(custom_id.as_deref());
                    self.format.append_value(format);
                    self.call_index
                        .append_value(i32::try_from(index).unwrap_or(i32::MAX));
                    self.id.append_option(call.id.as_deref());
                    self.name.append_value(call.name.as_deref().unwrap_or(""));
                    self.scratch.clear();
                    self.kept.clear();
                    let (arguments, raw): (&str, Option<&str>) = match &call.arguments {
                        Arguments::Missing => ("{}", None),
                        Arguments::Object(idx) => {
                            compact::write_arguments(&record.tape, *idx, &mut self.scratch);
                            (&self.scratch, None)
                        }
                        Arguments::Decoded(tape) => {
                            compact::write_arguments(tape, 0, &mut self.scratch);
                            (&self.scratch, None)
                        }
                        Arguments::Undecodable(text) => ("{}", Some(text)),
                        // Another JSON value: kept as its JSON text.
                        Arguments::Other(idx) => {
                            compact::write_value(&record.tape, *idx, &mut self.kept);
                            ("{}", Some(&self.kept))
                        }
                        Arguments::Value(tape) => {
                            compact::write_value(tape, 0, &mut self.kept);
                            ("{}", Some(&self.kept))
                        }
                        Arguments::Encoded(idx) => {
                            let text = record.tape.str_at(*idx).unwrap_or_default();
                            // Sized once: grown step by step, a long text's copies add up.
                            self.scratch.reserve(text.len());
                            match canonical::object(text, &mut self.scratch) {
                                Ok(compact) => (compact, None),
                                Err(Stop::NotObject) => ("{}", Some(text)),
                                Err(Stop::Decode) => match decode_object(Cow::Borrowed(text)) {
                                    Arguments::Decoded(tape) => {
                                        self.scratch.clear();
                                        compact::write_arguments(&tape, 0, &mut self.scratch);
                                        (&self.scratch, None)
                                    }
                                    _ => ("{}", Some(text)),
                                },
                            }
                        }
                    };
                    if raw.is_some() {
                        self.counts.undecodable_arguments += 1;
                    }
                    self.arguments.append_value(arguments);
                    self.raw_arguments.append_option(raw);
                    self.error.append_null();
                    match record.turns.get(index) {
                        Some(turn) => {
                            self.turn
                                .append_value(i32::try_from(turn.turn).unwrap_or(i32::MAX));
                            let (text, error) = turn
                                .result
                                .as_ref()
                                .map_or((None, None), |r| (r.0.as_deref(), Some(r.1)));
                            self.result.append_option(text);
                            self.result_error.append_option(error);
                        }
                        None => {
                            self.turn.append_null();
                            self.result.append_null();
                            self.result_error.append_null();
                        }
                    }
                }
            }
        }
    }

    /// One row for a record that could not be read.
    pub fn add_failed(&mut self, number: i64, custom_id: Option<&str>, error: &str) {
        self.counts.records += 1;
        self.counts.failed += 1;
        self.rows += 1;
        self.record.append_value(number);
        self.custom_id.append_option(custom_id);
        self.format.append_null();
        self.call_index.append_null();
        self.id.append_null();
        self.name.append_null();
        self.arguments.append_null();
        self.raw_arguments.append_null();
        self.error.append_value(error);
        self.turn.append_null();
        self.result.append_null();
        self.result_error.append_null();
    }

    pub fn finish(mut self) -> Result<Chunk, ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.record.finish()),
            Arc::new(self.custom_id.finish()),
            Arc::new(self.format.finish()),
            Arc::new(self.call_index.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.arguments.finish()),
            Arc::new(self.raw_arguments.finish()),
            Arc::new(self.error.finish()),
            Arc::new(self.turn.finish()),
            Arc::new(self.result.finish()),
            Arc::new(self.result_error.finish()),
        ];
        Ok(Chunk {
            batch: RecordBatch::try_new(schema(), columns)?,
            counts: self.counts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::{read_record, Reader};
    use crate::formats::Format;
    use arrow_array::{Array, StringArray};

    #[test]
    fn rows_of_records() {
        let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
        let lines: [&[u8]; 4] = [
            br#"{"choices":[{"message":{"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\"b\": 1.0e2, \"a\":[true]}"}},{"function":{"name":"g","arguments":"{oops"}},{"function":{"name":"h","arguments":[1,2.5]}}]}}]}"#,
            b"{nope",
            br#"{"custom_id":"r9","error":{"message":"gone"}}"#,
            br#"{"choices":[]}"#,
        ];
        let mut rows = Rows::new();
        for (n, line) in lines.iter().enumerate() {
            rows.add(n as i64, read_record(&format, line, None));
        }
        let chunk = rows.finish().unwrap();
        // The one-pass writing of argument strings gives the same rows.
        let encoded = Reader::new(&format, None).with_encoded_arguments();
        let mut rows = Rows::new();
        for (n, line) in lines.iter().enumerate() {
            rows.add(n as i64, encoded.read(line));
        }
        assert_eq!(rows.finish().unwrap().batch, chunk.batch);
        assert_eq!(
            chunk.counts,
            Counts {
                records: 4,
                records_with_calls: 1,
                calls: 3,
                undecodable_arguments: 2,
                failed: 2,
                text_bytes: 0,
            }
        );
        assert_eq!(chunk.batch.num_rows(), 5);
        let strings = |name: &str| -> Vec<Option<String>> {
            let column = chunk.batch.column_by_name(name).unwrap();
            let column = column.as_any().downcast_ref::<StringArray>().unwrap();
            (0..column.len())
                .map(|i| (!column.is_null(i)).then(|| column.value(i).to_owned()))
                .collect()
        };
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(
            strings("arguments"),
            vec![s(r#"{"b":100.0,"a":[true]}"#), s("{}"), s("{}"), None, None]
        );
        assert_eq!(
            strings("raw_arguments"),
            vec![None, s("{oops"), s("[1,2.5]"), None, None]
        );
        assert_eq!(strings("custom_id")[4], s("r9"));
        assert_eq!(strings("error")[4], s("batch error: gone"));
        // The pure twin's `str(ParseError)`, made in Rust.
        assert_eq!(strings("error")[3], s("expected a string key at byte 1"));

        // Numbered from a block's first line, then moved to the block's place in the file.
        let chunk_names = chunk.batch.column(5).clone();
        let moved = chunk.renumbered(100).unwrap();
        let records = moved.batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(records.values(), &[100, 100, 100, 101, 102]);
        assert_eq!(moved.batch.column(5), &chunk_names); // the rest as it was
    }
}
