/// AASA path glob → anchored regex, for the peers.
///
/// The peers answer "the first rule whose glob matches the whole path". That equals our engine's
/// answer for a path-only document under these conditions, which `GlobTranslation.check` enforces
/// on every generated pattern:
///
/// - the pattern starts with exactly one `/` (SPEC 6 collapses a leading run of `/`; we never
///   generate one), does not end with `/` (SPEC 6 drops a trailing run), contains no `$`
///   (no substitution variables) and no run of `*`;
/// - a pattern ending in `/*` also matches the path without that last segment (SPEC 6): we
///   translate `P/*` to `P(?:/.*)?`, which is exactly the union of the two alternatives our
///   engine compiles;
/// - the URL path has its trailing run of `/` removed before the peers see it, as our engine
///   does (the peers do it inside their timed loop);
/// - every rule uses the defaults (`caseSensitive` and `percentEncoded` true), so text is
///   compared byte for byte, with no decoding and no folding.
///
/// Translation: `*` → `.*` (with DOTALL, so it crosses every scalar, `/` included), `?` → `.`
/// in UTF-8 mode (exactly one Unicode scalar), and every other character a literal: ASCII
/// letters and digits as themselves, other ASCII bytes as `\xHH`, non-ASCII scalars as their raw
/// UTF-8 bytes (both RE2 and Hyperscan read those as literals, in UTF-8 mode and, for Hyperscan,
/// in byte mode too).
enum GlobTranslation {
    /// Which regex dialect to write (they differ only in how the ends are anchored).
    enum Dialect {
        /// RE2::Set anchors both ends itself (`RE2::ANCHOR_BOTH`): no anchors in the text.
        case re2
        /// Hyperscan: `^…\z`. `\z` rather than `$`, because Hyperscan's `$` (PCRE's) also
        /// matches before a final `\n`; no path here holds a `\n`, so both give the same
        /// answers, and `\z` says what we mean.
        case hyperscan
    }

    /// Why a pattern is outside the set where the peers' semantics equal ours.
    static func violation(of glob: String) -> String? {
        let bytes = Array(glob.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return "does not start with /" }
        if bytes.count > 1 && bytes[1] == UInt8(ascii: "/") { return "starts with //" }
        if bytes.count > 1 && bytes.last == UInt8(ascii: "/") { return "ends with /" }
        if bytes.contains(UInt8(ascii: "$")) { return "contains $" }
        if glob.contains("**") { return "contains a run of *" }
        return nil
    }

    /// `true` when the glob contains `?`, the only piece whose meaning depends on UTF-8 mode.
    static func needsUTF8(_ glob: String) -> Bool { glob.utf8.contains(UInt8(ascii: "?")) }

    static func regex(for glob: String, dialect: Dialect) -> String {
        var scalars = Array(glob.unicodeScalars)
        var optionalLastSegment = false
        if scalars.count >= 2, scalars[scalars.count - 1] == "*", scalars[scalars.count - 2] == "/" {
            // SPEC 6: `P/*` also matches `P`.
            scalars.removeLast(2)
            optionalLastSegment = true
        }
        var out = dialect == .hyperscan ? "^" : ""
        for scalar in scalars {
            switch scalar {
            case "*": out += ".*"
            case "?": out += "."
            case "a"..."z", "A"..."Z", "0"..."9": out.unicodeScalars.append(scalar)
            default:
                if scalar.isASCII {
                    out += "\\x" + hex(UInt8(scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        if optionalLastSegment { out += "(?:\\x2F.*)?" }
        if dialect == .hyperscan { out += "\\z" }
        return out
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return String(String.UnicodeScalarView([digits[Int(byte >> 4)], digits[Int(byte & 15)]]))
    }
}
