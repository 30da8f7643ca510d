/// One step of the multiply-xorshift hash of the engine's own hash tables (the lazy DFA's states,
/// the analyses' subsets and product states): a multiply and a shift a word, enough for open
/// addressing, or to hand `Hasher` one word in place of many.
enum WordMix {
    /// Where a hash starts, before its first word.
    static let seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    @inline(__always)
    static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let product = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
        return product ^ (product >> 29)
    }
}
