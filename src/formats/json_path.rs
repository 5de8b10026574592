//! Custom JSON endpoints (`json`, `JsonResponseParser`): calls at a dot path, with
//! configurable key names; the Rust twin of `python/toolsift/_pure/formats/json_path.py`.

use super::{members, path, RawCall};
use crate::json::Keep;
use crate::node::Node;

pub const NAME: &str = "json";

/// `JsonResponseParser`'s keywords.
#[derive(Clone, Debug)]
pub struct JsonOptions {
    pub path: Vec<String>,
    pub name_key: String,
    pub arguments_key: String,
    pub single: bool,
}

/// The parts of a response [`walk`] reads.
pub fn keep(options: &JsonOptions) -> Keep {
    let mut call = members(&[
        (options.name_key.as_str(), Keep::all()),
        ("id", Keep::all()),
        (options.arguments_key.as_str(), Keep::all()),
    ]);
    call.items = Some(Box::new(call.clone()));
    let path_keys: Vec<&str> = options.path.iter().map(String::as_str).collect();
    let mut root = path(&path_keys, call);
    // An array document is searched item by item.
    root.items = Some(Box::new(root.clone()));
    root
}

/// Calls at a dot path of object keys; an array is searched item by item, first hit wins.
pub fn walk<N: Node>(doc: &N, options: &JsonOptions) -> Result<Vec<RawCall<N>>, N::Error> {
    if doc.is_array() {
        for item in doc.elements() {
            let found = json_at(&item, options)?;
            if !found.is_empty() {
                return Ok(found);
            }
        }
        return Ok(Vec::new());
    }
    json_at(doc, options)
}

fn json_at<N: Node>(doc: &N, options: &JsonOptions) -> Result<Vec<RawCall<N>>, N::Error> {
    let mut found_at = None;
    for key in &options.path {
        let here = match &found_at {
            None => doc.member(key)?,
            Some(node) => N::member(node, key)?,
        };
        match here {
            Some(node) => found_at = Some(node),
            // A missing key, or a key whose value is null: nothing here (russo's
            // walk reaches null and then finds no list in it).
            None => return Ok(Vec::new()),
        }
    }
    let Some(found_at) = found_at else {
        return Ok(Vec::new());
    };
    let candidates = if options.single {
        vec![found_at]
    } else {
        found_at.elements().collect()
    };
    let mut calls = Vec::new();
    for call in candidates {
        if !call.is_object() {
            continue;
        }
        let name = call.member(&options.name_key)?;
        if !name.as_ref().is_some_and(N::is_nonempty_str) {
            continue; // entries without a name are skipped, as russo does
        }
        calls.push(RawCall::new(
            name,
            call.member("id")?,
            call.member(&options.arguments_key)?,
        ));
    }
    Ok(calls)
}
