import AASAKit

/// Which applinks entry answers for a host, and so which document decides a matrix URL: the
/// most specific entry covering it. A host's own entry comes before any wildcard
/// (`a.example.com` before `*.example.com`, which TN3155 describes as served by different
/// files), and a longer wildcard before a shorter one (`*.shop.example.com` before
/// `*.example.com`); among equals, the first in the file.
///
/// Why an index rather than a scan: every matrix URL was compared with every entry, and every
/// entry then searched the whole matrix again; 20 000 entries against 50 000 URLs took 38 s. Here
/// a host costs one look-up per label.
struct EntitlementCoverage {
    /// An entry's document and how it is read: `wildcard` entries decide each URL on its own host.
    struct Target: Hashable {
        var key: String
        var domain: String
        var wildcard: Bool
    }

    private var exact: [String: Target] = [:]
    private var wildcards: [String: Target] = [:]

    /// `key(entry)` names the document an entry is served by (its domain, with its port where
    /// the document is fetched from that port).
    init(_ entries: [AssociatedDomain], key: (AssociatedDomain) -> String) {
        for entry in entries {
            let target = Self.target(entry, key: key)
            if entry.wildcard {
                if wildcards[entry.domain] == nil { wildcards[entry.domain] = target }
            } else if exact[entry.domain] == nil {
                exact[entry.domain] = target
            }
        }
    }

    static func target(_ entry: AssociatedDomain, key: (AssociatedDomain) -> String) -> Target {
        Target(key: key(entry), domain: entry.domain, wildcard: entry.wildcard)
    }

    /// The entry that answers for `host` (ASCII-lowercased), or nil when no entry covers it.
    func target(for host: String) -> Target? {
        if let found = exact[host] { return found }
        // Each proper suffix after a dot, longest first: `x.a.example.com` asks `a.example.com`,
        // then `example.com`, then `com`.
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if let found = wildcards[String(rest)] { return found }
        }
        return nil
    }

    /// The matrix's expectations by the entry that decides them, and those no entry covers
    /// (with their split failure, when they cannot be split).
    func assign(_ expectations: [TestCommand.Expectation])
        -> (byTarget: [Target: [TestCommand.Expectation]], uncovered: [(TestCommand.Expectation, host: String?, error: String?)])
    {
        var byTarget: [Target: [TestCommand.Expectation]] = [:]
        var uncovered: [(TestCommand.Expectation, host: String?, error: String?)] = []
        for expectation in expectations {
            let host: String
            do {
                host = try URLSplitter.split(expectation.url).domainName
            } catch {
                uncovered.append((expectation, nil, "\(error)"))
                continue
            }
            if let target = target(for: host) {
                byTarget[target, default: []].append(expectation)
            } else {
                uncovered.append((expectation, host, nil))
            }
        }
        return (byTarget, uncovered)
    }
}
