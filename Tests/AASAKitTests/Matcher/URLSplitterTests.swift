import AASAKit
import Foundation
import XCTest

/// SPEC 4: a URL is split RFC 3986 style, as written, into scheme, host, path, query and
/// fragment; a URL without scheme, `//` or host is an error.
final class URLSplitterTests: XCTestCase {
    // MARK: Helpers

    private func split(_ url: String, file: StaticString = #filePath, line: UInt = #line) -> SplitURL? {
        do {
            return try URLSplitter.split(url)
        } catch {
            XCTFail("\(url.debugDescription) failed to split: \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertSplit(
        _ url: String, scheme: String? = nil, host: String? = nil, path: String? = nil, query: String? = nil,
        fragment: String? = nil, hasQuery: Bool? = nil, hasFragment: Bool? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let parts = split(url, file: file, line: line) else { return }
        let label = url.debugDescription
        if let scheme { XCTAssertEqual(parts.scheme, scheme, "scheme of \(label)", file: file, line: line) }
        if let host { XCTAssertEqual(parts.host, host, "host of \(label)", file: file, line: line) }
        if let path { XCTAssertEqual(parts.path, path, "path of \(label)", file: file, line: line) }
        if let query { XCTAssertEqual(parts.query, query, "query of \(label)", file: file, line: line) }
        if let fragment { XCTAssertEqual(parts.fragment, fragment, "fragment of \(label)", file: file, line: line) }
        if let hasQuery { XCTAssertEqual(parts.hasQuery, hasQuery, "hasQuery of \(label)", file: file, line: line) }
        if let hasFragment {
            XCTAssertEqual(parts.hasFragment, hasFragment, "hasFragment of \(label)", file: file, line: line)
        }
    }

    private func assertError(
        _ url: String, _ expected: URLSplitError, file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            let parts = try URLSplitter.split(url)
            XCTFail("\(url.debugDescription) split into \(parts), expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, url.debugDescription, file: file, line: line)
        }
    }

    private func rawParts(_ url: String) throws -> URLParts {
        var url = url
        let result: Result<URLParts, URLSplitError> = url.withUTF8 { buffer in
            do throws(URLSplitError) {
                return .success(try URLSplitter.split(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: The five pieces

    func test_pieces_allFiveAsWritten() {
        assertSplit(
            "https://user:pw@Example.COM:8443/A/b%2F/../c?x=1&y=%41#Top", scheme: "https", host: "Example.COM",
            path: "/A/b%2F/../c", query: "x=1&y=%41", fragment: "Top", hasQuery: true, hasFragment: true)
    }

    func test_scheme_httpAndHTTPSSplitInAnyCaseAndKeepTheirCase() {
        assertSplit("HTTPS://example.com/", scheme: "HTTPS", host: "example.com")
        XCTAssertEqual(split("HTTPS://example.com/")?.isHTTPS, true)
        assertSplit("http://example.com/a", scheme: "http", host: "example.com", path: "/a")
        XCTAssertEqual(split("http://example.com/a")?.isHTTPS, false)
        assertSplit("HtTp://example.com/a", scheme: "HtTp", host: "example.com", path: "/a")
        assertSplit("hTTpS://example.com/a", scheme: "hTTpS", host: "example.com", path: "/a")
    }

    func test_scheme_anyOtherSchemeIsAnErrorNamingIt() {
        let others = [
            "javascript://example.com/%0aalert(1)": "javascript", "ftp://example.com/a": "ftp",
            "FTP://example.com/a": "FTP", "web+app.v-2://example.com/a": "web+app.v-2", "myapp://example.com/a": "myapp",
            "httpss://example.com/": "httpss", "htt://example.com/": "htt", "httpx://example.com/": "httpx",
            "hxtp://example.com/": "hxtp", "https1://example.com/": "https1", "ws://example.com/": "ws",
            "file:///etc/passwd": "file",
        ]
        for (url, scheme) in others {
            assertError(url, .notWebScheme(scheme))
        }
        XCTAssertEqual(
            URLSplitError.notWebScheme("javascript").description,
            "scheme 'javascript' is not http or https: only web links open apps")
    }

    /// The scheme is judged before the `//`: `mailto:` is refused for what it is, not for
    /// lacking an authority.
    func test_scheme_isJudgedBeforeTheAuthority() {
        assertError("mailto:a@example.com", .notWebScheme("mailto"))
        assertError("javascript:alert(1)", .notWebScheme("javascript"))
        assertError("https:example.com", .noAuthority)
    }

    func test_scheme_aLongSchemeIsCutInTheMessage() {
        let scheme = String(repeating: "a", count: 100)
        assertError(scheme + "://example.com/", .notWebScheme(scheme))
        XCTAssertEqual(
            URLSplitError.notWebScheme(scheme).description,
            "scheme '\(String(repeating: "a", count: 40))…' is not http or https: only web links open apps")
    }

    func test_path_isNeitherDecodedNorDotNormalised() {
        assertSplit("https://h/a/./b/../%2e%2E/c%20d", path: "/a/./b/../%2e%2E/c%20d")
        assertSplit("https://h/a b/café/\u{1F600}", path: "/a b/café/\u{1F600}")
        assertSplit("https://h//double//", path: "//double//")
    }

    func test_path_absentReadsAsSlash() {
        assertSplit("https://h", host: "h", path: "/", query: "", fragment: "", hasQuery: false, hasFragment: false)
        assertSplit("https://h?q=1", host: "h", path: "/", query: "q=1", hasQuery: true)
        assertSplit("https://h#f", host: "h", path: "/", fragment: "f", hasFragment: true)
        assertSplit("https://h:80", host: "h", path: "/")
    }

    func test_path_rawRangeIsEmptyWhenAbsent() throws {
        let parts = try rawParts("https://h?q")
        XCTAssertEqual(parts.path, 9..<9)
        XCTAssertEqual(parts.query, 10..<11)
        XCTAssertNil(parts.fragment)
        XCTAssertEqual(parts.scheme, 0..<5)
        XCTAssertEqual(parts.host, 8..<9)
    }

    // MARK: User info

    func test_userInfo_endsAtTheLastAt() {
        assertSplit("https://a@b@example.com/p", host: "example.com", path: "/p")
        assertSplit("https://user:p@ss@example.com:1/", host: "example.com")
        assertSplit("https://@example.com", host: "example.com")
        assertSplit("https://a:b:c@example.com:9:9/", host: "example.com")
    }

    func test_userInfo_atAfterTheAuthorityIsNotUserInfo() {
        assertSplit("https://example.com/a@b.com", host: "example.com", path: "/a@b.com")
        assertSplit("https://example.com?u=a@b", host: "example.com", path: "/", query: "u=a@b")
        assertSplit("https://example.com#a@b", host: "example.com", fragment: "a@b")
    }

    // MARK: Port

    func test_port_startsAtTheFirstColonAfterTheHost() {
        assertSplit("https://example.com:8080/x", host: "example.com", path: "/x")
        assertSplit("https://example.com:/x", host: "example.com", path: "/x")
        assertSplit("https://example.com:80:90/x", host: "example.com")
        assertSplit("https://u:p@example.com:notaport/x", host: "example.com", path: "/x")
    }

    func test_port_ipv6LiteralKeepsItsColonsAndBrackets() {
        assertSplit("https://[::1]/x", host: "[::1]", path: "/x")
        assertSplit("https://[::1]:8443/x", host: "[::1]", path: "/x")
        assertSplit("https://user@[2001:db8::7]:1?q", host: "[2001:db8::7]", path: "/", query: "q")
        assertSplit("https://[fe80::1%25en0]/", host: "[fe80::1%25en0]")
    }

    /// An unclosed literal is neither a literal nor a host: taking the host to the authority's
    /// end (`[::1`) or to its first `:` (`[`) would both be guesses, and browsers refuse it.
    func test_port_unclosedIPv6LiteralIsAnError() {
        for url in ["https://[::1/x", "https://[x:1/a", "https://u@[x", "https://[?q", "https://[#f"] {
            assertError(url, .unclosedIPv6Literal)
        }
        assertSplit("https://[x]/a", host: "[x]", path: "/a")
        assertSplit("https://x[/a", host: "x[", path: "/a")
    }

    // MARK: Backslash

    func test_backslash_anywhereInTheAuthorityIsAnError() {
        for url in [
            "https://evil.com\\@museum.example/x",  // user info
            "https://a\\b@example.com/",
            "https://example.com\\.evil.example/",  // host
            "https://\\example.com/",
            "https://example.com\\",
            "https://example.com:443\\@evil.example/",  // port
            "https://example.com:4\\43/",
            "https://example.com\\/a",  // where browsers end the authority
            "https://[::1\\]/",
            "HTTP://\\",
        ] {
            assertError(url, .backslashInAuthority)
        }
        XCTAssertEqual(
            URLSplitError.backslashInAuthority.description, "backslash in the authority: browsers read the host differently")
    }

    func test_backslash_afterTheAuthorityIsText() {
        assertSplit("https://example.com/a\\b@evil.example", host: "example.com", path: "/a\\b@evil.example")
        assertSplit("https://example.com?x=\\@y", host: "example.com", path: "/", query: "x=\\@y")
        assertSplit("https://example.com#\\", host: "example.com", fragment: "\\")
    }

    // MARK: Query and fragment

    func test_query_isAfterTheFirstQuestionMarkAndBeforeTheFirstHash() {
        assertSplit("https://h/p?a=1?b=2#f?g#h", path: "/p", query: "a=1?b=2", fragment: "f?g#h")
        assertSplit("https://h/p??", path: "/p", query: "?")
    }

    func test_query_questionMarkInsideTheFragmentIsFragment() {
        assertSplit("https://h/p#frag?x=1", path: "/p", query: "", fragment: "frag?x=1", hasQuery: false)
        assertSplit("https://h#f?q", host: "h", path: "/", query: "", fragment: "f?q", hasQuery: false)
    }

    func test_query_emptyButPresent() {
        assertSplit("https://h/p?", path: "/p", query: "", hasQuery: true, hasFragment: false)
        assertSplit("https://h/p?#", path: "/p", query: "", fragment: "", hasQuery: true, hasFragment: true)
        assertSplit("https://h/p#", path: "/p", fragment: "", hasQuery: false, hasFragment: true)
    }

    func test_host_endsAtQuestionMarkOrHash() {
        assertSplit("https://h?x/y", host: "h", path: "/", query: "x/y")
        assertSplit("https://h#x/y?z", host: "h", path: "/", fragment: "x/y?z")
    }

    // MARK: Errors

    func test_error_noScheme() {
        for url in ["", "example.com/path", "//example.com/", "1https://h/", "ht tp://h/", ":x//h", "-a://h", "/a/b"] {
            assertError(url, .noScheme)
        }
    }

    func test_error_noAuthority() {
        for url in ["https:", "https:h", "https:/h/p", "HTTP:a@b.com", "https:\\\\h", "https:/"] {
            assertError(url, .noAuthority)
        }
    }

    func test_error_emptyHost() {
        for url in ["https://", "https:///path", "https://user@:80/", "https://:80", "https://@/", "https://?q", "https://#f", "https://a@"] {
            assertError(url, .emptyHost)
        }
    }

    // MARK: Web platform tests

    private static var urlTestData: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Matcher
            .deletingLastPathComponent()  // AASAKitTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("../shared/corpus/wpt/urltestdata.json").standardizedFileURL
    }

    private func loadURLTestData() throws -> [JSONValue] {
        let url = Self.urlTestData
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("\(url.path) is absent")
        }
        let bytes = [UInt8](try Data(contentsOf: url))
        guard case .array(let entries) = try JSONParser.parse(bytes) else {
            XCTFail("urltestdata.json is not an array")
            return []
        }
        return entries
    }

    /// The scheme-and-authority prefix of `input` when it is `scheme://…` with a valid RFC 3986
    /// scheme; returns the authority text (up to the first `/`, `?` or `#`).
    private func authority(of input: String) -> Substring? {
        guard let separator = input.range(of: "://") else { return nil }
        let scheme = input[..<separator.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
            })
        else { return nil }
        let rest = input[separator.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return rest[..<end]
    }

    private func isWebLink(_ input: String) -> Bool {
        let lowered = input.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// Whether `piece` occurs in `authority` starting at its start or after an `@`, and ending at
    /// its end or before a `:`.
    private func containsDelimited(_ authority: String, _ piece: String) -> Bool {
        let text = Array(authority.utf8)
        let needle = Array(piece.utf8)
        guard !needle.isEmpty, needle.count <= text.count else { return false }
        for start in 0...(text.count - needle.count) where Array(text[start..<(start + needle.count)]) == needle {
            let end = start + needle.count
            let startsPiece = start == 0 || text[start - 1] == UInt8(ascii: "@")
            let endsPiece = end == text.count || text[end] == UInt8(ascii: ":")
            if startsPiece && endsPiece { return true }
        }
        return false
    }

    /// WPT expects WHATWG parsing, which is not SPEC 4 splitting: WHATWG strips tabs and newlines,
    /// trims C0 controls and spaces, treats `\` as `/` for special schemes, percent-decodes and
    /// IDNA-maps hosts, canonicalises IPv4 (`0x7f.1` → `127.0.0.1`) and IPv6 (`[0::1]` → `[::1]`),
    /// turns `file://localhost` into an empty host, and resolves relative inputs against a base.
    /// None of that is ours. So the comparison keeps only the entries where WHATWG did none of it
    /// to the host:
    /// - the input is a string starting with `http://` or `https://`, in any case (absolute, with
    ///   an authority; no base resolution applies; other schemes are refused by SPEC 4 and
    ///   pinned by `test_wpt_everyOtherSchemeIsRefused`);
    /// - it contains no tab, newline, backslash, space or other control character (nothing
    ///   stripped or re-delimited);
    /// - WHATWG did not fail, and its `hostname` is non-empty and ASCII;
    /// - that hostname, lower-cased, occurs in the input's authority text (everything between
    ///   `://` and the first `/`, `?` or `#`), lower-cased, as a whole piece: starting the
    ///   authority or right after an `@`, and ending it or right before a `:`. So the host
    ///   appears as written and no decoding, mapping or canonicalisation changed it (this also
    ///   drops `http://1.2.3.4./`, where WHATWG's IPv4 parser removes the trailing dot).
    /// For those, our host must equal WHATWG's hostname, ASCII case-insensitively. The filter
    /// only says that WHATWG's host is literally there as one delimited piece; it does not say
    /// *which* such piece is the host (`a@b@c:d`, `u:p@h:1` have several): choosing it, i.e.
    /// user info up to the last `@` and the port from the first `:`, is what is under test.
    func test_wpt_hostAgreesWhereWHATWGKeepsTheHostAsWritten() throws {
        let entries = try loadURLTestData()
        var compared = 0
        var disagreements: [String] = []
        for entry in entries {
            guard case .object(let object) = entry, case .string(let input)? = object["input"] else { continue }
            if case .bool(true)? = object["failure"] { continue }
            guard case .string(let hostname)? = object["hostname"], !hostname.isEmpty,
                hostname.unicodeScalars.allSatisfy(\.isASCII)
            else { continue }
            let hasUnwanted = input.unicodeScalars.contains {
                $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\\" || $0 == " " || $0.value < 0x20 || $0.value == 0x7F
            }
            guard !hasUnwanted, isWebLink(input), let authority = authority(of: input),
                containsDelimited(authority.lowercased(), hostname.lowercased())
            else { continue }
            compared += 1
            do {
                let parts = try URLSplitter.split(input)
                if parts.host.lowercased() != hostname.lowercased() {
                    disagreements.append("\(input.debugDescription): host \(parts.host.debugDescription), WHATWG \(hostname.debugDescription)")
                }
            } catch {
                disagreements.append("\(input.debugDescription): \(error), WHATWG host \(hostname.debugDescription)")
            }
        }
        XCTAssertGreaterThan(compared, 100, "the filter left too few entries to mean anything")
        XCTAssertEqual(disagreements, [], "\(disagreements.count) of \(compared) disagree")
    }

    /// Every WPT input of the form `scheme://…` whose scheme is valid but not http or https is
    /// refused, naming its scheme: none of them opens an app.
    func test_wpt_everyOtherSchemeIsRefused() throws {
        var refused = 0
        for entry in try loadURLTestData() {
            guard case .object(let object) = entry, case .string(let input)? = object["input"],
                let separator = input.range(of: "://"), !isWebLink(input), authority(of: input) != nil
            else { continue }
            let scheme = String(input[..<separator.lowerBound])
            do {
                let parts = try URLSplitter.split(input)
                XCTFail("\(input.debugDescription) split into \(parts)")
            } catch {
                XCTAssertEqual(error, .notWebScheme(scheme), input.debugDescription)
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 20, "too few other schemes in the file to mean anything")
    }

    /// Every input of the file, valid or not, splits or throws a `URLSplitError`: no trap. A
    /// successful split has a non-empty host and ordered, in-bounds pieces.
    func test_wpt_neverCrashesAndPiecesAreOrdered() throws {
        let entries = try loadURLTestData()
        var inputs: [String] = []
        for entry in entries {
            switch entry {
            case .string(let comment):
                inputs.append(comment)
            case .object(let object):
                for key in ["input", "base", "href"] {
                    if case .string(let text)? = object[key] { inputs.append(text) }
                }
            default:
                continue
            }
        }
        XCTAssertGreaterThan(inputs.count, 500)
        for input in inputs {
            var mutable = input
            let problem: String? = mutable.withUTF8 { buffer in
                do throws(URLSplitError) {
                    let parts = try URLSplitter.split(buffer)
                    if parts.host.isEmpty { return "empty host" }
                    if parts.scheme.lowerBound != 0 { return "scheme does not start the URL" }
                    if parts.host.lowerBound <= parts.scheme.upperBound { return "host overlaps the scheme" }
                    if parts.path.lowerBound < parts.host.upperBound { return "path before host end" }
                    var end = parts.path.upperBound
                    if let query = parts.query {
                        if query.lowerBound != end + 1 { return "query does not follow the path" }
                        end = query.upperBound
                    }
                    if let fragment = parts.fragment {
                        if fragment.lowerBound != end + 1 { return "fragment does not follow" }
                        end = fragment.upperBound
                    }
                    if end != buffer.count { return "pieces do not reach the end" }
                    return nil
                } catch {
                    return nil
                }
            }
            if let problem { XCTFail("\(input.debugDescription): \(problem)") }
        }
    }

    /// The authority loop compares each byte with its six delimiters in one compound test;
    /// every ASCII byte must split the authority exactly as SPEC 4 says.
    func test_split_authorityStopsExactlyAtItsDelimiters() throws {
        for value in UInt8(0x00)...UInt8(0x7F) {
            let character = Character(Unicode.Scalar(value))
            if character == "\\" {
                assertError("https://x\\y/p", .backslashInAuthority)
                continue
            }
            let parts = try URLSplitter.split("https://x\(character)y/p")
            let expected: String
            switch character {
            case "#", "/", "?", ":": expected = "x"
            case "@": expected = "y"
            default: expected = "x\(character)y"
            }
            XCTAssertEqual(parts.host, expected, "byte \(value)")
        }
    }

    /// The authority is scanned eight bytes at a time (`authorityMarks`); whatever the byte and
    /// wherever it falls in a word (or in the bytes after the last whole word), the host must
    /// be what a byte-by-byte reading of SPEC 4 gives.
    func test_split_wordwiseAuthorityScanAgreesWithAByteLoop_forEveryByteAtEveryPosition() {
        /// The host by SPEC 4, one byte at a time; nil for a backslash in the authority.
        func hostByteLoop(_ bytes: [UInt8], from start: Int) -> [UInt8]? {
            var end = start
            while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
                if bytes[end] == UInt8(ascii: "\\") { return nil }
                end += 1
            }
            let authority = Array(bytes[start..<end])
            let afterUser = (authority.lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 }) ?? 0
            let hostAndPort = authority[afterUser...]
            return Array(hostAndPort.prefix { $0 != UInt8(ascii: ":") })
        }
        let prefix = Array("https://".utf8)
        for value in UInt8(0)...UInt8(255) {
            for position in 0..<19 {
                var authority = Array("abcdefghij.example".utf8)  // 18 bytes: two words and a tail
                if position < authority.count { authority[position] = value } else { authority.append(value) }
                let url = prefix + authority + Array("/p?q#f".utf8)
                let expected = hostByteLoop(url, from: prefix.count)
                let got: Result<URLParts, URLSplitError> = url.withUnsafeBufferPointer { buffer in
                    Result { () throws(URLSplitError) -> URLParts in try URLSplitter.split(buffer) }
                }
                switch (got, expected) {
                case (.success(let parts), let host?):
                    XCTAssertEqual(Array(url[parts.host]), host, "byte \(value) at \(position)")
                case (.failure(.emptyHost), let host?) where host.isEmpty:
                    break
                case (.failure(.unclosedIPv6Literal), let host?) where host.first == UInt8(ascii: "[") && !host.contains(UInt8(ascii: "]")):
                    break
                case (.failure(.backslashInAuthority), nil):
                    break
                default:
                    XCTFail("byte \(value) at \(position): \(got) against \(String(describing: expected))")
                }
            }
        }
    }
}
