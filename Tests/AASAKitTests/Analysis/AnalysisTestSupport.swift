import AASAKit
import XCTest

/// Shared steps of the analysis tests: documents from JSON text, and the oracle that re-checks
/// every witness URL (the reference matcher, which shares no code with the automata).
enum AnalysisFixture {
    static let domain = "example.com"
    static let app = "ABCDE12345.com.example.app"
    static let clip = "ABCDE12345.com.example.clip"

    static func document(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> AASADocument {
        try AASADocument(bytes: Array(json.utf8))
    }

    /// A document with one entry for `app` holding `components` (JSON array text).
    static func components(_ components: String) throws -> AASADocument {
        try document(#"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": \#(components)}]}}"#)
    }

    /// The reference matcher's decision for `app` on `url`.
    static func oracle(_ document: AASADocument, _ url: String, app: String = app) throws -> AppDecision {
        let decision = try ReferenceMatcher(document: document, domain: domain).decide(url, app: app)
        return try XCTUnwrap(decision.decisions.first)
    }

    static func lint(_ document: AASADocument) -> [LintFinding] {
        SemanticLint.findings(document: document, domain: domain, configuration: Configuration())
    }
}
