import AASAKit
import Foundation

/// The shared case suite (`Tests/Cases/*.json`): data that every engine must pass.
///
/// A case is a document (inline JSON, a named document of its file, or raw text), a URL, and the
/// expected decision of every app, tagged with the SPEC section it pins. The suite is data so
/// that the reference matcher, every configuration of the compiled engine and the CLI all run
/// exactly the same cases.
public struct TestCase: Sendable {
    public enum DocumentSource: Sendable {
        case json(JSONValue)
        case text(String)
    }

    public struct Expected: Sendable, Equatable {
        public var app: String
        public var kind: DecisionKind
        public var entry: Int?
        public var rule: Int?
    }

    public enum ExpectedError: String, Sendable {
        case url
        case document
    }

    public var name: String
    public var file: String
    public var spec: String
    public var document: DocumentSource
    public var domain: String
    public var url: String
    public var expected: [Expected]
    public var expectedError: ExpectedError?
    /// The exact message of the expected error (`expect_error_message`), where the case pins
    /// which error it is and not only that there is one.
    public var expectedErrorMessage: String?
    public var appsInOrder: Bool
    public var maxDocumentBytes: Int?
    /// `url_work`: the case needs a raised per-URL work budget (a hostile shape that the
    /// default budget refuses; `WorkBudgetTests` pins the refusal).
    public var maxURLWork: Int?

    /// The document's bytes as a file would hold them.
    public var documentBytes: [UInt8] {
        switch document {
        case .json(let value): return Array(value.serialized().utf8)
        case .text(let text): return Array(text.utf8)
        }
    }

    public var configuration: Configuration {
        var configuration = Configuration()
        if let maxDocumentBytes { configuration.document.maxBytes = maxDocumentBytes }
        if let maxURLWork { configuration.automata.maxURLWork = maxURLWork }
        return configuration
    }

    /// Loads the document the way the CLI does: from bytes, with the case's limits.
    public func loadDocument() throws(DocumentError) -> AASADocument {
        try AASADocument(bytes: documentBytes, configuration: configuration)
    }
}

public enum CaseSuite {
    /// The package root, found from this source file's location.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    public static var casesDirectory: URL { packageRoot.appendingPathComponent("Tests/Cases") }

    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every case of every file, in file-name order then file order.
    public static func load(directory: URL = casesDirectory) throws -> [TestCase] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        var cases: [TestCase] = []
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            let root: JSONValue
            do {
                root = try JSONParser.parse([UInt8](data))
            } catch {
                throw LoadError(description: "\(file): \(error)")
            }
            cases += try parseFile(root, file: file)
        }
        return cases
    }

    static func parseFile(_ root: JSONValue, file: String) throws -> [TestCase] {
        guard case .object(let object) = root, case .array(let elements)? = object["cases"] else {
            throw LoadError(description: "\(file): expected an object with a \"cases\" array")
        }
        var documents: [String: JSONValue] = [:]
        if case .object(let named)? = object["documents"] {
            for member in named.members { documents[member.key] = member.value }
        }
        return try elements.enumerated().map { index, element in
            guard case .object(let item) = element else {
                throw LoadError(description: "\(file): case \(index) is not an object")
            }
            return try parseCase(item, file: file, documents: documents)
        }
    }

    static func parseCase(_ item: JSONObject, file: String, documents: [String: JSONValue]) throws -> TestCase {
        func string(_ key: String) -> String? {
            if case .string(let text)? = item[key] { return text }
            return nil
        }
        guard let name = string("name") else { throw LoadError(description: "\(file): a case has no name") }
        func fail(_ message: String) -> LoadError { LoadError(description: "\(file): \(name): \(message)") }
        let document: TestCase.DocumentSource
        if let text = string("document_text") {
            document = .text(text)
        } else if let reference = string("document") {
            guard let value = documents[reference] else { throw fail("no document named \(reference)") }
            document = .json(value)
        } else if let value = item["document"] {
            document = .json(value)
        } else {
            throw fail("no document")
        }
        guard let url = string("url") else { throw fail("no url") }
        var expected: [TestCase.Expected] = []
        if case .object(let expect)? = item["expect"] {
            for member in expect.members {
                switch member.value {
                case .string(let text):
                    guard let kind = DecisionKind(rawValue: text) else { throw fail("unknown decision \(text)") }
                    expected.append(.init(app: member.key, kind: kind))
                case .object(let detail):
                    guard case .string(let text)? = detail["decision"], let kind = DecisionKind(rawValue: text) else {
                        throw fail("bad decision for \(member.key)")
                    }
                    var entry: Int?
                    var rule: Int?
                    if case .number(let n)? = detail["entry"] { entry = Int(n) }
                    if case .number(let n)? = detail["rule"] { rule = Int(n) }
                    expected.append(.init(app: member.key, kind: kind, entry: entry, rule: rule))
                default:
                    throw fail("bad expectation for \(member.key)")
                }
            }
        }
        var expectedError: TestCase.ExpectedError?
        if let text = string("expect_error") {
            guard let error = TestCase.ExpectedError(rawValue: text) else { throw fail("bad expect_error \(text)") }
            expectedError = error
        }
        if expectedError == nil, item["expect"] == nil { throw fail("no expect and no expect_error") }
        let expectedErrorMessage = string("expect_error_message")
        if expectedErrorMessage != nil, expectedError != .url { throw fail("expect_error_message needs expect_error \"url\"") }
        var appsInOrder = true
        if case .bool(false)? = item["expect_apps_in_order"] { appsInOrder = false }
        var maxDocumentBytes: Int?
        if case .number(let n)? = item["max_document_bytes"] { maxDocumentBytes = Int(n) }
        var maxURLWork: Int?
        if case .number(let n)? = item["url_work"] { maxURLWork = Int(n) }
        return TestCase(
            name: name, file: file, spec: string("spec") ?? "?", document: document,
            domain: string("domain") ?? "example.com", url: url, expected: expected,
            expectedError: expectedError, expectedErrorMessage: expectedErrorMessage, appsInOrder: appsInOrder, maxDocumentBytes: maxDocumentBytes,
            maxURLWork: maxURLWork)
    }
}
