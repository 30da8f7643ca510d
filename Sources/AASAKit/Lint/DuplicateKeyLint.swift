/// Keys written twice in one JSON object.
///
/// JSON allows it and every parser keeps one value (ours, like most, the last), so the earlier
/// value is silently dead text: typically a rule edited in two places, or two `appIDs` lists
/// where the author meant one. The decoder cannot see it (it asks for keys by name), so lint
/// walks the tree. The walk uses an explicit stack: a document may nest to the depth limit.
enum DuplicateKeyLint {
    static func findings(_ tree: JSONTree) -> [LintFinding] {
        var findings: [LintFinding] = []
        var stack: [(value: JSONValue, path: JSONPath)] = [(tree.root, .root)]
        while let (value, path) = stack.popLast() {
            switch value {
            case .array(let elements):
                for (index, element) in elements.enumerated() where element.isContainer {
                    stack.append((element, path / index))
                }
            case .object(let object):
                var counts: [ExactString: Int] = [:]
                for member in object.members { counts[ExactString(member.key), default: 0] += 1 }
                var reported = Set<ExactString>()
                for member in object.members {
                    let key = ExactString(member.key)
                    if let count = counts[key], count > 1, reported.insert(key).inserted {
                        findings.append(.duplicateKey(path / member.key, key: member.key, count: count))
                    }
                    if member.value.isContainer { stack.append((member.value, path / member.key)) }
                }
            default:
                continue
            }
        }
        return findings
    }
}

extension LintFinding {
    static func duplicateKey(_ path: JSONPath, key: String, count: Int) -> LintFinding {
        LintCatalog.duplicateKey.finding(
            at: path, "key \(JSONWriter.escape(key)) is written \(count) times in this object; only the last value counts",
            hint: "keep one \(JSONWriter.escape(key)) and merge what the others meant into it")
    }
}

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
