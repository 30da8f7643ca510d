import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// What stands in a rules directory where a document belongs but is no regular file (SPEC 14):
/// each one is a load error for its own domain, reported at start-up, with error records for
/// that domain's URLs; never a hang, never a silent fall-back to another layout, and the other
/// domains are untouched. The children run under a deadline, because the failure these tests
/// guard against is a process that never returns.
extension HostileInputCLITests {
    static let goodDocument = #"{"applinks":{"details":[{"appIDs":["T.a"],"components":[{"/":"*"}]}]}}"#

    /// Past this a child is killed; a load that ends at all ends in well under a second.
    var hangDeadline: Double { 20 }

    /// A rules directory holding `good.example.json` (matches everything for `T.a`).
    func rulesWithAGoodDomain() throws -> URL {
        let rules = folder.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try Data(Self.goodDocument.utf8).write(to: rules.appendingPathComponent("good.example.json"))
        return rules
    }

    func runBounded(_ arguments: [String]) throws -> ChildProcess.Finished {
        try ChildProcess.start(arguments, folder: folder).wait(killingAfter: hangDeadline)
    }

    /// Classifies one URL of `domain` and one of `good.example`, and compiles the directory;
    /// both must report `domain` as unloadable for `reason`, and leave `good.example` working.
    func assertLoadError(
        _ rules: URL, domain: String, reason: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let input = try write(Array("https://\(domain)/a\nhttps://good.example/a\n".utf8), "in-\(UUID().uuidString).txt")
        let run = try runBounded(["classify", "--rules", rules.path, "--input", input])
        XCTAssertNil(run.signal, "classify was killed after \(hangDeadline) s: \(run.summary)", file: file, line: line)
        // Error records are data: the run exits 0 (`--strict` would make it 1).
        XCTAssertEqual(run.status, 0, run.summary, file: file, line: line)
        XCTAssertTrue(
            run.stderr.contains("aasa classify: cannot use the document of \(domain): cannot read \(rules.path)/"),
            run.summary, file: file, line: line)
        XCTAssertTrue(run.stderr.contains(reason), run.summary, file: file, line: line)
        let records = lines(run)
        XCTAssertEqual(records.count, 2, run.summary, file: file, line: line)
        let errorPrefix = #"{"url": "https://\#(domain)/a", "domain": "\#(domain)", "error": "the document could not be loaded: cannot read "#
        XCTAssertTrue(records.first?.hasPrefix(errorPrefix) ?? false, records.first ?? "", file: file, line: line)
        XCTAssertTrue(records.first?.contains(reason) ?? false, records.first ?? "", file: file, line: line)
        XCTAssertEqual(
            records.last,
            #"{"url": "https://good.example/a", "domain": "good.example", "apps": ["T.a"], "decisions": [{"app": "T.a", "decision": "match", "entry": 0, "rule": 0}]}"#,
            file: file, line: line)

        let artifact = folder.appendingPathComponent("rules-\(UUID().uuidString).aasac").path
        let compile = try runBounded(["compile", rules.path, "-o", artifact])
        XCTAssertNil(compile.signal, "compile was killed after \(hangDeadline) s: \(compile.summary)", file: file, line: line)
        XCTAssertEqual(compile.status, 0, compile.summary, file: file, line: line)
        XCTAssertTrue(
            compile.stderr.contains("aasa compile: cannot use the document of \(domain): cannot read \(rules.path)/"),
            compile.summary, file: file, line: line)
        XCTAssertTrue(compile.stderr.contains(reason), compile.summary, file: file, line: line)
    }

    /// A file name is text from whoever filled the folder: an escape sequence or a line break
    /// in it is shown escaped in every message that names the domain, never obeyed.
    func test_rulesDirectory_namesWithControlCharactersAreShownEscaped() throws {
        let rules = try rulesWithAGoodDomain()
        for name in ["x\u{1B}[31m.example.json", "y\nFAKE: ok.example.json"] {
            try Data("{bad".utf8).write(to: rules.appendingPathComponent(name))
        }
        let input = try write(Array("https://good.example/a\n".utf8), "in-\(UUID().uuidString).txt")
        let classify = try runBounded(["classify", "--rules", rules.path, "--input", input, "--jobs", "1"])
        let compile = try runBounded(["compile", rules.path, "-o", folder.appendingPathComponent("escaped.aasac").path])
        XCTAssertEqual(compile.status, 0, compile.summary)
        for run in [classify, compile] {
            XCTAssertFalse(run.stderr.unicodeScalars.contains { $0.value == 0x1B }, run.stderr)
            XCTAssertFalse(run.stderr.contains("\nFAKE"), run.stderr)
        }
        XCTAssertTrue(compile.stderr.contains(#"x\u{1B}[31m.example"#) && compile.stderr.contains(#"y\u{A}FAKE: ok.example"#), compile.stderr)
        // --domain names a single file's domain: with a directory it would be ignored.
        let ignored = try runBounded(["compile", rules.path, "--domain", "good.example", "-o", folder.appendingPathComponent("d.aasac").path])
        XCTAssertEqual(ignored.status, 2, ignored.summary)
        XCTAssertTrue(ignored.stderr.contains("--domain names a single file's domain"), ignored.summary)
    }

    /// A file name that is not UTF-8 reaches aasa with U+FFFD in its place: named as such, never
    /// opened by the mangled name (which finds nothing, or another file).
    func test_namesThatAreNotUTF8_areNamedNotMangled() throws {
        let rules = try rulesWithAGoodDomain()
        let bad = rules.path + "/x\u{FFFD}.example.json"
        // The raw name: 'x', 0xFF, '.example.json'.
        var raw = Array(rules.path.utf8) + Array("/x".utf8) + [0xFF] + Array(".example.json".utf8)
        raw.append(0)
        let descriptor = raw.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        let input = try write(Array("https://good.example/a\n".utf8), "in-\(UUID().uuidString).txt")
        let classify = try runBounded(["classify", "--rules", rules.path, "--input", input])
        XCTAssertEqual(classify.status, 0, classify.summary)
        XCTAssertTrue(classify.stderr.contains("is skipped: its name is not UTF-8"), classify.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: bad), "no file of the mangled name was made")
        // Given on the command line: the same name, refused with the reason.
        let script = "'\(CLIRunner.executable.path)' lint \"$(printf '\(rules.path)/x\\377.example.json')\""
        let lint = try CLIRunner.runShell(script)
        XCTAssertEqual(lint.status, 3, lint.stderr)
        XCTAssertTrue(lint.stdout.contains("the name is not UTF-8") || lint.stderr.contains("the name is not UTF-8"), lint.stdout + lint.stderr)
        let option = try CLIRunner.runShell("'\(CLIRunner.executable.path)' classify --rules \"$(printf '\(rules.path)\\377')\" < /dev/null")
        XCTAssertEqual(option.status, 2, option.stderr)
        XCTAssertTrue(option.stderr.contains("the value of --rules is not UTF-8"), option.stderr)
    }

    func test_rulesDirectory_fifoNamedDomainJSONIsALoadErrorNotAHang() throws {
        let rules = try rulesWithAGoodDomain()
        XCTAssertEqual(mkfifo(rules.appendingPathComponent("fifo.example.json").path, 0o644), 0)
        try assertLoadError(rules, domain: "fifo.example", reason: "it is a FIFO, not a regular file")
    }

    func test_rulesDirectory_fifoInTheWellKnownSlotIsALoadErrorNotAHang() throws {
        let rules = try rulesWithAGoodDomain()
        let wellKnown = rules.appendingPathComponent("fifo.example/.well-known")
        try FileManager.default.createDirectory(at: wellKnown, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(wellKnown.appendingPathComponent("apple-app-site-association").path, 0o644), 0)
        try assertLoadError(rules, domain: "fifo.example", reason: "it is a FIFO, not a regular file")
    }

    /// A FIFO standing as `DOMAIN` itself, or as `DOMAIN/.well-known`, and a file where the
    /// `.well-known` folder belongs, each claim the domain: a load error, never a silent fall-back
    /// to the `DOMAIN.json` beside them.
    func test_rulesDirectory_fifoOrFileWhereTheDomainFolderBelongsIsALoadErrorWithoutFallingBack() throws {
        let asDomain = try rulesWithAGoodDomain()
        XCTAssertEqual(mkfifo(asDomain.appendingPathComponent("fifo.example").path, 0o644), 0)
        try Data(Self.goodDocument.utf8).write(to: asDomain.appendingPathComponent("fifo.example.json"))
        try assertLoadError(asDomain, domain: "fifo.example", reason: "it is a FIFO, not a regular file")

        let asWellKnown = try rulesWithAGoodDomain()
        try FileManager.default.createDirectory(at: asWellKnown.appendingPathComponent("fifo.example"), withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(asWellKnown.appendingPathComponent("fifo.example/.well-known").path, 0o644), 0)
        try Data(Self.goodDocument.utf8).write(to: asWellKnown.appendingPathComponent("fifo.example.json"))
        try assertLoadError(asWellKnown, domain: "fifo.example", reason: "Not a directory")

        let fileAsWellKnown = try rulesWithAGoodDomain()
        try FileManager.default.createDirectory(at: fileAsWellKnown.appendingPathComponent("file.example"), withIntermediateDirectories: true)
        try Data(Self.goodDocument.utf8).write(to: fileAsWellKnown.appendingPathComponent("file.example/.well-known"))
        try Data(Self.goodDocument.utf8).write(to: fileAsWellKnown.appendingPathComponent("file.example/apple-app-site-association"))
        try assertLoadError(fileAsWellKnown, domain: "file.example", reason: "Not a directory")
    }

    /// A regular file named `DOMAIN` without `.json` is no layout (a `README`): ignored.
    func test_rulesDirectory_regularFileNamedLikeADomainIsIgnored() throws {
        let rules = try rulesWithAGoodDomain()
        try Data("notes".utf8).write(to: rules.appendingPathComponent("readme.example"))
        let input = try write(Array("https://readme.example/a\n".utf8), "in-\(UUID().uuidString).txt")
        let run = try runBounded(["classify", "--rules", rules.path, "--input", input])
        XCTAssertEqual(run.status, 0, run.summary)
        XCTAssertEqual(run.stderr.contains("readme.example"), false, run.summary)
        XCTAssertEqual(lines(run), [#"{"url": "https://readme.example/a", "domain": null, "apps": [], "decisions": []}"#], run.summary)
    }

    func test_rulesDirectory_directoryNamedDomainJSONIsALoadError() throws {
        let rules = try rulesWithAGoodDomain()
        try FileManager.default.createDirectory(at: rules.appendingPathComponent("dir.example.json"), withIntermediateDirectories: true)
        try assertLoadError(rules, domain: "dir.example", reason: "it is a directory, not a regular file")
    }

    func test_rulesDirectory_brokenWellKnownLinkIsALoadErrorWithoutFallingBackToDomainJSON() throws {
        let rules = try rulesWithAGoodDomain()
        let wellKnown = rules.appendingPathComponent("link.example/.well-known")
        try FileManager.default.createDirectory(at: wellKnown, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: wellKnown.appendingPathComponent("apple-app-site-association").path, withDestinationPath: "missing.json")
        // A loadable document in a lower-ranked layout, which a fall-back would silently use.
        try Data(Self.goodDocument.utf8).write(to: rules.appendingPathComponent("link.example.json"))
        try assertLoadError(rules, domain: "link.example", reason: "it is a broken symbolic link (its target does not exist)")
    }

    func test_rulesDirectory_brokenLinkAsTheWellKnownFolderOrTheDomainFolderIsALoadError() throws {
        let rules = try rulesWithAGoodDomain()
        let domainFolder = rules.appendingPathComponent("folder.example")
        try FileManager.default.createDirectory(at: domainFolder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: domainFolder.appendingPathComponent(".well-known").path, withDestinationPath: "/nonexistent/aasa-test")
        try Data(Self.goodDocument.utf8).write(to: domainFolder.appendingPathComponent("apple-app-site-association"))
        try assertLoadError(rules, domain: "folder.example", reason: "it is a broken symbolic link (its target does not exist)")

        let other = try rulesWithAGoodDomain()
        try FileManager.default.createSymbolicLink(
            atPath: other.appendingPathComponent("moved.example").path, withDestinationPath: "/nonexistent/aasa-test")
        try assertLoadError(other, domain: "moved.example", reason: "it is a broken symbolic link (its target does not exist)")
    }

    func test_rulesDirectory_symbolicLinkLoopIsALoadError() throws {
        let rules = try rulesWithAGoodDomain()
        try FileManager.default.createSymbolicLink(
            atPath: rules.appendingPathComponent("loop.example.json").path, withDestinationPath: "loop.example.json")
        try assertLoadError(rules, domain: "loop.example", reason: "it is a symbolic link loop (too many levels of symbolic links)")
    }

    /// The fall-back the rules above refuse is only for what is broken: a `.well-known` folder
    /// that simply lacks the file (it may hold other sites' files) leaves the plain layout in use.
    func test_rulesDirectory_wellKnownFolderWithoutTheDocumentStillFallsBackToThePlainLayout() throws {
        let rules = try rulesWithAGoodDomain()
        let domainFolder = rules.appendingPathComponent("plain.example")
        try FileManager.default.createDirectory(at: domainFolder.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: domainFolder.appendingPathComponent(".well-known/assetlinks.json"))
        try Data(Self.goodDocument.utf8).write(to: domainFolder.appendingPathComponent("apple-app-site-association"))
        let input = try write(Array("https://plain.example/a\n".utf8), "in.txt")
        let run = try runBounded(["classify", "--rules", rules.path, "--input", input])
        XCTAssertEqual(run.status, 0, run.summary)
        XCTAssertEqual(lines(run).first?.contains(#""domain": "plain.example", "apps": ["T.a"]"#), true, run.summary)
    }

    /// A document named on the command line may still be a pipe: the regular-file rule is for
    /// what a directory listing found.
    func test_singleDocument_givenAsAPipeIsStillRead() throws {
        let fifo = folder.appendingPathComponent("document.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let child = try ChildProcess.start(["match", fifo, "--domain", "good.example", "https://good.example/a"], folder: folder)
        // Non-blocking, so that a child that never opens the pipe cannot hang the test here.
        let deadline = Date().addingTimeInterval(hangDeadline)
        var writer = open(fifo, O_WRONLY | O_NONBLOCK)
        while writer < 0, errno == ENXIO, Date() < deadline {
            usleep(10_000)
            writer = open(fifo, O_WRONLY | O_NONBLOCK)
        }
        XCTAssertGreaterThanOrEqual(writer, 0, "the child never opened the pipe")
        _ = Self.goodDocument.withCString { Foundation.write(writer, $0, strlen($0)) }
        close(writer)
        let run = child.wait(killingAfter: hangDeadline)
        XCTAssertEqual(run.status, 0, run.summary)
        XCTAssertEqual(lines(run).first?.contains(#""decision": "match""#), true, run.summary)
    }
}
