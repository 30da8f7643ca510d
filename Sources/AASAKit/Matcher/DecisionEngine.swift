/// What every engine answers: the decision of each app of a document for one URL.
///
/// The reference matcher and the compiled engine both conform, so the CLI, the case suite and
/// the differential tests can run any engine through one interface.
public protocol DecisionEngine {
    /// The decisions for every app of the document (or for `app` alone), in app order.
    /// - Throws: `URLSplitError` when the URL cannot be split.
    func decide(_ url: String, app: String?) throws(URLSplitError) -> URLDecision
}

extension ReferenceMatcher: DecisionEngine {}
