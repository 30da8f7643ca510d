import AASAKit

/// Runs cases on an engine and says, in words, how each failing case failed.
public enum EngineRunner {
    /// Builds an engine for a document and domain; each engine configuration under test is one.
    public typealias Factory = @Sendable (AASADocument, String) throws -> any DecisionEngine

    /// `nil` when the engine produced exactly the expected outcome.
    public static func check(_ testCase: TestCase, engine makeEngine: Factory) -> String? {
        let document: AASADocument
        do {
            document = try testCase.loadDocument()
        } catch {
            return testCase.expectedError == .document ? nil : "document failed to load: \(error)"
        }
        if testCase.expectedError == .document { return "expected the document to fail, but it loaded" }
        let engine: any DecisionEngine
        do {
            engine = try makeEngine(document, testCase.domain)
            if let work = testCase.maxURLWork, let matcher = engine as? DFAMatcher { matcher.limitWork(to: work) }
        } catch {
            return "the engine could not be built: \(error)"
        }
        let decision: URLDecision
        do {
            decision = try engine.decide(testCase.url, app: nil)
        } catch {
            guard testCase.expectedError == .url else { return "URL failed to split: \(error)" }
            return checkMessage(error.description, of: testCase)
        }
        if testCase.expectedError == .url { return "expected the URL to fail to split, but got \(decision)" }
        return compare(expected: testCase.expected, actual: decision.decisions, appsInOrder: testCase.appsInOrder)
    }

    /// `nil` when `message` is the one the case expects (or it expects none in particular).
    public static func checkMessage(_ message: String, of testCase: TestCase) -> String? {
        guard let expected = testCase.expectedErrorMessage, expected != message else { return nil }
        return "error \(message.debugDescription), expected \(expected.debugDescription)"
    }

    /// Compares decisions app by app; `entry`/`rule` are compared only where the case states them.
    public static func compare(expected: [TestCase.Expected], actual: [AppDecision], appsInOrder: Bool) -> String? {
        var problems: [String] = []
        let expectedApps = expected.map(\.app)
        let actualApps = actual.map(\.app)
        if appsInOrder ? expectedApps != actualApps : Set(expectedApps) != Set(actualApps) {
            problems.append("apps \(actualApps), expected \(expectedApps)")
        }
        for want in expected {
            guard let got = actual.first(where: { $0.app == want.app }) else { continue }
            if got.kind != want.kind {
                problems.append("\(want.app): \(got.kind.rawValue) (entry \(got.entry.map(String.init) ?? "-"), rule \(got.rule.map(String.init) ?? "-")), expected \(want.kind.rawValue)")
            } else if let entry = want.entry, entry != got.entry {
                problems.append("\(want.app): entry \(got.entry.map(String.init) ?? "-"), expected \(entry)")
            } else if let rule = want.rule, rule != got.rule {
                problems.append("\(want.app): rule \(got.rule.map(String.init) ?? "-"), expected \(rule)")
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
