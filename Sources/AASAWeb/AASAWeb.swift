/// AASAWeb: documents from the network, for `aasa fetch`, `aasa check` and
/// `aasa entitlements --fetch`.
///
/// In: domain names, and how to reach and trust their servers. Out: `FetchRecord`s (the values
/// of `AASAKit/Deployment`) with the served bytes, and, through `DocumentStore`, a rules
/// directory that `aasa classify --rules` reads.
///
/// - `Transfers`: many GETs at once through libcurl's multi interface (bounded connections,
///   reuse, timeouts, a size cap, retries for transient failures only).
/// - `DocumentFetcher`: where Apple looks for the file (`.well-known`, then the root path;
///   Apple's CDN) and what each answer means.
/// - `DocumentStore`: atomic writes of documents and their metadata.
/// - `TrustStore`: the system CA store, plus CAs a caller adds.
///
/// It is a target of its own beside the `CCurl` system library so that `AASAKit` has no network
/// code and no C dependency for programs that only match. What it will not do: speak HTTP or
/// TLS itself (libcurl does, nothing here is hand-written), follow redirects (Apple does not),
/// accept a document Apple would refuse (any status but 200, a body over the limit, an
/// untrusted certificate), or judge a document's content (that is `AASAKit`: lint, the semantic
/// comparison).
public enum AASAWeb {}
