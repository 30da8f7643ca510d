/// Lenient decoding of a parsed JSON tree into the document model (SPEC 2, 10).
///
/// One rule runs through this file: a piece of the wrong type is *absent*, with a diagnostic
/// naming its JSON path; the rest of the document keeps working. Indices are never renumbered,
/// so a match record's `entry`/`rule` always point at the source text.
extension AASADocument {
    /// Parses and decodes a document.
    ///
    /// - Throws: `DocumentError` for invalid JSON, a non-object root, a document larger than
    ///   `configuration.document.maxBytes` (inclusive), or one over another document limit.
    ///   Nothing else throws.
    /// - Complexity: O(n) in the document's size.
    public init(bytes: [UInt8], configuration: Configuration = .default) throws(DocumentError) {
        let limits = configuration.document
        guard bytes.count <= limits.maxBytes else {
            throw .tooLarge(size: bytes.count, limit: limits.maxBytes)
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes, maxDepth: limits.maxJSONDepth)
        } catch {
            throw .invalidJSON(error)
        }
        let decoded = Result { () throws(DocumentError) in try Self(json: json, configuration: configuration) }
        // The tree is freed here, without recursion: a document may be loaded on any thread.
        JSONValue.dismantle(consume json)
        self = try decoded.get()
    }

    /// Decodes an already parsed document (the case suite stores documents inline as JSON).
    public init(json: JSONValue, configuration: Configuration = .default) throws(DocumentError) {
        guard case .object(let root) = json else {
            throw .rootNotObject(found: json.typeName)
        }
        var decoder = DocumentDecoder()
        self = decoder.decodeRoot(root)
        do {
            try checkLimits(configuration.document)
        } catch {
            throw .overLimit(error)
        }
    }

    /// Reads and decodes the document at `path`, reading at most `maxBytes + 1` bytes: a file
    /// over the limit is refused without being read whole, whatever its size (a 100 MB file
    /// costs one small read, not 100 MB of memory).
    ///
    /// `regularFileOnly`: see `bytes(ofFile:maxBytes:regularFileOnly:)`.
    ///
    /// - Throws: `DocumentFileError.unreadable` when the file cannot be opened or read (or, with
    ///   `regularFileOnly`, what stands there instead of a regular file), and `.document` for
    ///   everything `init(bytes:configuration:)` throws.
    public init(contentsOfFile path: String, configuration: Configuration = .default, regularFileOnly: Bool = false)
        throws(DocumentFileError)
    {
        let bytes = try Self.bytes(ofFile: path, maxBytes: configuration.document.maxBytes, regularFileOnly: regularFileOnly)
        do {
            try self.init(bytes: bytes, configuration: configuration)
        } catch {
            throw .document(error)
        }
    }
}

/// The state of one decoding pass: the diagnostics gathered so far.
struct DocumentDecoder {
    var diagnostics: [Diagnostic] = []

    static let serviceKeys = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
    static let appLinksKeys = ["details", "defaults", "substitutionVariables", "apps"]
    static let entryKeys = ["appID", "appIDs", "components", "paths", "defaults"]
    static let defaultsKeys = ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded"]
    static let ruleKeys = defaultsKeys + ["comment"]

    mutating func decodeRoot(_ root: JSONObject) -> AASADocument {
        reportUnknownKeys(root, known: Self.serviceKeys, at: .root)
        var applinks: AppLinks?
        if let value = root["applinks"] {
            if case .object(let object) = value {
                applinks = decodeAppLinks(object, at: .root / "applinks")
            } else {
                diagnostics.append(.wrongType(.root / "applinks", expected: "an object", found: value))
            }
        }
        var others: [String: [String]] = [:]
        for service in Self.serviceKeys.dropFirst() {
            guard let value = root[service] else { continue }
            let path = JSONPath.root / service
            guard case .object(let object) = value else {
                diagnostics.append(.wrongType(path, expected: "an object", found: value))
                continue
            }
            reportUnknownKeys(object, known: ["apps"], at: path)
            others[service] = object["apps"].map { stringArray($0, at: path / "apps") } ?? []
        }
        return AASADocument(applinks: applinks, otherServices: others, diagnostics: diagnostics)
    }

    mutating func decodeAppLinks(_ object: JSONObject, at path: JSONPath) -> AppLinks {
        reportUnknownKeys(object, known: Self.appLinksKeys, at: path)
        var appLinks = AppLinks()
        if let apps = object["apps"] {
            if case .array(let array) = apps {
                if !array.isEmpty {
                    diagnostics.append(
                        Diagnostic(
                            code: "apps-not-empty", severity: .warning, path: path / "apps",
                            message: "the legacy \"apps\" array must be empty; its contents are ignored"))
                }
            } else {
                diagnostics.append(.wrongType(path / "apps", expected: "an array", found: apps))
            }
        }
        if let defaults = object["defaults"] {
            appLinks.defaults = decodeDefaults(defaults, at: path / "defaults")
        }
        if let variables = object["substitutionVariables"] {
            appLinks.substitutionVariables = decodeVariables(variables, at: path / "substitutionVariables")
        }
        if let details = object["details"] {
            appLinks.details = decodeDetails(details, at: path / "details")
            if case .object = details { appLinks.detailsAreKeyedByApp = true }
        }
        return appLinks
    }

    // MARK: Entries

    mutating func decodeDetails(_ value: JSONValue, at path: JSONPath) -> [Entry] {
        switch value {
        case .array(let elements):
            var entries: [Entry] = []
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    diagnostics.append(.wrongType(path / index, expected: "an object", found: element))
                    continue
                }
                entries.append(decodeEntry(object, index: index, leadingApp: nil, at: path / index))
            }
            return entries
        case .object(let legacy):
            // The oldest form: app ID → entry. Evaluated in sorted key order (SPEC 2); byte order
            // of the UTF-8 keys, so the order never depends on locale or normalisation.
            let sorted = legacy.members.enumerated().sorted { lhs, rhs in
                // Ties by bytes too: `String ==` holds canonically equivalent keys (NFC `é`, NFD
                // `e` + U+0301) equal, and the comparison was then no ordering at all.
                lhs.element.key.utf8.lexicographicallyPrecedes(rhs.element.key.utf8)
                    || (lhs.element.key.utf8.elementsEqual(rhs.element.key.utf8) && lhs.offset < rhs.offset)
            }
            var entries: [Entry] = []
            var seenKeys = Set<ExactString>()
            var position = 0
            for (_, member) in sorted {
                // A repeated key keeps its last value, as for any JSON object.
                guard seenKeys.insert(ExactString(member.key)).inserted, let value = legacy[member.key] else { continue }
                defer { position += 1 }
                guard case .object(let object) = value else {
                    diagnostics.append(.wrongType(path / member.key, expected: "an object", found: value))
                    continue
                }
                entries.append(decodeEntry(object, index: position, leadingApp: member.key, at: path / member.key))
            }
            return entries
        default:
            diagnostics.append(.wrongType(path, expected: "an array", found: value))
            return []
        }
    }

    mutating func decodeEntry(_ object: JSONObject, index: Int, leadingApp: String?, at path: JSONPath) -> Entry {
        reportUnknownKeys(object, known: Self.entryKeys, at: path)
        var apps: [String] = []
        if let leadingApp { apps.append(leadingApp) }
        if let appID = object["appID"] {
            if case .string(let text) = appID {
                apps.append(text)
            } else {
                diagnostics.append(.wrongType(path / "appID", expected: "a string", found: appID))
            }
        }
        if let appIDs = object["appIDs"] {
            apps += stringArray(appIDs, at: path / "appIDs")
        }
        var unique = Set<ExactString>()
        apps = apps.filter { unique.insert(ExactString($0)).inserted }

        let defaults = object["defaults"].map { decodeDefaults($0, at: path / "defaults") } ?? RuleKeys()

        var components: [Rule]?
        if let value = object["components"] {
            if case .array(let elements) = value {
                components = decodeComponents(elements, at: path / "components")
            } else {
                diagnostics.append(.wrongType(path / "components", expected: "an array", found: value))
            }
        }
        var paths: [Rule]?
        if let value = object["paths"] {
            if case .array(let elements) = value {
                if components != nil {
                    diagnostics.append(
                        Diagnostic(
                            code: "components-and-paths", severity: .warning, path: path / "paths",
                            message:
                                "\"paths\" is ignored because the entry has \"components\" (iOS 13 and later read only \"components\")"
                        ))
                } else {
                    paths = decodeLegacyPaths(elements, at: path / "paths")
                }
            } else {
                diagnostics.append(.wrongType(path / "paths", expected: "an array", found: value))
            }
        }
        if let components {
            return Entry(index: index, appIDs: apps, defaults: defaults, ruleSource: .components, rules: components, path: path)
        }
        if let paths {
            return Entry(index: index, appIDs: apps, defaults: defaults, ruleSource: .paths, rules: paths, path: path)
        }
        return Entry(index: index, appIDs: apps, defaults: defaults, ruleSource: .none, rules: [], path: path)
    }

    // MARK: Rules

    mutating func decodeComponents(_ elements: [JSONValue], at path: JSONPath) -> [Rule] {
        var rules: [Rule] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                diagnostics.append(.wrongType(path / index, expected: "an object", found: element))
                continue
            }
            reportUnknownKeys(object, known: Self.ruleKeys, at: path / index)
            var comment: String?
            if let value = object["comment"] {
                if case .string(let text) = value {
                    comment = text
                } else {
                    diagnostics.append(.wrongType(path / index / "comment", expected: "a string", found: value))
                }
            }
            let keys = decodeRuleKeys(object, at: path / index)
            rules.append(Rule(index: index, keys: keys, comment: comment))
        }
        return rules
    }

    mutating func decodeLegacyPaths(_ elements: [JSONValue], at path: JSONPath) -> [Rule] {
        var rules: [Rule] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                diagnostics.append(.wrongType(path / index, expected: "a string", found: element))
                continue
            }
            // `NOT ` (with the space, upper case) is the legacy exclusion prefix: four scalars
            // (SPEC 5), not four characters, which a combining mark after the space would join.
            let excluded = text.utf8.starts(with: "NOT ".utf8)
            let pattern = excluded ? String(decoding: text.utf8.dropFirst(4), as: UTF8.self) : text
            rules.append(
                Rule(index: index, keys: RuleKeys(path: pattern, exclude: excluded), isLegacyPath: true))
        }
        return rules
    }

    mutating func decodeDefaults(_ value: JSONValue, at path: JSONPath) -> RuleKeys {
        guard case .object(let object) = value else {
            diagnostics.append(.wrongType(path, expected: "an object", found: value))
            return RuleKeys()
        }
        reportUnknownKeys(object, known: Self.defaultsKeys, at: path)
        return decodeRuleKeys(object, at: path)
    }

    mutating func decodeRuleKeys(_ object: JSONObject, at path: @autoclosure () -> JSONPath) -> RuleKeys {
        var keys = RuleKeys()
        keys.path = string(object["/"], at: path() / "/")
        keys.fragment = string(object["#"], at: path() / "#")
        keys.exclude = bool(object["exclude"], at: path() / "exclude")
        keys.caseSensitive = bool(object["caseSensitive"], at: path() / "caseSensitive")
        keys.percentEncoded = bool(object["percentEncoded"], at: path() / "percentEncoded")
        if let query = object["?"] {
            keys.query = decodeQuery(query, at: path() / "?")
        }
        return keys
    }

    mutating func decodeQuery(_ value: JSONValue, at path: JSONPath) -> QueryPattern? {
        switch value {
        case .string(let text):
            return .text(text)
        case .object(let object):
            var predicates: [QueryItemPredicate] = []
            var voided = false
            // A repeated name keeps its last value; diagnostics still come in document order.
            var lastIndex: [ExactString: Int] = [:]
            for (index, member) in object.members.enumerated() { lastIndex[ExactString(member.key)] = index }
            for (index, member) in object.members.enumerated() where lastIndex[ExactString(member.key)] == index {
                guard case .string(let pattern) = member.value else {
                    voided = true
                    diagnostics.append(
                        Diagnostic(
                            code: "query-predicate-not-string", severity: .error, path: path / member.key,
                            message:
                                "query item \"\(member.key)\" has \(member.value.typeName), not a string: the whole query dictionary is ignored and matches every query"
                        ))
                    continue
                }
                predicates.append(QueryItemPredicate(name: member.key, pattern: pattern))
            }
            if voided { return .voided }
            predicates.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            return .items(predicates)
        default:
            diagnostics.append(.wrongType(path, expected: "a string or an object", found: value))
            return nil
        }
    }

    // MARK: Variables

    mutating func decodeVariables(_ value: JSONValue, at path: JSONPath) -> SubstitutionVariables {
        guard case .object(let object) = value else {
            diagnostics.append(.wrongType(path, expected: "an object", found: value))
            return SubstitutionVariables()
        }
        var variables = SubstitutionVariables()
        // A name written twice keeps its last value, as every other key does (`JSONObject`):
        // `{"v": ["a"], "v": 5}` leaves `v` wrong-typed, hence undefined, not `["a"]`.
        // Diagnostics still come in document order, one per value kept.
        var lastIndex: [ExactString: Int] = [:]
        for (index, member) in object.members.enumerated() { lastIndex[ExactString(member.key)] = index }
        for (index, member) in object.members.enumerated() where lastIndex[ExactString(member.key)] == index {
            let memberPath = path / member.key
            if member.key.unicodeScalars.contains(where: { $0 == "$" || $0 == "(" || $0 == ")" }) {
                diagnostics.append(
                    Diagnostic(
                        code: "invalid-variable-name", severity: .error, path: memberPath,
                        message:
                            "a variable name may not contain \"$\", \"(\" or \")\"; \"\(member.key)\" can never be referenced"
                    ))
                continue
            }
            guard case .array = member.value else {
                diagnostics.append(.wrongType(memberPath, expected: "an array of strings", found: member.value))
                continue
            }
            variables[member.key] = stringArray(member.value, at: memberPath)
        }
        return variables
    }

    // MARK: Typed leaves

    // PERF: paths are built only for the diagnostic that names one (`@autoclosure` here, in
    // `bool`, `stringArray`, `reportUnknownKeys`, `decodeRuleKeys` and the limit check): first use
    // of a real document, `aasa classify --jobs 1 --rules` over the 250 documents of
    // `corpus/aasa/real` with one URL each, callgrind minus an empty input, 305 345 → 271 197
    // instructions a document with the lazy rule locations and the one-copy `JSONPath.appending`
    // (about 1 600 of the difference is `EffectiveRule` reading the defaults chain in place).
    mutating func string(_ value: JSONValue?, at path: @autoclosure () -> JSONPath) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else {
            diagnostics.append(.wrongType(path(), expected: "a string", found: value))
            return nil
        }
        return text
    }

    /// SPEC 2: flags must be JSON `true`/`false`; `1` and `"true"` are wrong-typed.
    mutating func bool(_ value: JSONValue?, at path: @autoclosure () -> JSONPath) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else {
            diagnostics.append(.wrongType(path(), expected: "true or false", found: value))
            return nil
        }
        return flag
    }

    mutating func stringArray(_ value: JSONValue, at path: @autoclosure () -> JSONPath) -> [String] {
        guard case .array(let elements) = value else {
            diagnostics.append(.wrongType(path(), expected: "an array of strings", found: value))
            return []
        }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            if case .string(let text) = element {
                strings.append(text)
            } else {
                diagnostics.append(.wrongType(path() / index, expected: "a string", found: element))
            }
        }
        return strings
    }

    mutating func reportUnknownKeys(_ object: JSONObject, known: [String], at path: @autoclosure () -> JSONPath) {
        for member in object.members where !known.contains(member.key) {
            diagnostics.append(
                .unknownKey(path() / member.key, key: member.key, suggestion: KeySpelling.nearest(to: member.key, in: known)))
        }
    }
}

/// Near-miss spelling suggestions for unknown keys (`casesensitive` → `caseSensitive`).
enum KeySpelling {
    /// The known key closest to `key`: equal ignoring ASCII case, or within two edits. `nil` when
    /// nothing is that close.
    static func nearest(to key: String, in known: [String]) -> String? {
        let lowered = key.lowercased()
        if let sameLetters = known.first(where: { $0.lowercased() == lowered }) {
            return sameLetters
        }
        guard key.count > 2, key.count < 64 else { return nil }
        let best = known.map { ($0, editDistance(lowered, $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= 2, best.1 < best.0.count / 2 + 1 else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
