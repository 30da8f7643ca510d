import AASAKit
import XCTest

/// The network-free half of `aasa fetch` / `aasa check`: domain names, the digest, metadata,
/// the CDN comparison by meaning, and the difference state.
final class DeploymentTests: XCTestCase {
    func test_sha256_knownVectors() {
        XCTAssertEqual(SHA256.hex([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func test_domainName_acceptsHostsAndRefusesURLsWithAHint() throws {
        XCTAssertEqual(try DomainName.validate("App.Example.COM").get(), "app.example.com")
        XCTAssertEqual(try DomainName.validate("example.com.").get(), "example.com")
        XCTAssertEqual(try DomainName.validate("xn--bcher-kva.example").get(), "xn--bcher-kva.example")
        guard case .failure(let url) = DomainName.validate("https://example.com/path") else { return XCTFail("a URL") }
        XCTAssertTrue(url.message.contains("try example.com"), url.message)
        for bad in [
            "", "exa mple.com", "-a.com", "a..com", "example.com:443", String(repeating: "a", count: 64) + ".com", "bücher.de",
        ] {
            guard case .failure = DomainName.validate(bad) else { return XCTFail("'\(bad)' accepted") }
        }
    }

    func test_fetchMetadata_roundTrips() {
        let metadata = FetchMetadata(
            url: "https://example.com/.well-known/apple-app-site-association", status: 200, contentType: "application/json",
            etag: "\"v\\1\"", lastModified: nil, bytes: 12, sha256: SHA256.hex([1, 2]), fetchedAt: "2026-01-01T00:00:00Z")
        XCTAssertEqual(FetchMetadata(json: Array(metadata.json.utf8)), metadata)
        XCTAssertNil(FetchMetadata(json: Array("{\"url\": 1}".utf8)))
    }

    /// A validator is sent back on the next request as it was stored: one with a line break
    /// would write headers of the server's (or the file editor's) choosing into that request.
    func test_fetchMetadata_keepsOnlyValidatorsSafeToSendBack() {
        func stored(_ etag: String) -> String? {
            let metadata = FetchMetadata(
                url: "https://example.com/x", status: 200, contentType: nil, etag: etag, lastModified: etag, bytes: 1,
                sha256: "00", fetchedAt: "2026-01-01T00:00:00Z")
            XCTAssertEqual(metadata.etag, metadata.lastModified)
            return FetchMetadata(json: Array(metadata.json.utf8))?.etag
        }
        XCTAssertEqual(stored("W/\"a b\""), "W/\"a b\"")
        XCTAssertEqual(stored("Tue, 01 Dec 2026 10:00:00 GMT"), "Tue, 01 Dec 2026 10:00:00 GMT")
        for bad in ["\"v1\"\r\nX-Evil: yes", "\"v1\"\rX", "\"v1\"\n", "\u{FFFD}", "caf\u{E9}", "a\u{7F}", "\t\"v\"", " x", "",
            String(repeating: "a", count: 1025)]
        {
            XCTAssertNil(stored(bad), bad.debugDescription)
        }
        let edited = #"{"url": "u", "status": 200, "etag": "\"v\"\r\nX-Evil: 1", "bytes": 1, "sha256": "00", "fetched_at": "t"}"#
        XCTAssertNil(FetchMetadata(json: Array(edited.utf8))?.etag)
        XCTAssertNotNil(FetchMetadata(json: Array(edited.utf8)), "the rest of the metadata still reads")
    }

    /// A damaged state file is reported, not subtracted from: `-1e300` seconds would be a
    /// difference that lasted longer than any integer holds.
    func test_differenceState_refusesTimesNoClockGives() {
        for seen in ["-1e300", "1e300", "-1", "1e12"] {
            let json = #"{"differences": {"a.example": {"fingerprint": "x", "first_seen": \#(seen)}}}"#
            XCTAssertNil(DifferenceState(json: Array(json.utf8)), seen)
        }
        let json = #"{"differences": {"a.example": {"fingerprint": "x", "first_seen": 1700000000.5}}}"#
        XCTAssertEqual(DifferenceState(json: Array(json.utf8))?.entries["a.example"]?.firstSeen, 1_700_000_000.5)
    }

    private let original =
        #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}]}]}}"#

    func test_copyComparison_byMeaningNotBytes() {
        let reformatted = """
            { "applinks": { "details": [ { "components": [ { "/": "/app/*", "exclude": false } ],
              "appIDs": [ "ABCDE12345.com.example.app" ] } ] } }
            """
        let widened =
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}, {"/": "/shop/*"}]}]}}"#
        func compare(_ cdn: String?) -> CopyComparison {
            CopyComparison.compare(
                origin: Array(original.utf8), cdn: cdn.map { Array($0.utf8) }, domain: "example.com", configuration: .default)
        }
        XCTAssertEqual(compare(original), .equivalent)
        XCTAssertEqual(compare(reformatted), .equivalent)
        guard case .differs(let examples) = compare(widened), let example = examples.first else { return XCTFail("differs") }
        XCTAssertTrue(example.url.hasPrefix("https://example.com/shop"), example.url)
        XCTAssertEqual(example.origin, .noMatch)
        XCTAssertEqual(example.cdn, .match)
        XCTAssertEqual(compare(nil).name, "unavailable")
        // An unusable CDN copy is nothing to compare ("unavailable"), and says why.
        guard case .cdnUnusable(let reason) = compare("{not json") else { return XCTFail("cdnUnusable") }
        XCTAssertTrue(reason.hasPrefix("invalid JSON at line 1"), reason)
        XCTAssertEqual(compare("{not json").name, "unavailable")
    }

    func test_differenceState_lastsWhileTheSamePairDiffersAndIsForgottenOnAgreement() throws {
        var state = DifferenceState()
        let first = DifferenceState.fingerprint(origin: [1], cdn: [2])
        XCTAssertEqual(state.observeDifference(domain: "a.example", fingerprint: first, now: 100), 0)
        XCTAssertEqual(state.observeDifference(domain: "a.example", fingerprint: first, now: 400), 300)
        let restored = try XCTUnwrap(DifferenceState(json: Array(state.json.utf8)))
        XCTAssertEqual(restored, state)
        state = restored
        // A new origin copy restarts the clock.
        let second = DifferenceState.fingerprint(origin: [3], cdn: [2])
        XCTAssertEqual(state.observeDifference(domain: "a.example", fingerprint: second, now: 500), 0)
        state.observeAgreement(domain: "a.example")
        XCTAssertTrue(state.entries.isEmpty)
        XCTAssertNil(DifferenceState(json: Array("[]".utf8)))
    }

    /// The clock follows the documents' `applinks`, not their bytes: an origin that stamps each
    /// response or reorders its keys is the same copy, a changed rule a new one.
    func test_differenceState_fingerprintsTheAppLinksNotTheBytes() {
        let cdn = Array(#"{"applinks": {"details": []}}"#.utf8)
        let origin = { (generated: Int) in
            Array(#"{"generated": \#(generated), "applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/a/*", "exclude": false}]}]}}"#.utf8)
        }
        let reordered = Array("\u{FEFF}{\"applinks\":{\"details\":[{\"components\":[{\"exclude\":false,\"/\":\"/a/*\"}],\"appIDs\":[\"T.a\"]}]}}".utf8)
        let first = DifferenceState.fingerprint(origin: origin(1), cdn: cdn)
        XCTAssertEqual(DifferenceState.fingerprint(origin: origin(2), cdn: cdn), first)
        XCTAssertEqual(DifferenceState.fingerprint(origin: reordered, cdn: cdn), first)
        let changed = Array(#"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/b/*"}]}]}}"#.utf8)
        XCTAssertNotEqual(DifferenceState.fingerprint(origin: changed, cdn: cdn), first)
        // Not JSON: the bytes.
        XCTAssertNotEqual(DifferenceState.fingerprint(origin: [1], cdn: cdn), DifferenceState.fingerprint(origin: [2], cdn: cdn))
    }

    func test_fetchRecord_jsonLeavesOutAbsentFields() {
        let record = FetchRecord(
            domain: "a.example", source: .origin, url: "https://a.example/x", outcome: .notModified, status: 304)
        XCTAssertEqual(
            record.json,
            #"{"domain": "a.example", "source": "origin", "url": "https://a.example/x", "outcome": "not-modified", "status": 304}"#
        )
        XCTAssertTrue(FetchRecord.isJSONContentType("Application/JSON; charset=utf-8"))
        XCTAssertFalse(FetchRecord.isJSONContentType("text/plain"))
        XCTAssertFalse(FetchRecord.isJSONContentType(nil))
    }
}
