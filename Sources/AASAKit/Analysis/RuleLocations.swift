/// Where each effective rule (by id, evaluation order) is in the document, and its comment.
struct RuleLocations {
    let paths: [JSONPath]
    let comments: [String?]

    init(_ document: AASADocument) {
        var paths: [JSONPath] = []
        var comments: [String?] = []
        for entry in document.entries {
            let source = entry.ruleSource == .components ? "components" : "paths"
            for rule in entry.rules {
                paths.append(entry.path / source / rule.index)
                comments.append(rule.comment)
            }
        }
        self.paths = paths
        self.comments = comments
    }
}
