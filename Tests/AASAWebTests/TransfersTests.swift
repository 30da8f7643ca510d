import Foundation
import XCTest

@testable import AASAWeb

/// The parts of `AASAWeb` that need no server: reading `Retry-After`, and the atomic write.
/// (Transfers against a server are tested through the binary in aasaCLITests/FetchCLITests.)
final class TransfersTests: XCTestCase {
    func test_retryAfter_secondsAndHTTPDates() throws {
        XCTAssertEqual(Transfers.retryAfterSeconds("1"), 1)
        XCTAssertEqual(Transfers.retryAfterSeconds(" 120 "), 120)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let inAMinute = formatter.string(from: Date().addingTimeInterval(60))
        let seconds = try XCTUnwrap(Transfers.retryAfterSeconds(inAMinute), inAMinute)
        XCTAssertGreaterThan(seconds, 50)
        XCTAssertLessThanOrEqual(seconds, 61)
        XCTAssertNil(Transfers.retryAfterSeconds("soon"))
    }

    func test_writeAtomically_replacesWholeFilesAndLeavesNoTemporaries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-web-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("apple-app-site-association").path
        XCTAssertNil(DocumentStore.writeAtomically(Array("first".utf8), to: path))
        XCTAssertNil(DocumentStore.writeAtomically(Array("second".utf8), to: path))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["apple-app-site-association"])
        let missing = folder.appendingPathComponent("no/such/folder/file").path
        XCTAssertNotNil(DocumentStore.writeAtomically([1], to: missing), "a write that cannot happen says why")
    }
}
