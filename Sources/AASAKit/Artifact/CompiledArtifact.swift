import Foundation

/// Compiled documents in a file, so that a fleet of `classify` workers starts without parsing
/// or compiling JSON: `aasa compile` writes it, `aasa classify --compiled` maps it and decodes
/// each domain the first time a URL of that host arrives.
///
/// Layout (little-endian):
///
/// | bytes | content |
/// |---|---|
/// | 8 | magic `AASAFSA\0` |
/// | 4 | format version (`CompiledArtifact.version`) |
/// | 4 | reserved, 0 |
/// | 8 | index length |
/// | 8 | FNV-1a 64 checksum of the index |
/// | n | index: per domain its name, file, and either the range and checksum of its body or why it failed |
/// | m | bodies: each domain's compiled automata and rule tables |
///
/// Why an index with a checksum per body (version 4): opening a 100 000-domain artifact reads
/// and checks the index alone, so the first record comes out before most bodies are touched,
/// and memory follows the domains a stream meets. Every body's range is checked against the
/// file at open (a cut file is refused then); a body's checksum and structure are checked when
/// it is decoded, and a damaged body makes its own domain fail, not the run.
///
/// Every automaton is stored as its NFA and, when its DFA fits `LazyDFA.Prebuilt.Budget`, as
/// its whole minimised DFA table too, and each path mode's `SuffixSplit` as the list of its
/// prefixes and (prefix, suffix, rule) entries: loading copies the table once and searches
/// walk it with no cache warm-up in any worker. Automata over the budget keep the lazy form,
/// rebuilt around the NFA at load. A wrong magic, another version, a short file, a checksum
/// mismatch or an inconsistent automaton or table is refused with a message; nothing in the
/// file is trusted before it has been checked.
///
/// What it will not do: keep the documents' JSON (commands that read a document as written,
/// `lint`, `explain`, `diff`, need the files themselves), store the reference engine (an artifact
/// is compiled automata only), store the compact tables built at compile time for large automata
/// (they are built again at load when the limits allow), migrate an older format (another version
/// is refused; compile again), or load anything over the automaton limits of the process that
/// loads it (`docs/limits.md`).
public enum CompiledArtifact {
    /// 1: NFAs only. 2: NFAs with prebuilt DFA tables where they pay. 3: and suffix splits.
    /// 4: an index, and a checksum per domain, so domains decode on first use.
    public static let version: UInt32 = 4
    /// Public so that a command given an artifact where documents belong can say so.
    public static let magic: [UInt8] = Array("AASAFSA\0".utf8)
    public static let headerSize = 32

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
        var index = BinaryWriter()
        var bodies = BinaryWriter()
        index.write(rules.domains.count)
        for domain in rules.domains {
            index.write(domain.name)
            index.write(domain.file)
            switch domain.state {
            case .compiled(let compiled):
                var body = BinaryWriter()
                compiled.encode(into: &body, budget: budget, counts: &counts)
                index.write(UInt8(1))
                index.write(UInt64(bodies.bytes.count))
                index.write(UInt64(body.bytes.count))
                index.write(checksum(body.bytes))
                bodies.append(body.bytes)
            case .failed(let reason):
                index.write(UInt8(0))
                index.write(reason)
            case .reference:
                index.write(UInt8(0))
                index.write("compiled with the reference engine, which has no automata")
            }
        }
        return header(index: index.bytes) + index.bytes + bodies.bytes
    }

    static func header(index: [UInt8]) -> [UInt8] {
        var header = BinaryWriter()
        header.append(magic)
        header.write(version)
        header.write(UInt32(0))
        header.write(UInt64(index.count))
        header.write(checksum(index))
        return header.bytes
    }

    /// One domain as the index describes it.
    public struct Entry: Sendable {
        public enum Kind: Sendable {
            /// Its body: a range of the bodies section, and the body's checksum.
            case compiled(offset: Int, length: Int, checksum: UInt64)
            case failed(String)
        }

        public var name: String
        public var file: String
        public var kind: Kind
    }

    /// Reads and checks the header and index of `bytes`; returns the entries and where the
    /// bodies start. Every body's range lies inside `bytes` and they cover the bodies exactly.
    static func index(_ bytes: UnsafeRawBufferPointer) throws(ArtifactError) -> (entries: [Entry], bodies: Int) {
        var reader = BinaryReader(bytes)
        guard bytes.count >= magic.count else { throw .notAnArtifact }
        let header = try reader.bytes(magic.count)
        guard header.elementsEqual(magic) else { throw .notAnArtifact }
        let found = try reader.uint32()
        guard found == version else { throw .otherVersion(found: found, expected: version) }
        _ = try reader.uint32()
        let length = try reader.uint64()
        let expected = try reader.uint64()
        guard length <= UInt64(reader.remaining) else { throw .truncated }
        let indexBytes = try reader.bytes(Int(length))
        guard checksum(indexBytes) == expected else { throw .checksumMismatch }
        let bodiesStart = headerSize + Int(length)
        let bodiesLength = bytes.count - bodiesStart
        var body = BinaryReader(indexBytes)
        var entries: [Entry] = []
        var end = 0
        for _ in 0..<(try body.count(elementSize: 17)) {
            let name = try body.string()
            let file = try body.string()
            switch try body.uint8() {
            case 1:
                let offset = try body.uint64()
                let size = try body.uint64()
                let sum = try body.uint64()
                guard offset <= UInt64(bodiesLength), size <= UInt64(bodiesLength) - offset else { throw .truncated }
                end = max(end, Int(offset + size))
                entries.append(Entry(name: name, file: file, kind: .compiled(offset: Int(offset), length: Int(size), checksum: sum)))
            case 0:
                entries.append(Entry(name: name, file: file, kind: .failed(try body.string())))
            default:
                throw .corrupt("unknown domain kind")
            }
        }
        guard body.remaining == 0 else { throw .corrupt("bytes after the last domain") }
        guard end == bodiesLength else { throw .corrupt("bytes after the last domain's automata") }
        return (entries, bodiesStart)
    }

    /// Checks and decodes one body.
    static func decodeBody(
        _ bytes: UnsafeRawBufferPointer, bodies: Int, offset: Int, length: Int, checksum expected: UInt64,
        configuration: Configuration
    ) throws(ArtifactError) -> CompiledDocument {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[(bodies + offset)..<(bodies + offset + length)])
        guard checksum(slice) == expected else { throw .checksumMismatch }
        var reader = BinaryReader(slice)
        let compiled = try CompiledDocument.decode(from: &reader, configuration: configuration)
        guard reader.remaining == 0 else { throw .corrupt("bytes after a domain's automata") }
        return compiled
    }

    /// An artifact file, mapped for the life of this object, its index checked at open and
    /// each domain decoded when asked.
    ///
    /// Unchecked `Sendable`: the mapping is read-only and never changes while this object
    /// lives; decoding copies what it keeps out of it.
    public final class Mapped: @unchecked Sendable {
        public let entries: [Entry]
        private let bytes: UnsafeRawBufferPointer
        private let bodies: Int
        private let configuration: Configuration

        init(bytes: UnsafeRawBufferPointer, configuration: Configuration) throws(ArtifactError) {
            (entries, bodies) = try CompiledArtifact.index(bytes)
            self.bytes = bytes
            self.configuration = configuration
        }

        deinit {
            if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        }

        /// The compiled document of entry `index`, or why it cannot be used.
        public func document(_ index: Int) -> Result<CompiledDocument, ArtifactError> {
            switch entries[index].kind {
            case .failed(let reason):
                return .failure(.corrupt(reason))
            case .compiled(let offset, let length, let sum):
                do {
                    return .success(
                        try CompiledArtifact.decodeBody(
                            bytes, bodies: bodies, offset: offset, length: length, checksum: sum, configuration: configuration))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    /// Maps the file at `path` and checks its header and index; domains decode on demand.
    public static func open(path: String, configuration: Configuration = .default) throws(ArtifactError) -> Mapped {
        let descriptor = Foundation.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable("\(path): cannot stat") }
        let size = Int(info.st_size)
        guard size >= headerSize else { throw size >= magic.count ? .truncated : .notAnArtifact }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw .unreadable("\(path): cannot map the file")
        }
        let bytes = UnsafeRawBufferPointer(start: mapped, count: size)
        do {
            return try Mapped(bytes: bytes, configuration: configuration)
        } catch {
            munmap(mapped, size)
            throw error
        }
    }

    /// Maps the file at `path` and decodes every domain now.
    public static func load(path: String, configuration: Configuration = .default) throws(ArtifactError) -> [Domain] {
        let mapped = try open(path: path, configuration: configuration)
        return try mapped.entries.indices.map { (index) throws(ArtifactError) -> Domain in
            let entry = mapped.entries[index]
            if case .failed(let reason) = entry.kind { return Domain(name: entry.name, file: entry.file, state: .failed(reason)) }
            return Domain(name: entry.name, file: entry.file, state: .compiled(try mapped.document(index).get()))
        }
    }

    /// Decodes artifact bytes, every domain.
    public static func decode(_ bytes: UnsafeRawBufferPointer, configuration: Configuration = .default) throws(ArtifactError)
        -> [Domain]
    {
        let (entries, bodies) = try index(bytes)
        var domains: [Domain] = []
        for entry in entries {
            switch entry.kind {
            case .failed(let reason):
                domains.append(Domain(name: entry.name, file: entry.file, state: .failed(reason)))
            case .compiled(let offset, let length, let sum):
                let compiled = try decodeBody(bytes, bodies: bodies, offset: offset, length: length, checksum: sum, configuration: configuration)
                domains.append(Domain(name: entry.name, file: entry.file, state: .compiled(compiled)))
            }
        }
        return domains
    }

    /// `artifact` with its checksums made to match its content again, for tests and fuzzing
    /// that damage an artifact on purpose and want its structure, not its checksums, to catch
    /// it. Bodies are re-signed as far as the index can still be read.
    public static func resigned(_ artifact: [UInt8]) -> [UInt8] {
        guard artifact.count >= headerSize else { return artifact }
        var bytes = artifact
        var lengthValue: UInt64 = 0
        for index in 0..<8 { lengthValue |= UInt64(bytes[16 + index]) << UInt64(8 * index) }
        guard lengthValue <= UInt64(bytes.count - headerSize) else { return bytes }
        let indexEnd = headerSize + Int(lengthValue)
        let sum = checksum(bytes[headerSize..<indexEnd])
        for index in 0..<8 { bytes[24 + index] = UInt8(truncatingIfNeeded: sum >> UInt64(8 * index)) }
        let bodiesLength = bytes.count - indexEnd
        // Walk the index leniently; each readable body entry gets its checksum rewritten.
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let index = UnsafeRawBufferPointer(start: base + headerSize, count: Int(lengthValue))
            var reader = BinaryReader(index)
            guard let count = try? reader.count(elementSize: 17) else { return }
            for _ in 0..<count {
                guard (try? reader.string()) != nil, (try? reader.string()) != nil, let kind = try? reader.uint8() else { return }
                if kind == 0 {
                    guard (try? reader.string()) != nil else { return }
                    continue
                }
                guard kind == 1, let offset = try? reader.uint64(), let size = try? reader.uint64() else { return }
                let sumAt = headerSize + reader.offset
                guard (try? reader.uint64()) != nil, offset <= UInt64(bodiesLength), size <= UInt64(bodiesLength) - offset else { return }
                let body = UnsafeRawBufferPointer(start: base + indexEnd + Int(offset), count: Int(size))
                let value = checksum(body)
                for byte in 0..<8 { raw[sumAt + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
            }
        }
        // The index changed where body checksums were rewritten: sign it again.
        let final = checksum(bytes[headerSize..<indexEnd])
        for index in 0..<8 { bytes[24 + index] = UInt8(truncatingIfNeeded: final >> UInt64(8 * index)) }
        return bytes
    }

    /// FNV-1a, 64 bits: detects truncation and damage; not a defence against tampering.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
