import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// The whole case suite through the built `aasa match` binary, on both engines: documents are
/// written to files, URLs passed as arguments, and the JSON records read back.
final class CaseSuiteCLITests: XCTestCase {
    func test_suite_everyCasePassesThroughTheCLI_dfa() throws {
        try runSuite(engine: "dfa")
    }

    func test_suite_everyCasePassesThroughTheCLI_reference() throws {
        try runSuite(engine: "reference")
    }

    private func runSuite(engine: String) throws {
        let cases = try CaseSuite.load()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-cli-suite-\(engine)-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // One process per (document, domain, limit): its cases' URLs go as arguments, in order.
        struct Group {
            var document: [UInt8]
            var domain: String
            var maxBytes: Int?
            var urlWork: Int?
            var cases: [TestCase] = []
        }
        var groups: [Group] = []
        // Keyed by bytes: String equality is canonical equivalence, which would merge a
        // precomposed and a decomposed document.
        var index: [[UInt8]: Int] = [:]
        for testCase in cases {
            let bytes = testCase.documentBytes
            let key = Array("\(testCase.domain)\u{0}\(testCase.maxDocumentBytes ?? -1)\u{0}\(testCase.maxURLWork ?? -1)\u{0}".utf8) + bytes
            if let at = index[key] {
                groups[at].cases.append(testCase)
            } else {
                index[key] = groups.count
                groups.append(
                    Group(
                        document: bytes, domain: testCase.domain, maxBytes: testCase.maxDocumentBytes,
                        urlWork: testCase.maxURLWork, cases: [testCase]))
            }
        }
        var runs: [[String]] = []
        for (number, group) in groups.enumerated() {
            let file = folder.appendingPathComponent("doc-\(number).json")
            try Data(group.document).write(to: file)
            var arguments = ["match", file.path, "--domain", group.domain, "--engine", engine]
            if let maxBytes = group.maxBytes { arguments += ["--limit", "document-bytes=\(maxBytes)"] }
            if let urlWork = group.urlWork { arguments += ["--limit", "url-work=\(urlWork)"] }
            runs.append(arguments + group.cases.map(\.url))
        }
        // Two children at a time: a child spends most of its 10 to 20 ms starting up (mapping
        // its libraries), so one at a time left a core idle (11 s a test, 5 s two at a time).
        let outputs = try TwoAtATime.map(runs) { try CLIRunner.run($0) }.map { try $0.get() }
        var checked = 0
        for (number, group) in groups.enumerated() {
            let file = folder.appendingPathComponent("doc-\(number).json")
            let output = outputs[number]
            if group.cases.allSatisfy({ $0.expectedError == .document }) {
                XCTAssertEqual(output.status, 3, "\(group.cases.map(\.name)): a broken document must exit 3")
                XCTAssertTrue(output.stderr.contains(file.path), "the message must name the file: \(output.stderr)")
                checked += group.cases.count
                continue
            }
            XCTAssertEqual(output.status, 0, "\(group.cases.map(\.name)): \(output.stderr)")
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            guard lines.count == group.cases.count else {
                XCTFail("\(group.cases.map(\.name)): \(lines.count) records for \(group.cases.count) URLs")
                continue
            }
            for (testCase, line) in zip(group.cases, lines) {
                checked += 1
                let decisions = try CLIRunner.decisions(fromRecord: String(line))
                if testCase.expectedError == .url {
                    XCTAssertNil(decisions, "[\(engine)] \(testCase.name): expected an error record, got \(line)")
                    if let failure = EngineRunner.checkMessage(try CLIRunner.errorMessage(fromRecord: String(line)) ?? "", of: testCase) {
                        XCTFail("[\(engine)] [\(testCase.file)] \(testCase.name) (SPEC \(testCase.spec)): \(failure)")
                    }
                    continue
                }
                guard let decisions else {
                    XCTFail("[\(engine)] \(testCase.name): unexpected error record \(line)")
                    continue
                }
                if let failure = EngineRunner.compare(
                    expected: testCase.expected, actual: decisions, appsInOrder: testCase.appsInOrder)
                {
                    XCTFail("[\(engine)] [\(testCase.file)] \(testCase.name) (SPEC \(testCase.spec)): \(failure)")
                }
            }
        }
        XCTAssertEqual(checked, cases.count)
    }
}
