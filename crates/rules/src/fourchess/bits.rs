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

    #[inline(always)]
    pub fn set(&mut self, sq: u8) {
        self.0[(sq >> 6) as usize] |= 1 << (sq & 63);
    }

    #[inline(always)]
    pub fn clear(&mut self, sq: u8) {
        self.0[(sq >> 6) as usize] &= !(1 << (sq & 63));
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
