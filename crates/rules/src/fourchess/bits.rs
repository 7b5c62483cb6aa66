//! A set of mailbox squares: 256 bits, one per mailbox index. Used for per-owner piece sets (fast
//! iteration over a seat's pieces) and for the check-evasion and pin lines of move generation.

#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub(crate) struct Bits(pub [u64; 4]);

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Bits {
    pub const EMPTY: Bits = Bits([0; 4]);

    #[inline(always)]
    pub fn has(&self, sq: u8) -> bool {
        (self.0[(sq >> 6) as usize] >> (sq & 63)) & 1 != 0
    }

    /// The set of one square.
    #[inline(always)]
    pub fn single(sq: u8) -> Bits {
        Bits(std::array::from_fn(|w| {
            u64::from(w == (sq >> 6) as usize) << (sq & 63)
        }))
    }

    #[inline(always)]
    pub fn set(&mut self, sq: u8) {
        self.0[(sq >> 6) as usize] |= 1 << (sq & 63);
    }

    #[inline(always)]
    pub fn clear(&mut self, sq: u8) {
        self.0[(sq >> 6) as usize] &= !(1 << (sq & 63));
    }

    /// Whether the two sets share a square.
    #[inline(always)]
    pub fn intersects(&self, other: &Bits) -> bool {
        (self.0[0] & other.0[0])
            | (self.0[1] & other.0[1])
            | (self.0[2] & other.0[2])
            | (self.0[3] & other.0[3])
            != 0
    }

    /// Squares in either set.
    #[inline(always)]
    pub fn union(&self, other: &Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] | other.0[w]))
    }

    /// Squares in both sets.
    #[inline(always)]
    pub fn intersection(&self, other: &Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] & other.0[w]))
    }

    /// Squares of `self` not in `other`.
    #[inline(always)]
    pub fn minus(&self, other: &Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] & !other.0[w]))
    }

    /// Calls `f` on each square in increasing index order: one tight loop per word, cheaper than the
    /// iterator in the move generator's hot loop.
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(u8)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f((w as u8) << 6 | bits.trailing_zeros() as u8);
                bits &= bits - 1;
            }
        }
    }

    /// Squares in increasing index order.
    #[inline(always)]
    pub fn iter(&self) -> BitsIter {
        BitsIter {
            words: self.0,
            word: 0,
        }
    }
}

#[derive(Debug)]
pub(crate) struct BitsIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for BitsIter {
    type Item = u8;

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        while self.word < 4 {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some((self.word as u8) << 6 | w.trailing_zeros() as u8);
            }
            self.word += 1;
        }
        None
    }
}
