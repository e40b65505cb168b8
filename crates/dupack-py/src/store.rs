//! What the sweep store (`dupack/sweep_store.py`) asks of the system
//! beyond Python's `os`: the write lock of a sweep directory.
//!
//! The lock is an advisory `flock` on the directory's lock file, taken
//! without waiting. It is taken here rather than with Python's `fcntl`
//! module because `dupack sweep` loads this extension anyway and `fcntl` is
//! a shared library of its own, a quarter of a millisecond of every sweep's
//! start-up (docs/performance.md, "The dupack command end to end").

use pyo3::exceptions::{PyBlockingIOError, PyOSError};
use pyo3::prelude::*;

/// Open (creating it, mode 0644) `path` and take an exclusive `flock` on
/// it without waiting. Returns the descriptor that holds the lock (closing
/// it releases the lock; the system releases it when the process exits,
/// however it exits); None where the file system has no `flock` or the
/// platform no descriptors (the caller then goes on unlocked). Raises
/// BlockingIOError if another open file holds the lock, OSError if the
/// file cannot be opened.
#[pyfunction]
pub(crate) fn lock_file(path: &str) -> PyResult<Option<i64>> {
    lock(path)
}

#[cfg(unix)]
fn lock(path: &str) -> PyResult<Option<i64>> {
    use std::fs::{OpenOptions, TryLockError};
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::IntoRawFd;

    // std opens with O_CLOEXEC, as Python's os.open: a child process does
    // not inherit the lock.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .open(path)
        .map_err(|e| os_error(&e, path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(i64::from(file.into_raw_fd()))),
        Err(TryLockError::WouldBlock) => Err(PyBlockingIOError::new_err(format!("{path} is locked"))),
        // A file system without flock (some network file systems).
        Err(TryLockError::Error(_)) => Ok(None),
    }
}

#[cfg(not(unix))]
fn lock(_path: &str) -> PyResult<Option<i64>> {
    Ok(None)
}

/// The OSError Python's own `os.open` would raise: errno, message and file
/// name (so that the subclass, `PermissionError` and the like, and
/// `strerror` are what the store's callers expect).
fn os_error(e: &std::io::Error, path: &str) -> PyErr {
    match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let strerror = text.strip_suffix(&format!(" (os error {code})")).unwrap_or(&text).to_string();
            PyOSError::new_err((code, strerror, path.to_string()))
        }
        None => PyOSError::new_err(format!("{path}: {e}")),
    }
}
