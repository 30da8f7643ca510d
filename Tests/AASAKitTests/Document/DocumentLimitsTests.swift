import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// The document limits of the one `Configuration`: each is inclusive, refuses the whole document
/// one past it with an error that names the limit, where it was passed, and the `--limit` to
/// raise it; and the defaults leave every real document alone.
final class DocumentLimitsTests: XCTestCase {
    private func configuration(_ limit: Configuration.Limit, _ value: Int) -> Configuration {
        var configuration = Configuration()
        configuration[limit] = value
        return configuration
    }

    /// Decodes `text` under `limit = value`, returning the limit error if any.
    private func limitError(_ text: String, _ limit: Configuration.Limit, _ value: Int) throws -> DocumentLimitError? {
        do {
            _ = try AASADocument(bytes: Array(text.utf8), configuration: configuration(limit, value))
            return nil
        } catch {
            guard case .overLimit(let limitError) = error else { throw error }
            XCTAssertEqual(error.code, "over-limit")
            return limitError
        }
    }

    private let threePatterns = ##"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/a","?":{"q":"1"}},{"#":"f"}]}]}}"##

    func test_patterns_countsPathQueryItemAndFragmentPatterns() throws {
        XCTAssertNil(try limitError(threePatterns, .patterns, 3))
        let error = try XCTUnwrap(try limitError(threePatterns, .patterns, 2))
        XCTAssertEqual(error.limit, .patterns)
        XCTAssertEqual(error.path.description, ##"applinks.details[0].components[1]["#"]"##)
        XCTAssertTrue(error.description.contains("raise it with --limit patterns=<n>"), error.description)
    }

    func test_patterns_countDefaultsAndLegacyPaths() throws {
        let text = #"{"applinks":{"defaults":{"/":"/d"},"details":[{"appID":"T.a","paths":["/x","NOT /y"]}]}}"#
        XCTAssertNil(try limitError(text, .patterns, 3))
        let error = try XCTUnwrap(try limitError(text, .patterns, 2))
        XCTAssertEqual(error.path.description, "applinks.details[0].paths[1]")
    }

    /// The dictionary form of `details` is read in sorted order; the path names the entry by
    /// its key, where the file has it, not by that order.
    func test_patterns_pathOfTheDictionaryFormNamesTheEntryByItsKey() throws {
        let text = #"{"applinks":{"details":{"ABCDE12345.com.ex.zed":{"paths":["/z"]},"ABCDE12345.com.ex.abe":{"paths":["/a","/b"]}}}}"#
        let error = try XCTUnwrap(try limitError(text, .patterns, 2))
        XCTAssertEqual(error.path.description, #"applinks.details["ABCDE12345.com.ex.zed"].paths[0]"#)
    }

    func test_patternBytes_isInclusiveAndNamesThePattern() throws {
        let text = #"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/abcd"}]}]}}"#
        XCTAssertNil(try limitError(text, .patternBytes, 5))
        let error = try XCTUnwrap(try limitError(text, .patternBytes, 4))
        XCTAssertEqual([error.found, error.maximum], [5, 4])
        XCTAssertEqual(error.path.description, #"applinks.details[0].components[0]["/"]"#)
        XCTAssertTrue(error.description.contains("--limit pattern-bytes=<n>"), error.description)
    }

    func test_variables_countValuesAndValueLength() throws {
        let text = #"{"applinks":{"substitutionVariables":{"a":["x","yy"],"b":["z"]},"details":[]}}"#
        XCTAssertNil(try limitError(text, .variables, 2))
        XCTAssertEqual(try limitError(text, .variables, 1)?.limit, .variables)
        XCTAssertNil(try limitError(text, .variableValues, 2))
        let values = try XCTUnwrap(try limitError(text, .variableValues, 1))
        XCTAssertEqual(values.limit, .variableValues)
        XCTAssertEqual(values.path.description, "applinks.substitutionVariables.a")
        XCTAssertNil(try limitError(text, .patternBytes, 2))
        XCTAssertEqual(try limitError(text, .patternBytes, 1)?.path.description, "applinks.substitutionVariables.a[1]")
    }

    func test_defaults_acceptEveryRealDocument() throws {
        let shared = CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/domains")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: shared.path) else {
            throw XCTSkip("../shared/corpus is not present")
        }
        var checked = 0
        for name in names where name.hasSuffix(".json") {
            do {
                _ = try AASADocument(contentsOfFile: shared.appendingPathComponent(name).path)
                checked += 1
            } catch {
                // Every real document is valid JSON: any refusal under the defaults is a failure.
                XCTFail("\(name): \(error)")
            }
        }
        XCTAssertGreaterThan(checked, 200)
    }

    func test_setLimit_readsNamesSuffixesAndRefusesNonsense() throws {
        var configuration = Configuration()
        try configuration.setLimit("document-bytes=1M")
        try configuration.setLimit("dfa-cache-bytes=64k")
        try configuration.setLimit("nfa-states=10")
        try configuration.setLimit("url-bytes=1024G")
        XCTAssertEqual(configuration.input.maxURLBytes, Configuration.Limit.ceiling)
        XCTAssertEqual(configuration.document.maxBytes, 1 << 20)
        XCTAssertEqual(configuration.automata.cacheCapacity, 64 << 10)
        XCTAssertEqual(configuration.automata.maxNFAStates, 10)
        for bad in ["document-bytes", "nope=1", "url-bytes=0", "patterns=-1", "patterns=x", "line-bytes=9999999999G", "line-bytes=9223372036854775807", "document-bytes=1025G"] {
            XCTAssertThrowsError(try configuration.setLimit(bad), bad)
        }
    }

    func test_file_endlessDocumentIsRefusedAfterReadingPastTheLimit() throws {
        let start = Date()
        XCTAssertThrowsError(try AASADocument(contentsOfFile: "/dev/zero")) { error in
            XCTAssertEqual(error as? DocumentFileError, .document(.tooLarge(size: 131_073, limit: 131_072)))
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "reading must stop one byte past the limit")
    }

    func test_file_missingOrDirectoryIsUnreadable() {
        for path in ["/nonexistent/aasa.json", NSTemporaryDirectory()] {
            XCTAssertThrowsError(try AASADocument(contentsOfFile: path), path) { error in
                guard case .unreadable? = error as? DocumentFileError else { return XCTFail("\(path): \(error)") }
            }
        }
    }
}
