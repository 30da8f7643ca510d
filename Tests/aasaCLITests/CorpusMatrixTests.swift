import Foundation
import XCTest
import _AASATestSupport

/// The bundled corpus's test matrices, run through `aasa test` on both engines.
final class CorpusMatrixTests: XCTestCase {
    func test_corpus_everyScenarioMatrixPassesOnBothEngines() throws {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus")
        let scenarios = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
        XCTAssertGreaterThanOrEqual(scenarios.count, 5)
        for scenario in scenarios {
            let folder = corpus.appendingPathComponent(scenario)
            for engine in ["dfa", "reference"] {
                let output = try CLIRunner.run([
                    "test", folder.appendingPathComponent("apple-app-site-association").path,
                    "--matrix", folder.appendingPathComponent("matrix.json").path, "--engine", engine, "--domain", scenario,
                ])
                XCTAssertEqual(output.status, 0, "\(scenario) [\(engine)]:\n\(output.stdout)\(output.stderr)")
                XCTAssertTrue(output.stdout.contains(" passed, 0 failed"), output.stdout)
            }
        }
    }

    func test_testCommand_reportsAFailingExpectationWithItsDecidingRule() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-matrix-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let document = folder.appendingPathComponent("aasa.json")
        try Data(#"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"/admin/*","exclude":true},{"/":"*"}]}]}}"#.utf8)
            .write(to: document)
        let matrix = folder.appendingPathComponent("m.json")
        try Data(#"{"opens_app":["https://example.com/admin/x","https://example.com/ok"],"opens_web":["https://example.com/other"]}"#.utf8)
            .write(to: matrix)
        let output = try CLIRunner.run(["test", document.path, "--matrix", matrix.path])
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stdout.contains("FAIL https://example.com/admin/x should open the app: T.a exclude by entry 0 rule 0"), output.stdout)
        XCTAssertTrue(output.stdout.contains("FAIL https://example.com/other should stay on the web: T.a match by entry 0 rule 1"), output.stdout)
        XCTAssertTrue(output.stdout.contains("1 passed, 2 failed"), output.stdout)
    }
}
