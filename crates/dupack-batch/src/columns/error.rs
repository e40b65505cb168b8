//! Why a row cannot become columns.

use serde::ser;
use std::fmt;

/// Why a row cannot become columns. Boxed: one pointer, so that the
/// `Result` every field returns fits in registers.
#[derive(Debug)]
#[allow(clippy::box_collection)] // one pointer wide, on purpose (above)
pub struct Error(Box<String>);

impl Error {
    pub(super) fn new(message: String) -> Error {
        Error(Box::new(message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Error {}
impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

pub(super) fn unsupported<T>(what: &str) -> Result<T, Error> {
    Err(Error::new(format!("a result row cannot hold {what}")))
}
