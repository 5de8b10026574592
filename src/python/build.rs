//! Core results to Python objects: tool calls, their arguments, whole responses.

use super::objects::{Input, PyNode};
use crate::accumulator::response_error;
use crate::bulk::Outcome;
use crate::calls::{decode_object, Arguments, Record};
use crate::events::{self, Reader};
use crate::formats::{Format, RawCall, Walk, Walked};
use crate::json::{is_too_long_int, scan_plain, JsonError, Sink, Tape, Text, Token};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};
use std::borrow::Cow;
use std::sync::Mutex;

/// Python objects the builder needs, looked up once per process.
struct Hooks {
    /// ToolCall and AgentResponse: made as `object.__new__` makes them, their slots set,
    /// without a Python frame for their `__init__` (the same fields, the same values).
    tool_call: SlotClass<4>,
    agent_response: SlotClass<3>,
    parse_error: Py<PyAny>,
    error_for: Py<PyAny>,
    dumps_compact: Py<PyAny>,
    loads: Py<PyAny>,
    record_error: Py<PyAny>,
    check_threads: Py<PyAny>,
    /// `UnrecognizedShape(doc)`, and the one made from its message (`_unrecognized`).
    unrecognized_shape: Py<PyAny>,
    unrecognized_message: Py<PyAny>,
    /// The pure registry's `detect_or_none` (auto-detection of Python objects).
    detect_or_none: Py<PyAny>,
    /// The pure bulk layer's `locate_object` (batch envelopes of Python objects).
    locate_object: Py<PyAny>,
    /// `sys.get_int_max_str_digits` (None before Python 3.11: no limit).
    int_max_str_digits: Option<Py<PyAny>>,
}

/// A class with `__slots__` whose `__init__` only stores its arguments (ToolCall,
/// AgentResponse): its instances are made as `object.__new__(cls)` makes them, then their
/// fields are set, without a Python frame for `__init__`.
struct SlotClass<const N: usize> {
    cls: Py<PyType>,
    /// Where each field lives in an instance (from the class's own member table), in the
    /// order [`SlotClass::instance`] takes their values.
    offsets: [usize; N],
}

impl<const N: usize> SlotClass<N> {
    /// The class `cls` whose fields, in this order, are `names`: an error unless each is
    /// one of its writable object slots.
    fn new(cls: Bound<'_, PyType>, names: [&str; N]) -> PyResult<Self> {
        let Some(offsets) = slot_offsets(&cls, &names) else {
            let message = format!("{cls} must have the writable slots {names:?}");
            return Err(pyo3::exceptions::PyTypeError::new_err(message));
        };
        Ok(SlotClass {
            cls: cls.unbind(),
            offsets,
        })
    }

    /// A new instance whose fields hold `values`.
    fn instance<'py>(
        &self,
        py: Python<'py>,
        values: [Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        let cls = self.cls.bind(py).as_type_ptr();
        // SAFETY: we hold the GIL, and `cls` is a live type object (`self` holds it).
        // `object.__new__(cls)` checks that it is given no arguments and that `cls` is not
        // abstract (ToolCall and AgentResponse are plain classes), then returns
        // `cls->tp_alloc(cls, 0)`: a new object of `cls`, zeroed (its slots NULL), tracked
        // by the collector, or NULL with an exception set, which `from_owned_ptr_or_err`
        // turns into an error. Calling `tp_alloc` here does the same without the call of
        // `object.__new__` through Python's calling convention.
        let object = unsafe {
            let alloc = type_alloc(cls);
            Bound::from_owned_ptr_or_err(py, alloc(cls, 0))?
        };
        for (offset, value) in self.offsets.into_iter().zip(values) {
            // SAFETY: `object` is an instance of exactly `cls` (made just above), and
            // `offset` is where `cls`'s own member table puts one of its writable object
            // slots (`slot_offsets`): a `PyObject *` inside the instance (aligned, as
            // CPython lays slots out), NULL since `tp_alloc` zeroed it, so there is no
            // old value to release. The slot takes over the reference `into_ptr` gives
            // up, as a `setattr` would store one; the collector finds it through the same
            // member table. Tests compare these objects with those `__init__` makes
            // (fields, equality, repr, pickling, tracking) and count the references the
            // classes and the fields' values hold.
            unsafe {
                let field = object
                    .as_ptr()
                    .cast::<u8>()
                    .add(offset)
                    .cast::<*mut pyo3::ffi::PyObject>();
                debug_assert!((*field).is_null());
                *field = value.into_ptr();
            }
        }
        Ok(object)
    }
}

/// The `tp_alloc` of the live type object `cls` (`PyType_GenericAlloc` if it has none).
///
/// # Safety
///
/// The GIL is held and `cls` is a live type object.
#[cfg(not(feature = "abi3"))]
unsafe fn type_alloc(cls: *mut pyo3::ffi::PyTypeObject) -> pyo3::ffi::allocfunc {
    unsafe { (*cls).tp_alloc.unwrap_or(pyo3::ffi::PyType_GenericAlloc) }
}

/// The same through the stable ABI, where type objects are opaque: `PyType_GetSlot`
/// (which reads static types too since Python 3.10, the oldest the abi3 wheel takes).
///
/// # Safety
///
/// The GIL is held and `cls` is a live type object.
#[cfg(feature = "abi3")]
unsafe fn type_alloc(cls: *mut pyo3::ffi::PyTypeObject) -> pyo3::ffi::allocfunc {
    let slot = unsafe { pyo3::ffi::PyType_GetSlot(cls, pyo3::ffi::Py_tp_alloc) };
    if slot.is_null() {
        pyo3::ffi::PyType_GenericAlloc
    } else {
        // SAFETY: the `Py_tp_alloc` slot holds an `allocfunc`.
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, pyo3::ffi::allocfunc>(slot) }
    }
}

/// The member table of the live type object `cls` (NULL if it has none).
///
/// # Safety
///
/// The GIL is held and `cls` is a live type object.
unsafe fn type_members(cls: *mut pyo3::ffi::PyTypeObject) -> *mut pyo3::ffi::PyMemberDef {
    #[cfg(not(feature = "abi3"))]
    unsafe {
        (*cls).tp_members
    }
    #[cfg(feature = "abi3")]
    unsafe {
        pyo3::ffi::PyType_GetSlot(cls, pyo3::ffi::Py_tp_members).cast()
    }
}

/// Where the slots `names` of `cls` live in its instances: the offsets its member table
/// gives, each a writable object slot (`Py_T_OBJECT_EX`); None unless every name is one.
fn slot_offsets<const N: usize>(cls: &Bound<'_, PyType>, names: &[&str; N]) -> Option<[usize; N]> {
    let mut offsets = [None; N];
    // SAFETY: we hold the GIL (`cls` is bound), and `cls` is a live type object.
    // `tp_members` is NULL or points to its member table: `PyMemberDef`s ended by one
    // whose `name` is NULL, each other `name` a NUL-terminated string; the loop reads no
    // entry past that end.
    unsafe {
        let mut member = type_members(cls.as_type_ptr());
        while !member.is_null() && !(*member).name.is_null() {
            let name = std::ffi::CStr::from_ptr((*member).name).to_str().ok();
            if let Some(k) = names.iter().position(|n| Some(*n) == name) {
                let writable = (*member).flags & pyo3::ffi::Py_READONLY == 0;
                if (*member).type_code != pyo3::ffi::Py_T_OBJECT_EX || !writable {
                    return None;
                }
                offsets[k] = usize::try_from((*member).offset).ok();
            }
            member = member.add(1);
        }
    }
    let mut found = [0; N];
    for (slot, offset) in found.iter_mut().zip(offsets) {
        *slot = offset?;
    }
    Some(found)
}

static HOOKS: PyOnceLock<Hooks> = PyOnceLock::new();

fn hooks(py: Python<'_>) -> PyResult<&'static Hooks> {
    HOOKS.get_or_try_init(py, || {
        let types = py.import("toolsift._types")?;
        let errors = py.import("toolsift._errors")?;
        let jsontext = py.import("toolsift._jsontext")?;
        Ok(Hooks {
            tool_call: SlotClass::new(
                types.getattr("ToolCall")?.cast_into()?,
                ["name", "arguments", "id", "raw_arguments"],
            )?,
            agent_response: SlotClass::new(
                types.getattr("AgentResponse")?.cast_into()?,
                ["tool_calls", "raw", "error"],
            )?,
            parse_error: errors.getattr("ParseError")?.unbind(),
            error_for: jsontext.getattr("error_for")?.unbind(),
            dumps_compact: jsontext.getattr("dumps_compact")?.unbind(),
            loads: jsontext.getattr("loads")?.unbind(),
            record_error: errors.getattr("record_error")?.unbind(),
            check_threads: errors.getattr("check_threads")?.unbind(),
            unrecognized_shape: errors.getattr("UnrecognizedShape")?.unbind(),
            unrecognized_message: errors.getattr("_unrecognized")?.unbind(),
            detect_or_none: py
                .import("toolsift._pure.formats")?
                .getattr("detect_or_none")?
                .unbind(),
            locate_object: py
                .import("toolsift._pure.bulk")?
                .getattr("locate_object")?
                .unbind(),
            int_max_str_digits: py
                .import("sys")?
                .getattr("get_int_max_str_digits")
                .ok()
                .map(Bound::unbind),
        })
    })
}

/// Object keys repeat across responses (the same tools, the same argument names):
/// keep their Python strings in a small direct-mapped cache.
struct KeyCache {
    slots: Vec<Option<(Box<str>, Py<PyString>)>>,
}

const KEY_SLOTS: usize = 1024;
const KEY_MAX_LEN: usize = 64;

static KEYS: Mutex<Option<KeyCache>> = Mutex::new(None);

/// The keys the walkers look up in the caller's dicts and SDK objects: a format's few,
/// the same every time.
static FIELD_KEYS: Mutex<Option<KeyCache>> = Mutex::new(None);

/// `text` as a new Python string, made as Python's own constructor makes it (the same
/// width: one, two or four bytes a character) without its decoder: the text is already
/// checked UTF-8, so what is left is to find the widest character and copy or widen the
/// rest. ASCII text (nearly every key, name, id and argument string) is copied as it is.
#[cfg(not(feature = "abi3"))]
pub fn new_str<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    // Empty and one-character strings are Python's shared singletons: its constructor
    // returns those.
    if text.len() < 2 {
        return PyString::new(py, text);
    }
    let bytes = text.as_bytes();
    let (chars, max_char) = if text.is_ascii() {
        (bytes.len(), 0x7F)
    } else {
        // A UTF-8 lead byte tells the range of its character (C2-C3: below 256, C4-EF:
        // below 65,536, F0-F4: beyond) and continuation bytes (80-BF) sort below every
        // lead byte, so the largest byte tells the widest character's width.
        let (widest, continuations) = widest_byte(bytes);
        let max_char = match widest {
            ..=0xC3 => 0xFF,
            0xC4..=0xEF => 0xFFFF,
            _ => 0x10_FFFF,
        };
        (bytes.len() - continuations, max_char)
    };
    let Ok(len) = pyo3::ffi::Py_ssize_t::try_from(chars) else {
        return PyString::new(py, text);
    };
    // SAFETY: we hold the GIL (`py`). `PyUnicode_New(len, max_char)` returns a new compact
    // string of `len` characters of one byte (`max_char` 127 or 255), two (65,535) or four
    // (1,114,111), with room for them and the NUL it has already written after them; or
    // NULL with an exception set, which `from_owned_ptr_or_err` turns into an error. The
    // only reference is ours until we return it, so writing its characters is unaliased.
    // `len` is the count of `text`'s characters (UTF-8: the bytes that are not continuation
    // bytes; all of them when ASCII) and exactly that many units of the width `max_char`
    // picked are written, at the data pointer of that width (aligned: CPython's own code
    // reads it as such); every character fits that width and the widest one needs it (see
    // `widest`), which is what a string of that kind must hold. Tests compare these
    // strings, their hashes, `isascii()` and sizes with Python's own, at every width.
    unsafe {
        let object = pyo3::ffi::PyUnicode_New(len, max_char);
        if !object.is_null() {
            match max_char {
                0x7F => std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    pyo3::ffi::PyUnicode_1BYTE_DATA(object),
                    chars,
                ),
                0xFF => widen(bytes, pyo3::ffi::PyUnicode_1BYTE_DATA(object), |c| c as u8),
                0xFFFF => widen(bytes, pyo3::ffi::PyUnicode_2BYTE_DATA(object), |c| c as u16),
                _ => widen(bytes, pyo3::ffi::PyUnicode_4BYTE_DATA(object), |c| c),
            }
        }
        match Bound::from_owned_ptr_or_err(py, object) {
            Ok(string) => string.cast_into_unchecked::<PyString>(),
            Err(_) => PyString::new(py, text), // out of memory: Python's own path reports it
        }
    }
}

/// The stable ABI has no `PyUnicode_New` nor access to a string's characters: Python's
/// own decoder makes the string.
#[cfg(feature = "abi3")]
pub fn new_str<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    PyString::new(py, text)
}

/// The largest byte of `bytes` and the count of its UTF-8 continuation bytes, sixteen
/// bytes at a time (a loop the compiler turns into vector instructions).
#[cfg(not(feature = "abi3"))]
fn widest_byte(bytes: &[u8]) -> (u8, usize) {
    let is_continuation = |b: u8| u8::from((b as i8) < -0x40);
    let mut chunks = bytes.chunks_exact(16);
    let (mut widest, mut continuations) = (0, 0);
    for chunk in &mut chunks {
        let (mut chunk_widest, mut chunk_continuations) = (0, 0);
        for &b in chunk {
            chunk_widest = chunk_widest.max(b);
            chunk_continuations += is_continuation(b);
        }
        widest = widest.max(chunk_widest);
        continuations += usize::from(chunk_continuations);
    }
    for &b in chunks.remainder() {
        widest = widest.max(b);
        continuations += usize::from(is_continuation(b));
    }
    (widest, continuations)
}

/// Writes the characters of the UTF-8 `bytes` to `units`, one unit each, made by `unit`
/// from the code point. Runs of ASCII are found eight bytes at a time and copied in one
/// loop (which the compiler turns into vector instructions).
///
/// # Safety
///
/// `bytes` is UTF-8, `units` has room for as many units as it has characters, and each
/// character fits the unit `unit` makes of it (see `new_str`).
#[cfg(not(feature = "abi3"))]
unsafe fn widen<U: From<u8>>(bytes: &[u8], units: *mut U, unit: impl Fn(u32) -> U) {
    let continuation = |at: usize| u32::from(bytes[at] & 0x3F);
    let (mut i, mut at) = (0, 0);
    while let Some(&lead) = bytes.get(i) {
        if lead < 0x80 {
            let run = &bytes[i..ascii_run_end(bytes, i)];
            for (k, &b) in run.iter().enumerate() {
                // SAFETY: each ASCII byte is a character, within the room.
                unsafe { units.add(at + k).write(U::from(b)) };
            }
            (i, at) = (i + run.len(), at + run.len());
            continue;
        }
        // A lead byte says how many continuation bytes follow, each adding six bits
        // (`bytes` is UTF-8, so they are there).
        let (code, len) = match lead {
            ..=0xDF => (u32::from(lead & 0x1F) << 6 | continuation(i + 1), 2),
            0xE0..=0xEF => (
                u32::from(lead & 0x0F) << 12 | continuation(i + 1) << 6 | continuation(i + 2),
                3,
            ),
            _ => (
                u32::from(lead & 0x07) << 18
                    | continuation(i + 1) << 12
                    | continuation(i + 2) << 6
                    | continuation(i + 3),
                4,
            ),
        };
        // SAFETY: one character, within the room.
        unsafe { units.add(at).write(unit(code)) };
        (i, at) = (i + len, at + 1);
    }
}

/// The end of the run of ASCII bytes from `i`: the index of the next byte of 128 or
/// more, or the length. Eight bytes at a time.
#[cfg(not(feature = "abi3"))]
fn ascii_run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(word) = bytes.get(i..i + 8) {
        let high =
            u64::from_le_bytes(word.try_into().expect("eight bytes")) & 0x8080_8080_8080_8080;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + bytes[i..].iter().take_while(|b| b.is_ascii()).count()
}

/// `key` as a Python string, for looking it up in a dict or an object.
pub fn field_key<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    match FIELD_KEYS.try_lock() {
        Ok(mut cache) => cache.get_or_insert_with(KeyCache::new).get(py, key),
        Err(_) => new_str(py, key), // busy: a lookup from inside a lookup
    }
}

impl KeyCache {
    fn new() -> Self {
        KeyCache {
            slots: (0..KEY_SLOTS).map(|_| None).collect(),
        }
    }

    fn get<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        if key.len() > KEY_MAX_LEN {
            return new_str(py, key);
        }
        // Short keys, no need for anything stronger: Fx reads them a word at a time.
        let hash = std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, key);
        let slot = &mut self.slots[(hash as usize) % KEY_SLOTS];
        if let Some((cached, string)) = slot {
            if **cached == *key {
                return string.bind(py).clone();
            }
        }
        let string = new_str(py, key);
        *slot = Some((key.into(), string.clone().unbind()));
        string
    }
}

/// Reads Python's integer digit limit now (`sys.set_int_max_str_digits` may have changed
/// it), for the parsing that follows, on any thread.
pub(super) fn sync_int_limit(py: Python<'_>) -> PyResult<()> {
    let limit = match &hooks(py)?.int_max_str_digits {
        Some(get) => get.bind(py).call0()?.extract::<usize>()?,
        None => 0,
    };
    crate::json::set_int_max_str_digits(limit);
    Ok(())
}

/// Builds Python results; holds the key cache while it lives.
pub struct Builder<'py> {
    pub(super) py: Python<'py>,
    hooks: &'static Hooks,
    keys: Option<std::sync::MutexGuard<'static, Option<KeyCache>>>,
}

impl<'py> Builder<'py> {
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        sync_int_limit(py)?;
        // try_lock: a re-entrant call (an SDK attribute that parses) just goes without.
        let keys = KEYS.try_lock().ok().map(|mut guard| {
            guard.get_or_insert_with(KeyCache::new);
            guard
        });
        Ok(Builder {
            py,
            hooks: hooks(py)?,
            keys,
        })
    }

    pub(super) fn key(&mut self, key: &str) -> Bound<'py, PyString> {
        match self.keys.as_mut().and_then(|guard| guard.as_mut()) {
            Some(cache) => cache.get(self.py, key),
            None => new_str(self.py, key),
        }
    }

    /// The Python value of the tape value at `idx`, and the index just past it.
    fn value(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let py = self.py;
        match &tape.tokens[idx] {
            Token::Str(s) => Ok((new_str(py, tape.text(s)).into_any(), idx + 1)),
            Token::Array { len, end } => {
                let mut items = Vec::with_capacity(*len as usize);
                let mut at = idx + 1;
                while at < *end as usize {
                    let (item, next) = self.nested(tape, at)?;
                    items.push(item);
                    at = next;
                }
                Ok((PyList::new(py, items)?.into_any(), *end as usize))
            }
            Token::Object { .. } => self.object(tape, idx),
            scalar => Ok((self.scalar(scalar, &tape.source, &tape.owned)?, idx + 1)),
        }
    }

    /// The Python value of a token that is neither a container nor a string (the texts
    /// of numbers kept as text are in `source` or `owned`: see `Text`).
    pub(super) fn scalar(
        &self,
        token: &Token,
        source: &str,
        owned: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match token {
            Token::Null => py.None().into_bound(py),
            Token::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Token::Int(i) => i.into_bound_py_any(py)?,
            Token::UInt(u) => u.into_bound_py_any(py)?,
            Token::BigInt(digits) => {
                let digits = digits.resolve(source, owned);
                match py.get_type::<PyInt>().call1((digits,)) {
                    Ok(int) => int,
                    // More digits than int() takes (4300 by default): JSON decodes it anyway.
                    Err(_) => self.hooks.loads.bind(py).call1((digits,))?,
                }
            }
            Token::Float(f) => PyFloat::new(py, *f).into_any(),
            Token::HugeFloat(text) => {
                let inf = if text.resolve(source, owned).starts_with('-') {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                PyFloat::new(py, inf).into_any()
            }
            Token::Str(_) | Token::Array { .. } | Token::Object { .. } => {
                unreachable!("scalar() is only called on scalar tokens")
            }
        })
    }

    fn nested(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        // The tape is at most MAX_DEPTH deep; grow the stack rather than overflow it.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value(tape, idx))
    }

    /// The dict of the object at `idx` (duplicate keys: the last value wins).
    fn object(&mut self, tape: &Tape<'_>, idx: usize) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let Token::Object { end, .. } = tape.tokens[idx] else {
            unreachable!("object() is only called on an object token")
        };
        let dict = PyDict::new(self.py);
        let mut at = idx + 1;
        while at < end as usize {
            let key = self.key(tape.str_at(at).unwrap_or_default());
            let (value, next) = self.nested(tape, at + 1)?;
            dict.set_item(key, value)?;
            at = next;
        }
        Ok((dict.into_any(), end as usize))
    }

    pub(super) fn empty_dict(&self) -> Bound<'py, PyAny> {
        PyDict::new(self.py).into_any()
    }

    /// `ToolCall(name, arguments, id, raw_arguments)`.
    pub(super) fn tool_call(
        &self,
        name: Bound<'py, PyAny>,
        arguments: Bound<'py, PyAny>,
        id: Bound<'py, PyAny>,
        raw_arguments: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.hooks
            .tool_call
            .instance(self.py, [name, arguments, id, raw_arguments])
    }

    pub fn response(
        &self,
        calls: Vec<Bound<'py, PyAny>>,
        raw: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.response_with(calls, raw, None)
    }

    /// `AgentResponse(calls, raw, error)`, `error` None where there is none.
    pub fn response_with(
        &self,
        calls: Vec<Bound<'py, PyAny>>,
        raw: &Bound<'py, PyAny>,
        error: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let calls = PyList::new(self.py, calls)?;
        let error = match error {
            Some(error) => PyString::new(self.py, error).into_any(),
            None => self.py.None().into_bound(self.py),
        };
        self.agent_response(calls, raw, error)
    }

    /// `AgentResponse(tool_calls, raw, error)`.
    fn agent_response(
        &self,
        tool_calls: Bound<'py, PyList>,
        raw: &Bound<'py, PyAny>,
        error: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.hooks
            .agent_response
            .instance(self.py, [tool_calls.into_any(), raw.clone(), error])
    }

    /// `(arguments, raw_arguments)` for a value that is neither an object nor a string.
    pub(super) fn kept_as_text(
        &self,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let text = self.hooks.dumps_compact.bind(self.py).call1((value,))?;
        Ok((self.empty_dict(), text))
    }

    /// The ParseError for text that did not parse. Its message comes from
    /// `toolsift._jsontext.error_for`, so both backends say the same thing.
    pub fn parse_error(&self, raw: &Bound<'py, PyAny>, err: Option<&JsonError>) -> PyResult<PyErr> {
        let described = self.hooks.error_for.bind(self.py).call1((raw,))?;
        let error = if described.is_none() {
            // The two parsers disagree about this text: say what serde_json said.
            let (message, pos) = match err {
                Some(err) => (err.message.clone(), err.pos),
                None => ("invalid text".to_owned(), 0),
            };
            self.hooks.parse_error.bind(self.py).call1((message, pos))?
        } else {
            described
        };
        Ok(PyErr::from_value(error))
    }

    /// A record that could not be read: no calls, `error` set.
    pub fn failed(&self, raw: &Bound<'py, PyAny>, err: PyErr) -> PyResult<Bound<'py, PyAny>> {
        let message = self
            .hooks
            .record_error
            .bind(self.py)
            .call1((err.value(self.py),))?;
        self.agent_response(PyList::empty(self.py), raw, message)
    }

    /// A record that could not be read, with the reason given as text.
    pub fn failed_with(
        &self,
        raw: &Bound<'py, PyAny>,
        message: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = PyString::new(self.py, message).into_any();
        self.agent_response(PyList::empty(self.py), raw, message)
    }

    /// The `error` text of a record that could not be read (`record_error`).
    pub fn error_text(&self, err: &PyErr) -> PyResult<String> {
        self.hooks
            .record_error
            .bind(self.py)
            .call1((err.value(self.py),))?
            .extract()
    }

    /// For `auto` on the caller's own objects: the walked format the pure registry's
    /// `detect` recognizes (the specification; not the hot path), if any.
    pub(super) fn detected(&self, raw: &Bound<'py, PyAny>) -> Option<Walked> {
        let found = self.hooks.detect_or_none.bind(self.py).call1((raw,)).ok()?;
        let name: String = found.getattr("name").ok()?.extract().ok()?;
        Walked::named(&name)
    }

    /// `UnrecognizedShape` with the message Rust made from a tape.
    pub(super) fn unrecognized(&self, message: &str) -> PyErr {
        match self
            .hooks
            .unrecognized_message
            .bind(self.py)
            .call1((message,))
        {
            Ok(error) => PyErr::from_value(error),
            Err(err) => err,
        }
    }

    /// `UnrecognizedShape` of the caller's own object (its keys, or its type).
    pub(super) fn unrecognized_object(&self, raw: &Bound<'py, PyAny>) -> PyErr {
        match self.hooks.unrecognized_shape.bind(self.py).call1((raw,)) {
            Ok(error) => PyErr::from_value(error),
            Err(err) => err,
        }
    }

    pub fn check_threads(&self, threads: Option<&Bound<'py, PyAny>>) -> PyResult<()> {
        self.hooks.check_threads.bind(self.py).call1((threads,))?;
        Ok(())
    }
}

/// The AgentResponse for a response parsed from text.
pub fn response_from_record<'py>(
    b: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    record: &Record<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Err(message) = &record.format {
        if response_error(message) {
            // A piece of a stream, or a stream that failed: no call, and the response
            // says so.
            return b.response_with(Vec::new(), raw, Some(message));
        }
        return Err(b.unrecognized(message));
    }
    let calls = calls_from_record(b, record)?;
    b.response(calls, raw)
}

/// The AgentResponse of a record read by the bulk reader (`parse`, `parse_many`,
/// `parse_file`): a failure an envelope reports is the response's error; text that is not
/// JSON raises ParseError, and a shape auto-detection does not know UnrecognizedShape.
pub fn response_from_outcome<'py>(
    b: &mut Builder<'py>,
    raw: &Bound<'py, PyAny>,
    outcome: &Outcome<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match outcome {
        Outcome::Read { record, .. } => response_from_record(b, raw, record),
        Outcome::Text { text, .. } => {
            let record = crate::formats::litert::parse_record(text.as_bytes());
            response_from_record(b, raw, &record)
        }
        Outcome::Failed { error, .. } => b.failed_with(raw, error),
        Outcome::NotJson(err) => Err(b.parse_error(raw, Some(err))?),
    }
}

/// The ToolCalls of a response parsed from text.
pub fn calls_from_record<'py>(
    b: &mut Builder<'py>,
    record: &Record<'_>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = b.py;
    let tape = &record.tape;
    let mut calls = Vec::with_capacity(record.calls.len());
    for call in &record.calls {
        let name = match &call.name {
            Some(name) => new_str(py, name),
            None => intern!(py, "").clone(),
        };
        let id = match &call.id {
            Some(id) => new_str(py, id).into_any(),
            None => py.None().into_bound(py),
        };
        let (arguments, raw_arguments) = arguments_pair(b, Some(tape), &call.arguments)?;
        calls.push(b.tool_call(name.into_any(), arguments, id, raw_arguments)?);
    }
    Ok(calls)
}

/// The dict that `text` is the JSON text of; `None` when it is not the JSON text of an
/// object (the caller keeps the text), as [`decode_object`] reads it. Most texts are read
/// straight into Python objects ([`ObjectSink`]); the rest go through a tape.
fn object_of_text<'py>(b: &mut Builder<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    if u32::try_from(text.len()).is_ok() {
        let mut sink = ObjectSink {
            builder: b,
            source: text,
            unescaped: String::new(),
            items: Vec::new(),
            root: None,
            error: None,
        };
        let read = scan_plain(text, &mut sink);
        if let Some(err) = sink.error {
            return Err(err);
        }
        if read.is_some() {
            return Ok(sink.root.filter(|root| root.is_instance_of::<PyDict>()));
        }
    }
    match decode_object(Cow::Borrowed(text)) {
        Arguments::Decoded(tape) => Ok(Some(b.object(&tape, 0)?.0)),
        _ => Ok(None),
    }
}

/// Python objects built as [`scan_plain`] reads JSON text, without a tape: the same
/// objects [`Builder::value`] makes of the tape. It stops the scan at an integer longer
/// than Python converts (the tape's reading of the text decides what to do with it).
struct ObjectSink<'b, 'py, 's> {
    builder: &'b mut Builder<'py>,
    source: &'s str,
    /// The string with escapes just read, unescaped (emptied when its object is made).
    unescaped: String,
    /// The items of the open lists, one after another (a list's start at its `List`).
    items: Vec<Bound<'py, PyAny>>,
    root: Option<Bound<'py, PyAny>>,
    /// A Python error that stopped the scan.
    error: Option<PyErr>,
}

/// An open container of an [`ObjectSink`]: a list (where its items start in the sink's
/// `items`), or a dict with the key whose value comes next.
enum OpenObject<'py> {
    List(usize),
    Dict(Bound<'py, PyDict>, Option<Bound<'py, PyString>>),
}

impl<'py> ObjectSink<'_, 'py, '_> {
    /// `value` into `parent` (or as the root); duplicate keys: the last value wins.
    fn place(
        &mut self,
        parent: Option<&mut OpenObject<'py>>,
        value: Bound<'py, PyAny>,
    ) -> Option<()> {
        match parent {
            None => self.root = Some(value),
            Some(OpenObject::List(_)) => self.items.push(value),
            Some(OpenObject::Dict(dict, key)) => {
                let key = key.take()?;
                self.ok(dict.set_item(key, value))?;
            }
        }
        Some(())
    }

    fn ok<T>(&mut self, result: PyResult<T>) -> Option<T> {
        result.map_err(|err| self.error = Some(err)).ok()
    }
}

impl<'py> Sink for ObjectSink<'_, 'py, '_> {
    type Open = OpenObject<'py>;

    fn owned(&mut self) -> &mut String {
        &mut self.unescaped
    }

    fn open(&mut self, object: bool) -> Option<OpenObject<'py>> {
        Some(if object {
            OpenObject::Dict(PyDict::new(self.builder.py), None)
        } else {
            OpenObject::List(self.items.len())
        })
    }

    fn key(&mut self, open: &mut OpenObject<'py>, key: Text) -> Option<()> {
        if let OpenObject::Dict(_, slot) = open {
            *slot = Some(self.builder.key(key.resolve(self.source, &self.unescaped)));
        }
        self.unescaped.clear();
        Some(())
    }

    fn value(&mut self, parent: Option<&mut OpenObject<'py>>, value: Token) -> Option<()> {
        let (source, unescaped) = (self.source, &self.unescaped);
        let value = match value {
            Token::Str(text) => {
                new_str(self.builder.py, text.resolve(source, unescaped)).into_any()
            }
            Token::BigInt(digits) if is_too_long_int(digits.resolve(source, unescaped)) => {
                return None
            }
            scalar => {
                let value = self.builder.scalar(&scalar, source, unescaped);
                self.ok(value)?
            }
        };
        self.unescaped.clear();
        self.place(parent, value)
    }

    fn close(
        &mut self,
        open: OpenObject<'py>,
        _: u32,
        parent: Option<&mut OpenObject<'py>>,
    ) -> Option<()> {
        let value = match open {
            OpenObject::List(start) => {
                let list = PyList::new(self.builder.py, self.items.drain(start..));
                self.ok(list)?.into_any()
            }
            OpenObject::Dict(dict, _) => dict.into_any(),
        };
        self.place(parent, value)
    }
}

/// `(arguments, raw_arguments)` of a call's arguments; `tape` is the response's, which
/// `Object` and `Other` point into (arguments of a stream have none).
pub fn arguments_pair<'py>(
    b: &mut Builder<'py>,
    tape: Option<&Tape<'_>>,
    arguments: &Arguments<'_>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = b.py;
    Ok(match (arguments, tape) {
        (Arguments::Missing, _) => (b.empty_dict(), py.None().into_bound(py)),
        (Arguments::Object(idx), Some(tape)) => (b.object(tape, *idx)?.0, py.None().into_bound(py)),
        (Arguments::Decoded(args), _) => (b.object(args, 0)?.0, py.None().into_bound(py)),
        (Arguments::Undecodable(text), _) => (b.empty_dict(), new_str(py, text).into_any()),
        (Arguments::Other(idx), Some(tape)) => {
            let value = b.value(tape, *idx)?.0;
            b.kept_as_text(&value)?
        }
        (Arguments::Value(value), _) => {
            let value = b.value(value, 0)?.0;
            b.kept_as_text(&value)?
        }
        (Arguments::Encoded(idx), Some(tape)) => {
            let text = tape.str_at(*idx).unwrap_or_default();
            match object_of_text(b, text)? {
                Some(args) => (args.into_any(), py.None().into_bound(py)),
                None => (b.empty_dict(), new_str(py, text).into_any()),
            }
        }
        (Arguments::Object(_) | Arguments::Other(_) | Arguments::Encoded(_), None) => {
            (b.empty_dict(), py.None().into_bound(py))
        }
    })
}

/// The AgentResponse for the caller's own dicts and SDK objects: a batch envelope is
/// unwrapped (or the response taken at `path`) by the pure `locate_object`, the
/// specification, and a failure it reports is the response's error.
pub fn response_from_object<'py>(
    b: &mut Builder<'py>,
    format: &Format,
    raw: &Bound<'py, PyAny>,
    path: Option<&[String]>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    let asks = match raw.cast::<PyDict>() {
        _ if path.is_some() => true,
        // One of the members every envelope has (the pure `ENVELOPE_MARKS`): a dict
        // without any is its own response, walked without asking Python.
        Ok(dict) => [
            intern!(py, "custom_id"),
            intern!(py, "key"),
            intern!(py, "metadata"),
            intern!(py, "modelInput"),
            intern!(py, "recordId"),
            intern!(py, "request"),
        ]
        .into_iter()
        .any(|key| dict.contains(key).unwrap_or(true)),
        // Lists (of stream events) and text are never envelopes; SDK objects may be.
        Err(_) => {
            !(raw.is_instance_of::<PyList>()
                || raw.is_instance_of::<PyTuple>()
                || raw.is_instance_of::<PyString>())
        }
    };
    if !asks {
        return response_from_node(b, format, raw, raw);
    }
    let located = b.hooks.locate_object.bind(py).call1((raw, path))?;
    // The error stays the str the pure `locate_object` made (it may quote a lone
    // surrogate of the envelope, which no Rust string can hold).
    let (response, _custom_id, error): (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>) =
        located.extract()?;
    if error.is_none() {
        return response_from_node(b, format, &response, raw);
    }
    b.agent_response(PyList::empty(py), raw, error)
}

/// The AgentResponse of `raw` whose response is `doc` (the caller's own dicts and SDK
/// objects; `raw` itself, or the response inside its envelope).
fn response_from_node<'py>(
    b: &mut Builder<'py>,
    format: &Format,
    doc: &Bound<'py, PyAny>,
    raw: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = b.py;
    if format.reads_text() {
        // Text inside an envelope (or at a record path) is read as text, as `parse` reads
        // a text record (the pure `parse_sdk`); the caller's dicts and lists as they are.
        if !doc.is(raw) {
            if let Ok(text) = Input::of(doc) {
                if let Some(text) = text.text() {
                    let record = crate::formats::litert::parse_record(text);
                    return response_from_record(b, raw, &record);
                }
            }
        }
        let calls = super::litert::calls_of_object(b, doc)?;
        return b.response(calls, raw);
    }
    if !doc.is(raw) {
        if let Some(text) = doc.cast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
            // A string inside an envelope: read as a JSON line holding that string is
            // (JSON text inside it decoded, SSE text a stream), as the pure `read` does.
            let line = serde_json::Value::from(text).to_string();
            return match crate::record::parse_record_with(format, line.as_bytes(), false) {
                Ok(record) => response_from_record(b, raw, &record),
                Err(err) => Err(b.parse_error(raw, Some(&err))?),
            };
        }
    }
    if doc.is_instance_of::<PyList>() || doc.is_instance_of::<PyTuple>() {
        if let Some(reader) = Reader::for_records(format) {
            // A list of events: a whole stream.
            return super::stream::assembled_response(b, reader, doc, doc, raw);
        }
    }
    let mut calls = Vec::new();
    let node = PyNode(doc.clone());
    let walked = format.walked(&node, |node| b.detected(&node.0));
    let is_text = doc.is_instance_of::<PyString>();
    if let Some(reader) = events::piece_reader(format, walked, &node, is_text)? {
        // A piece of a stream: read as a stream of one event.
        let events = PyTuple::new(py, [doc])?;
        return super::stream::assembled_response(b, reader, &events, doc, raw);
    }
    let found = match format.walk(&node, |_| walked)? {
        Walk::Calls(_, found) => found,
        Walk::Unrecognized => return Err(b.unrecognized_object(doc)),
    };
    for RawCall {
        name,
        id,
        arguments,
        verbatim,
    } in found
    {
        let name = match name {
            Some(PyNode(n)) if n.is_instance_of::<PyString>() => n,
            _ => intern!(py, "").clone().into_any(),
        };
        let id = match id {
            Some(PyNode(i)) if i.is_instance_of::<PyString>() => i,
            _ => py.None().into_bound(py),
        };
        let (arguments, raw_arguments) = match arguments {
            None => (b.empty_dict(), py.None().into_bound(py)),
            // Free text (a custom tool's input): kept as it is.
            Some(PyNode(text)) if verbatim && text.is_instance_of::<PyString>() => {
                (b.empty_dict(), text)
            }
            Some(PyNode(value)) => arguments_of_object(b, value)?,
        };
        calls.push(b.tool_call(name, arguments, id, raw_arguments)?);
    }
    b.response(calls, raw)
}

/// `(arguments, raw_arguments)` for an arguments value given as a Python object.
fn arguments_of_object<'py>(
    b: &mut Builder<'py>,
    value: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = b.py;
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok((dict.copy()?.into_any(), py.None().into_bound(py)));
    }
    if let Ok(text) = value.cast::<PyString>() {
        let decoded = match text.to_str() {
            Ok(text) => object_of_text(b, text)?,
            Err(_) => None, // lone surrogates: not JSON text
        };
        return Ok(match decoded {
            Some(args) => (args.into_any(), py.None().into_bound(py)),
            None => (b.empty_dict(), value),
        });
    }
    if value.cast::<PyMapping>().is_ok() {
        // Any other mapping (an older SDK's proto map): `dict(value)`, as the pure backend.
        let copy = py.get_type::<PyDict>().call1((&value,))?;
        return Ok((copy, py.None().into_bound(py)));
    }
    b.kept_as_text(&value)
}
