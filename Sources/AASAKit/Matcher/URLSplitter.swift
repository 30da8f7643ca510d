import Foundation

/// Splits a URL into the five pieces AASA rules look at, exactly as written (SPEC 4).
///
/// RFC 3986 splitting and nothing more: no re-encoding, no dot-segment removal, no IDNA, no
/// WHATWG clean-ups (tabs, backslashes). The pieces are byte ranges into the caller's buffer,
/// so splitting allocates nothing; both engines (and `classify`'s hot loop) start here.
///
/// Where RFC 3986 and browsers would name different hosts or treat the link as no web link at
/// all, the splitter refuses instead of picking one reading: only `http` and `https` are split
/// (any other scheme cannot open an app, so a decision for it would be a false promise), and a
/// `\` in the authority is an error, because browsers end the host there and RFC 3986 does not
/// (`https://evil.com\@museum.example/` opens `evil.com`).
///
/// ```swift
/// let parts = try URLSplitter.split("https://user@Example.com:8443/a/b?x=1#top")
/// // host "Example.com", path "/a/b", query "x=1", fragment "top"
/// ```
public enum URLSplitter {
    /// Splits the UTF-8 bytes of a URL.
    ///
    /// - Throws: `URLSplitError` when there is no scheme, the scheme is not `http` or `https`,
    ///   there is no `//` authority, the authority holds a `\`, or the host is empty.
    /// - Complexity: O(n), one pass; no allocation.
    public static func split(_ bytes: UnsafeBufferPointer<UInt8>) throws(URLSplitError) -> URLParts {
        try split(ByteView(bytes))
    }

    /// As `split(_:)`, the bytes lent as a view.
    static func split(_ bytes: ByteView) throws(URLSplitError) -> URLParts {
        let end = bytes.count
        var index = 0
        let scheme: Range<Int>
        if end >= 8, let (length, after) = lowercaseWebPrefix(bytes.word(at: 0)) {
            // PERF: nearly every URL starts `https://` or `http://` in lowercase: one word
            // compared instead of the scheme scan, its checks and the `//` check.
            scheme = 0..<length
            index = after
        } else {
            // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
            guard index < end, isASCIILetter(bytes[index]) else { throw .noScheme }
            index += 1
            while index < end, isSchemeByte(bytes[index]) { index += 1 }
            guard index < end, bytes[index] == UInt8(ascii: ":") else { throw .noScheme }
            scheme = 0..<index
            // Before the `//` check, so that `mailto:a@b` says what is wrong with it: its scheme.
            guard isWebScheme(bytes, scheme) else {
                throw .notWebScheme(bytes.string(scheme))
            }
            index += 1
            guard index + 1 < end, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else {
                throw .noAuthority
            }
            index += 2
        }

        // One pass over the authority (to the first "/", "?" or "#"), noting the last "@" (user
        // info ends there) and the first ":" after it (the port starts there), and refusing a
        // "\" (browsers end the authority there, so they would see another host).
        // PERF: eight bytes at a time to the next such byte (`authorityMarks`), instead of a
        // test per byte; a host holds none until its end. With the `https://` word above: 559 →
        // 241 instructions a URL in `split` (10 000-domain fleet stream, `aasa classify --jobs 1
        // --rules`, callgrind, stream twice − once), 12% of the URL's cost.
        let authorityStart = index
        var hostStart = authorityStart
        var firstColon = -1
        while index < end {
            if end - index >= 8 {
                let marks = authorityMarks(bytes.word(at: index))
                if marks == 0 {
                    index += 8
                    continue
                }
                // The lowest mark is exact (see `authorityMarks`).
                index += marks.trailingZeroBitCount >> 3
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "@") {
                hostStart = index + 1
                firstColon = -1
            } else if byte == UInt8(ascii: ":") {
                if firstColon < 0 { firstColon = index }
            } else if byte == UInt8(ascii: "\\") {
                throw .backslashInAuthority
            } else if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                break
            }
            index += 1
        }
        let authorityEnd = index
        // Port: from the first ":" after the host, or after "]" for an IPv6 literal.
        var hostEnd = firstColon >= 0 ? firstColon : authorityEnd
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            hostEnd = hostStart
            while hostEnd < authorityEnd, bytes[hostEnd] != UInt8(ascii: "]") { hostEnd += 1 }
            // `https://[x:1/a`: no literal, and no plain host either (a host holds no `[`);
            // reading `[x` or `[x:1` would both be guesses, and browsers refuse the URL.
            guard hostEnd < authorityEnd else { throw .unclosedIPv6Literal }
            // Whatever follows `]` up to that `:` is still host (`[::1]evil.example` is not
            // `[::1]`): the host is never cut short into another domain's name.
            while hostEnd < authorityEnd, bytes[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
        }
        guard hostEnd > hostStart else { throw .emptyHost }

        return parts(of: bytes, scheme: scheme, host: hostStart..<hostEnd, pathStart: authorityEnd)
    }

    /// Where the path starting at `pathStart` ends: at the first `?` or `#`, or at the end.
    @inline(__always)
    static func pathEnd(of bytes: ByteView, from pathStart: Int) -> Int {
        let fragmentMark = find(UInt8(ascii: "#"), in: bytes, from: pathStart, to: bytes.count) ?? bytes.count
        return find(UInt8(ascii: "?"), in: bytes, from: pathStart, to: fragmentMark) ?? fragmentMark
    }

    /// The parts of a URL whose scheme and host are known and whose authority ends at
    /// `pathStart` (which holds `/`, `?`, `#` or is the end): what follows is path, query and
    /// fragment, exactly as `split` reads them.
    @inline(__always)
    static func parts(of bytes: ByteView, scheme: Range<Int>, host: Range<Int>, pathStart: Int)
        -> URLParts
    {
        // The fragment starts at the first "#" after the authority; the query at the first "?"
        // before it. PERF: memchr instead of a byte loop (the splitter was 12% of classify).
        let end = bytes.count
        let fragmentMark = find(UInt8(ascii: "#"), in: bytes, from: pathStart, to: end)
        let queryMark = find(UInt8(ascii: "?"), in: bytes, from: pathStart, to: fragmentMark ?? end)
        let path = pathStart..<(queryMark ?? fragmentMark ?? end)
        let query = queryMark.map { ($0 + 1)..<(fragmentMark ?? end) }
        let fragment = fragmentMark.map { ($0 + 1)..<end }
        return URLParts(scheme: scheme, host: host, path: path, query: query, fragment: fragment)
    }

    /// Splits a URL held in a `String`, returning owned text for each piece: the convenient form
    /// for the reference matcher, `explain` and tests.
    public static func split(_ url: String) throws(URLSplitError) -> SplitURL {
        var url = url
        let result: Result<SplitURL, URLSplitError> = url.withUTF8 { buffer in
            do throws(URLSplitError) {
                let bytes = ByteView(buffer)
                let parts = try split(bytes)
                return .success(SplitURL(parts: parts, bytes: bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The index of the first `byte` in `bytes[from..<to]`, or `nil`.
    @inline(__always)
    static func find(_ byte: UInt8, in bytes: ByteView, from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        let found = bytes[0..<to].index(of: byte, from: from)
        return found < to ? found : nil
    }

    /// When the eight bytes `word` (a URL's first, in memory order) start `https://` or
    /// `http://`: the scheme's length and where the authority starts.
    @inline(__always)
    static func lowercaseWebPrefix(_ word: UInt64) -> (Int, Int)? {
        // "https://" and "http://" read as little-endian words (the latter's eighth byte masked).
        if word == 0x2F2F_3A73_7074_7468 { return (5, 8) }
        if word & 0x00FF_FFFF_FFFF_FFFF == 0x002F_2F3A_7074_7468 { return (4, 7) }
        return nil
    }

    /// A word with the top bit set in the byte of every `/`, `?`, `#`, `@`, `:` or `\` of `word`
    /// (the bytes that end or shape an authority), read little-endian. Exact for the lowest such
    /// byte; a byte above it may be marked falsely (the borrow of the classic zero-byte test), so
    /// callers use only the lowest mark.
    @inline(__always)
    static func authorityMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        @inline(__always) func zeroBytes(_ value: UInt64) -> UInt64 {
            (value &- ones) & ~value & 0x8080_8080_8080_8080
        }
        return zeroBytes(word ^ (ones &* 0x2F)) | zeroBytes(word ^ (ones &* 0x3F)) | zeroBytes(word ^ (ones &* 0x23))
            | zeroBytes(word ^ (ones &* 0x40)) | zeroBytes(word ^ (ones &* 0x3A)) | zeroBytes(word ^ (ones &* 0x5C))
    }

    /// Whether `scheme` is `http` or `https`, ASCII case-insensitively (SPEC 4).
    @inline(__always)
    static func isWebScheme(_ bytes: ByteView, _ scheme: Range<Int>) -> Bool {
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        let start = scheme.lowerBound
        guard bytes[start] | 0x20 == UInt8(ascii: "h"), bytes[start + 1] | 0x20 == UInt8(ascii: "t"),
            bytes[start + 2] | 0x20 == UInt8(ascii: "t"), bytes[start + 3] | 0x20 == UInt8(ascii: "p")
        else { return false }
        return scheme.count == 4 || bytes[start + 4] | 0x20 == UInt8(ascii: "s")
    }

    @inline(__always)
    static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    @inline(__always)
    static func isSchemeByte(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}

/// The byte ranges of a split URL, relative to the buffer that was split.
public struct URLParts: Sendable, Equatable {
    public var scheme: Range<Int>
    /// The host without user info or port; never empty.
    public var host: Range<Int>
    /// The path as written; empty when the URL has none (SPEC 4 then reads it as `/`).
    public var path: Range<Int>
    /// The query without its `?`; `nil` when the URL has no `?` (compared as `""`).
    public var query: Range<Int>?
    /// The fragment without its `#`; `nil` when the URL has no `#` (compared as `""`).
    public var fragment: Range<Int>?
}

/// A split URL with owned text, for code paths where allocation does not matter.
public struct SplitURL: Sendable, Equatable {
    public var scheme: String
    public var host: String
    /// The path as written, or `/` when the URL has none (SPEC 4).
    public var path: String
    /// The query, or `""` when absent.
    public var query: String
    /// The fragment, or `""` when absent.
    public var fragment: String
    public var hasQuery: Bool
    public var hasFragment: Bool

    init(parts: URLParts, bytes: ByteView) {
        func text(_ range: Range<Int>?) -> String {
            guard let range else { return "" }
            return bytes.string(range)
        }
        scheme = text(parts.scheme)
        host = text(parts.host)
        path = parts.path.isEmpty ? "/" : text(parts.path)
        query = text(parts.query)
        fragment = text(parts.fragment)
        hasQuery = parts.query != nil
        hasFragment = parts.fragment != nil
    }

    /// `http` URLs are matched too (SPEC 4), but `explain` points out when a link is not `https`.
    public var isHTTPS: Bool { asciiLowercased(scheme) == "https" }

    /// The host as a domain that serves it is named: ASCII letters lowered, nothing else changed
    /// (SPEC 3 compares hosts ASCII case-insensitively; a Unicode lowering would turn the Kelvin
    /// sign into `k` and name a domain that does not serve the URL).
    public var domainName: String { asciiLowercased(host) }
}

/// Why a URL could not be split. An unsplittable URL is an error, never a `no_match`.
public enum URLSplitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `scheme:` at the start (for instance `example.com/path`).
    case noScheme
    /// A scheme other than `http` or `https` (`javascript:`, `ftp:`, `mailto:`): Universal Links
    /// are web links, so such a URL never opens an app, whatever the document says.
    case notWebScheme(String)
    /// A `\` between `scheme://` and the path: browsers end the host there, RFC 3986 does not,
    /// so the two would route the link to different domains.
    case backslashInAuthority
    /// The scheme is not followed by `//` and an authority.
    case noAuthority
    /// The authority has no host (`https:///path`, `https://user@:80/`).
    case emptyHost
    /// The host opens an IPv6 literal with `[` and never closes it with `]`.
    case unclosedIPv6Literal
    /// The URL is longer than the configured limit (`Configuration.input.maxURLBytes`).
    case tooLong(length: Int, limit: Int)
    /// The input line is longer than the configured limit (`Configuration.input.maxLineBytes`).
    case lineTooLong(length: Int, limit: Int)
    /// The line is not valid UTF-8.
    case invalidUTF8
    /// Deciding the URL took more work than `Configuration.Automata.maxURLWork` allows (a
    /// hostile document's automata): no decision is given rather than a guessed one.
    case workLimitExceeded(limit: Int)

    public var description: String {
        switch self {
        case .noScheme: return "no scheme: a URL must start with a scheme such as \"https:\""
        case .notWebScheme(let scheme):
            // The scheme is bounded only by the URL limit; a name past 40 bytes is cut, the
            // record's "url" has it whole.
            let shown = Array(scheme.utf8).withView { $0.shownText(limit: 40) }
            return "scheme '\(shown)' is not http or https: only web links open apps"
        case .backslashInAuthority: return "backslash in the authority: browsers read the host differently"
        case .noAuthority: return "no authority: the scheme must be followed by \"//\" and a host"
        case .emptyHost: return "empty host"
        case .unclosedIPv6Literal: return "the host opens an IPv6 literal with '[' and has no ']'"
        case .tooLong(let length, let limit):
            return "URL of \(length) bytes is over the limit of \(limit) bytes (\(Configuration.Limit.urlBytes.hint))"
        case .lineTooLong(let length, let limit):
            return "line of \(length) bytes is over the limit of \(limit) bytes (\(Configuration.Limit.lineBytes.hint))"
        case .invalidUTF8: return "the line is not valid UTF-8"
        case .workLimitExceeded(let limit): return "work limit exceeded (url-work=\(limit))"
        }
    }
}
