import Foundation

/// Compiled documents in a file, so that a fleet of `classify` workers starts without parsing
/// or compiling JSON: `aasa compile` writes it, `aasa classify --compiled` maps and loads it.
///
/// Layout (little-endian):
///
/// | bytes | content |
/// |---|---|
/// | 8 | magic `AASAFSA\0` |
/// | 4 | format version (`CompiledArtifact.version`) |
/// | 4 | reserved, 0 |
/// | 8 | payload length |
/// | 8 | FNV-1a 64 checksum of the payload |
/// | n | payload: the domains, each with its compiled automata and rule tables |
///
/// Every automaton is stored as its NFA and, when its DFA fits `LazyDFA.Prebuilt.Budget`, as
/// its whole minimised DFA table too (version 2), and each path mode's `SuffixSplit`, as the
/// list of its prefixes and (prefix, suffix, rule) entries (version 3): loading copies the table once and searches
/// walk it with no cache warm-up in any worker. Automata over the budget keep the lazy form,
/// rebuilt around the NFA at load in microseconds. A wrong magic, another version, a short
/// file, a checksum mismatch or an inconsistent automaton or table is refused with a message;
/// nothing in the file is trusted before it has been checked.
///
/// What it will not do: keep the documents' JSON (commands that read a document as written,
/// `lint`, `explain`, `diff`, need the files themselves), store the reference engine (an artifact
/// is compiled automata only), store the compact tables built at compile time for large automata
/// (they are built again at load when the limits allow), migrate an older format (another version
/// is refused; compile again), or load anything over the automaton limits of the process that
/// loads it (`docs/limits.md`).
public enum CompiledArtifact {
    /// 1: NFAs only. 2: NFAs with prebuilt DFA tables where they pay. 3: and suffix splits.
    public static let version: UInt32 = 3
    /// Public so that a command given an artifact where documents belong can say so.
    public static let magic: [UInt8] = Array("AASAFSA\0".utf8)
    static let headerSize = 32

    /// One domain of an artifact.
    public struct Domain: Sendable {
        public var name: String
        public var file: String
        public var state: ClassifierRules.State
    }

    /// How many automata an artifact stores with a prebuilt table, and how many lazy.
    public struct Counts: Sendable, Equatable {
        public var prebuilt = 0
        public var lazy = 0

        public init(prebuilt: Int = 0, lazy: Int = 0) {
            self.prebuilt = prebuilt
            self.lazy = lazy
        }
    }

    /// The artifact bytes for every domain of `rules` (which must use the compiled engine).
    public static func encode(_ rules: ClassifierRules, budget: LazyDFA.Prebuilt.Budget = .init()) -> [UInt8] {
        var counts = Counts()
        return encode(rules, budget: budget, counts: &counts)
    }

    /// As `encode(_:budget:)`, telling how many automata got a prebuilt table.
    public static func encode(_ rules: ClassifierRules, budget: LazyDFA.Prebuilt.Budget, counts: inout Counts) -> [UInt8] {
        var payload = BinaryWriter()
        payload.write(rules.domains.count)
        for domain in rules.domains {
            payload.write(domain.name)
            payload.write(domain.file)
            switch domain.state {
            case .compiled(let compiled):
                payload.write(UInt8(1))
                compiled.encode(into: &payload, budget: budget, counts: &counts)
            case .failed(let reason):
                payload.write(UInt8(0))
                payload.write(reason)
            case .reference:
                payload.write(UInt8(0))
                payload.write("compiled with the reference engine, which has no automata")
            }
        }
        var header = BinaryWriter()
        header.append(magic)
        header.write(version)
        header.write(UInt32(0))
        header.write(UInt64(payload.bytes.count))
        header.write(checksum(payload.bytes))
        return header.bytes + payload.bytes
    }

    /// Maps the file at `path` and decodes it.
    public static func load(path: String, configuration: Configuration = .default) throws(ArtifactError) -> [Domain] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable("\(path): cannot stat") }
        let size = Int(info.st_size)
        guard size >= headerSize else { throw size >= magic.count ? .truncated : .notAnArtifact }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw .unreadable("\(path): cannot map the file")
        }
        defer { munmap(mapped, size) }
        return try decode(UnsafeRawBufferPointer(start: mapped, count: size), configuration: configuration)
    }

    /// Decodes artifact bytes.
    public static func decode(_ bytes: UnsafeRawBufferPointer, configuration: Configuration = .default) throws(ArtifactError)
        -> [Domain]
    {
        var reader = BinaryReader(bytes)
        let header = try reader.bytes(magic.count)
        guard header.elementsEqual(magic) else { throw .notAnArtifact }
        let found = try reader.uint32()
        guard found == version else { throw .otherVersion(found: found, expected: version) }
        _ = try reader.uint32()
        let length = try reader.uint64()
        let expected = try reader.uint64()
        guard length == UInt64(reader.remaining) else {
            throw length > UInt64(reader.remaining) ? .truncated : .corrupt("bytes after the payload")
        }
        let payload = try reader.bytes(Int(length))
        guard checksum(payload) == expected else { throw .checksumMismatch }
        var body = BinaryReader(payload)
        var domains: [Domain] = []
        for _ in 0..<(try body.count(elementSize: 17)) {
            let name = try body.string()
            let file = try body.string()
            switch try body.uint8() {
            case 1:
                let compiled = try CompiledDocument.decode(from: &body, configuration: configuration)
                domains.append(Domain(name: name, file: file, state: .compiled(compiled)))
            case 0:
                domains.append(Domain(name: name, file: file, state: .failed(try body.string())))
            default:
                throw .corrupt("unknown domain kind")
            }
        }
        guard body.remaining == 0 else { throw .corrupt("bytes after the last domain") }
        return domains
    }

    /// FNV-1a, 64 bits: detects truncation and damage; not a defence against tampering.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
