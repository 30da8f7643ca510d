/// What every engine answers: the decision of each app of a document for one URL.
///
/// The reference matcher and the compiled engine both conform, so the CLI, the case suite and
/// the differential tests can run any engine through one interface.
public protocol DecisionEngine {
    /// The decisions for every app of the document (or for `app` alone), in app order, the
    /// document served by `host`.
    /// - Throws: `URLSplitError` when the URL cannot be split.
    func decide(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> URLDecision
    /// Whether the URL opens some app of the document (or `app`): what `aasa test` asks of
    /// each URL of a matrix, without a decision value per app.
    /// - Throws: `URLSplitError` when the URL cannot be split.
    func opensApp(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> Bool
}

/// Which host serves the document a URL is decided against.
///
/// The host check (SPEC 3) is the only part of a decision that depends on the domain, so one
/// engine answers for every host that might serve the document: `aasa test` without `--domain`
/// (each URL checked against its own host) made and kept an engine per distinct host, 2.9 GB for
/// 80 000 hosts.
public enum ServingHost: Sendable {
    /// The engine's domain: a URL on any other host opens no app.
    case domain
    /// Whatever host the URL names: the host check holds for every URL.
    case urlHost
}

extension DecisionEngine {
    /// As `decide(_:app:host:)` on the engine's domain.
    public func decide(_ url: String, app: String?) throws(URLSplitError) -> URLDecision {
        try decide(url, app: app, host: .domain)
    }

    /// As `opensApp(_:app:host:)` on the engine's domain.
    public func opensApp(_ url: String, app: String?) throws(URLSplitError) -> Bool {
        try opensApp(url, app: app, host: .domain)
    }

    public func opensApp(_ url: String, app: String?, host: ServingHost) throws(URLSplitError) -> Bool {
        try !decide(url, app: app, host: host).matchedApps.isEmpty
    }
}

extension ReferenceMatcher: DecisionEngine {}
