//! `Buffer`: a column's values lent to Python without a copy.
//!
//! A sweep's chunk holds megabytes of columns. Copying them into `bytes`
//! objects would cost a pass over the data and as much fresh memory again;
//! instead each column's vector moves into a `Buffer`, which numpy
//! (`frombuffer`) and pyarrow (`py_buffer`) read in place through the
//! buffer protocol, and which frees the vector when the last array that
//! views it goes.

use std::os::raw::c_int;

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

// The columns are documented as little-endian bytes, which is the
// machine's own layout only here.
const _: () = assert!(cfg!(target_endian = "little"), "sweep columns are lent as little-endian bytes");

/// The owned values behind a [`Buffer`].
pub enum Owned {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    /// One byte per value (`bool` is a byte holding 0 or 1).
    Bool(Vec<bool>),
    U8(Vec<u8>),
}

impl Owned {
    fn bytes(&self) -> &[u8] {
        fn raw<T>(v: &[T]) -> &[u8] {
            // SAFETY: plain numbers without padding, viewed as the bytes
            // they are made of, for no longer than `v` is borrowed.
            unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        }
        match self {
            Owned::U64(v) => raw(v),
            Owned::I64(v) => raw(v),
            Owned::F64(v) => raw(v),
            Owned::Bool(v) => raw(v),
            Owned::U8(v) => v,
        }
    }
}

/// Read-only bytes of one column (`len()` is their number).
#[pyclass(frozen, module = "dupack._core")]
pub struct Buffer {
    owned: Owned,
}

impl Buffer {
    pub fn lend(py: Python<'_>, owned: Owned) -> PyResult<PyObject> {
        Ok(Py::new(py, Buffer { owned })?.into_any())
    }
}

#[pymethods]
impl Buffer {
    fn __len__(&self) -> usize {
        self.owned.bytes().len()
    }

    /// # Safety
    /// Called by Python with a view to fill; the bytes stay valid while the
    /// view holds its reference to this object (the values never change).
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut pyo3::ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        if flags & pyo3::ffi::PyBUF_WRITABLE == pyo3::ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("a sweep column is read-only"));
        }
        let bytes = slf.get().owned.bytes();
        let rc = pyo3::ffi::PyBuffer_FillInfo(
            view,
            slf.as_ptr(),
            bytes.as_ptr() as *mut _,
            bytes.len() as pyo3::ffi::Py_ssize_t,
            1,
            flags,
        );
        if rc == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(slf.py()))
        }
    }
}
