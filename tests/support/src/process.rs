//! Child processes that cannot outlive a failed test.

use std::ops::{Deref, DerefMut};
use std::process::Child;

/// A child process killed when dropped (a panicking test would otherwise leave it running).
pub struct KillOnDrop(pub Child);

impl Deref for KillOnDrop {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
