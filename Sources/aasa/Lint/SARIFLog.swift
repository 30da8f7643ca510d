import AASAKit

/// `--format sarif`: one SARIF 2.1.0 log (OASIS), the format GitHub code scanning and most CI
/// dashboards import.
///
/// One run; the tool driver is `aasa` with one rule per code that occurs (sorted, with the
/// catalog's one-line summary when the code has one); one result per finding with `ruleId`,
/// `ruleIndex`, `level` (SARIF's levels are exactly ours: error, warning, note), the message and
/// hint, and a location: the file as `artifactLocation.uri` (a `file:` URI when its name is
/// absolute) with the line where the finding's JSON path starts as `region.startLine`, and the
/// JSON path as a logical location's `fullyQualifiedName` (SARIF has no notion of a JSON path; a
/// logical location is what it offers for "a named place inside the artifact"). A witness URL
/// goes in the result's `properties`. Files that could not be read become tool execution
/// notifications, and the run then says `executionSuccessful: false`.
///
/// Built as a `JSONValue` and written by `JSONWriter`, so escaping is the project's one escaper.
enum SARIFLog {
    static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

    static func render(_ report: LintReport) -> String {
        let findings = report.findings
        var codes: [String] = []
        for (_, finding) in findings where !codes.contains(finding.code) { codes.append(finding.code) }
        codes.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        let rules: [JSONValue] = codes.map { code in
            var members: [(key: String, value: JSONValue)] = [("id", .string(code))]
            if let entry = LintCatalog.anyEntry(for: code) {
                members.append(("shortDescription", object([("text", .string(entry.summary))])))
                members.append(("defaultConfiguration", object([("level", .string(entry.severity.rawValue))])))
            }
            return .object(JSONObject(members: members))
        }
        let results: [JSONValue] = findings.map { file, finding in
            var members: [(key: String, value: JSONValue)] = [
                ("ruleId", .string(finding.code)),
                ("ruleIndex", .number(String(codes.firstIndex(of: finding.code) ?? 0))),
                ("level", .string(finding.severity.rawValue)),
                ("message", object([("text", .string(finding.messageWithHint))])),
                (
                    "locations",
                    .array([
                        object([
                            (
                                "physicalLocation",
                                object([
                                    ("artifactLocation", object([("uri", .string(uriReference(file)))])),
                                    // GitHub code scanning requires a start line; a finding
                                    // about the whole file points at its first.
                                    ("region", object([("startLine", .number(String(finding.line ?? 1)))])),
                                ])
                            ),
                            ("logicalLocations", .array([object([("fullyQualifiedName", .string(finding.path.description))])])),
                        ])
                    ])
                ),
            ]
            if let witness = finding.witness { members.append(("properties", object([("witness", .string(witness))]))) }
            return .object(JSONObject(members: members))
        }
        let notifications: [JSONValue] = report.files.compactMap { file in
            file.unreadable.map { reason in
                object([("level", .string("error")), ("message", object([("text", .string("cannot read \(file.name): \(reason)"))]))])
            }
        }
        let invocation = object([
            ("executionSuccessful", .bool(notifications.isEmpty)),
            ("toolExecutionNotifications", .array(notifications)),
        ])
        let run = object([
            ("tool", object([("driver", object([("name", .string("aasa")), ("rules", .array(rules))]))])),
            ("invocations", .array([invocation])),
            ("results", .array(results)),
        ])
        let log = object([("$schema", .string(schema)), ("version", .string("2.1.0")), ("runs", .array([run]))])
        return log.serialized() + "\n"
    }

    private static func object(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members))
    }

    /// A file name as a SARIF `artifactLocation.uri`. A relative name stays a relative reference,
    /// which GitHub code scanning reads from the repository's root. An absolute name becomes a
    /// `file:` URI, the absolute form GitHub maps back into the repository through the checkout
    /// path (its SARIF documentation, "Specifying the root for source files"); written bare,
    /// `//tmp/x.json` was a network-path reference to a host `tmp`. A leading run of slashes is
    /// one, as Linux and macOS read `//tmp`. Bytes outside RFC 3986's unreserved set and `/` are
    /// percent-encoded, so a name with spaces, `#` or `:` stays one reference.
    static func uriReference(_ path: String) -> String {
        guard path.hasPrefix("/") else { return percentEncoded(path) }
        return "file:///" + percentEncoded(String(path.drop { $0 == "/" }))
    }

    private static func percentEncoded(_ path: String) -> String {
        var text = ""
        for byte in path.utf8 {
            let scalar = Unicode.Scalar(byte)
            if ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~/".unicodeScalars.contains(scalar)
            {
                text.unicodeScalars.append(scalar)
            } else {
                text += LintFormat.percentEscaped(byte)
            }
        }
        return text
    }
}

