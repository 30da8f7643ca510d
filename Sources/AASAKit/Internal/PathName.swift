/// A file path split at its last `/`, for the places that need the folder a file is written in
/// (a temporary file beside it, the folder an output would land in).
///
/// Why not `NSString.deletingLastPathComponent`: on Linux, Foundation's version traps on a
/// one-character path (`-o a`), and an output name is user input. This does only the split:
/// no `..`, `~` or symbolic-link resolution (`realpath` does that where it matters).
public enum PathName {
    /// The folder part of `path` ("" for a bare name, "/" for a file at the root) and its last
    /// component; trailing slashes are not part of either (`x/` is the name `x`).
    public static func split(_ path: String) -> (directory: String, name: String) {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ("", String(decoding: bytes, as: UTF8.self)) }
        let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let directory = end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
        return (directory, name)
    }

    /// `name` inside `directory`, or `name` alone when `directory` is "".
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
