import Synchronization

/// An NFA kept in the form it was stored in, decoded the first time something asks for it.
///
/// Why: an automaton loaded with its whole DFA table (compiled artifacts) is searched through
/// the table alone, so decoding and checking its NFA at load was most of the cost of meeting a
/// new domain, for an NFA that classification never reads. Dumps, statistics and tools that
/// want the NFA still get it (`LazyDFA.nfa`), decoded and checked then.
///
/// What it will not do: know how the bytes are laid out (the artifact layer hands over the
/// decoder), or fail loudly when they turn out damaged: the table answers every search without
/// it, so a damaged NFA reads as one that accepts nothing (`NFA.acceptingNothing`), and
/// `decodingFailed` says so.
final class DeferredNFA: Sendable {
    /// The bytes the NFA was stored as: written back as they are when its document is encoded
    /// again, so encoding never needs the decoded NFA.
    let encoded: [UInt8]
    /// The state count the stored bytes declare, unchecked until decoded: for plans and
    /// statistics, which must not decode.
    let declaredStateCount: Int
    private let decode: @Sendable ([UInt8]) -> NFA?
    /// The NFA once asked for, and whether the stored bytes failed to decode.
    private let decoded = Mutex<(nfa: NFA, failed: Bool)?>(nil)

    init(encoded: [UInt8], declaredStateCount: Int, decode: @escaping @Sendable ([UInt8]) -> NFA?) {
        self.encoded = encoded
        self.declaredStateCount = declaredStateCount
        self.decode = decode
    }

    /// The NFA, decoded on the first request (once, whichever thread asks).
    var nfa: NFA {
        decoded.withLock { decoded in
            if let known = decoded { return known.nfa }
            let valid = decode(encoded)
            decoded = (valid ?? .acceptingNothing, valid == nil)
            return valid ?? .acceptingNothing
        }
    }

    /// Whether something has asked for the NFA (and so it was decoded).
    var hasDecoded: Bool { decoded.withLock { $0 != nil } }

    /// Whether the stored bytes failed to decode as a valid NFA (known once `nfa` was asked for).
    var decodingFailed: Bool { decoded.withLock { $0?.failed ?? false } }
}

extension NFA {
    /// One state, no edges, no accepting state: the language of nothing.
    static let acceptingNothing = NFA(
        transitionStart: [0, 0], transitions: [], epsilonStart: [0, 0], epsilons: [], kinds: [.plain], start: 0,
        variableStarts: [], variableNames: [])
}
