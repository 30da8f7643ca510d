import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Reading a document file with `regularFileOnly` (what a rules directory asks for): anything but
/// a regular file is refused without being opened for a blocking read, and the error says what
/// stands there; without it, pipes and devices are still read as before.
final class DocumentFileTests: XCTestCase {
    private static func error(reading path: String, regularFileOnly: Bool = true) -> DocumentFileError? {
        do {
            _ = try AASADocument.bytes(ofFile: path, maxBytes: 1 << 10, regularFileOnly: regularFileOnly)
            return nil
        } catch {
            return error
        }
    }

    func test_regularFileOnly_readsARegularFileAndOneBehindALink() throws {
        let folder = try makeTemporaryFolder("aasa-document-file")
        let file = folder.appendingPathComponent("a.json")
        try Data("{}".utf8).write(to: file)
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file.path)
        XCTAssertEqual(try AASADocument.bytes(ofFile: file.path, maxBytes: 10, regularFileOnly: true), Array("{}".utf8))
        XCTAssertEqual(try AASADocument.bytes(ofFile: link, maxBytes: 10, regularFileOnly: true), Array("{}".utf8))
    }

    func test_regularFileOnly_refusesAFIFOWithoutWaitingForAWriter() throws {
        let folder = try makeTemporaryFolder("aasa-document-file")
        let fifo = folder.appendingPathComponent("f.json").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // On another thread, so that a read that blocks fails the test instead of hanging it.
        nonisolated(unsafe) var refusal: DocumentFileError?
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            refusal = Self.error(reading: fifo)
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut {
            XCTFail("reading the FIFO blocked")
            close(open(fifo, O_WRONLY | O_NONBLOCK))  // a writer that comes and goes releases the reader
            _ = done.wait(timeout: .now() + 10)
            return
        }
        XCTAssertEqual(refusal, .notRegularFile(.fifo))
        XCTAssertEqual(refusal?.description, "it is a FIFO, not a regular file")
    }

    func test_regularFileOnly_refusesDirectoriesAndDevices() throws {
        let folder = try makeTemporaryFolder("aasa-document-file")
        XCTAssertEqual(Self.error(reading: folder.path), .notRegularFile(.directory))
        XCTAssertEqual(Self.error(reading: "/dev/zero"), .notRegularFile(.characterDevice))
        XCTAssertEqual(Self.error(reading: "/dev/null"), .notRegularFile(.characterDevice))
    }

    func test_regularFileOnly_namesBrokenLinksAndLinkLoops() throws {
        let folder = try makeTemporaryFolder("aasa-document-file")
        let broken = folder.appendingPathComponent("broken.json").path
        try FileManager.default.createSymbolicLink(atPath: broken, withDestinationPath: "missing.json")
        XCTAssertEqual(Self.error(reading: broken), .brokenSymbolicLink)
        let loop = folder.appendingPathComponent("loop.json").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop.json")
        XCTAssertEqual(Self.error(reading: loop), .symbolicLinkLoop)
        XCTAssertEqual(Self.error(reading: folder.appendingPathComponent("absent.json").path), .unreadable(reason: "No such file or directory"))
    }

    /// A document named explicitly (`aasa match /dev/zero`) keeps the old reading: a device is
    /// read up to one byte past the limit.
    func test_withoutRegularFileOnly_aDeviceIsStillRead() {
        XCTAssertEqual(Self.error(reading: "/dev/zero", regularFileOnly: false), .document(.tooLarge(size: 1025, limit: 1024)))
        XCTAssertNil(Self.error(reading: "/dev/null", regularFileOnly: false))
    }
}
