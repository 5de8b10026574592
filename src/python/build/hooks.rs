//! The Python objects the builder needs, looked up once per process (`Hooks`), and the
//! classes whose instances it makes without a Python frame (`SlotClass`).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Python objects the builder needs, looked up once per process.
pub(super) struct Hooks {
    /// ToolCall and AgentResponse: made as `object.__new__` makes them, their slots set,
    /// without a Python frame for their `__init__` (the same fields, the same values).
    pub(super) tool_call: SlotClass<4>,
    pub(super) agent_response: SlotClass<5>,
    pub(super) parse_error: Py<PyAny>,
    pub(super) dumps_compact: Py<PyAny>,
    pub(super) loads: Py<PyAny>,
    pub(super) record_error: Py<PyAny>,
    pub(super) check_threads: Py<PyAny>,
    pub(super) record_path_keys: Py<PyAny>,
    /// `UnrecognizedShape(doc)`, and the one made from its message (`_unrecognized`).
    pub(super) unrecognized_shape: Py<PyAny>,
    pub(super) unrecognized_message: Py<PyAny>,
    /// `sys.get_int_max_str_digits` (None before Python 3.11: no limit).
    pub(super) int_max_str_digits: Option<Py<PyAny>>,
}

/// A class with `__slots__` whose `__init__` only stores its arguments (ToolCall,
/// AgentResponse): its instances are made as `object.__new__(cls)` makes them, then their
/// fields are set, without a Python frame for `__init__`.
pub(super) struct SlotClass<const N: usize> {
    cls: Py<PyType>,
    /// Where each field lives in an instance (from the class's own member table), in the
    /// order [`SlotClass::instance`] takes their values.
    offsets: [usize; N],
}

impl<const N: usize> SlotClass<N> {
    /// The class `cls` whose fields, in this order, are `names`: an error unless each is
    /// one of its writable object slots.
    pub(super) fn new(cls: Bound<'_, PyType>, names: [&str; N]) -> PyResult<Self> {
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
    pub(super) fn instance<'py>(
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

pub(super) fn hooks(py: Python<'_>) -> PyResult<&'static Hooks> {
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
                ["tool_calls", "raw", "error", "content", "reasoning"],
            )?,
            parse_error: errors.getattr("ParseError")?.unbind(),
            dumps_compact: jsontext.getattr("dumps_compact")?.unbind(),
            loads: jsontext.getattr("loads")?.unbind(),
            record_error: errors.getattr("record_error")?.unbind(),
            check_threads: errors.getattr("check_threads")?.unbind(),
            record_path_keys: errors.getattr("record_path_keys")?.unbind(),
            unrecognized_shape: errors.getattr("UnrecognizedShape")?.unbind(),
            unrecognized_message: errors.getattr("_unrecognized")?.unbind(),
            int_max_str_digits: py
                .import("sys")?
                .getattr("get_int_max_str_digits")
                .ok()
                .map(Bound::unbind),
        })
    })
}

/// Reads Python's integer digit limit now (`sys.set_int_max_str_digits` may have changed
/// it), for the parsing that follows, on any thread.
pub(in crate::python) fn sync_int_limit(py: Python<'_>) -> PyResult<()> {
    let limit = match &hooks(py)?.int_max_str_digits {
        Some(get) => get.bind(py).call0()?.extract::<usize>()?,
        None => 0,
    };
    crate::json::set_int_max_str_digits(limit);
    Ok(())
}
