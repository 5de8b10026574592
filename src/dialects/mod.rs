//! Open-weight models' raw text: one module per tool-call dialect, listed once in
//! [`dialects!`]. Each module mirrors `python/toolsift/_pure/dialects/<module>.py` line by
//! line (its docstring is the specification) and is held to it by the shared vectors in
//! `tests/vectors/dialects/<name>.json`.
//!
//! A dialect's `parse(text, tools)` finds the calls in one model output and gives them
//! with the text outside the calls (`content`, markers removed) and the text of its
//! reasoning blocks (`reasoning`). The rules every dialect keeps (issue 39):
//! * text with no markers gives no call;
//! * a block the dialect's markers open whose content cannot be read (cut off, broken
//!   JSON) is kept as a call with the name where the dialect can read it (else `""`),
//!   `Arguments::Undecodable(block text)`: never arguments the text does not hold;
//! * markers inside a reasoning block are not calls;
//! * values carried as text (XML-style dialects) are typed by the tool's JSON Schema
//!   when `tools` are given ([`Tools`]), else kept as strings; never guessed from text.

use crate::calls::Call;

pub mod schema;
pub mod text;
pub mod xmlcalls;
use std::collections::HashMap;

/// What a dialect found in one output.
#[derive(Debug, Default)]
pub struct Parsed<'a> {
    pub calls: Vec<Call<'a>>,
    /// The text outside the calls, markers removed; None when there is none.
    pub content: Option<String>,
    /// The text of the reasoning blocks (`<think>`, an `analysis` channel); None when
    /// there is none.
    pub reasoning: Option<String>,
}

/// The tools a request declared (OpenAI-style definitions): each tool's parameters
/// schema by name, for typing values the text carries as strings.
#[derive(Debug, Default, Clone)]
pub struct Tools {
    parameters: HashMap<String, serde_json::Value>,
}

impl Tools {
    /// Reads tool definitions, any shape `crate::tools` reads; a tool without a schema
    /// types nothing.
    pub fn from_json(text: &str) -> Result<Tools, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|err| format!("tools: not JSON: {err}"))?;
        let parameters = (crate::tools::read_definitions(&value)?.into_iter())
            .filter_map(|(name, schema)| Some((name, schema?)))
            .collect();
        Ok(Tools { parameters })
    }

    /// The schema of parameter `key` of tool `name`, where declared.
    pub fn parameter(&self, name: &str, key: &str) -> Option<&serde_json::Value> {
        self.parameters.get(name)?.get("properties")?.get(key)
    }
}

/// The dialects, in auto-detection order: the variant, its module (`parse`, and `detect`:
/// whether the text holds the dialect's own markers; always false for bare-JSON
/// dialects, which are never guessed) and its `--format` / `dialect=` name. Dialects
/// that share a marker (`<tool_call>`) are told apart by what follows it, the more
/// specific first.
macro_rules! dialects {
    ($($variant:ident: $module:ident = $name:literal,)*) => {
        $(pub mod $module;)*

        /// A raw-text tool-call dialect.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Dialect {
            $($variant,)*
        }

        impl Dialect {
            /// Every one, in registry order (auto-detection tries them in this order).
            pub const ALL: &'static [Dialect] = &[$(Dialect::$variant,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(Dialect::$variant => $name,)*
                }
            }

            /// The dialect called `name`.
            pub fn named(name: &str) -> Option<Dialect> {
                Dialect::ALL.iter().copied().find(|d| d.name() == name)
            }

            /// The calls, content and reasoning of one output.
            pub fn parse<'a>(self, text: &'a str, tools: Option<&Tools>) -> Parsed<'a> {
                match self {
                    $(Dialect::$variant => $module::parse(text, tools),)*
                }
            }

            /// Whether `text` holds this dialect's own markers (auto-detection).
            pub fn detect(self, text: &str) -> bool {
                match self {
                    $(Dialect::$variant => $module::detect(text),)*
                }
            }
        }
    };
}

dialects! {
    SeedOss: seed_oss = "seed-oss",
    Qwen3Coder: qwen3_coder = "qwen3-coder",
    Glm: glm = "glm",
    MinimaxM2: minimax_m2 = "minimax-m2",
    DeepseekDsml: deepseek_dsml = "deepseek-dsml",
    DeepseekV31: deepseek_v31 = "deepseek-v3.1",
    DeepseekV3: deepseek_v3 = "deepseek-v3",
    KimiK2: kimi_k2 = "kimi-k2",
    Harmony: harmony = "harmony",
    Pythonic: pythonic = "pythonic",
    Mistral: mistral = "mistral",
    Granite: granite = "granite",
    Hermes: hermes = "hermes",
    Llama3Json: llama3_json = "llama3-json",
    Xlam: xlam = "xlam",
}

/// The first dialect (registry order) whose markers `text` holds.
pub fn detected(text: &str) -> Option<Dialect> {
    Dialect::ALL.iter().copied().find(|d| d.detect(text))
}
