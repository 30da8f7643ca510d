import Foundation

/// Which cases of the suite a run takes: all of them, or those whose name contains the
/// `AASA_CASE` environment variable (`AASA_CASE=percent swift test --filter Suite`).
public enum CaseSelection {
    /// The environment variable holding the case-name filter.
    public static let variable = "AASA_CASE"

    /// The filter in effect, or nil (unset or empty).
    public static var filter: String? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// `cases` whose name contains `filter` (all of them without one).
    public static func select(_ cases: [TestCase], filter: String?) -> [TestCase] {
        guard let filter else { return cases }
        return cases.filter { $0.name.contains(filter) }
    }
}

/// Cases a configuration of the compiled engine does not run, each with its reason
/// (`Tests/Cases/skips.txt`). One line per (configuration, case):
///
///     configuration | case name | reason
///
/// Blank lines and lines starting with `#` are ignored. A line without all three fields, or
/// naming a configuration or case that does not exist, is an error, so the list cannot rot.
public struct SkipList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var configuration: String
        public var caseName: String
        public var reason: String
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    public let entries: [Entry]

    public static var file: URL { CaseSuite.casesDirectory.appendingPathComponent("skips.txt") }

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the list's text.
    public init(parsing text: String) throws {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: "|", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty }) else {
                throw ParseError(description: "skips.txt line \(number + 1): expected 'configuration | case name | reason'")
            }
            entries.append(Entry(configuration: fields[0], caseName: fields[1], reason: fields[2]))
        }
        self.entries = entries
    }

    /// The list of `Tests/Cases/skips.txt` (empty when the file is absent).
    public static func load() throws -> SkipList {
        guard let data = FileManager.default.contents(atPath: file.path) else { return SkipList(entries: []) }
        return try SkipList(parsing: String(decoding: data, as: UTF8.self))
    }

    /// Why `configuration` skips the case named `caseName`, or nil when it runs it.
    public func reason(configuration: String, caseName: String) -> String? {
        entries.first { $0.configuration == configuration && $0.caseName == caseName }?.reason
    }

    /// Entries naming a configuration not in `configurations` or a case not in `caseNames`.
    public func problems(configurations: Set<String>, caseNames: Set<String>) -> [String] {
        entries.compactMap { entry in
            if !configurations.contains(entry.configuration) { return "unknown configuration \(entry.configuration)" }
            if !caseNames.contains(entry.caseName) { return "unknown case \(entry.caseName)" }
            return nil
        }
    }
}
