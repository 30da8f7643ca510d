/// The parsed JSON of a document, kept next to the decoded model for what the model drops.
///
/// The lenient decoder turns JSON into typed values and forgets where they were: the index of a
/// value among skipped siblings, the order of keys, a key written twice. Lint needs all three
/// (a finding points at the exact element; findings come out in the order a reader meets them),
/// so it keeps the tree and asks it. Lookups walk the path step by step; no recursion, so a
/// document nested to the depth limit is fine.
///
/// A class, because it caches each object's key positions on first use: a hostile file with
/// thousands of keys in one object and a finding per key would otherwise cost a linear key
/// search per finding, quadratic in all.
final class JSONTree {
    let root: JSONValue
    /// Key → position of its last occurrence, per object, keyed by the object's path.
    private var keyPositions: [JSONPath: [ExactString: Int]] = [:]

    init(_ root: JSONValue) {
        self.root = root
    }

    /// The value at `path`, or `nil` when the path leaves the tree. A key written twice resolves
    /// to its last value, as the decoder does.
    func value(at path: JSONPath) -> JSONValue? {
        var current = root
        for depth in path.components.indices {
            guard let next = child(of: current, in: path, depth: depth)?.value else { return nil }
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
        for depth in path.components.indices {
            let step = current.flatMap { child(of: $0, in: path, depth: depth) }
            key.append(step?.position ?? Int.max)
            current = step?.value
        }
        return key
    }

    /// Objects with more members than this get a cached key index; smaller ones are searched,
    /// which is cheaper than hashing the object's path.
    private static let indexedObjectSize = 16

    /// One step down from `value`, the node at `path`'s first `depth` steps, along step `depth`:
    /// the child and its position among its siblings (for an object, the position of the key's
    /// last occurrence, the one that counts).
    private func child(of value: JSONValue, in path: JSONPath, depth: Int) -> (value: JSONValue, position: Int)? {
        switch (value, path.components[depth]) {
        case (.array(let elements), .index(let index)):
            guard elements.indices.contains(index) else { return nil }
            return (elements[index], index)
        case (.object(let object), .key(let key)):
            // Paths compare keys by canonical equivalence, so two sibling objects whose keys differ
            // only in Unicode normalisation share a cache slot; trust a cached position only when
            // it really holds this key in this object.
            if object.members.count > Self.indexedObjectSize,
                let position = positions(of: object, at: JSONPath(Array(path.components[..<depth])))[ExactString(key)],
                object.members.indices.contains(position), object.members[position].key.isExactly(key)
            {
                return (object.members[position].value, position)
            }
            guard let position = object.members.lastIndex(where: { $0.key.isExactly(key) }) else { return nil }
            return (object.members[position].value, position)
        default:
            return nil
        }
    }

    private func positions(of object: JSONObject, at path: JSONPath) -> [ExactString: Int] {
        if let cached = keyPositions[path] { return cached }
        var positions: [ExactString: Int] = [:]
        for (index, member) in object.members.enumerated() { positions[ExactString(member.key)] = index }
        keyPositions[path] = positions
        return positions
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
