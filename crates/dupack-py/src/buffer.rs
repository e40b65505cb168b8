//! `Buffer`: a column's values handed to Python without a copy.
//!
//! A sweep's tables hold megabytes of columns. Copying them into `bytes`
//! objects would cost a pass over the data and as much fresh memory again;
//! instead each column's vector moves into a `Buffer`, which numpy
//! (`frombuffer`) and pyarrow (`py_buffer`) use in place through the buffer
//! protocol, and which frees the vector when the last array that views it
//! goes. The memory is Python's from then on: the DataFrames of a sweep are
//! built on it, and pandas writes into them like into any array it owns, so
//! a view may be writable.

use std::os::raw::c_int;

use pyo3::prelude::*;

// The columns are documented as little-endian values, which is the
// machine's own layout only here.
const _: () = assert!(cfg!(target_endian = "little"), "sweep columns are lent as little-endian bytes");

/// The owned values behind a [`Buffer`].
pub enum Owned {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    /// Bytes; also booleans, one byte (0 or 1) each: Python may write any
    /// byte into a buffer, which a `Vec<bool>` must never hold.
    U8(Vec<u8>),
}

impl Owned {
    /// Booleans as bytes (0 or 1), in place.
    pub fn bools(v: Vec<bool>) -> Owned {
        Owned::U8(v.into_iter().map(u8::from).collect())
    }
}

impl Owned {
    /// Where the values start and how many bytes they take. The vector
    /// gives back the room it grew into first: the tables of a long sweep
    /// live as long as its DataFrames, and growth by doubling would
    /// otherwise keep up to twice their size.
    fn raw_parts(&mut self) -> (*mut u8, usize) {
        fn raw<T>(v: &mut Vec<T>) -> (*mut u8, usize) {
            v.shrink_to_fit();
            (v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v.as_slice()))
        }
        match self {
            Owned::U64(v) => raw(v),
            Owned::I64(v) => raw(v),
            Owned::F64(v) => raw(v),
            Owned::U8(v) => raw(v),
        }
    }
}

/// The bytes of one column (`len()` is their number).
#[pyclass(frozen, module = "dupack._core")]
pub struct Buffer {
    /// Taken once from `owned`, which is never touched again until it is
    /// dropped: every access after that goes through this pointer, under
    /// the GIL (the buffer protocol), so no Rust reference to the values
    /// exists while Python reads or writes them.
    ptr: *mut u8,
    len: usize,
    /// Keeps the allocation alive, and frees it with the buffer.
    _owned: Owned,
}

// SAFETY: the values are reached only through `ptr`, by Python code that
// holds the GIL; the vector itself is only dropped, by whichever thread
// drops the last reference.
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    pub fn lend(py: Python<'_>, mut owned: Owned) -> PyResult<PyObject> {
        let (ptr, len) = owned.raw_parts();
        Ok(Py::new(py, Buffer { ptr, len, _owned: owned })?.into_any())
    }
}

#[pymethods]
impl Buffer {
    fn __len__(&self) -> usize {
        self.len
    }

    /// # Safety
    /// Called by Python with a view to fill; the bytes stay valid while the
    /// view holds its reference to this object.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut pyo3::ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        let b = slf.get();
        let rc = pyo3::ffi::PyBuffer_FillInfo(
            view,
            slf.as_ptr(),
            b.ptr.cast(),
            b.len as pyo3::ffi::Py_ssize_t,
            0, // writable
            flags,
        );
        if rc == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(slf.py()))
        }
    }
}
