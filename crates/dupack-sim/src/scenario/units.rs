//! STUB: replaced by the real unit parser.
