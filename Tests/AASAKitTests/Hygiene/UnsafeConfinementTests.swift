import Foundation
import XCTest
import _AASATestSupport

/// Unsafe code lives in a few small types under `Sources/AASAKit/Internal/`, each unchecked access
/// with a `// SAFETY:` line saying why it holds (`docs/internals.md`, "Unsafe code"). These
/// tests read the library's sources, so a pointer loop or an unchecked property added elsewhere
/// fails the suite instead of waiting for a reviewer to notice.
final class UnsafeConfinementTests: XCTestCase {
    /// Constructs that skip a check Swift would otherwise make: pointer arithmetic and loads,
    /// manual memory, dynamic exclusivity opt-outs, unchecked unwraps and casts.
    static let unsafeConstructs = [
        "withUnsafe", "UnsafeRawPointer", "UnsafeMutable", "loadUnaligned", "@exclusivity(unchecked)",
        ".allocate(", "unsafelyUnwrapped", "assumingMemoryBound", "bindMemory", "unsafeBitCast",
        "Unmanaged", "UnsafeBufferPointer(rebasing", "UnsafeBufferPointer(start",
    ]

    /// Underscored standard-library API: unstable, undocumented, and may change meaning.
    static let underscoredAPI = ["_withUnsafeGuaranteedRef", "_fastPath", "_slowPath", "_unsafeReferenceCast", "@_effects", "@_semantics"]

    struct SourceLine {
        let file: String
        let number: Int
        let text: String
        var code: Substring {
            // The part before a line comment (doc comments may name what they explain): a `//`
            // at the start or after a space, so that `"https://"` in code is not taken for one.
            let trimmed = text.drop { $0 == " " }
            if trimmed.hasPrefix("//") { return "" }
            guard let comment = text.range(of: " //") else { return Substring(text) }
            return text[..<comment.lowerBound]
        }
    }

    static func libraryLines() throws -> [SourceLine] {
        let root = CaseSuite.packageRoot.appendingPathComponent("Sources/AASAKit")
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var lines: [SourceLine] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                lines.append(SourceLine(file: path, number: index + 1, text: String(line)))
            }
        }
        return lines
    }

    func test_unsafeConstructs_appearOnlyUnderInternal() throws {
        let lines = try Self.libraryLines()
        XCTAssertGreaterThan(lines.count, 10_000, "the library's sources were read")
        let outside = lines.filter { line in
            !line.file.hasPrefix("Internal/") && Self.unsafeConstructs.contains { line.code.contains($0) }
        }
        XCTAssertEqual(outside.map { "\($0.file):\($0.number): \($0.text.trimmingCharacters(in: .whitespaces))" }, [])
    }

    /// Outside `Internal/`, an `UnsafeBufferPointer` may only be the type of memory a caller lends
    /// through a public entry point (the C ABI, the CLI's reader, tests) or a public enum's
    /// payload, which the library wraps in a view at once.
    func test_bufferPointersOutsideInternal_areOnlyPublicParameters() throws {
        let lines = try Self.libraryLines().filter { !$0.file.hasPrefix("Internal/") }
        var inPublicSignature = false
        var offenders: [String] = []
        for line in lines {
            let code = line.code.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("public ") || code.hasPrefix("@inlinable public ") { inPublicSignature = true }
            // An enum payload (`URLLineReader.Line.url`) hands a public caller the lent bytes too.
            if code.contains("UnsafeBufferPointer"), !inPublicSignature, !code.hasPrefix("case ") {
                offenders.append("\(line.file):\(line.number): \(code)")
            }
            if code.contains("{") || code.isEmpty { inPublicSignature = false }
        }
        XCTAssertEqual(offenders, [])
    }

    func test_everyUncheckedAccessUnderInternal_saysWhyItIsSafe() throws {
        let lines = try Self.libraryLines().filter { $0.file.hasPrefix("Internal/") }
        let unchecked = ["loadUnaligned", "@exclusivity(unchecked)", "memchr(", "memcmp(", "assumingMemoryBound", "bindMemory"]
        var unexplained: [String] = []
        for (index, line) in lines.enumerated() where unchecked.contains(where: { line.code.contains($0) }) {
            // The SAFETY line sits above the access, in the same file, within a few lines.
            let above = lines[max(0, index - 6)..<index].filter { $0.file == line.file }
            if !above.contains(where: { $0.text.contains("// SAFETY:") }) {
                unexplained.append("\(line.file):\(line.number): \(line.text.trimmingCharacters(in: .whitespaces))")
            }
        }
        XCTAssertEqual(unexplained, [])
    }

    func test_noUnderscoredStandardLibraryAPI() throws {
        let used = try Self.libraryLines().filter { line in Self.underscoredAPI.contains { line.code.contains($0) } }
        XCTAssertEqual(used.map { "\($0.file):\($0.number)" }, [])
    }
}
