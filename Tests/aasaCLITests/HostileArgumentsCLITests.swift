import Foundation
import XCTest
import _AASATestSupport

/// Arguments and headers written to hurt get an answer, not a crash or minutes of work: a
/// `--witnesses` count at `Int.max`, a CSV header of one name written 32 000 times.
final class HostileArgumentsCLITests: XCTestCase {
    /// One test's folder, made on first use and removed when the test ends.
    private lazy var folder: URL? = try? makeTemporaryFolder("aasa-hostile-arguments")

    private func write(_ name: String, _ text: String) throws -> String {
        let url = try XCTUnwrap(folder).appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func test_diff_witnessesAtIntMaxListsEveryWitnessWithoutOverflow() throws {
        func document(_ path: String) -> String {
            #"{"applinks": {"details": [{"appIDs": ["T.b"], "components": [{"/": "\#(path)"}]}]}}"#
        }
        let old = try write("old.json", document("/a/*"))
        let new = try write("new.json", document("/b/*"))
        let output = try CLIRunner.run(["diff", old, new, "--domain", "example.com", "--witnesses", String(Int.max)])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertTrue(output.stdout.contains("https://example.com/a"), output.stdout)
        XCTAssertTrue(output.stdout.contains("https://example.com/b"), output.stdout)
    }

    func test_classify_csvHeaderOfOneRepeatedNameNamesEachColumnOnce() throws {
        // Each repeat is named as pandas names it: `a.1`, `a.2`…, skipping a name already taken.
        let small = try write("small.csv", "a,a.2,a,a,url\n1,2,3,4,https://museum.example/\n")
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        let run = try CLIRunner.run(["classify", "--rules", corpus, "--input", small, "--input-format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix(#""fields": {"a":"1","a.2":"2","a.1":"3","a.3":"4"}}"# + "\n"), run.stdout)
        // 32 000 repeats: each rename probes from where the last one stopped (quadratic before:
        // 155 s).
        let header = Array(repeating: "a", count: 32_000).joined(separator: ",") + ",url\n"
        let row = Array(repeating: "x", count: 32_000).joined(separator: ",") + ",https://museum.example/\n"
        let big = try write("big.csv", header + row)
        let wide = try CLIRunner.run(["classify", "--rules", corpus, "--input", big, "--input-format", "csv", "--limit", "line-bytes=1000000"])
        XCTAssertEqual(wide.status, 0, wide.stderr)
        XCTAssertTrue(wide.stdout.contains(#""a.31999":"x""#), String(wide.stdout.suffix(200)))
    }

    func test_compile_refusesStandardOutputAsTheArtifact() throws {
        let corpus = CaseSuite.packageRoot.appendingPathComponent("corpus").path
        // Before, this wrote a file named "-" into the current directory and exited 0.
        let run = try CLIRunner.run(["compile", corpus, "-o", "-"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("not to standard output"), run.stderr)
    }
}
