//! The fixed duplicate-ACK threshold of RFC 5681 §3.2 (the default when no
//! extension sets the threshold).

use crate::tcp::policy::{DupThreshold, View};

/// RFC 5681 §3.2: a fixed threshold (3 unless configured).
#[derive(Copy, Clone, Debug)]
pub struct Fixed(pub u32);

impl DupThreshold for Fixed {
    fn on_dupack(&mut self, _v: &View) -> u32 {
        self.0
    }
}
