/// The document-level lint codes, each with its severity and what it means.
///
/// Codes are an interface: CI filters on them and SARIF viewers group by them, so they are listed
/// once here, and the tests check that every code has a positive and a negative document and that
/// every finding `DocumentLint` makes uses a code from this list with its listed severity. The
/// automaton-level codes of `SemanticLint` are documented with that analysis.
public enum LintCatalog {
    public struct Entry: Sendable, Hashable {
        public var code: String
        public var severity: Diagnostic.Severity
        /// One line for a codes table or a SARIF rule description.
        public var summary: String

        /// A finding of this code and its catalog severity, so a severity is written only here.
        func finding(at path: JSONPath, _ message: String, hint: String?, witness: String? = nil) -> LintFinding {
            LintFinding(code: code, severity: severity, path: path, message: message, hint: hint, witness: witness)
        }
    }

    /// Every document-level code, in the order the README's table lists them.
    public static let documentCodes: [Entry] = [
        invalidJSON, rootNotObject, tooLarge, overLimit, wrongType,
        unknownKey, duplicateKey, invalidAppID, placeholderTeamID, entryWithoutApps, entryWithoutRules, appsNotEmpty,
        componentsAndPaths, queryPredicateNotString, invalidVariableName, undefinedVariable,
        malformedVariableReference, selfReferencingVariable, variableInVariableValue, emptyVariable,
        shadowsPredefinedVariable, unusedVariable, suspiciousPattern, percentEncodingMismatch, defaultsIgnored,
        queryItemMatchesAbsent,
    ]

    public static let invalidJSON = Entry(code: "invalid-json", severity: .error, summary: "the file is not JSON (or not UTF-8, or nested too deeply); nothing in it is used")
    public static let rootNotObject = Entry(code: "root-not-object", severity: .error, summary: "the JSON root is not an object; nothing in it is used")
    public static let tooLarge = Entry(code: "too-large", severity: .error, summary: "the file is over the size limit (128 KiB by default); nothing in it is used")
    public static let overLimit = Entry(code: "over-limit", severity: .error, summary: "the file passes a configured limit (patterns, pattern length, variables, values, automaton states); nothing in it is used")
    public static let wrongType = Entry(code: "wrong-type", severity: .error, summary: "a value has the wrong JSON type and counts as absent")
    public static let unknownKey = Entry(code: "unknown-key", severity: .warning, summary: "a key the format does not define is ignored (near-miss spelling suggested)")
    public static let duplicateKey = Entry(code: "duplicate-key", severity: .warning, summary: "a key is written twice in one object; only the last value counts")
    public static let invalidAppID = Entry(code: "invalid-app-id", severity: .error, summary: "an app ID is not TEAMID.bundle.id, so it can never name an app")
    public static let placeholderTeamID = Entry(code: "placeholder-team-id", severity: .warning, summary: "an app ID's team ID is a placeholder (XXXXXXXXXX, 0123456789), so it names no app")
    public static let entryWithoutApps = Entry(code: "entry-without-apps", severity: .error, summary: "an entry names no app, so its rules apply to nothing")
    public static let entryWithoutRules = Entry(code: "entry-without-rules", severity: .warning, summary: "an entry has no components or paths array, or an empty one, so it matches no URL")
    public static let appsNotEmpty = Entry(code: "apps-not-empty", severity: .warning, summary: "the legacy applinks.apps array is not empty; its contents are ignored")
    public static let componentsAndPaths = Entry(code: "components-and-paths", severity: .warning, summary: "an entry has both components and paths; iOS 13 and later ignore paths")
    public static let queryPredicateNotString = Entry(code: "query-predicate-not-string", severity: .error, summary: "a query item pattern is not a string, which voids the whole dictionary")
    public static let invalidVariableName = Entry(code: "invalid-variable-name", severity: .error, summary: "a variable name contains $, ( or ) and can never be referenced")
    public static let undefinedVariable = Entry(code: "undefined-variable", severity: .error, summary: "a pattern uses a variable defined neither in the file nor by Apple; it never matches")
    public static let malformedVariableReference = Entry(code: "malformed-variable-reference", severity: .error, summary: "text that looks like a variable reference ($(name or ${name}) is literal text")
    public static let selfReferencingVariable = Entry(code: "self-referencing-variable", severity: .error, summary: "a variable's value contains $(itself), which is literal text, not recursion")
    public static let variableInVariableValue = Entry(code: "variable-in-variable-value", severity: .error, summary: "a variable's value contains $(other), which is literal text, not a reference")
    public static let emptyVariable = Entry(code: "empty-variable", severity: .error, summary: "a variable has no values, so every pattern using it never matches")
    public static let shadowsPredefinedVariable = Entry(code: "shadows-predefined-variable", severity: .warning, summary: "a custom variable replaces one of Apple's predefined variables")
    public static let defaultsIgnored = Entry(code: "defaults-ignored", severity: .warning, summary: "defaults set \"/\", \"?\", \"#\" or exclude over legacy paths, which take only caseSensitive and percentEncoded")
    public static let queryItemMatchesAbsent = Entry(code: "query-item-matches-absent", severity: .note, summary: "a query item pattern of only * also matches URLs without the item (a missing item counts as empty)")
    public static let unusedVariable = Entry(code: "unused-variable", severity: .note, summary: "a custom variable is defined but no pattern the engine reads uses it")

    /// The catalog entry of `code` among the document-level codes, or `nil` (an automaton
    /// finding, or an unknown code).
    public static func entry(for code: String) -> Entry? {
        documentCodes.first { $0.code == code }
    }

    /// The automaton-level codes of `SemanticLint`, in the order the README's table lists them.
    public static let semanticCodes: [Entry] = [
        neverMatches, unreachableRule, duplicateRule, uselessExclude, catchAll, overlappingApps, appsShareURLs,
        analysisIncomplete, notAnalysed,
    ]

    public static let neverMatches = Entry(code: "never-matches", severity: .warning, summary: "no URL can match the rule (a raw # or ? in a path, an undefined or empty variable, …)")
    public static let unreachableRule = Entry(code: "unreachable-rule", severity: .warning, summary: "earlier rules decide every URL the rule matches (named, with a witness URL)")
    public static let duplicateRule = Entry(code: "duplicate-rule", severity: .warning, summary: "the rule repeats an earlier rule of its entry once defaults apply")
    public static let uselessExclude = Entry(code: "useless-exclude", severity: .warning, summary: "the exclusion keeps no URL from opening an app: what it excludes would stay on the web anyway")
    public static let catchAll = Entry(code: "catch-all", severity: .warning, summary: "the rule matches every URL of the domain (its comment quoted)")
    public static let overlappingApps = Entry(code: "overlapping-apps", severity: .warning, summary: "apps of different entries open the same URLs (the witness shows one); the order they are listed in decides nothing between them")
    public static let appsShareURLs = Entry(code: "apps-share-urls", severity: .note, summary: "one entry names several apps, so they open the same URLs (usually on purpose)")
    public static let analysisIncomplete = Entry(code: "analysis-incomplete", severity: .note, summary: "the automaton checks that prove an absence were left out, and why; or, for rules in several modes, which claims could not be proven either way")
    public static let notAnalysed = Entry(code: "not-analysed", severity: .warning, summary: "no automaton check ran: the rules pass a limit of the analysis (such as analysis-pairs) that the matcher does not have")

    /// The entry of any code, document-level or automaton-level.
    public static func anyEntry(for code: String) -> Entry? {
        entry(for: code) ?? semanticCodes.first { $0.code == code }
    }
}
