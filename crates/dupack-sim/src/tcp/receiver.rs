//! STUB: replaced by the real receiver.
