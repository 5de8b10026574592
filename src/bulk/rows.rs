//! Calls to Arrow columns: one row per call, one row per record that could not be read.
//! The schema and the values are those of `ArrowColumns` in the pure backend.

use super::canonical::{self, Stop};
use super::Outcome;
use crate::calls::{decode_object, Arguments, Call, CallTurn, Context, Record};
use crate::json::Tape;
use crate::json_errors;
use crate::violations::Checks;
use crate::{compact, defects};
use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use std::borrow::Cow;
use std::ops::AddAssign;
use std::sync::{Arc, OnceLock};

/// `record` (int64, not null), `custom_id`, `format`, `call_index` (int32), `id`,
/// `name`, `arguments`, `raw_arguments`, `error`, `defect` (strings), `repairs` (a list
/// of strings), `violations` (a list of strings: null without checks); the context
/// columns `model`, `response_id`, `finish_reason`, `choice_index` (int32), `call_type`;
/// `error_kind` (string) and `http_status` (int32) of a failed record
/// (`crate::json_errors::error_kind`); a transcript's `turn` (int32), `result` (string)
/// and `result_error` (bool).
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
                text("defect"),
                Field::new(
                    "repairs",
                    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                    true,
                ),
                Field::new("violations", violations_type(), true),
                text("model"),
                text("response_id"),
                text("finish_reason"),
                Field::new("choice_index", DataType::Int32, true),
                text("call_type"),
                text("error_kind"),
                Field::new("http_status", DataType::Int32, true),
                Field::new("turn", DataType::Int32, true),
                text("result"),
                Field::new("result_error", DataType::Boolean, true),
            ]))
        })
        .clone()
}

fn violations_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
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

/// Appends the `violations` of a call (`custom_id`, `name`) whose arguments are the JSON
/// object text `arguments` (None: they did not decode): null without checks.
fn append_violations(
    (column, codes): (&mut ListBuilder<StringBuilder>, &mut Vec<String>),
    checks: Option<&Checks>,
    (custom_id, name): (Option<&str>, &str),
    arguments: Option<&str>,
) {
    let Some(checks) = checks else {
        return column.append_null();
    };
    checks.violations(custom_id, name, arguments, codes);
    for code in codes.iter() {
        column.values().append_value(code);
    }
    column.append(true);
}

/// A row without a call, written at the end of its chunk (`Rows::with_every_record`).
#[derive(Debug)]
struct Deferred {
    number: i64,
    custom_id: Option<String>,
    format: Option<String>,
    error: Option<String>,
    about: About,
    carried: Vec<Option<String>>,
}

/// The model and response id of a record without calls (its row's context columns).
type About = (Option<String>, Option<String>);

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
    defect: StringBuilder,
    repairs: ListBuilder<StringBuilder>,
    /// `repair="safe"`: a call's arguments are those its audited repairs make.
    repair: bool,
    violations: ListBuilder<StringBuilder>,
    checks: Option<Arc<Checks>>,
    codes: Vec<String>,
    model: StringBuilder,
    response_id: StringBuilder,
    finish_reason: StringBuilder,
    choice_index: Int32Builder,
    call_type: StringBuilder,
    error_kind: StringBuilder,
    http_status: Int32Builder,
    /// A row for a record without calls too (`rows="records"`): null call columns. Then
    /// every row without a call comes after those with calls (`deferred`), so that the
    /// calls are one slice of the columns, grouped by record without a copy.
    every_record: bool,
    deferred: Vec<Deferred>,
    /// The `carry=` columns (named by their dot paths), after all the others, and the
    /// values of the record being added (`Carry::values`), on each of its rows.
    carried: Vec<(String, StringBuilder)>,
    carried_values: Vec<Option<String>>,
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
            defect: StringBuilder::new(),
            repairs: ListBuilder::new(StringBuilder::new()),
            repair: false,
            violations: ListBuilder::new(StringBuilder::new()),
            checks: None,
            codes: Vec::new(),
            model: text(16),
            response_id: text(24),
            finish_reason: text(8),
            choice_index: Int32Builder::with_capacity(rows),
            call_type: text(8),
            error_kind: StringBuilder::new(),
            http_status: Int32Builder::new(),
            every_record: false,
            deferred: Vec::new(),
            carried: Vec::new(),
            carried_values: Vec::new(),
            turn: Int32Builder::new(),
            result: StringBuilder::new(),
            result_error: BooleanBuilder::new(),
            rows: 0,
            counts: Counts::default(),
            scratch: String::new(),
            kept: String::new(),
        }
    }

    /// The same, making the audited repairs where `repair` (the parser's `repair="safe"`).
    pub fn repairing(mut self, repair: bool) -> Self {
        self.repair = repair;
        self
    }

    /// Rows whose calls are checked by `checks` (None: `violations` is null).
    pub fn with_checks(mut self, checks: Option<Arc<Checks>>) -> Self {
        self.checks = checks;
        self
    }

    /// The same, with a row for each record without calls too (its call columns null):
    /// the rows `rows="records"` groups by record.
    pub fn with_every_record(mut self, every_record: bool) -> Self {
        self.every_record = every_record;
        self
    }

    /// The same, with a column per carried field (`names`: their dot paths).
    pub fn with_carried(mut self, names: &[String]) -> Self {
        self.carried = names
            .iter()
            .map(|name| (name.clone(), StringBuilder::new()))
            .collect();
        self
    }

    /// The carried fields of the next record added (`Carry::values`).
    pub fn carry(&mut self, values: Vec<Option<String>>) {
        self.carried_values = values;
    }

    fn add_carried(&mut self) {
        for (at, (_, column)) in self.carried.iter_mut().enumerate() {
            let value = self.carried_values.get(at).and_then(Option::as_deref);
            column.append_option(value);
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
                } else if self.every_record {
                    let context = &record.context;
                    let owned = |text: &Option<Cow<'_, str>>| text.as_deref().map(str::to_owned);
                    let about = (owned(&context.model), owned(&context.response_id));
                    self.add_row(number, custom_id.as_deref(), Some(format), None, about);
                }
                for (index, call) in record.calls.iter().enumerate() {
                    self.add_call(number, custom_id.as_deref(), format, &record, index, call);
                }
            }
        }
    }

    /// The row of the call at `index` of `record`.
    fn add_call(
        &mut self,
        number: i64,
        custom_id: Option<&str>,
        format: &str,
        record: &Record<'_>,
        index: usize,
        call: &Call<'_>,
    ) {
        self.counts.calls += 1;
        self.rows += 1;
        self.record.append_value(number);
        self.custom_id.append_option(custom_id);
        self.format.append_value(format);
        self.call_index
            .append_value(i32::try_from(index).unwrap_or(i32::MAX));
        self.id.append_option(call.id.as_deref());
        self.name.append_value(call.name.as_deref().unwrap_or(""));
        self.scratch.clear();
        self.kept.clear();
        let (arguments, raw) = arguments_text(
            &record.tape,
            &call.arguments,
            &mut self.scratch,
            &mut self.kept,
        );
        if raw.is_some() {
            self.counts.undecodable_arguments += 1;
        }
        let found = match raw {
            // A custom tool's input is free text by design: no defect.
            Some(text) if !matches!(call.arguments, Arguments::Verbatim(_)) => {
                Some(defects::salvage(text))
            }
            _ => None,
        };
        let repaired = found.as_ref().and_then(|found| found.repaired.as_ref());
        let of = (custom_id, call.name.as_deref().unwrap_or(""));
        let (column, checks) = ((&mut self.violations, &mut self.codes), &self.checks);
        match repaired.filter(|_| self.repair) {
            Some((object, codes)) => {
                let mut text = String::new();
                compact::write_arguments(object, 0, &mut text);
                append_violations(column, checks.as_deref(), of, Some(&text));
                self.arguments.append_value(text);
                for code in codes.codes() {
                    self.repairs.values().append_value(code);
                }
                self.repairs.append(true);
            }
            None => {
                let decoded = raw.is_none().then_some(arguments);
                append_violations(column, checks.as_deref(), of, decoded);
                self.arguments.append_value(arguments);
                self.repairs.append_null();
            }
        }
        let (finish_reason, ..) = record.context.call(index);
        let defect = found.map(|found| defects::by_limit(found.defect, finish_reason));
        self.defect.append_option(defect);
        self.raw_arguments.append_option(raw);
        self.error.append_null();
        self.add_context(&record.context, index);
        self.error_kind.append_null();
        self.http_status.append_null();
        self.add_turn(record.turns.get(index));
        self.add_carried();
    }

    /// The context columns of the call at `index` of a record whose context is `context`.
    fn add_context(&mut self, context: &Context<'_>, index: usize) {
        let (finish_reason, choice_index, call_type) = context.call(index);
        self.model.append_option(context.model.as_deref());
        self.response_id
            .append_option(context.response_id.as_deref());
        self.finish_reason.append_option(finish_reason);
        self.choice_index.append_option(choice_index);
        self.call_type.append_value(call_type);
    }

    /// A transcript's call's columns: its turn and result (all null for every other
    /// format's calls and for rows without a call).
    fn add_turn(&mut self, turn: Option<&CallTurn<'_>>) {
        let Some(turn) = turn else {
            self.turn.append_null();
            self.result.append_null();
            self.result_error.append_null();
            return;
        };
        (self.turn).append_value(i32::try_from(turn.turn).unwrap_or(i32::MAX));
        let (text, error) = match &turn.result {
            Some((text, error)) => (text.as_deref(), Some(*error)),
            None => (None, None),
        };
        self.result.append_option(text);
        self.result_error.append_option(error);
    }

    /// One row for a record that could not be read.
    pub fn add_failed(&mut self, number: i64, custom_id: Option<&str>, error: &str) {
        self.counts.records += 1;
        self.counts.failed += 1;
        self.add_row(number, custom_id, None, Some(error), About::default());
    }

    /// A row without a call: a failed record's (`error`), or a record without calls
    /// (with its model and response id, `about`; deferred to the end of the chunk with
    /// `every_record`).
    fn add_row(
        &mut self,
        number: i64,
        custom_id: Option<&str>,
        format: Option<&str>,
        error: Option<&str>,
        about: About,
    ) {
        if self.every_record {
            self.deferred.push(Deferred {
                number,
                custom_id: custom_id.map(str::to_owned),
                format: format.map(str::to_owned),
                error: error.map(str::to_owned),
                about,
                carried: self.carried_values.clone(),
            });
            return;
        }
        self.write_row(number, custom_id, format, error, &about);
    }

    fn write_row(
        &mut self,
        number: i64,
        custom_id: Option<&str>,
        format: Option<&str>,
        error: Option<&str>,
        (model, response_id): &About,
    ) {
        self.rows += 1;
        self.record.append_value(number);
        self.custom_id.append_option(custom_id);
        self.format.append_option(format);
        self.call_index.append_null();
        self.id.append_null();
        self.name.append_null();
        self.arguments.append_null();
        self.raw_arguments.append_null();
        self.error.append_option(error);
        self.defect.append_null();
        self.repairs.append_null();
        self.violations.append_null();
        self.model.append_option(model.as_deref());
        self.response_id.append_option(response_id.as_deref());
        self.finish_reason.append_null();
        self.choice_index.append_null();
        self.call_type.append_null();
        let (kind, status) = match error {
            Some(error) => {
                let (kind, status) = json_errors::error_kind(error);
                (Some(kind), status)
            }
            None => (None, None),
        };
        self.error_kind.append_option(kind);
        self.http_status.append_option(status);
        self.add_turn(None);
        self.add_carried();
    }

    pub fn finish(mut self) -> Result<Chunk, ArrowError> {
        for row in std::mem::take(&mut self.deferred) {
            self.carried_values = row.carried;
            let (custom_id, format) = (row.custom_id.as_deref(), row.format.as_deref());
            self.write_row(
                row.number,
                custom_id,
                format,
                row.error.as_deref(),
                &row.about,
            );
        }
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.record.finish()),
            Arc::new(self.custom_id.finish()),
            Arc::new(self.format.finish()),
            Arc::new(self.call_index.finish()),
            Arc::new(self.id.finish()),
            Arc::new(self.name.finish()),
            Arc::new(self.arguments.finish()),
            Arc::new(self.raw_arguments.finish()),
            Arc::new(self.error.finish()),
            Arc::new(self.defect.finish()),
            Arc::new(self.repairs.finish()),
            Arc::new(self.violations.finish()),
            Arc::new(self.model.finish()),
            Arc::new(self.response_id.finish()),
            Arc::new(self.finish_reason.finish()),
            Arc::new(self.choice_index.finish()),
            Arc::new(self.call_type.finish()),
            Arc::new(self.error_kind.finish()),
            Arc::new(self.http_status.finish()),
            Arc::new(self.turn.finish()),
            Arc::new(self.result.finish()),
            Arc::new(self.result_error.finish()),
        ];
        let schema = if self.carried.is_empty() {
            schema()
        } else {
            let mut fields: Vec<Field> = schema().fields().iter().map(|f| (**f).clone()).collect();
            for (name, column) in &mut self.carried {
                fields.push(Field::new(name.as_str(), DataType::Utf8, true));
                columns.push(Arc::new(column.finish()));
            }
            Arc::new(Schema::new(fields))
        };
        Ok(Chunk {
            batch: RecordBatch::try_new(schema, columns)?,
            counts: self.counts,
        })
    }
}

/// A call's arguments as the `arguments` text (compact JSON) and the `raw_arguments`
/// text (where they are not a JSON object), written into `scratch` / `kept` as needed.
fn arguments_text<'t>(
    tape: &'t Tape<'_>,
    arguments: &'t Arguments<'_>,
    scratch: &'t mut String,
    kept: &'t mut String,
) -> (&'t str, Option<&'t str>) {
    match arguments {
        Arguments::Missing => ("{}", None),
        Arguments::Object(idx) => {
            compact::write_arguments(tape, *idx, scratch);
            (scratch, None)
        }
        Arguments::Decoded(tape) => {
            compact::write_arguments(tape, 0, scratch);
            (scratch, None)
        }
        Arguments::Undecodable(text) | Arguments::Verbatim(text) => ("{}", Some(text)),
        // Another JSON value: kept as its JSON text.
        Arguments::Other(idx) => {
            compact::write_value(tape, *idx, kept);
            ("{}", Some(kept))
        }
        Arguments::Value(tape) => {
            compact::write_value(tape, 0, kept);
            ("{}", Some(kept))
        }
        Arguments::Encoded(idx) => {
            let text = tape.str_at(*idx).unwrap_or_default();
            // Sized once: grown step by step, a long text's copies add up.
            scratch.reserve(text.len());
            // `object` gives `text` itself (compact already) or what it wrote to `scratch`.
            let as_given = canonical::object(text, scratch).map(|c| std::ptr::eq(c, text));
            match as_given {
                Ok(true) => (text, None),
                Ok(false) => (scratch, None),
                Err(Stop::NotObject) => ("{}", Some(text)),
                Err(Stop::Decode) => match decode_object(Cow::Borrowed(text)) {
                    Arguments::Decoded(tape) => {
                        scratch.clear();
                        compact::write_arguments(&tape, 0, scratch);
                        (scratch, None)
                    }
                    _ => ("{}", Some(text)),
                },
            }
        }
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

    /// The records of the shared vectors' `kinds` (tests/vectors/json_errors.json) give
    /// their error, its kind and its HTTP status.
    #[test]
    fn failed_records_of_the_vectors() {
        use arrow_array::Int32Array;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/json_errors.json"
        );
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut checked = 0;
        for case in document["kinds"].as_array().unwrap() {
            let Some(record) = case["record"].as_str() else {
                continue;
            };
            let format = case["format"].as_str().unwrap();
            let format = Format::new(format, "tool_calls", "name", "arguments", false).unwrap();
            let path: Option<Vec<String>> = case["record_path"]
                .as_str()
                .map(|p| p.split('.').map(str::to_owned).collect());
            let mut rows = Rows::new();
            rows.add(0, read_record(&format, record.as_bytes(), path.as_deref()));
            let batch = rows.finish().unwrap().batch;
            let text = |name: &str| {
                let column = batch.column_by_name(name).unwrap();
                let column = column.as_any().downcast_ref::<StringArray>().unwrap();
                column.value(0).to_owned()
            };
            assert_eq!(
                text("error"),
                case["error"].as_str().unwrap(),
                "{}",
                case["name"]
            );
            assert_eq!(text("error_kind"), case["kind"].as_str().unwrap());
            let status = batch.column_by_name("http_status").unwrap();
            let status = status.as_any().downcast_ref::<Int32Array>().unwrap();
            let status = (!status.is_null(0)).then(|| i64::from(status.value(0)));
            assert_eq!(status, case["http_status"].as_i64(), "{}", case["name"]);
            checked += 1;
        }
        assert!(checked > 10, "{checked} records");
    }

    /// A record's rows with `with_every_record`: one for a record without calls too.
    #[test]
    fn a_row_for_every_record() {
        let format = Format::new("openai", "tool_calls", "name", "arguments", false).unwrap();
        let lines: [&[u8]; 3] = [
            br#"{"choices":[]}"#,
            br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}}]}"#,
            b"{nope",
        ];
        let rows_of = |every: bool| {
            let mut rows = Rows::new().with_every_record(every);
            for (n, line) in lines.iter().enumerate() {
                rows.add(n as i64, read_record(&format, line, None));
            }
            rows.finish().unwrap()
        };
        let (some, every) = (rows_of(false), rows_of(true));
        assert_eq!(some.batch.num_rows(), 2);
        assert_eq!(every.batch.num_rows(), 3);
        assert_eq!(some.counts, every.counts);
        // The rows without a call come last.
        let records = every.batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(records.values(), &[1, 0, 2]);
        let no_call = every.batch.slice(1, 1);
        assert!(no_call.column_by_name("call_index").unwrap().is_null(0));
        assert!(no_call.column_by_name("error").unwrap().is_null(0));
        let format = no_call.column_by_name("format").unwrap();
        let format = format.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(format.value(0), "openai");
    }
}
