import Foundation

/// The Artifact folder: compiled documents in a file, so that a fleet of `classify` workers
/// starts without parsing or compiling JSON: `aasa compile` writes it, `aasa classify
/// --compiled` maps it and decodes each domain the first time a URL of that host arrives. This
/// type holds the file's layout and its index; `BinaryCoding` the numbers, texts and errors,
/// and `CompiledDocument+Coding`, `NFA+Coding` and `Prebuilt+Coding` each piece's bytes.
///
/// Layout (little-endian; "varint" is LEB128):
///
/// | bytes | content |
/// |---|---|
/// | 8 | magic `AASAFSA\0` |
/// | 4 | format version (`CompiledArtifact.version`) |
/// | 4 | reserved, 0 |
/// | 8 | index length |
/// | 8 | FNV-1a 64 checksum of the index |
/// | n | index: the bodies (each its length and checksum), then per domain its name, file, and either its body's number and its app IDs, or why it failed |
/// | m | bodies, one after another |
///
/// Why an index with a checksum per body (version 4): opening a 100 000-domain artifact reads
/// and checks the index alone, so the first record comes out before most bodies are touched,
/// and memory follows the domains a stream meets. Every body's range is checked against the
/// file at open (a cut file is refused then); a body's checksum and structure are checked when
/// a domain using it is decoded, and a damaged body makes the domains using it fail, not the run.
///
/// Why shared bodies (version 5): a fleet serves the same few documents under thousands of
/// names, and many real documents differ only in their app IDs. A body holds what a compiled
/// document keeps apart from its domain and app IDs (rule tables, automata), and domains
/// whose bodies are byte for byte the same point at one copy; names and files are stored as
/// what they share with the previous domain's. Numbers are varints, steps between states,
/// or table cells as narrow as the state count allows.
///
/// Every automaton is stored as its NFA and, when its DFA fits `LazyDFA.Prebuilt.Budget`, as
/// its whole minimised DFA table too, and each path mode's `SuffixSplit` as the list of its
/// prefixes and (prefix, suffix, rule) entries: loading copies the table once and searches
/// walk it with no cache warm-up in any worker. Automata over the budget keep the lazy form,
/// rebuilt around the NFA at load. Why each NFA's length and each table's byte classes
/// (version 6): loading steps over the NFA of an automaton whose table it keeps, since its
/// searches never read it; the NFA is decoded and checked only if something asks for it
/// (`DeferredNFA`). A wrong magic, another version, a short file, a checksum
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
    /// 4: an index, and a checksum per domain, so domains decode on first use. 5: bodies shared
    /// by the domains compiled from the same rules, and compact numbers. 6: each NFA's length
    /// and each table's byte classes, so a table-backed automaton loads without its NFA. 7: a
    /// rule naming the apps of the rule before it says so instead of listing them, and shares
    /// them once decoded (a 130 KB document of 10 000 apps and 21 500 rules wrote 428 MB).
    /// 8: the layout of 7, with patterns read in decoded modes put in UAX #15's NFC where
    /// Foundation's differed (a Hangul syllable and a trailing jamo, U+0F73, U+0F75, U+0F81):
    /// an artifact of 7 decides those patterns otherwise than their rules now do. 9: each NFA
    /// declares its variable positions, so that a table-backed automaton is held to
    /// `variable-positions` without decoding its NFA, as its compilation would be.
    public static let version: UInt32 = 9
    /// Public so that a command given an artifact where documents belong can say so.
    public static let magic: [UInt8] = Array("AASAFSA\0".utf8)
    public static let headerSize = 32

    /// One domain of an artifact.
    public struct Domain: Sendable {
        public var name: String
        public var file: String
        public var state: ClassifierRules.State
    }

    /// How many automata of the domains got a prebuilt table and how many are lazy, and how
    /// many distinct bodies the artifact stores for them.
    public struct Counts: Sendable, Equatable {
        public var prebuilt = 0
        public var lazy = 0
        public var bodies = 0

        public init(prebuilt: Int = 0, lazy: Int = 0, bodies: Int = 0) {
            self.prebuilt = prebuilt
            self.lazy = lazy
            self.bodies = bodies
        }
    }

    /// The artifact bytes for every domain of `rules` (which must use the compiled engine).
    public static func encode(_ rules: ClassifierRules, budget: LazyDFA.Prebuilt.Budget = .init()) -> [UInt8] {
        var counts = Counts()
        return encode(rules, budget: budget, counts: &counts)
    }

    /// As `encode(_:budget:)`, telling how many automata got a prebuilt table.
    public static func encode(_ rules: ClassifierRules, budget: LazyDFA.Prebuilt.Budget, counts: inout Counts) -> [UInt8] {
        Array(encodedParts(rules, budget: budget, counts: &counts).joined())
    }

    /// The artifact as the parts its bytes are made of, in order (`aasa compile` writes them
    /// one after the other rather than joining them into one more copy of the whole).
    ///
    /// Each domain is loaded when it is reached and let go once its body is written (with
    /// `ClassifierRules(listing:retainsDocuments: false)` nothing else keeps it): what this holds
    /// is the artifact's bytes and one compiled document. Bodies are told apart by their
    /// checksum and then compared with the bytes written, so no second copy of them is kept.
    public static func encodedParts(_ rules: ClassifierRules, budget: LazyDFA.Prebuilt.Budget, counts: inout Counts) -> [[UInt8]] {
        var domains = BinaryWriter()
        var bodies = BinaryWriter()
        var table = BinaryWriter()
        var known: [UInt64: [Int]] = [:]
        var ranges: [Range<Int>] = []
        var forms = CompiledDocument.StoredForms()
        var previousName: [UInt8] = []
        var previousFile: [UInt8] = []
        domains.varint(rules.domains.count)
        for domain in rules.domains {
            let name = Array(domain.name.utf8)
            let file = Array(domain.file.utf8)
            domains.shared(name, previous: previousName)
            domains.shared(file, previous: previousFile)
            (previousName, previousFile) = (name, file)
            switch domain.state {
            case .compiled(let compiled):
                var body = BinaryWriter()
                compiled.encode(into: &body, budget: budget, counts: &counts, forms: &forms)
                let sum = checksum(body.bytes)
                let number: Int
                if let found = known[sum, default: []].first(where: { bodies.bytes[ranges[$0]].elementsEqual(body.bytes) }) {
                    number = found
                } else {
                    number = ranges.count
                    known[sum, default: []].append(number)
                    ranges.append(bodies.bytes.count..<(bodies.bytes.count + body.bytes.count))
                    table.varint(body.bytes.count)
                    table.write(sum)
                    bodies.append(body.bytes)
                }
                domains.write(UInt8(1))
                domains.varint(number)
                domains.texts(compiled.appIDs)
            case .failed(let reason):
                domains.write(UInt8(0))
                domains.text(reason)
            case .reference:
                domains.write(UInt8(0))
                domains.text("compiled with the reference engine, which has no automata")
            }
        }
        counts.bodies = ranges.count
        var index = BinaryWriter()
        index.varint(ranges.count)
        index.append(table.bytes)
        index.append(domains.bytes)
        return [header(index: index.bytes), index.bytes, bodies.bytes]
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
            /// The number of its body, and where its app IDs lie in the file (read when the
            /// domain is decoded).
            case compiled(body: Int, apps: Range<Int>)
            case failed(String)
        }

        public var name: String
        public var file: String
        public var kind: Kind
    }

    /// Where a body lies in the file, and its checksum.
    struct Body: Sendable {
        var start: Int
        var length: Int
        var checksum: UInt64
    }

    /// Reads and checks the header and index of `bytes`; returns the entries and the bodies.
    /// The bodies lie inside `bytes` and cover the rest of it exactly, and every entry's body
    /// exists.
    static func index(_ bytes: ByteView) throws(ArtifactError) -> (entries: [Entry], bodies: [Body]) {
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
        var index = BinaryReader(indexBytes)
        var bodies: [Body] = []
        var end = headerSize + Int(length)
        // A body's entry takes at least nine bytes.
        for _ in 0..<(try index.length(elementSize: 9)) {
            let size = try index.varint()
            let sum = try index.uint64()
            guard size <= UInt64(bytes.count - end) else { throw .truncated }
            bodies.append(Body(start: end, length: Int(size), checksum: sum))
            end += Int(size)
        }
        guard end == bytes.count else { throw .corrupt("bytes after the last body") }
        var entries: [Entry] = []
        var name: [UInt8] = []
        var previousName: [UInt8] = []
        var file: [UInt8] = []
        var scratch: [UInt8] = []
        func string(_ bytes: [UInt8]) throws(ArtifactError) -> String {
            guard let text = bytes.withView(\.validUTF8) else { throw .corrupt("a string is not UTF-8") }
            return text
        }
        // A domain's entry takes at least four bytes.
        let count = try index.length(elementSize: 4)
        entries.reserveCapacity(count)
        for _ in 0..<count {
            try index.shared(&name, scratch: &scratch)
            // `aasa compile` writes each domain once, ASCII-lowercased, in byte order; the host
            // table relies on both (an upper-case name would match only upper-case hosts, and a
            // second entry of a name would be shadowed by the first).
            guard !name.isEmpty, !name.contains(where: { (0x41...0x5A).contains($0) }) else {
                throw .corrupt("a domain name that aasa compile does not write")
            }
            guard entries.isEmpty || previousName.lexicographicallyPrecedes(name) else {
                throw .corrupt("domain names out of order or repeated")
            }
            previousName = name
            try index.shared(&file, scratch: &scratch)
            let kind: Entry.Kind
            switch try index.uint8() {
            case 1:
                let body = try index.natural()
                guard body < bodies.count else { throw .corrupt("a domain's body does not exist") }
                let start = index.offset
                for _ in 0..<(try index.length()) { _ = try index.bytes(try index.length()) }
                kind = .compiled(body: body, apps: (headerSize + start)..<(headerSize + index.offset))
            case 0:
                kind = .failed(try index.text())
            default:
                throw .corrupt("unknown domain kind")
            }
            entries.append(Entry(name: try string(name), file: try string(file), kind: kind))
        }
        guard index.remaining == 0 else { throw .corrupt("bytes after the last domain") }
        return (entries, bodies)
    }

    /// Checks the body of an entry and decodes it as that entry's document.
    static func decode(
        _ bytes: ByteView, entry: Entry, bodies: [Body], configuration: Configuration
    ) throws(ArtifactError) -> CompiledDocument {
        switch entry.kind {
        case .failed(let reason):
            throw .corrupt(reason)
        case .compiled(let number, let apps):
            let appIDs = try self.appIDs(bytes, apps, maxBytes: configuration.document.maxBytes)
            return try decode(bytes, body: bodies[number], domain: entry.name, appIDs: appIDs, configuration: configuration)
        }
    }

    /// The app IDs an entry's range of the index holds.
    ///
    /// Held to `document-bytes` as their JSON text (each ID and its `"",`): a document naming
    /// them could not have been read under that limit, and a crafted artifact naming 55 million
    /// empty IDs in 60 MB crashed the loader (every record of the domain names every app). The
    /// count is checked before any ID is read.
    static func appIDs(_ bytes: ByteView, _ range: Range<Int>, maxBytes: Int) throws(ArtifactError) -> [String] {
        var reader = BinaryReader(bytes[range])
        let count = try reader.length()
        // `count` is at most the bytes left in the file: three times it cannot overflow.
        var textBytes = 3 * count
        guard textBytes <= maxBytes else { throw .overLimit(.documentBytes, found: textBytes, maximum: maxBytes) }
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            let value = try reader.text()
            textBytes += value.utf8.count
            guard textBytes <= maxBytes else { throw .overLimit(.documentBytes, found: textBytes, maximum: maxBytes) }
            values.append(value)
        }
        return values
    }

    /// Checks `body` and decodes it as the document of `domain` with `appIDs`.
    static func decode(
        _ bytes: ByteView, body: Body, domain: String, appIDs: [String], configuration: Configuration
    ) throws(ArtifactError) -> CompiledDocument {
        let slice = bytes[body.start..<(body.start + body.length)]
        guard checksum(slice) == body.checksum else { throw .checksumMismatch }
        var reader = BinaryReader(slice)
        let compiled = try CompiledDocument.decode(from: &reader, domain: domain, appIDs: appIDs, configuration: configuration)
        guard reader.remaining == 0 else { throw .corrupt("bytes after a body's automata") }
        return compiled
    }

    /// An artifact file, mapped for the life of this object, its index checked at open and
    /// each domain decoded when asked.
    ///
    /// Unchecked `Sendable`: the mapping (`MappedFile`) is read-only and never changes while
    /// this object lives; decoding copies what it keeps out of it.
    ///
    /// Domains sharing a body share its decoded automata too: the body is checked and decoded
    /// once, the first time a domain using it is met, and every other domain using it gets a
    /// document around the same automata and rule tables with its own name and app IDs. Damage
    /// found in a body fails every domain using it from then on.
    public final class Mapped: @unchecked Sendable {
        public let entries: [Entry]
        private let file: MappedFile
        private var bytes: ByteView { file.bytes }
        private let bodies: [Body]
        /// What the artifact was opened with: its documents' limits and the fleet's budget.
        let configuration: Configuration
        private let lock = NSLock()
        /// Per body number, under `lock`: the document of the first domain decoded with it, or
        /// why the body cannot be used.
        private var decoded: [Int: Result<CompiledDocument, ArtifactError>] = [:]

        init(file: MappedFile, configuration: Configuration) throws(ArtifactError) {
            (entries, bodies) = try CompiledArtifact.index(file.bytes)
            self.file = file
            self.configuration = configuration
        }

        /// How many distinct bodies the domains share.
        public var bodyCount: Int { bodies.count }

        /// Whether entries `a` and `b` name the same app IDs: their lists are the same bytes.
        func sameAppIDs(_ a: Int, _ b: Int) -> Bool {
            guard case .compiled(_, let first) = entries[a].kind, case .compiled(_, let second) = entries[b].kind else { return false }
            return first.count == second.count && bytes[first].bytesEqual(bytes[second])
        }

        /// The app IDs of entry `index` (none for a failed one), or why they cannot be read.
        func appIDs(_ index: Int) -> Result<[String], ArtifactError> {
            guard case .compiled(_, let apps) = entries[index].kind else { return .success([]) }
            return appIDs(apps)
        }

        private func appIDs(_ apps: Range<Int>) -> Result<[String], ArtifactError> {
            do {
                return .success(try CompiledArtifact.appIDs(bytes, apps, maxBytes: configuration.document.maxBytes))
            } catch {
                return .failure(error)
            }
        }

        /// The compiled document of entry `index`, or why it cannot be used.
        public func document(_ index: Int) -> Result<CompiledDocument, ArtifactError> {
            let entry = entries[index]
            guard case .compiled(let number, let apps) = entry.kind else {
                if case .failed(let reason) = entry.kind { return .failure(.corrupt(reason)) }
                return .failure(.corrupt("unknown domain kind"))
            }
            let appIDs: [String]
            switch self.appIDs(apps) {
            case .success(let decoded): appIDs = decoded
            case .failure(let error): return .failure(error)
            }
            lock.lock()
            defer { lock.unlock() }
            // PERF: `aasa-bench --quick --suite fleet`, `--compiled` instructions per URL with
            // first use (callgrind): 20 214 decoding a shared body per domain, 19 094 once.
            if let known = decoded[number] {
                return known.flatMap { first in
                    // The body's rules name apps by number, up to its own count.
                    guard first.appIDs.count == appIDs.count else { return .failure(.corrupt(CompiledDocument.appCountMismatch)) }
                    return .success(CompiledDocument(sharing: first, domain: entry.name, appIDs: appIDs))
                }
            }
            let result: Result<CompiledDocument, ArtifactError>
            do {
                result = .success(
                    try CompiledArtifact.decode(bytes, body: bodies[number], domain: entry.name, appIDs: appIDs, configuration: configuration))
            } catch {
                result = .failure(error)
            }
            // A count of app IDs that is not the body's is this domain's fault, not the body's.
            if case .failure(.corrupt(CompiledDocument.appCountMismatch)) = result { return result }
            decoded[number] = result
            return result
        }

        /// Forgets the documents decoded so far (a fleet over its `loaded-bytes` let them go), so
        /// that they are freed and decoded again when next asked for; the failures stay.
        func forgetDecoded() {
            lock.lock()
            defer { lock.unlock() }
            decoded = decoded.filter { if case .failure = $0.value { true } else { false } }
        }
    }

    /// Maps the file at `path` and checks its header and index; domains decode on demand.
    public static func open(path: String, configuration: Configuration = .default) throws(ArtifactError) -> Mapped {
        // O_NONBLOCK: a FIFO opens at once (instead of waiting for a writer that may never
        // come) and is refused below with the pipes and devices, which cannot be mapped.
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .unreadable("\(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable("\(path): cannot stat") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable("\(path): \(DocumentFileError.notRegularFile(.init(mode: info.st_mode))) (an artifact is mapped, not streamed)")
        }
        let size = Int(info.st_size)
        guard size >= headerSize else { throw size >= magic.count || size == 0 ? .truncated : .notAnArtifact }
        guard let file = MappedFile(descriptor: descriptor, size: size) else {
            throw .unreadable("\(path): cannot map the file")
        }
        return try Mapped(file: file, configuration: configuration)
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
        let bytes = ByteView(raw: bytes)
        let (entries, bodies) = try index(bytes)
        var domains: [Domain] = []
        for entry in entries {
            if case .failed(let reason) = entry.kind {
                domains.append(Domain(name: entry.name, file: entry.file, state: .failed(reason)))
            } else {
                let compiled = try decode(bytes, entry: entry, bodies: bodies, configuration: configuration)
                domains.append(Domain(name: entry.name, file: entry.file, state: .compiled(compiled)))
            }
        }
        return domains
    }

    /// `artifact` with its checksums made to match its content again, for tests and fuzzing
    /// that damage an artifact on purpose and want its structure, not its checksums, to catch
    /// it. Bodies are re-signed as far as the index's list of them can still be read.
    public static func resigned(_ artifact: [UInt8]) -> [UInt8] {
        guard artifact.count >= headerSize else { return artifact }
        var bytes = artifact
        var lengthValue: UInt64 = 0
        for index in 0..<8 { lengthValue |= UInt64(bytes[16 + index]) << UInt64(8 * index) }
        guard lengthValue <= UInt64(bytes.count - headerSize) else { return bytes }
        let indexEnd = headerSize + Int(lengthValue)
        // Walk the list of bodies leniently; each readable one gets its checksum rewritten.
        // Read from the original, write into the copy: a checksum's bytes are written only
        // after the reader has passed them, and the bodies they cover are not written.
        artifact.withView { original in
            var reader = BinaryReader(original[headerSize..<indexEnd])
            guard let count = try? reader.length(elementSize: 9) else { return }
            var start = indexEnd
            for _ in 0..<count {
                guard let size = try? reader.varint(), size <= UInt64(original.count - start) else { return }
                let sumAt = headerSize + reader.offset
                guard (try? reader.uint64()) != nil else { return }
                let value = checksum(original[start..<(start + Int(size))])
                for byte in 0..<8 { bytes[sumAt + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
                start += Int(size)
            }
        }
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
