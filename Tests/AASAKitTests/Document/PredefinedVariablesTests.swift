import AASAKit
import Foundation
import XCTest

/// The embedded tables behind `$(alpha)` … `$(lang)` (SPEC 9): they must equal what Apple ships
/// (`../shared/data/`, macOS 27), never the host ICU's lists.
final class PredefinedVariablesTests: XCTestCase {
    /// `<package root>/../shared/data`. This file is `<root>/Tests/AASAKitTests/Document/…`, so the
    /// package root is four path components up from `#filePath`.
    private static var sharedData: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Document
            .deletingLastPathComponent()  // AASAKitTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("../shared/data").standardizedFileURL
    }

    /// The codes of one shared list, one per line; skips the test when the file is absent.
    private func sharedList(_ name: String) throws -> [String] {
        let url = Self.sharedData.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("\(url.path) is absent; the embedded table cannot be compared with it")
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private func values(_ name: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard let values = PredefinedVariables.values(of: name) else {
            XCTFail("$(\(name)) is not predefined", file: file, line: line)
            return []
        }
        return values
    }

    private func scalars(_ range: ClosedRange<Character>) -> [String] {
        let lower = range.lowerBound.unicodeScalars.first?.value ?? 0
        let upper = range.upperBound.unicodeScalars.first?.value ?? 0
        return (lower...upper).compactMap { Unicode.Scalar($0).map { String($0) } }
    }

    // MARK: Against the shared data

    func test_region_equalsSharedList() throws {
        let shared = try sharedList("iso-region-codes.txt")
        XCTAssertEqual(shared.count, 257, "the shared list itself changed")
        XCTAssertEqual(Set(PredefinedVariables.regionCodes), Set(shared))
        XCTAssertEqual(PredefinedVariables.regionCodes.count, shared.count)
        XCTAssertEqual(
            Set(shared).subtracting(PredefinedVariables.regionCodes).sorted(), [], "missing from the embedded table")
        XCTAssertEqual(
            Set(PredefinedVariables.regionCodes).subtracting(shared).sorted(), [], "extra in the embedded table")
    }

    func test_lang_equalsSharedList() throws {
        let shared = try sharedList("iso-language-codes.txt")
        XCTAssertEqual(shared.count, 631, "the shared list itself changed")
        XCTAssertEqual(Set(PredefinedVariables.languageCodes), Set(shared))
        XCTAssertEqual(PredefinedVariables.languageCodes.count, shared.count)
        XCTAssertEqual(
            Set(shared).subtracting(PredefinedVariables.languageCodes).sorted(), [], "missing from the embedded table")
        XCTAssertEqual(
            Set(PredefinedVariables.languageCodes).subtracting(shared).sorted(), [], "extra in the embedded table")
    }

    // MARK: Shape of the tables

    func test_region_countIs257WithoutDuplicates() {
        XCTAssertEqual(PredefinedVariables.regionCodes.count, 257)
        XCTAssertEqual(Set(PredefinedVariables.regionCodes).count, 257)
        XCTAssertEqual(values("region"), PredefinedVariables.regionCodes)
    }

    func test_lang_countIs631WithoutDuplicates() {
        XCTAssertEqual(PredefinedVariables.languageCodes.count, 631)
        XCTAssertEqual(Set(PredefinedVariables.languageCodes).count, 631)
        XCTAssertEqual(values("lang"), PredefinedVariables.languageCodes)
    }

    func test_region_UKIsNotARegionButGBIs() {
        XCTAssertFalse(values("region").contains("UK"))
        XCTAssertTrue(values("region").contains("GB"))
        XCTAssertTrue(values("region").contains("XK"), "Foundation reports XK")
    }

    func test_region_everyCodeIsTwoUpperCaseASCIILetters() {
        for code in PredefinedVariables.regionCodes {
            XCTAssertEqual(code.utf8.count, 2, code)
            XCTAssertTrue(code.utf8.allSatisfy { (0x41...0x5A).contains($0) }, code)
        }
    }

    func test_lang_everyCodeIsTwoOrThreeLowerCaseASCIILetters() {
        for code in PredefinedVariables.languageCodes {
            XCTAssertTrue((2...3).contains(code.utf8.count), code)
            XCTAssertTrue(code.utf8.allSatisfy { (0x61...0x7A).contains($0) }, code)
        }
        for expected in ["en", "fr", "mul", "und", "zxx"] {
            XCTAssertTrue(PredefinedVariables.languageCodes.contains(expected), expected)
        }
    }

    // MARK: Character classes

    func test_classes_haveExactlyTheirCharacters() {
        let upper = scalars("A"..."Z")
        let lower = scalars("a"..."z")
        let digit = scalars("0"..."9")
        XCTAssertEqual(upper.count, 26)
        XCTAssertEqual(lower.count, 26)
        XCTAssertEqual(digit.count, 10)
        let expected: [String: [String]] = [
            "alpha": upper + lower,
            "upper": upper,
            "lower": lower,
            "alnum": upper + lower + digit,
            "digit": digit,
            "xdigit": digit + scalars("A"..."F") + scalars("a"..."f"),
        ]
        for (name, want) in expected {
            let got = values(name)
            XCTAssertEqual(Set(got), Set(want), name)
            XCTAssertEqual(got.count, want.count, "\(name) has duplicates")
        }
    }

    func test_classes_everyAlternativeIsOneLiteralScalar() {
        for name in ["alpha", "upper", "lower", "alnum", "digit", "xdigit"] {
            for value in values(name) {
                XCTAssertEqual(value.unicodeScalars.count, 1, "\(name): \(value.debugDescription)")
                XCTAssertFalse(value == "*" || value == "?" || value == "$", "\(name): \(value)")
            }
        }
    }

    func test_names_areTheEightOfSpec9AndNothingElse() {
        XCTAssertEqual(
            PredefinedVariables.names, ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"])
        for name in PredefinedVariables.names {
            XCTAssertNotNil(PredefinedVariables.values(of: name), name)
        }
        for name in ["Alpha", "REGION", "language", "", "space", "punct"] {
            XCTAssertNil(PredefinedVariables.values(of: name), name)
        }
    }

    // MARK: Through the engines

    func test_region_enginesRejectUKAndAcceptGB() throws {
        let document = try AASADocument(
            bytes: Array(#"{"applinks":{"details":[{"appID":"T.a","components":[{"/":"/$(region)/*"}]}]}}"#.utf8))
        let reference = ReferenceMatcher(document: document, domain: "example.com")
        let dfa = DFAMatcher(try CompiledDocument(document: document, domain: "example.com"))
        let cases: [(String, DecisionKind)] = [
            ("https://example.com/GB/x", .match),
            ("https://example.com/UK/x", .noMatch),
            ("https://example.com/XK/x", .match),
            ("https://example.com/gb/x", .noMatch),
            ("https://example.com/GBR/x", .noMatch),
        ]
        for (url, kind) in cases {
            XCTAssertEqual(try reference.decide(url, app: "T.a").decisions.first?.kind, kind, "reference \(url)")
            XCTAssertEqual(try dfa.decide(url, app: "T.a").decisions.first?.kind, kind, "dfa \(url)")
        }
    }
}
