//! Network elements: packets, channels (one direction of a link), queues,
//! error models, delivery-opportunity traces, static routing.
pub mod channel;
pub mod error;
pub mod packet;
pub mod queue;
pub mod routing;
pub mod trace;
