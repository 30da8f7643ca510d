/// Whether the CDN's copy of a document decides every URL as the origin's copy does.
///
/// Devices read Apple's CDN, not the origin, so a stale or different CDN copy is what users
/// get. Comparing bytes would cry wolf over whitespace and key order the CDN is free to change;
/// the comparison is by meaning, with `SemanticDiff` (the engine of `aasa diff`), and a
/// difference comes with example URLs that the two copies decide differently.
public enum CopyComparison: Sendable, Equatable {
    /// Every URL gets the same decision for every app (identical bytes need no proof).
    case equivalent
    /// Some URLs are decided differently; each example names the app and both decisions.
    case differs([Example])
    /// No difference found, but equivalence could not be proven (see `aasa diff`, exit 4).
    case unproven(String)
    /// One side is missing or is not a usable document, so there is nothing to compare.
    case unavailable(String)
    /// The origin's copy is a usable document and the CDN's is not (the reason): every URL
    /// the origin opens fails on devices, as with a difference.
    case cdnUnusable(String)

    public struct Example: Sendable, Equatable {
        public var app: String
        public var url: String
        public var origin: DecisionKind
        public var cdn: DecisionKind
    }

    /// The record value of `aasa check --format json`.
    public var name: String {
        switch self {
        case .equivalent: return "equivalent"
        case .differs: return "differs"
        case .unproven: return "unproven"
        case .unavailable, .cdnUnusable: return "unavailable"
        }
    }

    /// Compares the two copies as served for `domain`. `origin` or `cdn` is `nil` when that
    /// side served no document.
    public static func compare(origin: [UInt8]?, cdn: [UInt8]?, domain: String, configuration: Configuration) -> CopyComparison {
        guard let origin else { return .unavailable("the origin served no document") }
        guard let cdn else { return .unavailable("the CDN served no document") }
        let originDocument: AASADocument
        let cdnDocument: AASADocument
        do {
            originDocument = try AASADocument(bytes: origin, configuration: configuration)
        } catch {
            // Identical bytes too: two copies of an unusable file are nothing to compare.
            return .unavailable("the origin copy is not a usable document: \(error)")
        }
        if origin == cdn { return .equivalent }
        do {
            cdnDocument = try AASADocument(bytes: cdn, configuration: configuration)
        } catch {
            return .cdnUnusable("\(error)")
        }
        let diff: SemanticDiff
        do {
            diff = try SemanticDiff(
                old: originDocument, new: cdnDocument, domain: domain, witnesses: 1, configuration: configuration)
        } catch {
            return .unproven("the copies cannot be compiled for comparison: \(error)")
        }
        switch diff.verdict {
        case .equivalent:
            return .equivalent
        case .noDifferenceFound(let reason):
            return .unproven(reason)
        case .different:
            let examples = diff.changes.compactMap { change -> Example? in
                guard let url = change.urls.first else { return nil }
                return Example(app: change.app, url: url, origin: change.old.kind, cdn: change.new.kind)
            }
            return .differs(examples)
        }
    }
}
