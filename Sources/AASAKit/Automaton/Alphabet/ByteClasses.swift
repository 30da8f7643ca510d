/// A partition of the 256 byte values into classes that no transition of the NFA tells apart.
///
/// Every DFA row has one column per class instead of one per byte, so a document whose patterns
/// use 20 distinct bytes has rows of about 40 columns, not 256: the cache holds six times more
/// states in the same memory. Computed from the boundaries of every byte range of the NFA,
/// as regex-automata and RE2 do.
public struct ByteClasses: Sendable, Equatable {
    /// The class of each byte.
    public let classOf: [UInt8]
    /// The number of classes (1...256).
    public let count: Int

    /// One class per byte: the "no byte classes" configuration, to test that classes change
    /// nothing but speed.
    public static let singletons = ByteClasses(classOf: (0...255).map { UInt8($0) }, count: 256)

    init(classOf: [UInt8], count: Int) {
        self.classOf = classOf
        self.count = count
    }

    /// Classes from a set of boundaries: `boundary[b]` is true when byte `b` starts a new class.
    init(boundaries: [Bool]) {
        var classOf = [UInt8](repeating: 0, count: 256)
        var current = 0
        for byte in 0..<256 {
            if byte > 0, boundaries[byte] { current += 1 }
            classOf[byte] = UInt8(current)
        }
        self.classOf = classOf
        self.count = current + 1
    }

    /// One byte of each class, in class order: determinisation steps on these.
    public var representatives: [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var seen = [Bool](repeating: false, count: count)
        for byte in 0..<256 {
            let cls = Int(classOf[byte])
            if !seen[cls] {
                seen[cls] = true
                result[cls] = UInt8(byte)
            }
        }
        return result
    }
}
