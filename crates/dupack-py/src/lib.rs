//! STUB: replaced by the binding.
