//! Maps that give back the capacity of a busier moment. A `HashMap` keeps its largest size for as
//! long as it lives: at 1,000 rooms the log tail's keys held about 3 MiB, and the server's order of
//! recordings 66 KiB, after every room had closed (heap profiles in docs/benchmarks.md; issue 20,
//! target 1: the heap returns to where it started).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// Shrinks `map` to twice its length once a quarter or less of its capacity is used: only then, so
/// that a steady load does not grow and shrink it back and forth. Small maps are left alone.
pub fn give_back<K: Eq + Hash, V, S: BuildHasher>(map: &mut HashMap<K, V, S>) {
    if map.capacity() > 64 && map.len() * 4 <= map.capacity() {
        map.shrink_to(map.len() * 2);
    }
}
