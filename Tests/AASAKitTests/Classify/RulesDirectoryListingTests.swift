@testable import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Which file of a rules directory serves a domain, and what is said about the others (SPEC 14).
final class RulesDirectoryListingTests: XCTestCase {
    func write(_ folder: URL, _ path: String) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"applinks": {"details": []}}"#.utf8).write(to: file)
    }

    /// A warning names the file really used: two `.json` files sorting before a domain folder
    /// were once judged against each other as they came, and the warning said the first `.json`
    /// was used while the folder's file was. Files that lose to a higher-ranked layout lose as
    /// documented and are not reported; a name that loses to a same-ranked name is.
    func test_duplicateClaims_warnAboutTheFileUsedOnlyWhenTheNameDecided() throws {
        let folder = try makeTemporaryFolder("listing")
        for path in [
            "D.COM.json", "D.Com.json", "D.com/apple-app-site-association",  // the folder wins by rank
            "X.COM.json", "x.com.json",  // same rank: the first by name wins
            "W.example/apple-app-site-association", "w.example/apple-app-site-association", "w.example.json",
        ] {
            try write(folder, path)
        }
        let listing = try DomainDocuments.listing(folder.path)
        let files = Dictionary(uniqueKeysWithValues: listing.files.map { ($0.domain, ($0.file as NSString).lastPathComponent) })
        let used = Dictionary(uniqueKeysWithValues: listing.files.map { ($0.domain, $0.file) })
        XCTAssertEqual(used["d.com"], folder.appendingPathComponent("D.com/apple-app-site-association").path)
        XCTAssertEqual(files["x.com"], "X.COM.json")
        XCTAssertEqual(used["w.example"], folder.appendingPathComponent("W.example/apple-app-site-association").path)
        XCTAssertEqual(
            listing.warnings,
            [
                "two files claim w.example: using \(folder.path)/W.example/apple-app-site-association, ignoring \(folder.path)/w.example/apple-app-site-association",
                "two files claim x.com: using \(folder.path)/X.COM.json, ignoring \(folder.path)/x.com.json",
            ])
    }

    /// A directory that cannot be listed is refused with the system's reason: the message once
    /// named only the path, so a directory without read permission looked like a wrong path.
    func test_unlistableDirectory_saysWhy() throws {
        let folder = try makeTemporaryFolder("listing")
        for (path, reason) in [(folder.appendingPathComponent("absent").path, "No such file or directory"), (folder.path + "/file", "Not a directory")] {
            if reason == "Not a directory" { try Data().write(to: URL(fileURLWithPath: path)) }
            XCTAssertThrowsError(try DomainDocuments.listing(path)) { error in
                XCTAssertEqual("\(error)", "cannot list the rules directory \(path): \(reason)")
            }
        }
    }
}
