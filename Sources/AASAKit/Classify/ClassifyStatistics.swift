/// Counts gathered while classifying, per worker and merged at the end.
public struct ClassifyStatistics: Sendable {
    public var records = 0
    public var errors = 0
    /// Records whose host has no document.
    public var withoutDomain = 0
    /// Times a worker emptied its lazy caches to keep them within their budget (`Classifier`):
    /// more than a few say `dfa-cache-bytes` is too small for the stream.
    public var cacheReleases = 0
    /// Per domain index: records routed to it, and records that opened at least one app.
    public var domainRecords: [Int]
    public var domainMatched: [Int]
    /// Per domain index, per app index: records whose decision for the app is `match`; empty for
    /// a domain no worker met.
    public var appMatches: [[Int]]

    public init(rules: ClassifierRules) {
        domainRecords = Array(repeating: 0, count: rules.domains.count)
        domainMatched = Array(repeating: 0, count: rules.domains.count)
        // Sized when a worker first meets the domain (`countApps`): its document may not be
        // loaded yet, and most of a large fleet's never are.
        appMatches = Array(repeating: [], count: rules.domains.count)
    }

    /// Makes room to count the `apps` apps of `domain`.
    mutating func countApps(of domain: Int, _ apps: Int) {
        let missing = apps - appMatches[domain].count
        if missing > 0 { appMatches[domain].append(contentsOf: repeatElement(0, count: missing)) }
    }

    /// Adds one slot's counts for `domain` (`Classifier`): a row met for the first time is taken
    /// as it is.
    mutating func add(domain: Int, records: Int, matched: Int, appMatches: [Int]) {
        domainRecords[domain] += records
        domainMatched[domain] += matched
        if self.appMatches[domain].isEmpty {
            self.appMatches[domain] = appMatches
            return
        }
        countApps(of: domain, appMatches.count)
        for app in appMatches.indices { self.appMatches[domain][app] += appMatches[app] }
    }

    public mutating func merge(_ other: ClassifyStatistics) {
        records += other.records
        errors += other.errors
        withoutDomain += other.withoutDomain
        cacheReleases += other.cacheReleases
        for index in domainRecords.indices {
            domainRecords[index] += other.domainRecords[index]
            domainMatched[index] += other.domainMatched[index]
            countApps(of: index, other.appMatches[index].count)
            for app in other.appMatches[index].indices { appMatches[index][app] += other.appMatches[index][app] }
        }
    }
}
