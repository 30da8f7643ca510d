import XCTest

/// Time and memory bounds for the hostile-input tests, checked on the child's own figures
/// (`ChildProcess`).
///
/// These are robustness bounds, not speed claims: each is several times what the debug build
/// needs on a busy 2-core machine, so noise cannot flake them, yet a hang, a read of a whole
/// 100 MB file or an unbounded buffer would cross them.
public struct RobustnessBounds {
    public var seconds: Double
    public var residentBytes: Int

    public init(seconds: Double, residentMiB: Int) {
        self.seconds = seconds
        self.residentBytes = residentMiB << 20
    }

    /// Asserts that `run` stayed within both bounds.
    public func check(_ run: ChildProcess.Finished, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(run.seconds, seconds, "\(what) took too long: \(run.summary)", file: file, line: line)
        XCTAssertLessThan(run.maxResidentBytes, residentBytes, "\(what) used too much memory: \(run.summary)", file: file, line: line)
    }
}
