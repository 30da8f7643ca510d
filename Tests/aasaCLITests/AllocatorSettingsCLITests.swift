import Foundation
import XCTest
import _AASATestSupport

/// `aasa` starts jemalloc with huge pages for its heap (`Sources/CAllocatorSettings`): a fleet
/// stream meets thousands of domains, each a few small objects, and on 4 KiB pages building
/// them cost a page fault per page. jemalloc's own statistics (printed at exit when asked) say
/// which option it ran with.
final class AllocatorSettingsCLITests: XCTestCase {
    private func thpOption(malloconf: String) throws -> String? {
        let run = try CLIRunner.runShell("MALLOC_CONF='\(malloconf)' '\(CLIRunner.executable.path)' --version")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("aasa "), run.stdout)
        guard let line = run.stderr.split(separator: "\n").first(where: { $0.contains("opt.thp:") }) else { return nil }
        return line.split(separator: ":").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"")) }
    }

    func test_theCLIsHeapAsksForHugePages() throws {
        XCTAssertEqual(try thpOption(malloconf: "stats_print:true"), "always")
    }

    /// The environment still has the last word, for a machine where huge pages cost more memory
    /// than they save time.
    func test_MALLOC_CONFOverridesTheHugePageSetting() throws {
        XCTAssertEqual(try thpOption(malloconf: "thp:default,stats_print:true"), "default")
    }
}
