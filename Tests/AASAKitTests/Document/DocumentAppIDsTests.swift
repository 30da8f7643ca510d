import AASAKit
import XCTest

/// `AASADocument.appIDs`: every app named in `details`, first appearance first, repeats dropped
/// by exact scalar comparison (SPEC 3), few apps or many.
final class DocumentAppIDsTests: XCTestCase {
    func document(_ entries: [[String]]) -> AASADocument {
        AASADocument(applinks: AppLinks(details: entries.enumerated().map { index, apps in
            Entry(index: index, appIDs: apps, ruleSource: .components, rules: [])
        }))
    }

    /// First appearance by scalars, the way SPEC 3 orders apps.
    func expected(_ entries: [[String]]) -> [String] {
        var seen: [[Unicode.Scalar]] = []
        var apps: [String] = []
        for app in entries.joined() where !seen.contains(Array(app.unicodeScalars)) {
            seen.append(Array(app.unicodeScalars))
            apps.append(app)
        }
        return apps
    }

    func test_repeatsAreDroppedInFirstAppearanceOrder_fewAppsOrMany() {
        for count in [3, 15, 16, 17, 40] {
            // Each app named twice: once in its own entry, once again in a later one.
            let apps = (0..<count).map { "T.app\($0)" }
            let entries = apps.indices.map { [apps[$0], apps[$0 / 2]] } + [apps.reversed()]
            let result = document(entries).appIDs
            XCTAssertEqual(result, expected(entries), "\(count) apps")
            XCTAssertEqual(result.count, count, "\(count) apps")
        }
    }

    func test_canonicallyEquivalentAppIDs_stayDistinct_fewAppsOrMany() {
        let composed = "T.caf\u{E9}"
        let decomposed = "T.cafe\u{301}"
        for filler in [0, 20] {
            let entries = [(0..<filler).map { "T.app\($0)" }, [composed, decomposed, composed, decomposed]]
            let result = document(entries).appIDs
            XCTAssertEqual(result.count, filler + 2, "\(filler) apps first")
            XCTAssertEqual(result.suffix(2).map { Array($0.unicodeScalars) }, [Array(composed.unicodeScalars), Array(decomposed.unicodeScalars)])
        }
    }
}
