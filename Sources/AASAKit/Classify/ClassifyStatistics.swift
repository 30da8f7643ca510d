/// Counts gathered while classifying, per worker and merged at the end.
public struct ClassifyStatistics: Sendable {
    public var records = 0
    public var errors = 0
    /// Records whose host has no document.
    public var withoutDomain = 0
    /// Per domain index: records routed to it, and records that opened at least one app.
    public var domainRecords: [Int]
    public var domainMatched: [Int]
    /// Per domain index, per app index: records whose decision for the app is `match`.
    public var appMatches: [[Int]]

    public init(rules: ClassifierRules) {
        domainRecords = Array(repeating: 0, count: rules.domains.count)
        domainMatched = Array(repeating: 0, count: rules.domains.count)
        appMatches = rules.domains.map { Array(repeating: 0, count: $0.appIDs.count) }
    }

    public mutating func merge(_ other: ClassifyStatistics) {
        records += other.records
        errors += other.errors
        withoutDomain += other.withoutDomain
        for index in domainRecords.indices {
            domainRecords[index] += other.domainRecords[index]
            domainMatched[index] += other.domainMatched[index]
            for app in appMatches[index].indices { appMatches[index][app] += other.appMatches[index][app] }
        }
    }
}
