//! Objects put in the order they lie in memory, by a radix sort of their
//! addresses.
//!
//! A pass over every object that reads each one goes in this order
//! ([`super::OwnershipGraph::in_memory_order`]). The graph keeps its
//! objects in uid order, which is random in memory, so the order is made
//! afresh for each such pass: a comparison sort of a million addresses
//! took 0.16 s of the UI's thread before the forest index was built. The
//! addresses of a load lie within a few gigabytes: a handful of passes of
//! 11 bits each, every one a count and a copy, sort them.

/// Bits of the address sorted in one pass: a table of 2,048 counts.
const DIGIT: u32 = 11;
const BUCKETS: usize = 1 << DIGIT;

/// The items in ascending order of their key (an address), equal keys in
/// the order they came.
pub(super) fn sort<T: Copy>(items: Vec<(usize, T)>) -> Vec<T> {
    let Some(first) = items.first().copied() else {
        return Vec::new();
    };
    let (lo, hi, or, and) = items.iter().fold(
        (usize::MAX, 0, 0, usize::MAX),
        |(lo, hi, or, and), (k, _)| (lo.min(*k), hi.max(*k), or | k, and & k),
    );
    // The low bits alike in every key (objects are 16 bytes apart at
    // least) are not sorted, and only the span between the lowest key and
    // the highest is.
    let alike = (or ^ and).trailing_zeros();
    if alike == usize::BITS {
        // One key, or every key the same.
        return items.into_iter().map(|(_, t)| t).collect();
    }
    let span = (hi - lo) >> alike;
    let bits = usize::BITS - span.leading_zeros();
    let mut from = items;
    let mut to = vec![first; from.len()];
    let mut done = 0;
    while done < bits {
        let digit = |k: usize| ((k - lo) >> alike >> done) & (BUCKETS - 1);
        let mut at = [0usize; BUCKETS];
        for (k, _) in &from {
            at[digit(*k)] += 1;
        }
        let mut sum = 0;
        for slot in &mut at {
            let count = *slot;
            *slot = sum;
            sum += count;
        }
        for item in &from {
            let d = digit(item.0);
            to[at[d]] = *item;
            at[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        done += DIGIT;
    }
    from.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as a stable comparison sort by key, whatever the
        /// keys' span and alignment (objects a few bytes apart, or pages
        /// gigabytes apart, and keys given twice).
        #[test]
        fn sorts_as_a_comparison_sort_does(
            base in 0usize..(1 << 47),
            offsets in proptest::collection::vec((0usize..4, 0usize..(1 << 20)), 0..600),
            scale in prop_oneof![Just(1usize), Just(16), Just(448), Just(1 << 21)],
        ) {
            let items: Vec<(usize, usize)> = offsets
                .iter()
                .enumerate()
                .map(|(i, (region, off))| (base + region * (1 << 32) + off * scale, i))
                .collect();
            let mut expected = items.clone();
            expected.sort_by_key(|(k, _)| *k);
            let expected: Vec<usize> = expected.into_iter().map(|(_, i)| i).collect();
            prop_assert_eq!(sort(items), expected);
        }
    }

    /// A key whose low bits differ from the lowest's and the highest's
    /// alike is still told apart.
    #[test]
    fn only_the_low_bits_alike_in_every_key_are_left_out() {
        let items = vec![(0x38, 'b'), (0x30, 'a'), (0x40, 'c')];
        assert_eq!(sort(items), ['a', 'b', 'c']);
    }

    #[test]
    fn the_highest_address_is_sorted_too() {
        let items = vec![(usize::MAX - 15, 'c'), (0, 'a'), (usize::MAX / 2, 'b')];
        assert_eq!(sort(items), ['a', 'b', 'c']);
    }
}
