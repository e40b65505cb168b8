//! STUB: replaced by the real RTO estimator.
