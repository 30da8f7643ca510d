/// Deployment: what a served `apple-app-site-association` looks like from outside, as values.
///
/// `aasa fetch`, `aasa check` and `aasa entitlements` download documents from origins and from
/// Apple's CDN; this folder holds everything about that which needs no network, so that it can
/// be tested without one and reused by other front ends:
///
/// - `DomainName`: which inputs are host names a document can be fetched for (a URL pasted where
///   a domain belongs is refused with the host it probably meant).
/// - `FetchRecord`: the outcome of one domain's fetch, with the stable failure kinds `check`
///   turns into finding codes, and its NDJSON form.
/// - `FetchMetadata`: what is kept beside a stored document so that the next fetch can be a
///   conditional request, and so that an operator can see where the file came from.
/// - `CopyComparison`: whether the CDN's copy decides every URL as the origin's does, by meaning
///   (the `SemanticDiff` engine), not by bytes.
/// - `DifferenceState`: how long a CDN difference has lasted, across runs, for alerting.
/// - `AssociatedDomain`: one `applinks:` entry of an app's entitlements.
/// - `SHA256`: the digest recorded in the metadata (Foundation on Linux has none).
///
/// What it will not do: open sockets, speak HTTP or TLS, follow redirects or write files. The
/// `AASAWeb` target does the transfers with libcurl and the atomic writes, so that a program
/// that only matches URLs never links libcurl; this folder decides what the bytes and statuses
/// mean.
public enum Deployment {
    /// Where Apple looks first, and the older place it looks when that serves no document.
    public static let wellKnownPath = "/.well-known/apple-app-site-association"
    public static let rootPath = "/apple-app-site-association"
    /// Apple's CDN, which devices read instead of the origin (`{domain}` is replaced).
    public static let appleCDNTemplate = "https://app-site-association.cdn-apple.com/a/v1/{domain}"
}
