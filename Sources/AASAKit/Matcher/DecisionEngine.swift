/// What every engine answers: the decision of each app of a document for one URL.
///
/// The reference matcher and the compiled engine both conform, so the CLI, the case suite and
/// the differential tests can run any engine through one interface.
public protocol DecisionEngine {
    /// The decisions for every app of the document (or for `app` alone), in app order.
    /// - Throws: `URLSplitError` when the URL cannot be split.
    func decide(_ url: String, app: String?) throws(URLSplitError) -> URLDecision
    /// Whether the URL opens some app of the document (or `app`): what `aasa test` asks of
    /// each URL of a matrix, without a decision value per app.
    /// - Throws: `URLSplitError` when the URL cannot be split.
    func opensApp(_ url: String, app: String?) throws(URLSplitError) -> Bool
}

extension DecisionEngine {
    public func opensApp(_ url: String, app: String?) throws(URLSplitError) -> Bool {
        try !decide(url, app: app).matchedApps.isEmpty
    }
}

extension ReferenceMatcher: DecisionEngine {}
