//! The graph's index of every object in uid order. Each object sits beside
//! the first sixteen bytes of its uid, read as two numbers: ordering two
//! objects compares those, and reads the objects' uids only when the
//! sixteen bytes are the same (a snapshot's uids are random, so seldom).
//! Built from a bulk load's sorted objects, the index compared each
//! object with the next twice (a sort that finds them sorted, then the
//! check for a uid twice), each comparison two objects read from memory
//! not yet in cache.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::sync::Arc;

use crate::model::object::Object;

/// The first sixteen bytes of a uid (zeros after a shorter one), in two
/// halves compared as numbers: in the uids' own order, but for uids whose
/// first sixteen bytes are the same.
pub(super) type Prefix = (u64, u64);

pub(super) fn prefix_of(uid: &str) -> Prefix {
    let mut b = [0u8; 16];
    let n = uid.len().min(16);
    b[..n].copy_from_slice(&uid.as_bytes()[..n]);
    let [hi, lo] = [&b[..8], &b[8..]].map(|h| {
        let mut half = [0u8; 8];
        half.copy_from_slice(h);
        u64::from_be_bytes(half)
    });
    (hi, lo)
}

/// An object of the ordered index, ordered and found by its uid. Its
/// order is its uid's (the prefix first, then the whole uid where the
/// prefixes are the same), so it is found by a borrowed uid too.
#[derive(Clone, Debug)]
pub(super) struct Ordered {
    prefix: Prefix,
    pub(super) obj: Arc<Object>,
}

impl Ordered {
    pub(super) fn new(obj: Arc<Object>) -> Self {
        Ordered {
            prefix: prefix_of(obj.uid()),
            obj,
        }
    }

    /// With its uid's prefix already read (a bulk load sorted by it).
    pub(super) fn with_prefix(prefix: Prefix, obj: Arc<Object>) -> Self {
        debug_assert_eq!(prefix, prefix_of(obj.uid()));
        Ordered { prefix, obj }
    }
}

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.prefix == other.prefix && self.obj.uid() == other.obj.uid()
    }
}

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        self.prefix
            .cmp(&other.prefix)
            .then_with(|| self.obj.uid().cmp(other.obj.uid()))
    }
}

/// Found by a uid: the order above is the uids' order.
impl Borrow<str> for Ordered {
    fn borrow(&self) -> &str {
        self.obj.uid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn with_uid(uid: &str) -> Ordered {
        let mut o = Object::new("v1", "ConfigMap", Some("n"), "c");
        o.metadata.uid = uid.to_string();
        Ordered::new(Arc::new(o))
    }

    proptest! {
        /// Two objects compare as their uids do, whatever the uids hold
        /// (short ones, zero bytes, long ones alike in their first
        /// sixteen bytes): a set of them is found by a borrowed uid.
        #[test]
        fn objects_are_in_their_uids_order(
            a in "[a-c\u{0}]{0,20}",
            b in "[a-c\u{0}]{0,20}",
        ) {
            let (x, y) = (with_uid(&a), with_uid(&b));
            prop_assert_eq!(x.cmp(&y), a.as_str().cmp(b.as_str()));
            prop_assert_eq!(x == y, a == b);
        }
    }

    #[test]
    fn uids_alike_in_their_first_sixteen_bytes_are_told_apart() {
        let a = "0123456789abcdef-a";
        let b = "0123456789abcdef-b";
        assert_eq!(prefix_of(a), prefix_of(b));
        assert_eq!(with_uid(a).cmp(&with_uid(b)), Ordering::Less);
        assert_ne!(with_uid(a), with_uid(b));
        // A shorter uid padded with zeros comes before one with a zero.
        assert_eq!(with_uid("ab").cmp(&with_uid("ab\u{0}")), Ordering::Less);
    }
}
