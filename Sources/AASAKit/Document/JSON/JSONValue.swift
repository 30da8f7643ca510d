/// A parsed JSON value that keeps what `JSONSerialization` loses.
///
/// The document layer needs three facts Foundation's parser blurs on Linux: whether a value was
/// written as `true` or as `1` (SPEC 2: a flag must be a JSON boolean), the order of an object's
/// keys (lint and diagnostics report in source order), and a hard depth limit that fails cleanly
/// instead of exhausting the stack. So the engine has its own small parser, and this is its output.
public enum JSONValue: Sendable, Equatable {
    case object(JSONObject)
    case array([JSONValue])
    case string(String)
    /// The number as written (`1`, `-0.5e3`); the engine never does arithmetic on AASA numbers,
    /// it only needs to know that a value *is* a number.
    case number(String)
    case bool(Bool)
    case null

    /// The JSON type's name as a person would say it, for diagnostics ("expected a string, found
    /// a number").
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }

    /// Frees `value` one container at a time. Dropped the usual way, a tree is freed recursively,
    /// a few stack frames a level: 4 096 levels (the `json-depth` ceiling) took about 600 KB of
    /// stack, more than a small thread has (a C caller's, say). Here each container hands its
    /// children to a worklist before it goes, so no free waits on its children's.
    ///
    /// The caller must give up its own reference (`dismantle(consume tree)`): a value still held
    /// elsewhere is freed by its last holder, the usual way.
    public static func dismantle(_ value: consuming JSONValue) {
        var pending = [value]
        while let next = pending.popLast() {
            switch consume next {
            case .array(let items): pending.append(contentsOf: items)
            case .object(let object): pending.append(contentsOf: object.members.lazy.map(\.value))
            case .string, .number, .bool, .null: break
            }
        }
    }
}

/// A JSON object with its members in source order.
///
/// Lookup is linear: AASA objects have a handful of keys, and a dictionary would lose the order
/// lint needs. A key written twice keeps its last value for lookup (as most parsers do); both
/// members stay in `members` so lint can report the duplicate.
public struct JSONObject: Sendable, Equatable {
    public var members: [(key: String, value: JSONValue)]

    public init(members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The last value written under `key`, or `nil`.
    public subscript(key: String) -> JSONValue? {
        // Keys compare scalar by scalar: "café" and "cafe\u{301}" are different keys.
        for member in members.reversed() where member.key.isExactly(key) {
            return member.value
        }
        return nil
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && $0.value == $1.value }
    }
}
