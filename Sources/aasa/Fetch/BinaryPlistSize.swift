/// How many objects a binary property list becomes once read: a bound checked before
/// Foundation reads it.
///
/// A binary plist stores each object once and lets containers refer to it by number, so one
/// object may be referred to many times; Foundation's reader builds a separate copy per
/// reference. A 500-byte file of arrays each referring twice to the next thus reads as 2^80
/// objects. This walks only the file's object table and container references (the values are
/// left to Foundation), adding up the copies the reader would build, and stops past a bound.
enum BinaryPlistSize {
    /// The most objects an entitlements file may read as: far above any real one (tens).
    static let maxObjects = 100_000

    enum Verdict: Equatable {
        /// Not a binary plist: nothing to check here.
        case notBinary
        case within
        /// Its object table is not one Foundation would read either.
        case malformed
        /// It reads as more than `maxObjects` objects.
        case tooMany
    }

    static func check(_ data: [UInt8]) -> Verdict {
        guard data.starts(with: Array("bplist".utf8)) else { return .notBinary }
        guard let table = Table(data) else { return .malformed }
        // Depth first, each object's expanded count memoised: -1 not met, -2 being counted (a
        // cycle, which no reader can expand).
        var counts = [Int](repeating: -1, count: table.objectCount)
        var stack: [(object: Int, children: [Int], next: Int, sum: Int)] = []
        func push(_ object: Int) -> Bool {
            guard let children = table.references(of: object) else { return false }
            counts[object] = -2
            stack.append((object, children, 0, 1))
            return true
        }
        guard push(table.top) else { return .malformed }
        while var frame = stack.popLast() {
            if frame.next < frame.children.count {
                let child = frame.children[frame.next]
                frame.next += 1
                switch counts[child] {
                case -2: return .malformed
                case -1:
                    stack.append(frame)
                    guard push(child) else { return .malformed }
                    continue
                default:
                    frame.sum += counts[child]
                    if frame.sum > maxObjects { return .tooMany }
                    stack.append(frame)
                    continue
                }
            }
            counts[frame.object] = frame.sum
            if var parent = stack.popLast() {
                parent.sum += frame.sum
                if parent.sum > maxObjects { return .tooMany }
                stack.append(parent)
            }
        }
        return .within
    }

    /// The trailer, the offset table and the container references of a `bplist00` file.
    private struct Table {
        let data: [UInt8]
        let objectCount: Int
        let top: Int
        private let offsets: [Int]
        private let referenceSize: Int

        init?(_ data: [UInt8]) {
            guard data.count >= 8 + 32 else { return nil }
            let trailer = data.count - 32
            let offsetSize = Int(data[trailer + 6])
            let referenceSize = Int(data[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
                let count = Self.integer(data, at: trailer + 8, size: 8), let top = Self.integer(data, at: trailer + 16, size: 8),
                let tableStart = Self.integer(data, at: trailer + 24, size: 8),
                count > 0, top < count, tableStart >= 8, count <= (trailer - tableStart) / offsetSize
            else { return nil }
            var offsets: [Int] = []
            offsets.reserveCapacity(count)
            for index in 0..<count {
                guard let offset = Self.integer(data, at: tableStart + index * offsetSize, size: offsetSize),
                    offset >= 8, offset < tableStart
                else { return nil }
                offsets.append(offset)
            }
            self.data = data
            self.objectCount = count
            self.top = top
            self.offsets = offsets
            self.referenceSize = referenceSize
        }

        /// The objects `object` refers to (none for a value), `nil` when its bytes do not hold.
        func references(of object: Int) -> [Int]? {
            let offset = offsets[object]
            let marker = data[offset]
            let perEntry: Int
            switch marker >> 4 {
            case 0xA, 0xB, 0xC: perEntry = 1
            case 0xD: perEntry = 2
            default: return []
            }
            var count = Int(marker & 0xF)
            var start = offset + 1
            if count == 0xF {
                // The count is an integer object of its own: marker 0x1n, then 2^n bytes.
                guard start < data.count, data[start] >> 4 == 0x1, data[start] & 0xF <= 3 else { return nil }
                let size = 1 << Int(data[start] & 0xF)
                guard let value = Self.integer(data, at: start + 1, size: size) else { return nil }
                count = value
                start += 1 + size
            }
            guard count <= (data.count - start) / (perEntry * referenceSize) else { return nil }
            var references: [Int] = []
            references.reserveCapacity(count * perEntry)
            for index in 0..<(count * perEntry) {
                guard let reference = Self.integer(data, at: start + index * referenceSize, size: referenceSize),
                    reference < objectCount
                else { return nil }
                references.append(reference)
            }
            return references
        }

        /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits an `Int`.
        static func integer(_ data: [UInt8], at offset: Int, size: Int) -> Int? {
            guard offset >= 0, size <= 8, offset <= data.count - size else { return nil }
            var value: UInt64 = 0
            for byte in data[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
            return value <= UInt64(Int.max) ? Int(value) : nil
        }
    }
}
