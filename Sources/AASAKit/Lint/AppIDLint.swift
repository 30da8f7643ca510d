/// App IDs that cannot name any app, because they are not `TEAMID.bundle.id`.
///
/// An app ID in an AASA file is compared with the app's own application identifier; one of the
/// wrong shape (`TEAMID.com.example`, a bundle ID alone, a trailing space) never equals it, so
/// every rule for it is dead and the app gets no links. What Apple documents:
///
/// - `applinks.Details`: app IDs are written `<Application Identifier Prefix>.<Bundle Identifier>`
///   (https://developer.apple.com/documentation/bundleresources/applinks/details).
/// - The prefix is the team ID, or for apps created before 2011 an older app ID prefix; both are
///   ten alphanumeric characters assigned by Apple (`ABCDE12345` in Apple's own examples).
/// - Glossary, "bundle ID": "contains only alphanumeric characters (A-Z, a-z, 0-9), hyphens (-),
///   and/or periods (.)" (https://developer.apple.com/help/glossary/bundle-id).
///
/// So the check is: ten ASCII letters or digits, a period, then a non-empty bundle ID of letters,
/// digits, `-` and `.`. Case is not checked (Apple's glossary calls bundle IDs case-insensitive,
/// and says nothing on the prefix's case). Checked wherever an app ID is written: `appID`,
/// `appIDs`, the keys of the legacy `details` dictionary, and the `apps` of `webcredentials`,
/// `appclips` and `activitycontinuation`; not the legacy `applinks.apps`, whose contents are
/// ignored (SPEC 2).
enum AppIDLint {
    static func findings(document: AASADocument, tree: JSONTree) -> [LintFinding] {
        var findings: [LintFinding] = []
        func check(_ value: JSONValue?, at path: JSONPath) {
            guard case .string(let appID)? = value else { return }
            if let problem = AppIDShape.problem(appID) {
                findings.append(.invalidAppID(path, appID: appID, problem: problem))
            } else if let team = AppIDShape.placeholderTeamID(appID) {
                findings.append(
                    LintCatalog.placeholderTeamID.finding(
                        at: path, "app ID \(JSONWriter.escape(appID)) has the team ID \(JSONWriter.escape(team)), a placeholder left in: no app has it",
                        hint: "write the team ID from the Membership page of the developer account"))
            }
        }
        func checkArray(at path: JSONPath) {
            guard case .array(let elements)? = tree.value(at: path) else { return }
            for index in elements.indices { check(elements[index], at: path / index) }
        }
        for entry in document.entries {
            if entry.path.parent.lastKey == "details", let key = entry.path.lastKey {
                // The legacy dictionary form: the key itself is the app ID.
                check(.string(key), at: entry.path)
            }
            check(tree.value(at: entry.path / "appID"), at: entry.path / "appID")
            checkArray(at: entry.path / "appIDs")
        }
        for service in DocumentDecoder.serviceKeys.dropFirst() {
            checkArray(at: JSONPath.root / service / "apps")
        }
        return findings
    }
}

/// The shape of an app ID, as documented above.
enum AppIDShape {
    /// Why `appID` is not `TEAMID.bundle.id`, as a clause for a message, or `nil` when it is.
    static func problem(_ appID: String) -> String? {
        guard let dot = appID.firstIndex(of: ".") else {
            return "it has no \".\" between a team ID and a bundle ID"
        }
        let prefix = appID[..<dot]
        let bundle = appID[appID.index(after: dot)...]
        if prefix.unicodeScalars.count != 10, prefix.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) {
            // `com.example.app`: a reverse-DNS bundle ID with the team ID left out.
            return "it looks like a bundle ID without the team ID in front"
        }
        if prefix.unicodeScalars.count != 10 || !prefix.unicodeScalars.allSatisfy(isAlphanumeric) {
            return "the team ID \(JSONWriter.escape(String(prefix))) is not ten letters or digits"
        }
        if bundle.isEmpty {
            return "the bundle ID after the team ID is empty"
        }
        if let bad = bundle.unicodeScalars.first(where: { !isAlphanumeric($0) && $0 != "-" && $0 != "." }) {
            return "the bundle ID \(JSONWriter.escape(String(bundle))) contains \(JSONWriter.escape(String(bad))); bundle IDs hold only letters, digits, \"-\" and \".\""
        }
        return nil
    }

    /// The team ID of a well-formed `appID` when it is a placeholder: one character ten times
    /// (`XXXXXXXXXX`, found on the real corpus beside a comment asking to replace it) or the
    /// digits in order. Apple assigns team IDs; its examples' `ABCDE12345` is left alone, as
    /// the examples and tests everywhere use it.
    static func placeholderTeamID(_ appID: String) -> String? {
        guard let dot = appID.firstIndex(of: ".") else { return nil }
        let team = String(appID[..<dot])
        let repeated = team.unicodeScalars.allSatisfy { $0 == team.unicodeScalars.first }
        return repeated || team == "0123456789" || team == "1234567890" ? team : nil
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

extension LintFinding {
    static func invalidAppID(_ path: JSONPath, appID: String, problem: String) -> LintFinding {
        LintCatalog.invalidAppID.finding(
            at: path, "app ID \(JSONWriter.escape(appID)) can never name an app: \(problem)",
            hint: "write TEAMID.bundle.id, e.g. ABCDE12345.com.example.app; the team ID is on the Membership page of the developer account")
    }
}
