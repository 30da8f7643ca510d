/// The document limits other than size and depth (`Configuration.Document`), checked on the
/// decoded model, where patterns and variables are already told apart.
///
/// Checking after decoding costs nothing extra in memory: the model is at most a small multiple
/// of the document's bytes, which `maxBytes` already bounds. What these limits protect is the
/// work after decoding (compiling, and the reference matcher's per-URL cost), which grows with
/// pattern count and length.
extension AASADocument {
    /// - Throws: the first limit passed, with the JSON path where it was passed.
    public func checkLimits(_ limits: Configuration.Document) throws(DocumentLimitError) {
        // Paths are built only for the error that names one (`@autoclosure`): most documents
        // pass, and building them was most of the check's cost.
        var counter = PatternCounter(limits: limits)
        let applinksPath = JSONPath.root / "applinks"
        if let defaults = applinks?.defaults { try counter.count(defaults, at: applinksPath / "defaults") }
        for entry in entries {
            // The entry's own path: `details["APPID"]` in the dictionary form, whose entries
            // are numbered in sorted order, not as the file writes them.
            func entryPath() -> JSONPath { entry.path }
            try counter.count(entry.defaults, at: entryPath() / "defaults")
            let source = entry.ruleSource == .paths ? "paths" : "components"
            for rule in entry.rules {
                // A legacy `paths` string is its own pattern, not a rule object with a "/" key.
                if rule.isLegacyPath, let pattern = rule.keys.path {
                    try counter.count(pattern, at: entryPath() / source / rule.index)
                } else {
                    try counter.count(rule.keys, at: entryPath() / source / rule.index)
                }
            }
        }
        try checkVariables(limits, at: applinksPath / "substitutionVariables")
    }

    private func checkVariables(_ limits: Configuration.Document, at path: JSONPath) throws(DocumentLimitError) {
        guard let variables = applinks?.substitutionVariables else { return }
        if variables.count > limits.maxVariables {
            throw DocumentLimitError(limit: .variables, found: variables.count, maximum: limits.maxVariables, path: path)
        }
        for name in variables.names {
            let values = variables[name] ?? []
            if values.count > limits.maxValuesPerVariable {
                throw DocumentLimitError(
                    limit: .variableValues, found: values.count, maximum: limits.maxValuesPerVariable, path: path / name)
            }
            for (index, value) in values.enumerated() where value.utf8.count > limits.maxPatternBytes {
                throw DocumentLimitError(
                    limit: .patternBytes, found: value.utf8.count, maximum: limits.maxPatternBytes, path: path / name / index)
            }
        }
    }
}

/// Counts patterns across a document and checks each one's length.
private struct PatternCounter {
    let limits: Configuration.Document
    var patterns = 0

    init(limits: Configuration.Document) {
        self.limits = limits
    }

    mutating func count(_ keys: RuleKeys, at path: @autoclosure () -> JSONPath) throws(DocumentLimitError) {
        if let pattern = keys.path { try count(pattern, at: path() / "/") }
        switch keys.query {
        case .text(let pattern)?:
            try count(pattern, at: path() / "?")
        case .items(let predicates)?:
            for predicate in predicates { try count(predicate.pattern, at: path() / "?" / predicate.name) }
        case .voided?, nil:
            break
        }
        if let pattern = keys.fragment { try count(pattern, at: path() / "#") }
    }

    mutating func count(_ pattern: String, at path: @autoclosure () -> JSONPath) throws(DocumentLimitError) {
        patterns += 1
        if patterns > limits.maxPatterns {
            throw DocumentLimitError(limit: .patterns, found: patterns, maximum: limits.maxPatterns, path: path())
        }
        let bytes = pattern.utf8.count
        if bytes > limits.maxPatternBytes {
            throw DocumentLimitError(limit: .patternBytes, found: bytes, maximum: limits.maxPatternBytes, path: path())
        }
    }
}
