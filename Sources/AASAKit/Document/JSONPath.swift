/// The location of a piece of a document, written the way people read it:
/// `applinks.details[1].components[0]["?"]`.
///
/// Paths are built while decoding, one component per step down the tree, so that every
/// diagnostic can point at the exact piece it is about.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document root.
    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath {
        appending(component: .key(key))
    }

    public func appending(index: Int) -> JSONPath {
        appending(component: .index(index))
    }

    /// One copy of the components, not the two that `components + [component]` makes.
    private func appending(component: Component) -> JSONPath {
        var path = self
        path.components.reserveCapacity(components.count + 1)
        path.components.append(component)
        return path
    }

    public static func / (lhs: JSONPath, rhs: String) -> JSONPath { lhs.appending(rhs) }
    public static func / (lhs: JSONPath, rhs: Int) -> JSONPath { lhs.appending(index: rhs) }

    /// Identifier-like keys are written with a dot; anything else (`/`, `?`, `#`, keys with
    /// spaces or dots) in brackets and quotes, so the path can be read back unambiguously.
    public var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if Self.isPlainIdentifier(key) {
                    text += text.isEmpty ? key : ".\(key)"
                } else {
                    text += "[\(JSONWriter.escape(key))]"
                }
            }
        }
        return text
    }

    private static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}
