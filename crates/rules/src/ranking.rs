//! Competition ranking with shared places (C.24, F.22): seats equal on every criterion share a place and
//! the next place is skipped (1, 1, 3, 4).

/// Places (1-based) for four seats, given each seat's ranking key: a larger key ranks higher.
/// A seat's place is one more than the number of seats whose key is strictly larger.
pub fn competition_places<K: Ord>(keys: &[K; 4]) -> [u8; 4] {
    std::array::from_fn(|i| 1 + keys.iter().filter(|other| **other > keys[i]).count() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c24_shared_places_skip_the_next() {
        assert_eq!(competition_places(&[10, 10, 3, 1]), [1, 1, 3, 4]);
        assert_eq!(competition_places(&[1, 2, 3, 4]), [4, 3, 2, 1]);
        assert_eq!(competition_places(&[7, 7, 7, 7]), [1, 1, 1, 1]);
        assert_eq!(competition_places(&[5, 9, 5, 0]), [2, 1, 2, 4]);
    }
}
