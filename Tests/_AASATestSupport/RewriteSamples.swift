import AASAKit
import Foundation

/// The documents whose rewrites `aasa diff` must prove equivalent: every case document, every
/// shared real document, and generated documents whose rules mix text modes or query shapes
/// (the ones a URL walk alone cannot prove).
public enum RewriteSamples {
    /// The first `count` documents of `DifferentialGenerator` (seeds from 1) whose effective
    /// rules compare text in more than one mode or mix query text patterns with item
    /// dictionaries.
    public static func mixedGeneratedDocuments(count: Int = 40) throws -> [(seed: UInt64, json: JSONValue)] {
        var result: [(seed: UInt64, json: JSONValue)] = []
        var seed: UInt64 = 1
        while result.count < count {
            var generator = DifferentialGenerator(seed: seed)
            let json = generator.document()
            if isMixed(try AASADocument(json: json)) { result.append((seed, json)) }
            seed += 1
        }
        return result
    }

    /// Whether `document`'s rules use several text modes or both kinds of query rule.
    public static func isMixed(_ document: AASADocument) -> Bool {
        let rules = EffectiveRule.resolve(document)
        let text = rules.contains { if case .text = $0.query { true } else { false } }
        let items = rules.contains { if case .items = $0.query { true } else { false } }
        return Set(rules.map(\.mode)).count > 1 || (text && items)
    }

    /// The distinct documents of the case suite that are JSON objects (documents written as
    /// broken text have no rewrite), with a case name each.
    public static func caseDocuments() throws -> [(name: String, json: JSONValue)] {
        var seen = Set<String>()
        var result: [(name: String, json: JSONValue)] = []
        for testCase in try CaseSuite.load() {
            let json: JSONValue
            switch testCase.document {
            case .json(let value): json = value
            case .text(let text):
                guard let value = try? JSONParser.parse(Array(text.utf8)) else { continue }
                json = value
            }
            guard case .object = json, seen.insert(json.serialized()).inserted else { continue }
            result.append(("\(testCase.file): \(testCase.name)", json))
        }
        return result
    }

    /// `../shared/corpus/aasa/real`, or `nil` on machines without the shared folder.
    public static var realCorpus: URL? {
        let folder = CaseSuite.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/aasa/real")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }

    /// The real documents that parse as JSON, by file name.
    public static func realDocuments() throws -> [(name: String, path: String, json: JSONValue)]? {
        guard let folder = realCorpus else { return nil }
        var result: [(name: String, path: String, json: JSONValue)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where !name.hasPrefix(".") {
            let path = folder.appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path), let json = try? JSONParser.parse(Array(data)),
                case .object = json
            else { continue }
            result.append((name, path, json))
        }
        return result
    }
}
