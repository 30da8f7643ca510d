import Foundation
import XCTest
import _AASATestSupport

/// `aasa entitlements` against a rules directory: XML and binary property lists, modes,
/// wildcards, the app ID from the file or `--app-id`, stable codes and exit statuses. (The
/// `--fetch` path runs against the loopback server in FetchCLITests.)
final class EntitlementsCLITests: XCTestCase {
    private let app = "ABCDE12345.com.example.app"

    private func rules(_ folder: URL) throws -> URL {
        let rules = folder.appendingPathComponent("rules")
        let document =
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}]}]}}"#
        let other = #"{"applinks": {"details": [{"appIDs": ["ZZZZZ12345.com.example.other"], "components": [{"/": "*"}]}]}}"#
        for (domain, text) in [("example.com", document), ("other.example", other)] {
            let wellKnown = rules.appendingPathComponent(domain).appendingPathComponent(".well-known")
            try FileManager.default.createDirectory(at: wellKnown, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: wellKnown.appendingPathComponent("apple-app-site-association"))
        }
        try Data("{not json".utf8).write(to: rules.appendingPathComponent("broken.example.json"))
        return rules
    }

    private func plist(_ folder: URL, _ name: String, _ contents: [String: Any], binary: Bool = false) throws -> String {
        let data = try PropertyListSerialization.data(fromPropertyList: contents, format: binary ? .binary : .xml, options: 0)
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    private func records(_ output: CLIRunner.Output) throws -> [[String: Any]] {
        try output.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    private func codes(_ record: [String: Any]) -> [String] {
        (record["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    func test_entitlements_binaryAndXMLPlistsListApplinksWithModes() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let contents: [String: Any] = [
            "application-identifier": app,
            "com.apple.developer.associated-domains": [
                "applinks:example.com", "applinks:*.example.com?mode=developer", "webcredentials:example.com",
                "applinks:other.example?mode=managed",
            ],
        ]
        for binary in [false, true] {
            let file = try plist(folder, binary ? "app.bin.entitlements" : "app.entitlements", contents, binary: binary)
            let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
            XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
            let lines = try records(output)
            XCTAssertEqual(
                lines.map { $0["entry"] as? String },
                ["applinks:example.com", "applinks:*.example.com?mode=developer", "applinks:other.example?mode=managed"])
            XCTAssertEqual(lines.map { $0["domain"] as? String }, ["example.com", "example.com", "other.example"])
            XCTAssertEqual(lines.map { $0["mode"] as? String }, [nil, "developer", "managed"])
            XCTAssertEqual(lines.map(codes), [[], [], ["app-not-listed"]])
            XCTAssertEqual(lines.map { $0["ok"] as? Bool }, [true, true, false])
        }
        let text = try CLIRunner.run([
            "entitlements",
            try plist(
                folder, "one.entitlements",
                [
                    "com.apple.application-identifier": app, "com.apple.developer.associated-domains": ["applinks:example.com"],
                ]), "--rules", rules.path,
        ])
        XCTAssertEqual(text.status, 0, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.contains("applinks:example.com: ok"), text.stdout)
    }

    func test_entitlements_problemsHaveStableCodes() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(
            folder, "app.entitlements",
            [
                "com.apple.developer.associated-domains": [
                    "applinks:missing.example", "applinks:https://example.com/x", "applinks:broken.example",
                    "applinks:example.com?mode=sometimes",
                ]
            ])
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json", "--app-id", app])
        XCTAssertEqual(output.status, 1)
        let lines = try records(output)
        XCTAssertEqual(lines.map(codes), [["no-document"], ["invalid-entry"], ["invalid-document"], ["invalid-entry"]])
        XCTAssertTrue(
            ((lines[1]["findings"] as? [[String: Any]])?.first?["message"] as? String ?? "").contains("try example.com"),
            "\(lines[1])")
        let noApp = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
        XCTAssertEqual(try records(noApp).first.map(codes), ["no-app-id"])
        // An entry whose document loads is not "ok" when there is no app to look for in it.
        let unchecked = try CLIRunner.run([
            "entitlements",
            try plist(folder, "no-app.entitlements", ["com.apple.developer.associated-domains": ["applinks:example.com"]]),
            "--rules", rules.path, "--format", "json",
        ])
        XCTAssertEqual(unchecked.status, 1)
        let uncheckedLines = try records(unchecked)
        XCTAssertEqual(uncheckedLines.map(codes), [["no-app-id"], ["no-app-id"]], unchecked.stdout)
        XCTAssertEqual(uncheckedLines.last?["ok"] as? Bool, false, unchecked.stdout)
        let none = try CLIRunner.run([
            "entitlements", try plist(folder, "none.entitlements", ["application-identifier": app]), "--rules", rules.path,
        ])
        XCTAssertEqual(none.status, 0, "no applinks entry is a warning")
        XCTAssertTrue(none.stdout.contains("[no-applinks]"), none.stdout)
    }

    func test_entitlements_matrixIsCheckedForThisApp() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(
            folder, "app.entitlements",
            ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:example.com"]])
        let matrix = folder.appendingPathComponent("m.json")
        try Data(
            #"{"opens_app": ["https://example.com/app/1", "https://example.com/shop"], "opens_web": ["https://example.com/about"]}"#
                .utf8
        ).write(to: matrix)
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--matrix", matrix.path, "--format", "json"])
        XCTAssertEqual(output.status, 1)
        let findings = try records(output).first?["findings"] as? [[String: Any]] ?? []
        XCTAssertEqual(findings.compactMap { $0["code"] as? String }, ["matrix-failed"])
        XCTAssertEqual(findings.first?["url"] as? String, "https://example.com/shop")
    }

    func test_entitlements_matrixDecidesWildcardSubdomainsAndFailsURLsNoEntryCovers() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(
            folder, "app.entitlements",
            ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:*.example.com"]])
        let matrix = folder.appendingPathComponent("m.json")
        // The subdomain is decided on example.com's document (/app/* opens), and expected to
        // stay on the web: a failure. The root is not covered by the wildcard, a typo'd host by
        // nothing, and "nohost" cannot be split: each fails, where they were skipped.
        try Data(
            #"{"opens_app": ["https://example.com/app/1", "https://exmaple.com/app/1", "nohost"], "opens_web": ["https://www.example.com/app/2", "https://elsewhere.example/"]}"#
                .utf8
        ).write(to: matrix)
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--matrix", matrix.path, "--format", "json"])
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        let lines = try records(output)
        let urls = lines.flatMap { ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } }
        XCTAssertEqual(
            Set(urls), ["https://example.com/app/1", "https://exmaple.com/app/1", "nohost", "https://www.example.com/app/2"],
            output.stdout)
    }

    /// A URL is decided by the most specific entry covering its host: its host's own entry
    /// before a wildcard (served by another file, TN3155), a longer wildcard before a shorter.
    /// It used to be checked on every covering entry, so the wildcard's document failed a URL the
    /// host's own document opens.
    func test_entitlements_matrixURLsAreDecidedByTheMostSpecificEntry() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        for (domain, path) in [("example.com", "/root/*"), ("a.example.com", "/a/*"), ("shop.example.com", "/shop/*")] {
            try Data(#"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "\#(path)"}]}]}}"#.utf8)
                .write(to: rules.appendingPathComponent("\(domain).json"))
        }
        let file = try plist(
            folder, "app.entitlements",
            [
                "application-identifier": app,
                "com.apple.developer.associated-domains": ["applinks:*.example.com", "applinks:a.example.com", "applinks:*.shop.example.com"],
            ])
        let matrix = folder.appendingPathComponent("m.json")
        try Data(
            #"{"opens_app": ["https://a.example.com/a/1", "https://b.example.com/root/1", "https://x.shop.example.com/shop/1", "https://x.y.example.com/root/2"], "opens_web": ["https://a.example.com/root/1"]}"#
                .utf8
        ).write(to: matrix)
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--matrix", matrix.path, "--format", "json"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(try records(output).map(codes), [[], [], []], output.stdout)
    }

    /// Each document is read and compiled once, however many entries name it, and each matrix
    /// URL is split once and given to its entry: 1 000 copies of one entry against 100 000 URLs
    /// took 25 s, 20 000 entries against 50 000 URLs of no entry 38 s.
    func test_entitlements_manyEntriesAgainstALargeMatrix_takeLinearTime() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let entries = Array(repeating: "applinks:example.com", count: 1_000) + (0..<5_000).map { "applinks:host\($0).example" }
        let file = try plist(folder, "app.entitlements", ["application-identifier": app, "com.apple.developer.associated-domains": entries])
        let opening = (0..<50_000).map { "\"https://example.com/app/\($0)\"" }
        let elsewhere = (0..<50_000).map { "\"https://nowhere\($0).test/x\"" }
        let matrix = folder.appendingPathComponent("m.json")
        try Data(#"{"opens_app": [\#(opening.joined(separator: ","))], "opens_web": [\#(elsewhere.joined(separator: ","))]}"#.utf8)
            .write(to: matrix)
        let run = try ChildProcess.run(
            ["entitlements", file, "--rules", rules.path, "--matrix", matrix.path, "--format", "json"], folder: folder)
        XCTAssertEqual(run.status, 1, run.summary)
        RobustnessBounds(seconds: 10, residentMiB: 300).check(run, "6 000 entries against 100 000 URLs")
        let lines = run.stdout.split(separator: 10).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(lines.count, 6_000, run.summary)
        // Every copy of the example.com entry decides its host's 50 000 URLs, which open the app;
        // the URLs of no entry hold (they should stay on the web); the other hosts have no document.
        XCTAssertEqual(lines.prefix(1_000).filter { $0.contains(#""ok": true, "findings": []"#) }.count, 1_000, lines[0])
        XCTAssertTrue(lines[1_000].contains("no-document"), lines[1_000])
    }

    /// A port is digits, and there is one: `+443` is not one, and `:443:443` is a bad port (not
    /// a domain with a port in it, whose hint would point at --connect-to). Under `--rules` a
    /// port entry reads its domain's document, which is all a rules directory holds (classify
    /// ignores ports too).
    func test_entitlements_portsAreDigitsAndRulesDirectoriesIgnoreThem() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(
            folder, "app.entitlements",
            [
                "application-identifier": app,
                "com.apple.developer.associated-domains": ["applinks:example.com:+443", "applinks:example.com:8443", "applinks:example.com:443:443"],
            ])
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
        XCTAssertEqual(try records(output).map(codes), [["invalid-entry"], [], ["invalid-entry"]], output.stdout)
        let text = try CLIRunner.run(["entitlements", file, "--rules", rules.path])
        let doublePort = text.stdout.split(separator: "\n").filter { $0.contains("443:443") }
        XCTAssertEqual(doublePort.count, 1, text.stdout)
        XCTAssertTrue(doublePort.allSatisfy { $0.contains("bad port") && !$0.contains("connect-to") }, text.stdout)
        // An IPv6 literal is named as an address, not as a bad port (an audit's finding).
        let address = try plist(folder, "ip.entitlements", ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:[::1]"]])
        let named = try CLIRunner.run(["entitlements", address, "--rules", rules.path])
        XCTAssertTrue(named.stdout.contains("an IP address, not a domain name") && !named.stdout.contains("bad port"), named.stdout)
        // entitlements fetches from the origin only: --cdn-url would be ignored, so it is refused.
        let cdn = try CLIRunner.run(["entitlements", file, "--fetch", "--cdn-url", "https://cdn.example/{domain}"])
        XCTAssertEqual(cdn.status, 2, cdn.stderr)
    }

    func test_entitlements_rulesDirectoryIsListedAsClassifyListsIt() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try Data(#"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "*"}]}]}}"#.utf8)
            .write(to: rules.appendingPathComponent("Upper.Example.json"))
        try FileManager.default.createSymbolicLink(
            atPath: rules.appendingPathComponent("broken.example.json").path, withDestinationPath: "/nonexistent/aasa.json")
        let file = try plist(
            folder, "app.entitlements",
            ["application-identifier": app, "com.apple.developer.associated-domains": ["applinks:upper.example", "applinks:broken.example"]])
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
        let lines = try records(output)
        XCTAssertEqual(lines.map(codes), [[], ["no-document"]], output.stdout)
        XCTAssertTrue(output.stdout.contains("broken symbolic link"), output.stdout)
        let missing = try CLIRunner.run(["entitlements", file, "--rules", folder.appendingPathComponent("nope").path])
        XCTAssertEqual(missing.status, 3, missing.stdout + missing.stderr)
        XCTAssertTrue(missing.stderr.contains("cannot list the rules directory"), missing.stderr)
    }

    func test_entitlements_entriesOfNoServiceAndEntriesThatAreNotStringsAreInvalid() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(
            folder, "app.entitlements",
            [
                "application-identifier": app,
                "com.apple.developer.associated-domains": ["applinks:example.com", "bogus", " applinks:example.com", 7, "webcredentials:example.com"],
            ])
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
        XCTAssertEqual(output.status, 1, output.stdout)
        let lines = try records(output)
        XCTAssertEqual(lines.first.map(codes), ["invalid-entry", "invalid-entry", "invalid-entry"], output.stdout)
        XCTAssertEqual(lines.count, 2, "the file's findings, then the one applinks entry: \(output.stdout)")
        let notArray = try plist(
            folder, "string.entitlements", ["application-identifier": app, "com.apple.developer.associated-domains": "applinks:example.com"])
        XCTAssertEqual(try CLIRunner.run(["entitlements", notArray, "--rules", rules.path]).status, 1)
    }

    /// A binary plist of `depth` arrays, each referring twice to the next: a few hundred bytes
    /// that a reader copying each reference expands to 2^depth objects.
    private func sharedReferencePlist(depth: Int) -> [UInt8] {
        func string(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
        }
        func reference(_ index: Int) -> [UInt8] { [0, 0, UInt8(index >> 8), UInt8(index & 0xFF)] }
        var objects: [[UInt8]] = [
            [0xD2] + reference(1) + reference(2) + reference(3) + reference(4),
            string("application-identifier"), string("x"), string(app), [0xA1] + reference(5),
        ]
        for _ in 0..<depth { objects.append([0xA2] + reference(objects.count + 1) + reference(objects.count + 1)) }
        objects.append([0x08])
        var body = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(body.count)
            body += object
        }
        let table = body.count
        for offset in offsets { body += reference(offset) }
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        body += [0, 0, 0, 0, 0, 0, 4, 4] + be64(objects.count) + be64(0) + be64(table)
        return body
    }

    func test_entitlements_aBinaryPlistOfSharedReferencesIsRefusedBeforeItIsExpanded() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let hostile = folder.appendingPathComponent("shared.entitlements")
        try Data(sharedReferencePlist(depth: 20)).write(to: hostile)
        let run = try ChildProcess.run(["entitlements", hostile.path, "--rules", rules.path], folder: folder)
        XCTAssertEqual(run.status, 3, run.summary)
        XCTAssertTrue(run.stderr.contains("reads as more than 100000 objects"), run.summary)
        RobustnessBounds(seconds: 10, residentMiB: 100).check(run, "a 20-level shared-reference plist")
        // Shared references as writers make them (equal strings stored once), and containers
        // of 15 entries and more (whose count is an object of its own), read as before.
        let domains = (0..<40).map { $0 % 2 == 0 ? "applinks:example.com" : "applinks:other.example" }
        let file = try plist(
            folder, "many.entitlements", ["application-identifier": app, "com.apple.developer.associated-domains": domains], binary: true)
        let output = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--format", "json"])
        XCTAssertEqual(try records(output).count, 40, output.stdout + output.stderr)
    }

    func test_entitlements_usageAndUnreadableFiles() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        XCTAssertEqual(try CLIRunner.run(["entitlements", "x.plist"]).status, 2, "needs --rules or --fetch")
        let both = try CLIRunner.run(["entitlements", "x.plist", "--rules", rules.path, "--fetch"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("give --rules DIR or --fetch, not both"), both.stderr)
        XCTAssertEqual(
            try CLIRunner.run(["entitlements", folder.appendingPathComponent("nope").path, "--rules", rules.path]).status, 3)
        let garbage = folder.appendingPathComponent("garbage.plist")
        try Data("not a plist".utf8).write(to: garbage)
        let output = try CLIRunner.run(["entitlements", garbage.path, "--rules", rules.path])
        XCTAssertEqual(output.status, 3)
        XCTAssertTrue(output.stderr.contains("not a property list"), output.stderr)
    }

    /// With --rules, the network options mean nothing: refused, not ignored; --limit applies to
    /// the documents as on every command (a bare byte count is document-bytes).
    func test_entitlements_networkOptionsNeedFetchAndLimitsApplyToTheDocuments() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let rules = try rules(folder)
        let file = try plist(folder, "app.entitlements", [
            "com.apple.developer.associated-domains": ["applinks:example.com"], "application-identifier": app,
        ])
        let timeout = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--timeout", "-5"])
        XCTAssertEqual(timeout.status, 2, timeout.stderr)
        XCTAssertTrue(timeout.stderr.contains("--timeout is for --fetch"), timeout.stderr)
        XCTAssertEqual(try CLIRunner.run(["entitlements", file, "--rules", rules.path]).status, 0)
        for limit in ["document-bytes=20", "20"] {
            let small = try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--limit", limit])
            XCTAssertEqual(small.status, 1, "\(limit): the 100-byte document is over the limit: \(small.stdout)")
            XCTAssertTrue(small.stdout.contains("over the limit"), small.stdout)
        }
        XCTAssertEqual(try CLIRunner.run(["entitlements", file, "--rules", rules.path, "--limit", "no-such=1"]).status, 2)
        // A name that is not UTF-8 is named, never read as the file spelled with U+FFFD.
        try FileManager.default.copyItem(atPath: file, toPath: folder.appendingPathComponent("x\u{FFFD}.entitlements").path)
        let mangled = try CLIRunner.runShell(
            "'\(CLIRunner.executable.path)' entitlements \"$(printf '\(folder.path)/x\\377.entitlements')\" --rules '\(rules.path)'")
        XCTAssertEqual(mangled.status, 3, mangled.stdout + mangled.stderr)
        XCTAssertTrue(mangled.stderr.contains("the name is not UTF-8"), mangled.stderr)
    }
}
