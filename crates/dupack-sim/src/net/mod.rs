//! Network elements: packets, channels (one direction of a link), queues,
//! error models, delivery-opportunity traces, shared multiple-access media,
//! static routing, link-level ARQ and the Snoop agent.
pub mod arq;
pub mod channel;
pub mod error;
pub mod host;
pub mod medium;
pub mod packet;
pub mod queue;
pub mod routing;
pub mod snoop;
pub mod trace;
