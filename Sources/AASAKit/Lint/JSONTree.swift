/// The parsed JSON of a document, kept next to the decoded model for what the model drops.
///
/// The lenient decoder turns JSON into typed values and forgets where they were: the index of a
/// value among skipped siblings, the order of keys, a key written twice. Lint needs all three
/// (a finding points at the exact element; findings come out in the order a reader meets them),
/// so it keeps the tree and asks it. Lookups walk the path step by step; no recursion, so a
/// document nested to the depth limit is fine.
struct JSONTree {
    let root: JSONValue

    init(_ root: JSONValue) {
        self.root = root
    }

    /// The value at `path`, or `nil` when the path leaves the tree. A key written twice resolves
    /// to its last value, as the decoder does.
    func value(at path: JSONPath) -> JSONValue? {
        var current = root
        for component in path.components {
            guard let next = Self.child(of: current, at: component)?.value else { return nil }
            current = next
        }
        return current
    }

    /// The sort key that puts paths in the order they appear in the source: at each step the
    /// child's position among its siblings. An ancestor sorts before its descendants (a prefix
    /// is smaller); a step the tree does not have sorts after every real sibling.
    func sourceOrder(of path: JSONPath) -> [Int] {
        var key: [Int] = []
        key.reserveCapacity(path.components.count)
        var current: JSONValue? = root
        for component in path.components {
            let step = current.flatMap { Self.child(of: $0, at: component) }
            key.append(step?.position ?? Int.max)
            current = step?.value
        }
        return key
    }

    /// One step down: the child and its position among its siblings (for an object, the
    /// position of the key's last occurrence, the one that counts).
    private static func child(of value: JSONValue, at component: JSONPath.Component) -> (value: JSONValue, position: Int)? {
        switch (value, component) {
        case (.array(let elements), .index(let index)):
            guard elements.indices.contains(index) else { return nil }
            return (elements[index], index)
        case (.object(let object), .key(let key)):
            guard let position = object.members.lastIndex(where: { $0.key.isExactly(key) }) else { return nil }
            return (object.members[position].value, position)
        default:
            return nil
        }
    }
}

extension JSONPath {
    /// The last step's key, when the path ends in an object key.
    var lastKey: String? {
        if case .key(let key)? = components.last { return key }
        return nil
    }

    /// The path without its last step (the root's parent is the root).
    var parent: JSONPath { JSONPath(Array(components.dropLast())) }
}
