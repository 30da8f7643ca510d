@testable import AASAKit
import XCTest
import _AASATestSupport

/// The Pattern layer's byte-level parse and slash rules against the scalar-wise algorithms they
/// replaced (kept below as the specification): same pieces, same alternatives, same folding, on
/// random patterns made of the characters that steer them (`/`, `*`, `?`, `$(`, `)`), non-ASCII
/// letters, combining marks and a `/` that starts a grapheme with a combining mark.
final class PatternParsingTests: XCTestCase {
    static let alphabet = [
        "/", "/", "/", "*", "?", "$(", "$", "(", ")", "a", "B", "Z", "é", "e\u{301}", "\u{301}", "/\u{301}",
        "İ", "Σ", "ß", "\u{1D49C}", "\u{212B}", "%2F", "-",
    ]

    static func randomText(_ random: inout RandomSource, maxPieces: Int = 10) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "" }.joined()
    }

    static func randomPieces(_ random: inout RandomSource) -> [Pattern.Piece] {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return .anyMany
            case 1: return .anyOne
            case 2: return .variable(randomText(&random, maxPieces: 2))
            default: return .literal(randomText(&random, maxPieces: 3))
            }
        }
    }

    /// The pieces byte for byte: `Pattern.Piece`'s `==` compares strings up to canonical
    /// equivalence, which would hide a change of normal form.
    static func exact(_ pieces: [Pattern.Piece]) -> [[UInt8]] {
        pieces.map { piece in
            switch piece {
            case .literal(let text): return [0] + Array(text.utf8)
            case .anyOne: return [1]
            case .anyMany: return [2]
            case .variable(let name): return [3] + Array(name.utf8)
            }
        }
    }

    func test_parsing_matchesScalarWiseParse_onRandomPatterns() {
        var random = RandomSource(seed: 19)
        for _ in 0..<20_000 {
            let text = Self.randomText(&random)
            for allowVariables in [true, false] {
                XCTAssertEqual(
                    Self.exact(Pattern(parsing: text, allowVariables: allowVariables).pieces),
                    Self.exact(ScalarWise.parse(text, allowVariables: allowVariables)), "\(text.debugDescription) \(allowVariables)")
            }
        }
    }

    func test_parsing_cutsAtSpecialCharactersOnly() {
        XCTAssertEqual(
            Pattern(parsing: "/é\u{301}*?$(lang)x$(a$(b)").pieces,
            [.literal("/é\u{301}"), .anyMany, .anyOne, .variable("lang"), .literal("x$(a"), .variable("b")])
        XCTAssertEqual(Pattern(parsing: "a**b$()").pieces, [.literal("a"), .anyMany, .literal("b"), .variable("")])
        XCTAssertEqual(Pattern(parsing: "$(x)", allowVariables: false).pieces, [.literal("$(x)")])
        XCTAssertEqual(Pattern(parsing: "").pieces, [])
    }

    func test_alternatives_matchScalarWiseSlashRules_onRandomPatternsInEveryMode() {
        var random = RandomSource(seed: 6)
        for _ in 0..<20_000 {
            let text = Self.randomText(&random)
            for mode in TextMode.all {
                let pattern = Pattern(parsing: text).normalized(for: mode)
                XCTAssertEqual(
                    PathNormalization.alternatives(of: pattern).map { Self.exact($0.pieces) },
                    ScalarWise.alternatives(of: pattern.pieces).map(Self.exact),
                    "\(text.debugDescription) \(mode)")
            }
        }
    }

    /// Hand-built piece lists the parser never produces: empty literals, literals and `*` in a row.
    func test_alternatives_matchScalarWiseSlashRules_onUnmergedPieces() {
        var random = RandomSource(seed: 10)
        for _ in 0..<20_000 {
            let pieces = Self.randomPieces(&random)
            XCTAssertEqual(
                PathNormalization.alternatives(of: Pattern(pieces: pieces)).map { Self.exact($0.pieces) },
                ScalarWise.alternatives(of: pieces).map(Self.exact),
                "\(pieces)")
        }
    }

    func test_alternatives_trailingSegmentStarAlsoMatchesWithoutIt() {
        for (text, first) in [("/buy/*", "/buy/*"), ("buy/*", "/buy/*"), ("///buy/**", "/buy/*"), ("/buy//*", "/buy//*"), ("/buy/*/", "/buy/*")] {
            XCTAssertEqual(PathNormalization.alternatives(of: Pattern(parsing: text)).map(\.description), [first, "/buy"], text)
        }
        XCTAssertEqual(PathNormalization.alternatives(of: Pattern(parsing: "/a/*/*")).map(\.description), ["/a/*/*", "/a/*"])
        XCTAssertEqual(PathNormalization.alternatives(of: Pattern(parsing: "//")).map(\.description), [""])
        XCTAssertEqual(PathNormalization.alternatives(of: Pattern(parsing: "/*")).map(\.description), ["/*", ""])
        XCTAssertEqual(
            PathNormalization.alternatives(of: Pattern(parsing: "//\u{301}/")).map(\.description), ["/\u{301}"],
            "a combining mark after `/` does not hide the slash")
    }

    func test_folded_matchesScalarWiseFold_onRandomText() {
        var random = RandomSource(seed: 11)
        for _ in 0..<20_000 {
            let text = Self.randomText(&random)
            let folded = TextNormalization.folded(text)
            XCTAssertEqual(Array(folded.utf8), Array(ScalarWise.folded(text).utf8), text.debugDescription)
        }
        XCTAssertEqual(TextNormalization.folded("/Shop/ÉTÉ/İ"), "/shop/été/İ")
    }

    func test_resolve_numbersAppsInFirstAppearanceOrder() throws {
        let json = #"""
            {"applinks": {"details": [
              {"appIDs": ["B.app", "A.app", "B.app"], "components": [{"/": "/a"}]},
              {"appIDs": ["C.app", "A.app"], "paths": ["/b", "/c"]},
              {"appID": "e\u0301.app", "appIDs": ["é.app"], "components": [{"/": "/d"}]}
            ]}}
            """#
        let document = try AASADocument(bytes: Array(json.utf8))
        let index = Dictionary(
            document.appIDs.enumerated().map { (ExactString($1), $0) }, uniquingKeysWith: { first, _ in first })
        let expected = document.entries.flatMap { entry in
            entry.rules.map { _ in entry.appIDs.compactMap { index[ExactString($0)] } }
        }
        let rules = EffectiveRule.resolve(document)
        XCTAssertEqual(rules.map(\.apps), expected)
        XCTAssertEqual(rules.map(\.id), Array(0..<rules.count))
        XCTAssertEqual(Set(rules.flatMap(\.apps)).count, document.appIDs.count)
    }
}

/// The scalar-wise algorithms the byte-level ones replaced, as they were.
private enum ScalarWise {
    static func parse(_ text: String, allowVariables: Bool) -> [Pattern.Piece] {
        let scalars = Array(text.unicodeScalars)
        var pieces: [Pattern.Piece] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty {
                pieces.append(.literal(String(literal)))
                literal = String.UnicodeScalarView()
            }
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "*":
                flush()
                if pieces.last != .anyMany { pieces.append(.anyMany) }
            case "?":
                flush()
                pieces.append(.anyOne)
            case "$" where allowVariables:
                if let close = referenceEnd(scalars, dollar: index) {
                    flush()
                    var name = String.UnicodeScalarView()
                    name.append(contentsOf: scalars[(index + 2)..<close])
                    pieces.append(.variable(String(name)))
                    index = close
                } else {
                    literal.append(scalar)
                }
            default:
                literal.append(scalar)
            }
            index += 1
        }
        flush()
        return pieces
    }

    static func referenceEnd(_ scalars: [Unicode.Scalar], dollar: Int) -> Int? {
        guard dollar + 1 < scalars.count, scalars[dollar + 1] == "(" else { return nil }
        var index = dollar + 2
        while index < scalars.count {
            switch scalars[index] {
            case ")": return index
            case "$", "(": return nil
            default: index += 1
            }
        }
        return nil
    }

    static func alternatives(of input: [Pattern.Piece]) -> [[Pattern.Piece]] {
        var pieces = input
        while case .literal(let text)? = pieces.first {
            let stripped = text.unicodeScalars.drop { $0 == "/" }
            if stripped.isEmpty {
                pieces.removeFirst()
            } else {
                pieces[0] = .literal(String(Substring(stripped)))
                break
            }
        }
        pieces.insert(.literal("/"), at: 0)
        pieces = merged(pieces)
        pieces = droppingTrailingSlashes(pieces)
        var result = [pieces]
        if pieces.last == .anyMany, pieces.count >= 2, case .literal(let text) = pieces[pieces.count - 2],
            text.unicodeScalars.last == "/"
        {
            var shorter = Array(pieces.dropLast(2))
            shorter.append(.literal(String(Substring(text.unicodeScalars.dropLast()))))
            result.append(droppingTrailingSlashes(merged(shorter)))
        }
        return result
    }

    static func droppingTrailingSlashes(_ pieces: [Pattern.Piece]) -> [Pattern.Piece] {
        var pieces = pieces
        while case .literal(let text)? = pieces.last {
            var trimmed = text.unicodeScalars[...]
            while trimmed.last == "/" { trimmed = trimmed.dropLast() }
            if trimmed.isEmpty {
                pieces.removeLast()
            } else {
                pieces[pieces.count - 1] = .literal(String(Substring(trimmed)))
                break
            }
        }
        return pieces
    }

    static func merged(_ pieces: [Pattern.Piece]) -> [Pattern.Piece] {
        var result: [Pattern.Piece] = []
        for piece in pieces {
            if case .literal(let text) = piece {
                if text.isEmpty { continue }
                if case .literal(let previous)? = result.last {
                    result[result.count - 1] = .literal(previous + text)
                    continue
                }
            }
            if piece == .anyMany, result.last == .anyMany { continue }
            result.append(piece)
        }
        return result
    }

    static func folded(_ text: String) -> String {
        var view = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { view.append(TextNormalization.fold(scalar)) }
        return String(view)
    }
}
