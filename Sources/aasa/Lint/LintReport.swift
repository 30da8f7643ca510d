import AASAKit
import Foundation

/// What `aasa lint` found in each file it was given, in the order given, ready for any format.
///
/// A file is either linted (its findings, possibly none) or unreadable (missing, a directory,
/// no permission). Bytes that are read but are not a usable document (invalid JSON, a non-object
/// root, too large) are *findings*, not unreadable files: the person fixing the file wants them
/// in the same report, with a code and a path, like any other problem.
struct LintReport {
    struct File {
        var name: String
        var findings: [LintFinding]
        /// Why the file could not be read at all; `nil` when it was linted.
        var unreadable: String?
    }

    var files: [File]

    /// Reads and lints every file. A file over the size limit is not read past its size: the
    /// `too-large` finding needs only the size, and the file may be huge.
    static func make(files names: [String], domain: String, configuration: Configuration) -> LintReport {
        LintReport(files: names.map { lintFile($0, domain: domain, configuration: configuration) })
    }

    private static func lintFile(_ name: String, domain: String, configuration: Configuration) -> File {
        if CommandSupport.isNotUTF8(name) { return File(name: name, findings: [], unreadable: CommandSupport.notUTF8Path) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: name, isDirectory: &isDirectory) else {
            return File(name: name, findings: [], unreadable: CommandSupport.reason(ENOENT))
        }
        if isDirectory.boolValue { return File(name: name, findings: [], unreadable: "it is a directory") }
        let bytes: [UInt8]
        do {
            bytes = try AASADocument.bytes(ofFile: name, maxBytes: configuration.document.maxBytes)
        } catch {
            switch error {
            case .document(let document): return File(name: name, findings: [DocumentLint.finding(for: document)], unreadable: nil)
            case .unreadable, .notRegularFile, .brokenSymbolicLink, .symbolicLinkLoop:
                return File(name: name, findings: [], unreadable: error.description)
            }
        }
        let findings = Linter.lint(bytes: bytes, domain: domain, configuration: configuration)
        return File(name: name, findings: findings, unreadable: nil)
    }

    var unreadableCount: Int { files.count { $0.unreadable != nil } }

    func count(_ severity: Diagnostic.Severity) -> Int {
        files.reduce(0) { $0 + $1.findings.count { $0.severity == severity } }
    }

    /// Every finding with its file, in report order.
    var findings: [(file: String, finding: LintFinding)] {
        files.flatMap { file in file.findings.map { (file.name, $0) } }
    }
}
