//! Zobrist keys for the repetition key (F.23): placement (grey pieces and one-point queens included), side
//! to move, castling rights, en-passant entries and eliminated players. Generated at compile time from a
//! fixed seed, so keys (and so game records) are identical on every run and machine.

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

pub(crate) struct Keys {
    /// `[piece code][square]`; piece codes are below 40.
    pub piece: [[u64; 256]; 40],
    pub to_move: [u64; 4],
    /// Hash of a whole castling-rights byte (xor of one key per right).
    pub castling: [u64; 256],
    /// `[pusher][passed square M]`.
    pub en_passant: [[u64; 256]; 4],
    pub eliminated: [u64; 4],
}

pub(crate) static KEYS: Keys = {
    let mut state = 0x4655_5243_4845_5353u64;
    let mut piece = [[0u64; 256]; 40];
    let mut c = 0;
    while c < 40 {
        let mut s = 0;
        while s < 256 {
            let (next, value) = splitmix(state);
            state = next;
            piece[c][s] = value;
            s += 1;
        }
        c += 1;
    }
    let mut en_passant = [[0u64; 256]; 4];
    let mut seat = 0;
    while seat < 4 {
        let mut s = 0;
        while s < 256 {
            let (next, value) = splitmix(state);
            state = next;
            en_passant[seat][s] = value;
            s += 1;
        }
        seat += 1;
    }
    let mut to_move = [0u64; 4];
    let mut eliminated = [0u64; 4];
    let mut rights = [0u64; 8];
    let mut i = 0;
    while i < 4 {
        let (next, a) = splitmix(state);
        let (next, b) = splitmix(next);
        state = next;
        to_move[i] = a;
        eliminated[i] = b;
        i += 1;
    }
    i = 0;
    while i < 8 {
        let (next, a) = splitmix(state);
        state = next;
        rights[i] = a;
        i += 1;
    }
    let mut castling = [0u64; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                castling[byte] ^= rights[bit];
            }
            bit += 1;
        }
        byte += 1;
    }
    Keys {
        piece,
        to_move,
        castling,
        en_passant,
        eliminated,
    }
};
