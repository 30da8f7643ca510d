import AASAKit

/// Meaning-preserving rewrites of a document's JSON text, for tests that `aasa diff` proves a
/// document equivalent to itself written differently.
///
/// Only rewrites that no reading of SPEC can tell apart are made: object keys in another order
/// (a key written twice keeps its occurrences in order, since the last one wins), indentation,
/// non-ASCII written as `\u` escapes, a lone `appID` as a one-element `appIDs` and back, and an
/// unknown key at the root (SPEC 2: ignored).
public enum DocumentRewriter {
    public struct Options: Sendable {
        /// Spaces per level; 0 writes everything on one line with spaces after `:` and `,`.
        public var indent = 2
        /// Writes every non-ASCII scalar of strings and keys as `\uXXXX` (surrogate pairs above
        /// U+FFFF).
        public var escapeNonASCII = false
        /// Swaps `"appID": x` and `"appIDs": [x]` in entries that name one app one way.
        public var swapAppIDForms = true
        /// Adds an unknown key at the root.
        public var addUnknownRootKey = true

        public init(indent: Int = 2, escapeNonASCII: Bool = false, swapAppIDForms: Bool = true, addUnknownRootKey: Bool = true) {
            self.indent = indent
            self.escapeNonASCII = escapeNonASCII
            self.swapAppIDForms = swapAppIDForms
            self.addUnknownRootKey = addUnknownRootKey
        }
    }

    /// The rewritten text of `document`.
    public static func rewrite(_ document: JSONValue, options: Options = Options()) -> String {
        var value = reordered(document)
        if options.swapAppIDForms { value = swappingAppIDForms(value) }
        if options.addUnknownRootKey, case .object(var root) = value, root["x-rewritten-by-test"] == nil {
            root.members.insert(("x-rewritten-by-test", .array([.bool(true), .null, .number("1e0")])), at: 0)
            value = .object(root)
        }
        var out = ""
        write(value, indent: options.indent, level: 0, escapeNonASCII: options.escapeNonASCII, to: &out)
        return out + "\n"
    }

    /// Every object's members sorted by key in descending byte order, stably: the source order
    /// almost never survives, and the duplicates of one key keep their relative order.
    static func reordered(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            let members = object.members.enumerated().sorted { lhs, rhs in
                if lhs.element.key.utf8.elementsEqual(rhs.element.key.utf8) { return lhs.offset < rhs.offset }
                return rhs.element.key.utf8.lexicographicallyPrecedes(lhs.element.key.utf8)
            }
            return .object(JSONObject(members: members.map { ($0.element.key, reordered($0.element.value)) }))
        case .array(let elements):
            return .array(elements.map(reordered))
        default:
            return value
        }
    }

    /// `applinks.details` entries naming one app only through `appID` (a string) get it as
    /// `appIDs: [x]`, and the reverse; entries with both keys, repeated keys or other types are
    /// left alone.
    static func swappingAppIDForms(_ value: JSONValue) -> JSONValue {
        guard case .object(var root) = value, let applinksIndex = uniqueIndex(root, "applinks"),
            case .object(var applinks) = root.members[applinksIndex].value,
            let detailsIndex = uniqueIndex(applinks, "details"),
            case .array(let entries) = applinks.members[detailsIndex].value
        else { return value }
        let swapped: [JSONValue] = entries.map { entry in
            guard case .object(var object) = entry else { return entry }
            let single = uniqueIndex(object, "appID")
            let list = uniqueIndex(object, "appIDs")
            if let single, list == nil, case .string = object.members[single].value
            {
                object.members[single] = ("appIDs", .array([object.members[single].value]))
            } else if let list, single == nil, case .array(let apps) = object.members[list].value, apps.count == 1,
                case .string = apps[0]
            {
                object.members[list] = ("appID", apps[0])
            }
            return .object(object)
        }
        applinks.members[detailsIndex].value = .array(swapped)
        root.members[applinksIndex].value = .object(applinks)
        return .object(root)
    }

    /// The index of `key` when the object holds it exactly once.
    private static func uniqueIndex(_ object: JSONObject, _ key: String) -> Int? {
        let indices = object.members.indices.filter { object.members[$0].key.utf8.elementsEqual(key.utf8) }
        return indices.count == 1 ? indices[0] : nil
    }

    private static func write(_ value: JSONValue, indent: Int, level: Int, escapeNonASCII: Bool, to out: inout String) {
        let newline = indent > 0 ? "\n" + String(repeating: " ", count: indent * (level + 1)) : " "
        let closing = indent > 0 ? "\n" + String(repeating: " ", count: indent * level) : " "
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): out += string(text, escapeNonASCII: escapeNonASCII)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (index, element) in elements.enumerated() {
                out += (index == 0 ? "" : ",") + newline
                write(element, indent: indent, level: level + 1, escapeNonASCII: escapeNonASCII, to: &out)
            }
            out += closing + "]"
        case .object(let object):
            if object.members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (index, member) in object.members.enumerated() {
                out += (index == 0 ? "" : ",") + newline + string(member.key, escapeNonASCII: escapeNonASCII) + ": "
                write(member.value, indent: indent, level: level + 1, escapeNonASCII: escapeNonASCII, to: &out)
            }
            out += closing + "}"
        }
    }

    private static func string(_ text: String, escapeNonASCII: Bool) -> String {
        let escaped = JSONWriter.escape(text)
        guard escapeNonASCII else { return escaped }
        var out = ""
        for scalar in escaped.unicodeScalars {
            if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { out += "\\u" + hex4(unit) }
            }
        }
        return out
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

/// Small edits that change one rule of a document, for tests that `aasa diff` reports them.
public enum DocumentMutation: CaseIterable, Sendable {
    /// The rule's `/` pattern becomes another literal path.
    case path
    /// The rule's `caseSensitive` is set to the opposite of its effective value.
    case caseSensitive
    /// The rule's `percentEncoded` is set to the opposite of its effective value.
    case percentEncoded

    /// `document` with the `ordinal`-th rule dictionary (counted over every entry's
    /// `components`, wrapping around) edited; `nil` when the document has none.
    public func apply(to document: JSONValue, ordinal: Int) throws -> JSONValue? {
        let model = try AASADocument(json: document)
        let rules = EffectiveRule.resolve(model)
        guard case .object(var root) = document, case .object(var applinks)? = root["applinks"],
            case .array(var entries)? = applinks["details"]
        else { return nil }
        var sites: [(entry: Int, rule: Int)] = []
        for (entryIndex, entry) in entries.enumerated() {
            guard case .object(let object) = entry, case .array(let components)? = object["components"] else { continue }
            for (ruleIndex, rule) in components.enumerated() {
                if case .object = rule { sites.append((entryIndex, ruleIndex)) }
            }
        }
        guard !sites.isEmpty else { return nil }
        let site = sites[ordinal % sites.count]
        guard case .object(var entry) = entries[site.entry], case .array(var components)? = entry["components"],
            case .object(var rule) = components[site.rule]
        else { return nil }
        let effective = rules.first { $0.entryIndex == site.entry && $0.ruleIndex == site.rule }
        func set(_ key: String, _ value: JSONValue) {
            rule.members.removeAll { $0.key == key }
            rule.members.append((key, value))
        }
        switch self {
        case .path: set("/", .string("/mutated-\(ordinal)/*"))
        case .caseSensitive: set("caseSensitive", .bool(effective?.mode.folded ?? false))
        case .percentEncoded: set("percentEncoded", .bool(effective?.mode.decoded ?? false))
        }
        components[site.rule] = .object(rule)
        entry.members.removeAll { $0.key == "components" }
        entry.members.append(("components", .array(components)))
        entries[site.entry] = .object(entry)
        applinks.members.removeAll { $0.key == "details" }
        applinks.members.append(("details", .array(entries)))
        root.members.removeAll { $0.key == "applinks" }
        root.members.append(("applinks", .object(applinks)))
        return .object(root)
    }
}

extension DocumentRewriter {
    /// `document` with the last rule dictionary of the first entry that has one written again
    /// after it: the copy can never decide (the original, same apps and defaults, comes first),
    /// so the document means the same but its rules are no longer identical.
    public static func duplicatingLastRule(_ document: JSONValue) -> JSONValue? {
        guard case .object(var root) = document, case .object(var applinks)? = root["applinks"],
            case .array(var entries)? = applinks["details"]
        else { return nil }
        for (index, entry) in entries.enumerated() {
            guard case .object(var object) = entry, case .array(var components)? = object["components"],
                let last = components.last, case .object = last
            else { continue }
            components.append(last)
            object.members = object.members.map { $0.key == "components" ? ($0.key, .array(components)) : $0 }
            entries[index] = .object(object)
            applinks.members = applinks.members.map { $0.key == "details" ? ($0.key, .array(entries)) : $0 }
            root.members = root.members.map { $0.key == "applinks" ? ($0.key, .object(applinks)) : $0 }
            return .object(root)
        }
        return nil
    }
}
