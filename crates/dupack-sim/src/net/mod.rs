//! Network elements: packets, links, queues, error models, routing.
pub mod packet;
