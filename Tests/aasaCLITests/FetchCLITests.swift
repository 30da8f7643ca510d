import Foundation
import XCTest
import _AASATestSupport

/// `aasa fetch` and `aasa check` against a loopback HTTPS server (Tests/FetchServer), with a CA
/// and certificates made by openssl when the tests start. Every request goes to 127.0.0.1:
/// `--connect-to ::127.0.0.1:PORT` routes the test domains (*.aasa.test) and the CDN
/// (`--cdn-url https://cdn.aasa.test/...`) there. Skipped when python3 or openssl is missing;
/// with both there, a server that does not start fails every test, with its stderr.
final class FetchCLITests: XCTestCase {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var server: LoopbackServer?
    /// Why there is no server: a missing tool (the tests skip) or a server that did not start
    /// (they fail).
    nonisolated(unsafe) private static var serverProblem: (message: String, skip: Bool)?

    private struct MissingRecords: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    private struct ServerDidNotStart: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    private struct LoopbackServer {
        var process: Process
        var input: Pipe
        var port: Int
        var roguePort: Int
        /// The port that speaks HTTP/2 only, when the server's Python has the `h2` library.
        var h2Port: Int?
        var caFile: String
        var folder: URL
    }

    override class func tearDown() {
        lock.lock()
        defer { lock.unlock() }
        if let server {
            try? server.input.fileHandleForWriting.close()
            server.process.terminate()
            server.process.waitUntilExit()
            try? FileManager.default.removeItem(at: server.folder)
        }
        server = nil
        super.tearDown()
    }

    /// The shared server, started on first use.
    private func loopback() throws -> LoopbackServer {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        if let server = Self.server { return server }
        if let problem = Self.serverProblem {
            if problem.skip { throw XCTSkip(problem.message) }
            throw ServerDidNotStart(message: problem.message)
        }
        let python = Self.python
        for tool in [python, "/usr/bin/openssl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Self.serverProblem = ("\(tool) is missing", true)
            throw XCTSkip("\(tool) is missing")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FetchServer/aasa_test_server.py")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "aasa-fetch-server-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, folder.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        // Its stderr to a file, not a pipe: nothing reads it while the server runs.
        let log = folder.appendingPathComponent("server-stderr.txt")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let ready = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let port = ready["port"] as? Int,
            let roguePort = ready["rogue_port"] as? Int, let ca = ready["ca"] as? String
        else {
            process.terminate()
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let message = "the loopback server did not start (status \(process.terminationStatus)): "
                + "\(String(decoding: line, as: UTF8.self))\nits stderr:\n\(stderr)"
            try? FileManager.default.removeItem(at: folder)
            Self.serverProblem = (message, false)
            throw ServerDidNotStart(message: message)
        }
        let server = LoopbackServer(
            process: process, input: input, port: port, roguePort: roguePort, h2Port: ready["h2_port"] as? Int, caFile: ca, folder: folder)
        Self.server = server
        return server
    }

    /// The server's Python: `AASA_TEST_PYTHON` when set (`make test` points it at a venv
    /// holding the `h2` library, for the HTTP/2 port), else the system's.
    private static var python: String {
        ProcessInfo.processInfo.environment["AASA_TEST_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
    }

    /// The server's HTTP/2 port. Without the `h2` library the HTTP/2 tests skip, unless
    /// `AASA_TEST_PYTHON` names a Python that was meant to have it: then they fail.
    private func h2Port(_ server: LoopbackServer) throws -> Int {
        if let port = server.h2Port { return port }
        if ProcessInfo.processInfo.environment["AASA_TEST_PYTHON"] != nil {
            throw ServerDidNotStart(message: "AASA_TEST_PYTHON (\(Self.python)) has no `h2` library: the loopback server has no HTTP/2 port")
        }
        throw XCTSkip("no HTTP/2 port: \(Self.python) has no `h2` library (`make test` installs it)")
    }

    /// A fresh test domain of the given kind (the server's behaviour), unique to this run.
    private func domain(_ kind: String) -> String {
        "\(kind)-\(UUID().uuidString.prefix(8).lowercased()).aasa.test"
    }

    /// `cdn` false for `entitlements`, which reads origins only and refuses `--cdn-url`.
    private func network(_ server: LoopbackServer, port: Int? = nil, trust: Bool = true, timeout: String = "10", cdn: Bool = true) -> [String] {
        var arguments = [
            "--connect-to", "::127.0.0.1:\(port ?? server.port)", "--timeout", timeout, "--connect-timeout", "5", "--retry-delay", "0.05",
        ]
        if cdn { arguments += ["--cdn-url", "https://cdn.aasa.test/a/v1/{domain}"] }
        if trust { arguments += ["--ca-file", server.caFile] }
        return arguments
    }

    /// `base` (option-value pairs) with `extra` appended; an option `extra` sets again is
    /// dropped from `base`, since each option may be given once.
    private func merged(_ base: [String], _ extra: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index + 1 < base.count {
            if !extra.contains(base[index]) { kept += [base[index], base[index + 1]] }
            index += 2
        }
        return kept + extra
    }

    private func records(_ output: CLIRunner.Output) throws -> [[String: Any]] {
        try output.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// Runs `aasa fetch`; the records must be one per domain, or the test stops here.
    private func fetch(
        _ domains: [String], out: URL, _ extra: [String] = [], port: Int? = nil, trust: Bool = true, timeout: String = "10"
    ) throws -> (CLIRunner.Output, [[String: Any]]) {
        let server = try loopback()
        let output = try CLIRunner.run(
            ["fetch"] + domains + ["--out", out.path] + merged(network(server, port: port, trust: trust, timeout: timeout), extra))
        let parsed = try records(output)
        if !domains.isEmpty {
            guard parsed.count == domains.count else {
                throw MissingRecords(
                    message: "expected \(domains.count) records, status \(output.status): \(output.stdout) \(output.stderr)")
            }
        }
        return (output, parsed)
    }

    private func documentPath(_ out: URL, _ domain: String) -> String {
        out.appendingPathComponent(domain).appendingPathComponent(".well-known/apple-app-site-association").path
    }

    // MARK: fetch over HTTP/2

    /// Requests the HTTP/2 port answered, by :authority (Tests/FetchServer/aasa_h2_server.py).
    private func h2Requests(_ server: LoopbackServer) throws -> [String: Int] {
        try counts(server, "h2-requests.json")
    }

    /// libcurl speaks HTTP/2 to an origin that offers it, as most do: the port offers nothing
    /// else, so these answers came over HTTP/2. The document, a 503 retried, a thousand 103
    /// Early Hints before the answer; an unasked encoding is refused as over HTTP/1.1.
    func test_fetch_overHTTP2_answersAreReadAsOverHTTP1() throws {
        let server = try loopback()
        let port = try h2Port(server)
        let out = try makeTemporaryFolder("aasa-fetch")
        let domains = [domain("h2good"), domain("h2busy"), domain("h2informational"), domain("h2gzip")]
        let (output, records) = try fetch(domains, out: out, port: port)
        XCTAssertEqual(records.map { $0["outcome"] as? String }, ["fetched", "fetched", "fetched", "failed"], output.stdout)
        XCTAssertEqual(records[3]["failure"] as? String, "invalid-response", output.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: documentPath(out, domains[0])))
        XCTAssertEqual(try h2Requests(server)[domains[1]], 2, "the 503 retried once")
    }

    /// What a server breaks in HTTP/2's own framing is the response's fault, named, and not
    /// retried: a stream reset mid-body, a body shorter than its content-length, 250 header
    /// fields, a 140 KB header block (libcurl's own limit is 128 KB, reported by nghttp2 as "the
    /// user callback function failed"), a header block or trailers continued without end. The
    /// two refused before any status came were taken for a lost connection and retried.
    func test_fetch_overHTTP2_brokenFramingIsAnInvalidResponseNotRetried() throws {
        let server = try loopback()
        let port = try h2Port(server)
        let out = try makeTemporaryFolder("aasa-fetch")
        let domains = ["h2reset", "h2length", "h2fields", "h2headers", "h2continuation", "h2trailers"].map(domain)
        let started = Date()
        let (output, records) = try fetch(domains, out: out, ["--retries", "2"], port: port)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8, output.stdout)
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(records.map { $0["failure"] as? String }, Array(repeating: "invalid-response", count: domains.count), output.stdout)
        let errors = records.map { $0["error"] as? String ?? "" }
        XCTAssertTrue(errors[0].contains("INTERNAL_ERROR"), errors[0])
        XCTAssertTrue(errors[2].contains("more than 200 header fields"), errors[2])
        XCTAssertTrue(errors[3].contains("HTTP/2 headers (it takes at most 128 KB of them)"), errors[3])
        XCTAssertTrue(errors[4].contains("CONTINUATION"), errors[4])
        let requests = try h2Requests(server)
        for name in domains { XCTAssertEqual(requests[name], 1, "\(name) not retried: \(requests)") }
        for name in domains { XCTAssertFalse(FileManager.default.fileExists(atPath: documentPath(out, name))) }
    }

    /// An endless body is cut at the limit, a stalled one at `--timeout`, and a server that sends
    /// GOAWAY before taking the request is a connection to try again, until the retries run out:
    /// each within bounded time and memory.
    func test_fetch_overHTTP2_endlessStalledAndRefusedAnswersAreBounded() throws {
        let server = try loopback()
        let port = try h2Port(server)
        let folder = try makeTemporaryFolder("aasa-fetch")
        let big = domain("h2big")
        let stall = domain("h2stall")
        let goaway = domain("h2goaway")
        let run = try ChildProcess.run(
            ["fetch", big, stall, goaway, "--out", folder.appendingPathComponent("out").path]
                + merged(network(server, port: port), ["--retries", "2", "--timeout", "1.5"]), folder: folder)
        let records = try String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], run.summary)
        }
        XCTAssertEqual(records.map { $0["failure"] as? String }, ["too-large", "timeout", "connection"], run.summary)
        XCTAssertEqual(try h2Requests(server)[goaway], 3, "GOAWAY before the request is retried: \(run.summary)")
        XCTAssertLessThan(run.seconds, 6, run.summary)
        XCTAssertLessThan(run.maxResidentBytes, 200 << 20, run.summary)
    }

    // MARK: fetch

    func test_fetch_wellKnownAndRootDocumentsLandWhereClassifyReadsThem() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let good = domain("good")
        let root = domain("root")
        let (output, records) = try fetch([good, root], out: out)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(records.map { $0["domain"] as? String }, [good, root])
        XCTAssertEqual(output.stderr, "", "no progress line when standard error is not a terminal")
        XCTAssertEqual(records.map { $0["outcome"] as? String }, ["fetched", "fetched"])
        XCTAssertEqual(records[0]["url"] as? String, "https://\(good)/.well-known/apple-app-site-association")
        XCTAssertEqual(records[1]["url"] as? String, "https://\(root)/apple-app-site-association")
        XCTAssertEqual(records[0]["status"] as? Int, 200)
        XCTAssertEqual(records[0]["content_type"] as? String, "application/json")
        let document = try Data(contentsOf: URL(fileURLWithPath: documentPath(out, good)))
        XCTAssertEqual(records[0]["bytes"] as? Int, document.count)
        let metadataURL = URL(fileURLWithPath: documentPath(out, good) + ".meta.json")
        let metadata = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: metadataURL)) as? [String: Any])
        let digest = try CLIRunner.runShell("sha256sum '\(documentPath(out, good))'").stdout.prefix(64)
        XCTAssertEqual(metadata["sha256"] as? String, String(digest))
        XCTAssertEqual(metadata["url"] as? String, records[0]["url"] as? String)
        XCTAssertNotNil(metadata["fetched_at"] as? String)
        let urls = "https://\(good)/app/1\nhttps://\(root)/app/2\nhttps://\(good)/other\n"
        let classified = try CLIRunner.run(["classify", "--rules", out.path], stdin: Data(urls.utf8))
        XCTAssertEqual(classified.status, 0, classified.stderr)
        let lines = classified.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, classified.stdout)
        XCTAssertTrue(lines[0].contains("ABCDE12345.com.example.app"), classified.stdout)
        XCTAssertTrue(lines[1].contains("ABCDE12345.com.example.app"), classified.stdout)
        XCTAssertTrue(lines[2].contains("\"apps\": []"), classified.stdout)
    }

    func test_fetch_redirectAndMissingFailWithTheirCodes() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let redirect = domain("redirect")
        let missing = domain("missing")
        let (output, records) = try fetch([redirect, missing], out: out)
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertEqual(records[0]["outcome"] as? String, "failed")
        XCTAssertEqual(records[0]["failure"] as? String, "redirect")
        XCTAssertEqual(records[0]["status"] as? Int, 301)
        XCTAssertEqual(records[0]["location"] as? String, "https://www.example.test/elsewhere")
        XCTAssertEqual(records[1]["failure"] as? String, "http-status")
        XCTAssertEqual(records[1]["status"] as? Int, 404)
        XCTAssertTrue(
            (records[1]["error"] as? String ?? "").contains("/apple-app-site-association"), "the root path was tried too")
        XCTAssertFalse(FileManager.default.fileExists(atPath: documentPath(out, redirect)))
    }

    func test_fetch_transientFailuresAreRetried() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let flaky = domain("flaky")
        let busy = domain("busy")
        let started = Date()
        let (output, records) = try fetch([flaky, busy], out: out)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(records.map { $0["outcome"] as? String }, ["fetched", "fetched"])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "429 waits for its Retry-After: 1")
        let once = try fetch([domain("flaky")], out: out, ["--retries", "0"]).1
        XCTAssertEqual(once[0]["failure"] as? String, "http-status")
        XCTAssertEqual(once[0]["status"] as? Int, 500)
    }

    /// A `Retry-After` that cannot be read is ignored (RFC 9110), and the 503 is retried with
    /// backoff as one without the header is: it used to end the domain at the first answer.
    func test_fetch_anUnreadableRetryAfterIsRetriedWithBackoff() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let (output, records) = try fetch([domain("muddled")], out: out)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(records.map { $0["outcome"] as? String }, ["fetched"], output.stdout)
    }

    /// A loopback port nobody listens on: bound, then closed.
    private func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw XCTSkip("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(descriptor, raw, length) == 0 else { return -1 }
                return getsockname(descriptor, raw, &length)
            }
        }
        guard bound == 0 else { throw XCTSkip("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func test_fetch_refusedConnectionsAreRetriedWithBackoffThenReported() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let port = try closedPort()
        let started = Date()
        let (output, records) = try fetch([domain("good")], out: out, ["--retries", "2", "--retry-delay", "0.3"], port: port)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["failure"] as? String, "connection", output.stdout)
        XCTAssertGreaterThanOrEqual(elapsed, 0.9, "two retries after 0.3 s and 0.6 s")
        XCTAssertLessThan(elapsed, 10)
    }

    func test_fetch_stallingBodyTimesOutInBoundedTime() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let started = Date()
        let (output, records) = try fetch([domain("stall")], out: out, timeout: "1.5")
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["failure"] as? String, "timeout", output.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// A request and its retries share one `--timeout`: a server answering 500 just before it,
    /// every time, used to cost a `--timeout` an attempt. The record still names the 500.
    func test_fetch_retriesShareTheRequestsTimeout() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let started = Date()
        let (output, records) = try fetch([domain("slowerror")], out: out, ["--retries", "5"], timeout: "1")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["failure"] as? String, "http-status", output.stdout)
        XCTAssertEqual(records[0]["status"] as? Int, 500, output.stdout)
        XCTAssertLessThan(elapsed, 3.5, "six attempts of 0.8 s each would take 4.8 s: \(output.stdout)")
    }

    /// libcurl bounds a response's headers but not the trailers after a chunked body: a server
    /// sending them without end filled gigabytes within `--timeout`.
    func test_fetch_endlessTrailersAreRefusedInBoundedMemory() throws {
        let server = try loopback()
        let folder = try makeTemporaryFolder("aasa-fetch")
        let run = try ChildProcess.run(
            ["fetch", domain("endlesstrailer"), "--out", folder.appendingPathComponent("out").path]
                + merged(network(server), ["--retries", "0"]), folder: folder)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.summary)
        XCTAssertEqual(record["failure"] as? String, "invalid-response", run.summary)
        XCTAssertTrue((record["error"] as? String ?? "").contains("trailers"), "\(record)")
        XCTAssertLessThan(run.seconds, 5, run.summary)
        XCTAssertLessThan(run.maxResidentBytes, 200 << 20, run.summary)
    }

    /// The stored document's size in its metadata is only the file's word: it bounds nothing.
    /// A gigabyte claimed beside a gigabyte file was read and hashed whole before any request.
    func test_fetch_storedMetadataIsNotBelievedPastTheDocumentLimit() throws {
        let server = try loopback()
        let folder = try makeTemporaryFolder("aasa-fetch")
        let out = folder.appendingPathComponent("out")
        let etag = domain("etag")
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched")
        let path = documentPath(out, etag)
        let metaPath = path + ".meta.json"
        let huge = 1 << 30
        XCTAssertEqual(truncate(path, off_t(huge)), 0, "a sparse gigabyte")
        let stored = try String(contentsOfFile: metaPath, encoding: .utf8)
        let edited = stored.replacing(#/"bytes": \d+/#, with: "\"bytes\": \(huge)")
        XCTAssertNotEqual(edited, stored)
        try edited.write(toFile: metaPath, atomically: true, encoding: .utf8)
        let run = try ChildProcess.run(["fetch", etag, "--out", out.path] + network(server), folder: folder)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], run.summary)
        XCTAssertEqual(record["outcome"] as? String, "fetched", "no validator: a full fetch, \(run.summary)")
        XCTAssertLessThan(run.maxResidentBytes, 200 << 20, run.summary)
        XCTAssertLessThan(run.seconds, 3, run.summary)
    }

    /// An empty Content-Encoding names no coding: the body is the document.
    func test_fetch_anEmptyContentEncodingIsNoEncoding() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let (output, records) = try fetch([domain("emptyencoding")], out: out)
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertEqual(records[0]["outcome"] as? String, "fetched", output.stdout)
    }

    func test_fetch_oversizedAndInvalidBodiesAreRefused() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let big = domain("big")
        let invalid = domain("invalid")
        let (output, records) = try fetch([big, invalid], out: out)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["failure"] as? String, "too-large", output.stdout)
        XCTAssertEqual(records[1]["failure"] as? String, "invalid-document", output.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: documentPath(out, big)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: documentPath(out, invalid)))
        let raised = try fetch([big], out: out, ["--limit", "256K"]).1
        XCTAssertEqual(raised[0]["outcome"] as? String, "fetched", "\(raised)")
        let named = try fetch([domain("big")], out: out, ["--limit", "document-bytes=256K"]).1
        XCTAssertEqual(named[0]["outcome"] as? String, "fetched", "the NAME=N form raises the same limit: \(named)")
    }

    func test_fetch_untrustedCertificatesAreRefused() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let server = try loopback()
        let rogue = try fetch([domain("good")], out: out, port: server.roguePort)
        XCTAssertEqual(rogue.0.status, 1)
        XCTAssertEqual(rogue.1[0]["failure"] as? String, "tls", rogue.0.stdout)
        let untrusted = try fetch([domain("good")], out: out, trust: false)
        XCTAssertEqual(untrusted.1[0]["failure"] as? String, "tls", "the test CA is not in the system store")
    }

    func test_fetch_etagMakesTheRefreshConditionalAndKeepsTheFile() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let etag = domain("etag")
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched")
        let path = documentPath(out, etag)
        let before = try FileManager.default.attributesOfItem(atPath: path)
        Thread.sleep(forTimeInterval: 0.05)
        let (output, records) = try fetch([etag], out: out)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(records[0]["outcome"] as? String, "not-modified")
        XCTAssertEqual(records[0]["status"] as? Int, 304)
        let after = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(before[.systemFileNumber] as? Int, after[.systemFileNumber] as? Int, "same inode: not rewritten")
        XCTAssertEqual(before[.modificationDate] as? Date, after[.modificationDate] as? Date)
        let metadata = try String(contentsOfFile: path + ".meta.json", encoding: .utf8)
        XCTAssertTrue(metadata.contains(#""etag": "\"v1\"""#), metadata)
        // Last-Modified alone makes the refresh conditional too (If-Modified-Since).
        let lastModified = domain("lastmod")
        XCTAssertEqual(try fetch([lastModified], out: out).1[0]["outcome"] as? String, "fetched")
        XCTAssertEqual(try fetch([lastModified], out: out).1[0]["outcome"] as? String, "not-modified")
        // Without the metadata the request is unconditional again.
        try FileManager.default.removeItem(atPath: documentPath(out, lastModified) + ".meta.json")
        XCTAssertEqual(try fetch([lastModified], out: out).1[0]["outcome"] as? String, "fetched")
    }

    /// The stored validators go back to the server as request headers: one edited (or served)
    /// with a line break would add headers of its own. Such a validator is dropped whole, not
    /// sent: the origin, which answers 304 only to the right If-None-Match, sends the document.
    func test_fetch_storedValidatorsWithLineBreaksAreNotSentBack() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let etag = domain("etag")
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched")
        let metaPath = documentPath(out, etag) + ".meta.json"
        let stored = try String(contentsOfFile: metaPath, encoding: .utf8)
        let edited = stored.replacingOccurrences(of: #""etag": "\"v1\"""#, with: #""etag": "\"v1\"\r\nX-Evil: yes""#)
        XCTAssertNotEqual(edited, stored)
        try edited.write(toFile: metaPath, atomically: true, encoding: .utf8)
        let (output, records) = try fetch([etag], out: out)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertEqual(records[0]["outcome"] as? String, "fetched", "only If-Modified-Since was sent, which this origin ignores")
        XCTAssertTrue(try String(contentsOfFile: metaPath, encoding: .utf8).contains(#""etag": "\"v1\"""#))
    }

    /// A 304 says the server's copy is the one the validators name; it says nothing of a stored
    /// copy damaged since. Such a copy makes the refresh unconditional, and it is replaced.
    func test_fetch_aDamagedStoredDocumentIsFetchedWholeAgain() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let etag = domain("etag")
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched")
        let path = documentPath(out, etag)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        var damaged = good
        damaged[damaged.count / 2] ^= 0x20
        try damaged.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), good)
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "not-modified", "intact again: conditional")
        try Data(repeating: 0x20, count: 1 << 20).write(to: URL(fileURLWithPath: path + ".meta.json"))
        XCTAssertEqual(try fetch([etag], out: out).1[0]["outcome"] as? String, "fetched", "unreadable metadata: unconditional")
    }

    /// A symbolic link where a domain's folder belongs would take the write somewhere else.
    func test_fetch_refusesToWriteThroughALinkedDomainFolder() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let elsewhere = try makeTemporaryFolder("aasa-elsewhere")
        let good = domain("good")
        let linked = domain("good")
        try FileManager.default.createSymbolicLink(
            at: out.appendingPathComponent(good), withDestinationURL: elsewhere)
        try FileManager.default.createDirectory(at: out.appendingPathComponent(linked), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: out.appendingPathComponent(linked).appendingPathComponent(".well-known"), withDestinationURL: elsewhere)
        let (output, records) = try fetch([good, linked], out: out)
        XCTAssertEqual(output.status, 1, output.stdout)
        for record in records {
            XCTAssertEqual(record["failure"] as? String, "storage", "\(record)")
            XCTAssertTrue((record["error"] as? String ?? "").contains("a symbolic link"), "\(record)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
    }

    /// A 304 is an answer only to a request that carried a validator: to a plain GET (no copy
    /// stored, or one stored without an ETag or Last-Modified) it validated nothing.
    func test_fetch_a304ToAnUnconditionalRequestIsAnHTTPStatusFailure() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let unasked = try fetch([domain("unasked304")], out: out).1
        XCTAssertEqual(unasked[0]["failure"] as? String, "http-status", "\(unasked)")
        XCTAssertEqual(unasked[0]["status"] as? Int, 304)
        XCTAssertTrue((unasked[0]["error"] as? String ?? "").contains("not conditional"), "\(unasked)")
        let plain = domain("plain304")
        XCTAssertEqual(try fetch([plain], out: out).1[0]["outcome"] as? String, "fetched")
        let (output, again) = try fetch([plain], out: out)
        XCTAssertEqual(output.status, 1, output.stdout)
        XCTAssertEqual(again[0]["failure"] as? String, "http-status", "no validator was stored, so nothing was validated")
    }

    /// A `Retry-After` longer than `--timeout` is not waited for: one server cannot hold a
    /// domain for minutes.
    func test_fetch_retryAfterLongerThanTheTimeoutIsNotWaitedFor() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let started = Date()
        let (output, records) = try fetch([domain("later")], out: out, timeout: "5")
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["status"] as? Int, 503, "\(records)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "Retry-After: 60 was waited for")
    }

    /// What a server sends that is not a readable HTTP response, or a body in an encoding
    /// nobody asked for, is named as such, not as a connection failure (retried) or as invalid
    /// JSON; and a chunked trailer does not replace the Content-Type the body came with.
    func test_fetch_unreadableResponsesAndUnaskedEncodingsAreNamed() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let (output, records) = try fetch([domain("gzipped"), domain("garbled")], out: out)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records.map { $0["failure"] as? String }, ["invalid-response", "invalid-response"], output.stdout)
        XCTAssertTrue((records[0]["error"] as? String ?? "").contains("Content-Encoding: gzip"), output.stdout)
        let trailer = try fetch([domain("trailer")], out: out).1
        XCTAssertEqual(trailer[0]["outcome"] as? String, "fetched", "\(trailer)")
        XCTAssertEqual(trailer[0]["content_type"] as? String, "text/html", "the header the body came with, not the trailer")
        let twice = try fetch([domain("twotypes")], out: out).1
        XCTAssertEqual(twice[0]["content_type"] as? String, "text/html, application/json", "both values, not the last alone")
        // Broken framing is the response's fault, named as such and not retried as a lost
        // connection; a response of a thousand header fields is refused, not read in part.
        let badChunk = domain("badchunk")
        let broken = try fetch([badChunk, domain("twolengths"), domain("lateencoding"), domain("continues")], out: out).1
        XCTAssertEqual(broken.map { $0["failure"] as? String }, ["invalid-response", "invalid-response", "invalid-response", nil], "\(broken)")
        XCTAssertTrue((broken[0]["error"] as? String ?? "").contains("chunked"), "\(broken)")
        XCTAssertEqual(try connections(try loopback())[badChunk], 1, "not retried")
        XCTAssertTrue((broken[1]["error"] as? String ?? "").contains("two Content-Length headers that disagree"), "\(broken)")
        XCTAssertTrue((broken[2]["error"] as? String ?? "").contains("more than 200 header fields"), "\(broken)")
        XCTAssertEqual(broken[3]["outcome"] as? String, "fetched", "a thousand 100 Continue lines before the answer are still an answer")
    }

    /// A header line past libcurl's 100 KB is the server's fault and said so: libcurl reports it
    /// as out of memory with no message, and "Out of memory" alone blamed this machine.
    func test_fetch_aHeaderLinePastLibcurlsLimitIsNamedAsSuch() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let (output, records) = try fetch([domain("longheader")], out: out, ["--retries", "0"])
        XCTAssertEqual(output.status, 1, output.stderr)
        XCTAssertEqual(records[0]["failure"] as? String, "invalid-response", output.stdout)
        let error = records[0]["error"] as? String ?? ""
        XCTAssertTrue(error.contains("a header line is longer than libcurl accepts (100 KB)"), error)
    }

    /// A standard output the caller closed (`>&-`) is an output error, status 5, as on every
    /// command: the web commands' descriptor 1 was taken by libcurl's wake-up socket pair, and
    /// their records went into it, lost, with status 0 (`check`) or 1.
    func test_webCommands_aClosedStandardOutputIsAnOutputErrorNotASilentLoss() throws {
        let server = try loopback()
        let out = try makeTemporaryFolder("aasa-fetch")
        let file = out.appendingPathComponent("app.entitlements")
        let contents: [String: Any] = [
            "application-identifier": "ABCDE12345.com.example.app", "com.apple.developer.associated-domains": ["applinks:\(domain("good"))"],
        ]
        try PropertyListSerialization.data(fromPropertyList: contents, format: .xml, options: 0).write(to: file)
        let commands = [
            ["fetch", domain("good"), "--out", out.appendingPathComponent("rules").path] + network(server),
            ["check", domain("good")] + network(server),
            ["entitlements", file.path, "--fetch"] + network(server, cdn: false),
        ]
        for arguments in commands {
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let run = try CLIRunner.runShell("'\(CLIRunner.executable.path)' \(quoted) >&-")
            XCTAssertEqual(run.status, 5, "\(arguments[0]): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("cannot write the output"), "\(arguments[0]): \(run.stderr)")
        }
    }

    /// The CA bundle `--ca-file` makes in the temporary directory goes when `timeout` (or
    /// cron, or ^C) stops a run, not only when the command returns.
    func test_fetch_stoppedRunLeavesNoCABundleBehind() throws {
        let server = try loopback()
        let temporary = try makeTemporaryFolder("aasa-tmp")
        let out = try makeTemporaryFolder("aasa-fetch")
        let arguments = (["fetch", domain("stall"), "--out", out.path] + network(server, timeout: "30"))
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let run = try CLIRunner.runShell("TMPDIR='\(temporary.path)' timeout -s TERM 2 '\(CLIRunner.executable.path)' \(arguments)")
        XCTAssertEqual(run.status, 124, "stopped by timeout: \(run.stderr)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [])
    }

    func test_fetch_failingRefreshKeepsTheLastGoodDocument() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let toggle = domain("toggle")
        XCTAssertEqual(try fetch([toggle], out: out).1[0]["outcome"] as? String, "fetched")
        let good = try Data(contentsOf: URL(fileURLWithPath: documentPath(out, toggle)))
        let (output, records) = try fetch([toggle], out: out, ["--retries", "0"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["outcome"] as? String, "failed")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: documentPath(out, toggle))), good)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: out.appendingPathComponent(toggle).appendingPathComponent(".well-known").path)
        XCTAssertEqual(leftovers.sorted(), ["apple-app-site-association", "apple-app-site-association.meta.json"])
    }

    func test_fetch_cdnSource() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let good = domain("good")
        let nocdn = domain("nocdn")
        let (output, records) = try fetch([good, nocdn], out: out, ["--source", "cdn"])
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(records[0]["source"] as? String, "cdn")
        XCTAssertEqual(records[0]["url"] as? String, "https://cdn.aasa.test/a/v1/\(good)")
        XCTAssertEqual(records[0]["outcome"] as? String, "fetched")
        XCTAssertEqual(records[1]["status"] as? Int, 404)
        XCTAssertTrue(FileManager.default.fileExists(atPath: documentPath(out, good)))
    }

    func test_fetch_usageErrors() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let url = try CLIRunner.run(["fetch", "https://example.com/.well-known/apple-app-site-association", "--out", out.path])
        XCTAssertEqual(url.status, 2)
        XCTAssertTrue(url.stderr.contains("try example.com"), url.stderr)
        XCTAssertEqual(try CLIRunner.run(["fetch", "example.com"]).status, 2, "no --out")
        XCTAssertEqual(try CLIRunner.run(["fetch", "--out", out.path]).status, 2, "no domain")
        XCTAssertEqual(try CLIRunner.run(["fetch", "example.com", "--out", out.path, "--source", "mirror"]).status, 2)
        // --ca-file is read bounded, and only a regular file: 300 MB of it took 616 MB.
        let bigCA = out.appendingPathComponent("big.pem")
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: bigCA)
        XCTAssertEqual(truncate(bigCA.path, off_t(17 << 20)), 0)
        for file in [bigCA.path, "/dev/zero"] {
            // Routed to a closed local port, should the file ever be taken.
            let ca = try CLIRunner.run(["fetch", "example.com", "--out", out.path, "--ca-file", file, "--connect-to", "::127.0.0.1:1", "--retries", "0"])
            XCTAssertEqual(ca.status, 2, "\(file): \(ca.stderr)")
            XCTAssertTrue(ca.stderr.contains("is over 16 MiB"), ca.stderr)
        }
        // --domains: read from a pipe with '-', bounded, and a bad line is quoted short.
        let piped = try CLIRunner.run(["fetch", "--domains", "-", "--out", out.path], stdin: Data("# list\nhttps://a.example/x\n".utf8))
        XCTAssertEqual(piped.status, 2)
        XCTAssertTrue(piped.stderr.contains("'https://a.example/x' is a URL or a path, not a domain (try a.example)"), piped.stderr)
        // Standard input is read where it stands, not reopened from its start: the line the
        // shell read first is not read again.
        let list = out.appendingPathComponent("list.txt")
        try Data("https://not-a-domain.example/\n\(domain("good"))\n".utf8).write(to: list)
        let options = network(try loopback()).map { "'\($0)'" }.joined(separator: " ")
        let rest = try CLIRunner.runShell(
            "{ read -r first; '\(CLIRunner.executable.path)' fetch --domains - --out '\(out.path)' \(options); } < '\(list.path)'")
        XCTAssertEqual(rest.status, 0, rest.stderr)
        XCTAssertTrue(rest.stdout.contains(#""outcome": "fetched""#), rest.stdout)
        let long = try CLIRunner.run(
            ["fetch", "--domains", "-", "--out", out.path], stdin: Data((String(repeating: "a\u{1B}", count: 500_000) + "\n").utf8))
        XCTAssertEqual(long.status, 2)
        XCTAssertLessThan(long.stderr.utf8.count, 1_000, "a megabyte line is named, not printed")
        XCTAssertTrue(long.stderr.contains("\\u{1B}") && long.stderr.contains("(1000000 bytes)"), long.stderr)
        let huge = out.appendingPathComponent("huge.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 65 << 20)
        try handle.close()
        let tooLarge = try CLIRunner.run(["fetch", "--domains", huge.path, "--out", out.path])
        XCTAssertEqual(tooLarge.status, 2)
        XCTAssertTrue(tooLarge.stderr.contains("larger than 64 MiB"), tooLarge.stderr)
        let help = try CLIRunner.run(["help", "fetch"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("--connect-to"), help.stdout)
        XCTAssertFalse(help.stdout.contains("LIMITS"), "fetch's --limit is a byte count")
        XCTAssertTrue(help.stdout.contains("5 the --out folder cannot be created"), help.stdout)
        let file = out.appendingPathComponent("file")
        try Data().write(to: file)
        let under = try CLIRunner.run(["fetch", "example.com", "--out", file.appendingPathComponent("rules").path])
        XCTAssertEqual(under.status, 5, under.stderr)
        // --limit takes NAME=N as on every command, and a bare byte count (document-bytes).
        let badLimit = try CLIRunner.run(["fetch", "example.com", "--out", out.path, "--limit", "document-bytes=lots"])
        XCTAssertEqual(badLimit.status, 2)
        XCTAssertTrue(badLimit.stderr.contains("--limit document-bytes needs a whole number"), badLimit.stderr)
        XCTAssertEqual(try CLIRunner.run(["fetch", "example.com", "--out", out.path, "--limit", "nfa-states=lots"]).status, 2)
        // A mistyped option is named before the missing domains (an audit found "no domains").
        let bogus = try CLIRunner.run(["fetch", "--out", out.path, "--limit", "bogus=1"])
        XCTAssertEqual(bogus.status, 2)
        XCTAssertTrue(bogus.stderr.contains("bogus"), bogus.stderr)
        XCTAssertFalse(bogus.stderr.contains("no domains"), bogus.stderr)
        let tooMany = try CLIRunner.run(["fetch", "example.com", "--out", out.path, "--jobs", "300"])
        XCTAssertEqual(tooMany.status, 2, "more connections than a slice has domains would do nothing")
        XCTAssertTrue(tooMany.stderr.contains("--jobs needs a number from 1 to 256"), tooMany.stderr)
    }

    func test_fetch_thousandDomainsAtOnceInInputOrder() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let run = UUID().uuidString.prefix(8).lowercased()
        let domains = (0..<1000).map { "n-\(run)\($0).aasa.test" }
        let list = out.appendingPathComponent("domains.txt")
        // Comments, blank lines, CRLF, indentation, upper case and repeats, as hand-kept lists have.
        let lines = domains.enumerated().map { index, domain in
            switch index % 4 {
            case 0: return domain
            case 1: return " \t\(domain.uppercased())  # a comment\r"
            case 2: return "\(domain)\r\n"
            default: return "\(domain)\n\(domains[index - 1])"
            }
        }
        try Data(("# the list\n" + lines.joined(separator: "\n") + "\n").utf8).write(to: list)
        let started = Date()
        let (output, records) = try fetch(
            [], out: out.appendingPathComponent("rules"), ["--domains", list.path, "--retries", "1"])
        XCTAssertEqual(output.status, 0, String(output.stdout.prefix(2000)) + output.stderr)
        guard records.count == 1000 else { return XCTFail("\(records.count) records") }
        XCTAssertEqual(records.map { $0["domain"] as? String ?? "" }, domains)
        XCTAssertEqual(records.filter { $0["outcome"] as? String == "fetched" }.count, 1000)
        XCTAssertLessThan(Date().timeIntervalSince(started), 45)
    }

    /// TLS connections the server accepted so far, by the Host of their first request.
    private func connections(_ server: LoopbackServer) throws -> [String: Int] {
        try counts(server, "connections.json")
    }

    /// A count by host name that the server keeps in its folder (none yet: empty).
    private func counts(_ server: LoopbackServer, _ name: String) throws -> [String: Int] {
        guard let data = FileManager.default.contents(atPath: server.folder.appendingPathComponent(name).path) else { return [:] }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }

    func test_fetch_connectionsAreBoundedAndReused() throws {
        let out = try makeTemporaryFolder("aasa-fetch")
        let server = try loopback()
        let before = try connections(server)["cdn.aasa.test"] ?? 0
        let domains = (0..<60).map { _ in domain("good") }
        let (output, records) = try fetch(domains, out: out, ["--source", "cdn", "--jobs", "4"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(records.filter { $0["outcome"] as? String == "fetched" }.count, 60)
        let opened = (try connections(server)["cdn.aasa.test"] ?? 0) - before
        XCTAssertGreaterThan(opened, 0)
        XCTAssertLessThanOrEqual(opened, 4, "60 CDN requests over at most --jobs connections")
        // The root path is asked on the connection the .well-known request opened.
        let root = domain("root")
        XCTAssertEqual(try fetch([root], out: out).1[0]["outcome"] as? String, "fetched")
        XCTAssertEqual(try connections(server)[root], 1)
    }

    func test_entitlements_fetchChecksEachDomainsOriginDocument() throws {
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let good = domain("good")
        let missing = domain("missing")
        let contents: [String: Any] = [
            "application-identifier": "ABCDE12345.com.example.app",
            "com.apple.developer.associated-domains": ["applinks:\(good)?mode=developer", "applinks:\(missing)"],
        ]
        let file = folder.appendingPathComponent("app.entitlements")
        try PropertyListSerialization.data(fromPropertyList: contents, format: .binary, options: 0).write(to: file)
        let server = try loopback()
        let output = try CLIRunner.run(["entitlements", file.path, "--fetch", "--format", "json"] + network(server, cdn: false))
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        let lines = try records(output)
        XCTAssertEqual(lines.map { $0["domain"] as? String }, [good, missing])
        XCTAssertEqual(lines.map { $0["ok"] as? Bool }, [true, false])
        XCTAssertEqual((lines[1]["findings"] as? [[String: Any]])?.first?["code"] as? String, "no-document")
        XCTAssertTrue(
            ((lines[1]["findings"] as? [[String: Any]])?.first?["message"] as? String ?? "").contains("404"), "\(lines[1])")
    }

    // MARK: check

    private func check(
        _ domains: [String], _ extra: [String] = [], environment: String = "", port: Int? = nil, timeout: String = "10"
    ) throws -> (CLIRunner.Output, [[String: Any]]) {
        let server = try loopback()
        let arguments = ["check"] + domains + network(server, port: port, timeout: timeout) + ["--format", "json"] + extra
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let output = try CLIRunner.runShell("\(environment) '\(CLIRunner.executable.path)' \(quoted)")
        // The matrix's own line (`"domain": null`) is not a domain's.
        let parsed = try records(output).filter { !($0["domain"] is NSNull) }
        guard parsed.count == domains.count else {
            throw MissingRecords(
                message: "expected \(domains.count) records, status \(output.status): \(output.stdout) \(output.stderr)")
        }
        return (output, parsed)
    }

    private func codes(_ record: [String: Any]) -> [String] {
        (record["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    /// `entitlements --fetch` fetches its domains in slices, as `fetch` and `check` do, and keeps
    /// findings, not documents: 20 000 domains served 128 KiB each were all held at once (2 GB,
    /// then an abort); 2 000 took 308 MB.
    func test_entitlements_fetchHoldsASliceOfDocumentsAtATime() throws {
        let server = try loopback()
        let folder = try makeTemporaryFolder("aasa-entitlements")
        let tag = UUID().uuidString.prefix(8).lowercased()
        let domains = (0..<1_500).map { "applinks:full-\($0)x\(tag).aasa.test" }
        let contents: [String: Any] = ["application-identifier": "ABCDE12345.com.example.app", "com.apple.developer.associated-domains": domains]
        let file = folder.appendingPathComponent("app.entitlements")
        try PropertyListSerialization.data(fromPropertyList: contents, format: .xml, options: 0).write(to: file)
        let run = try ChildProcess.run(["entitlements", file.path, "--fetch", "--format", "json"] + network(server, cdn: false), folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        let lines = run.stdout.split(separator: 10)
        XCTAssertEqual(lines.count, 1_500, run.summary)
        XCTAssertTrue(lines.allSatisfy { String(decoding: $0, as: UTF8.self).contains(#""ok": true"#) }, run.summary)
        XCTAssertLessThan(run.maxResidentBytes, 150 << 20, run.summary)
    }

    func test_check_cdnCopiesComparedByMeaning() throws {
        let good = domain("good")
        let reformat = domain("reformat")
        let differs = domain("differs")
        let nocdn = domain("nocdn")
        let (output, records) = try check([good, reformat, differs, nocdn])
        XCTAssertEqual(output.status, 1, "cdn-missing is an error: " + output.stdout + output.stderr)
        XCTAssertEqual(records.map { $0["domain"] as? String }, [good, reformat, differs, nocdn])
        XCTAssertEqual(records.map { $0["equivalence"] as? String }, ["equivalent", "equivalent", "differs", "unavailable"])
        XCTAssertEqual(records.map { $0["ok"] as? Bool }, [true, true, true, false])
        XCTAssertEqual(codes(records[0]), [])
        XCTAssertEqual(codes(records[1]), [])
        XCTAssertEqual(codes(records[2]), ["cdn-differs"])
        let example = (records[2]["findings"] as? [[String: Any]])?.first
        XCTAssertEqual(example?["severity"] as? String, "warning")
        XCTAssertTrue((example?["url"] as? String ?? "").hasPrefix("https://\(differs)/shop"), "\(records[2])")
        XCTAssertEqual(codes(records[3]), ["cdn-missing"])
        XCTAssertEqual((records[0]["origin"] as? [String: Any])?["outcome"] as? String, "fetched")
        XCTAssertEqual((records[0]["cdn"] as? [String: Any])?["source"] as? String, "cdn")
    }

    func test_check_originProblemsHaveStableCodes() throws {
        let names = ["text", "invalid", "redirect", "missing", "big"].map(domain)
        let (output, records) = try check(names)
        XCTAssertEqual(output.status, 1)
        XCTAssertEqual(
            records.map(codes).map { $0.first }, ["content-type", "invalid-json", "redirect", "http-status", "too-large"])
        XCTAssertEqual(records[0]["ok"] as? Bool, true, "a text/plain type is a warning")
        XCTAssertEqual(records.map { $0["ok"] as? Bool }.dropFirst(), [false, false, false, false])
        let text = try CLIRunner.run(["check", names[0]] + network(try loopback()))
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\(names[0]): warning [content-type]"), text.stdout)
        // Served at the root path alone: usable (fetch stores it), and said, since Apple
        // documents only the .well-known path (an audit found it passed without a word).
        let root = try check([domain("root")])
        XCTAssertEqual(root.1.map(codes).first, ["root-path"], root.0.stdout)
        XCTAssertEqual(root.1.first?["ok"] as? Bool, true, "a warning")
        XCTAssertEqual(try check([domain("good")]).1.map(codes).first, [], "the .well-known path says nothing")
        let stalled = try check([domain("stall")], timeout: "1.5")
        XCTAssertEqual(stalled.1.map(codes).first?.first, "timeout", stalled.0.stdout)
        let rogue = try check([domain("good")], port: try loopback().roguePort)
        XCTAssertEqual(rogue.1.map(codes).first, ["tls", "cdn-unavailable"], rogue.0.stdout)
    }

    /// What a server sends is quoted in the text output, never obeyed: escape sequences in a
    /// `Location` (set the title, clear the screen, paint a fake "ok") are shown escaped.
    func test_check_textOutputShowsControlCharactersFromTheServerEscaped() throws {
        let name = domain("escape")
        let text = try CLIRunner.run(["check", name] + network(try loopback()))
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertFalse(text.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text.stdout)
        XCTAssertTrue(text.stdout.contains(#"\u{1B}]0;pwned\u{7}\u{1B}[2J"#), text.stdout)
        XCTAssertTrue(text.stdout.contains("\(name): error [redirect]"), text.stdout)
    }

    /// The CDN answering 429 is rate limiting, not "no copy": a warning, not `cdn-missing`. A
    /// CDN copy that is no usable document says why; identical unusable copies are not
    /// "equivalent"; and the records say "failed" where `fetch` would.
    func test_check_cdnRateLimitAndUnusableCopiesAreNamedForWhatTheyAre() throws {
        let busy = domain("cdnbusy")
        let invalidCDN = domain("cdninvalid")
        let invalidOrigin = domain("invalid")
        let (output, records) = try check([busy, invalidCDN, invalidOrigin], ["--retries", "0"])
        XCTAssertEqual(codes(records[0]), ["cdn-unavailable"], output.stdout)
        XCTAssertEqual(records[0]["ok"] as? Bool, true, output.stdout)
        XCTAssertEqual(codes(records[1]), ["cdn-differs"], output.stdout)
        let message = (records[1]["findings"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        XCTAssertTrue(message.hasPrefix("the CDN copy is not a usable document: invalid JSON at line 1"), message)
        XCTAssertEqual(records.map { $0["equivalence"] as? String }, ["unavailable", "unavailable", "unavailable"], output.stdout)
        let cdn = records[1]["cdn"] as? [String: Any]
        XCTAssertEqual(cdn?["outcome"] as? String, "failed", output.stdout)
        XCTAssertEqual(cdn?["failure"] as? String, "invalid-document", output.stdout)
        let origin = records[2]["origin"] as? [String: Any]
        XCTAssertEqual(origin?["failure"] as? String, "invalid-document", output.stdout)
        XCTAssertFalse((origin?["error"] as? String ?? "").contains("stored copy"), "check stores nothing: \(output.stdout)")
    }

    /// An empty Content-Type is named as such, not as a type of no letters.
    func test_check_emptyContentTypeIsSaidInWords() throws {
        let name = domain("emptytype")
        let text = try CLIRunner.run(["check", name, "--retries", "0"] + network(try loopback()))
        XCTAssertTrue(text.stdout.contains("\(name): warning [content-type] served with an empty Content-Type; Apple asks for application/json"), text.stdout)
    }

    /// A body announced over the limit is refused on its headers, not waited for; the root
    /// path's own failure is reported when `.well-known` has no copy; and a first fetch of an
    /// unusable document does not speak of a stored copy it does not have.
    func test_fetch_reportsTheFailureThatMatters() throws {
        let folder = try makeTemporaryFolder("aasa-fetch")
        let announced = domain("biglength")
        let rootBig = domain("rootbig")
        let invalid = domain("invalid")
        let started = Date()
        let (_, records) = try fetch([announced, rootBig, invalid], out: folder.appendingPathComponent("rules"), ["--retries", "0"], timeout: "20")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused on the headers, not after the stall")
        XCTAssertEqual(records.map { $0["failure"] as? String }, ["too-large", "too-large", "invalid-document"], "\(records)")
        XCTAssertEqual(records[1]["url"] as? String, "https://\(rootBig)/apple-app-site-association", "\(records[1])")
        XCTAssertTrue((records[1]["error"] as? String ?? "").contains("/.well-known/apple-app-site-association: HTTP 404"), "\(records[1])")
        XCTAssertFalse((records[2]["error"] as? String ?? "").contains("stored copy"), "\(records[2])")
    }

    /// JSON carries every string, but escapes what splits lines or drives a terminal: U+0085,
    /// the C1 controls, the bidirectional overrides.
    func test_fetch_recordsEscapeInvisibleLineBreaksAndControls() throws {
        let folder = try makeTemporaryFolder("aasa-fetch")
        let (output, records) = try fetch([domain("invisible")], out: folder.appendingPathComponent("rules"), ["--retries", "0"])
        XCTAssertEqual(records.first?["failure"] as? String, "redirect", output.stdout)
        XCTAssertEqual(records.first?["location"] as? String, "https://x.example/a\u{85}b\u{9B}2Jc\u{202E}d", output.stdout)
        XCTAssertTrue(output.stdout.contains(#"a\u0085b\u009b2Jc\u202ed"#), output.stdout)
        XCTAssertFalse(output.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E }, output.stdout)
    }

    func test_check_matrixRunsOnTheOriginCopy() throws {
        let good = domain("good")
        let folder = try makeTemporaryFolder("aasa-check")
        let passing = folder.appendingPathComponent("pass.json")
        try Data(
            #"{"opens_app": ["https://\#(good)/app/1"], "opens_web": ["https://\#(good)/about", "https://elsewhere.test/x"]}"#
                .utf8
        )
        .write(to: passing)
        let failing = folder.appendingPathComponent("fail.json")
        try Data(#"{"opens_app": ["https://\#(good)/shop/1"]}"#.utf8).write(to: failing)
        let pass = try check([good], ["--matrix", passing.path])
        XCTAssertEqual(pass.0.status, 0, pass.0.stdout + pass.0.stderr)
        XCTAssertTrue(pass.0.stdout.contains(#""code": "matrix-unchecked", "severity": "warning""#), "elsewhere.test is named: \(pass.0.stdout)")
        let fail = try check([good], ["--matrix", failing.path])
        XCTAssertEqual(fail.0.status, 1)
        let finding = (fail.1[0]["findings"] as? [[String: Any]])?.first
        XCTAssertEqual(finding?["code"] as? String, "matrix-failed")
        XCTAssertEqual(finding?["url"] as? String, "https://\(good)/shop/1")
        // In text, a failing URL with a line break stays on its line: it cannot print a line
        // that reads like the tool's own.
        let spoofing = folder.appendingPathComponent("spoof.json")
        try Data(#"{"opens_app": ["https://\#(good)/shop/1\n\#(good): ok"]}"#.utf8).write(to: spoofing)
        let text = try CLIRunner.run(["check", good, "--matrix", spoofing.path] + network(try loopback()))
        XCTAssertEqual(text.status, 1, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.contains(#"/shop/1\u{A}\#(good): ok"#), text.stdout)
        XCTAssertFalse(text.stdout.split(separator: "\n").contains { $0.hasPrefix("\(good): ok") }, text.stdout)
    }

    /// A matrix URL no checked domain answers for was dropped, and the check said ok: another
    /// host, or the checked one with a trailing dot, tested nothing.
    func test_check_matrixURLsOfNoCheckedDomainAreReported() throws {
        let good = domain("good")
        let folder = try makeTemporaryFolder("aasa-check")
        let matrix = folder.appendingPathComponent("m.json")
        try Data(
            #"{"opens_app": ["https://\#(good)./app/1", "https://other.test/app/1", "https://other.test/app/2", "no url"], "opens_web": ["https://web.test/x"]}"#
                .utf8
        ).write(to: matrix)
        let (output, records) = try check([good], ["--matrix", matrix.path])
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records[0]["ok"] as? Bool, true, "the domain itself is fine: \(output.stdout)")
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((output.stdout.split(separator: "\n").first ?? "").utf8)) as? [String: Any])
        XCTAssertTrue(first["domain"] is NSNull, output.stdout)
        let findings = try XCTUnwrap(first["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.map { $0["code"] as? String }, ["matrix-failed", "matrix-unchecked", "matrix-unchecked", "matrix-unchecked"], output.stdout)
        XCTAssertEqual(findings.map { $0["severity"] as? String }, ["error", "error", "error", "warning"], output.stdout)
        guard findings.count == 4 else { return }
        XCTAssertEqual(findings[1]["url"] as? String, "https://\(good)./app/1")
        XCTAssertTrue((findings[2]["message"] as? String ?? "").hasPrefix("2 URLs"), output.stdout)
        let text = try CLIRunner.run(["check", good, "--matrix", matrix.path] + network(try loopback()))
        XCTAssertEqual(text.status, 1, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("matrix: error [matrix-failed]"), text.stdout)
        XCTAssertTrue(text.stdout.contains("1 domain checked: 3 errors, 1 warning"), text.stdout)
    }

    /// Runs over parts of one fleet may share one state file: each keeps the others' domains.
    func test_check_concurrentRunsOnOneStateFileKeepEveryDomain() throws {
        let folder = try makeTemporaryFolder("aasa-check")
        let state = folder.appendingPathComponent("state.json").path
        let server = try loopback()
        let domains = (0..<4).map { _ in domain("differs") }
        let options = network(server).map { "'\($0)'" }.joined(separator: " ")
        let runs = domains.map { "'\(CLIRunner.executable.path)' check \($0) --state '\(state)' --format json \(options) > /dev/null &" }
        let all = try CLIRunner.runShell(runs.joined(separator: "\n") + "\nfor job in $(jobs -p); do wait $job || exit 1; done")
        XCTAssertEqual(all.status, 0, all.stderr)
        let stored = try String(contentsOfFile: state, encoding: .utf8)
        for domain in domains { XCTAssertTrue(stored.contains(domain), "\(domain) lost: \(stored)") }
    }

    func test_check_stateThatCannotBeWrittenIsRefusedBeforeAnyRequest() throws {
        let folder = try makeTemporaryFolder("aasa-check")
        let state = folder.appendingPathComponent("no/such/folder/state.json").path
        // Found before any request: the run would otherwise lose what it learned.
        let missing = try CLIRunner.run(["check", domain("differs"), "--state", state] + network(try loopback()))
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("cannot write --state"), missing.stderr)
        XCTAssertEqual(missing.stdout, "", "no request was made")
        XCTAssertTrue(try CLIRunner.run(["help", "check"]).stdout.contains("5 the report or the --state file"))
        // A link is followed: the file it names is updated, and the link stays.
        let shared = folder.appendingPathComponent("shared-state.json").path
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: shared)
        let run = try check([domain("differs")], ["--state", link])
        XCTAssertEqual(run.0.status, 0, run.0.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), shared)
        XCTAssertTrue(try String(contentsOfFile: shared, encoding: .utf8).contains("first_seen"))
    }

    func test_check_stateTurnsALastingDifferenceIntoAnAlert() throws {
        let folder = try makeTemporaryFolder("aasa-check")
        let state = folder.appendingPathComponent("state.json").path
        let differs = domain("differs")
        let heal = domain("heal")
        let arguments = ["--state", state, "--alert-after", "30m"]
        let first = try check([differs, heal], arguments, environment: "AASA_CHECK_NOW=1000000")
        XCTAssertEqual(first.0.status, 0, first.0.stdout + first.0.stderr)
        XCTAssertEqual(first.1.map(codes), [["cdn-differs"], ["cdn-differs"]])
        let stored = try String(contentsOfFile: state, encoding: .utf8)
        XCTAssertTrue(stored.contains(differs) && stored.contains(heal), stored)
        // The heal domain's CDN now serves the origin's copy: it is forgotten.
        let soon = try check([differs, heal], arguments, environment: "AASA_CHECK_NOW=1001700")
        XCTAssertEqual(soon.0.status, 0, soon.0.stdout)
        XCTAssertEqual(soon.1.map(codes), [["cdn-differs"], []])
        XCTAssertFalse(try String(contentsOfFile: state, encoding: .utf8).contains(heal))
        let late = try check([differs], arguments, environment: "AASA_CHECK_NOW=1001900")
        XCTAssertEqual(late.0.status, 1, late.0.stdout)
        XCTAssertEqual(late.1.map(codes), [["cdn-differs-persistent"]])
        XCTAssertEqual((late.1[0]["findings"] as? [[String: Any]])?.first?["severity"] as? String, "error")
        let without = try check([differs])
        XCTAssertEqual(without.0.status, 0, "without --state a difference stays a warning")
        let bad = try CLIRunner.run(["check", differs, "--alert-after", "soon"])
        XCTAssertEqual(bad.status, 2)
        // A clock no machine shows is ignored, and a damaged state file is named, never a trap.
        for now in ["1e300", "inf", "nan", "-5"] {
            let odd = try check([differs], arguments, environment: "AASA_CHECK_NOW=\(now)")
            XCTAssertEqual(odd.1.count, 1, "\(now): \(odd.0.stderr)")
        }
        let stateText = try String(contentsOfFile: state, encoding: .utf8)
        XCTAssertTrue(stateText.contains("first_seen"), stateText)
        try #"{"differences": {"\#(differs)": {"fingerprint": "x", "first_seen": -1e300}}}"#.write(toFile: state, atomically: true, encoding: .utf8)
        let damaged = try CLIRunner.run(["check", differs] + network(try loopback()) + arguments)
        XCTAssertEqual(damaged.status, 2, damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains("is not a state file"), damaged.stderr)
    }
}
