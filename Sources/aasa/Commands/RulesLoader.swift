import AASAKit
import Foundation
import Synchronization

/// Loads the documents behind `--rules` (one file with a domain, or a rules directory) and builds
/// the classifier's rules, reporting problems on stderr as SPEC 14 asks.
enum RulesLoader {
    /// `.failure(.usage)` when a single file comes without a domain; `.failure(.unreadableDocument)`
    /// when nothing usable can be loaded.
    /// `threads`: how many cores may parse and compile the documents at once.
    /// `lazy`: a directory's documents are read and compiled when their domain is first met,
    /// and a failure is reported then (classify); otherwise all of them now.
    /// `retainsDocuments` false (with `lazy`): nothing keeps a directory's documents, each is
    /// read and compiled at each use (compile, which visits each domain once).
    /// `unusable`, when given, counts the documents reported as unusable (a lazy directory's
    /// as they are met).
    static func load(
        _ path: String, domain: String?, engine: ClassifierRules.Engine, configuration: Configuration, command: String,
        threads: Int = 1, lazy: Bool = false, retainsDocuments: Bool = true, unusable: UnusableCount? = nil
    ) -> Result<ClassifierRules, ExitCode> {
        if CommandSupport.isNotUTF8(path) {
            printError("aasa \(command): cannot read the rules \(VisibleText.escapedLine(path)): \(CommandSupport.notUTF8Path)")
            return .failure(.unreadableDocument)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            printError("aasa \(command): cannot read the rules \(VisibleText.escapedLine(path)): \(CommandSupport.reason(ENOENT))")
            return .failure(.unreadableDocument)
        }
        if isDirectory.boolValue, lazy {
            let listing: DomainDocuments.Listing
            do {
                listing = try DomainDocuments.listing(path)
            } catch {
                printError("aasa \(command): \(error)")
                return .failure(.unreadableDocument)
            }
            if listing.files.isEmpty {
                printError(Self.emptyDirectory(command, path))
                return .failure(.unreadableDocument)
            }
            for warning in listing.warnings { printError(VisibleText.escapedLine("aasa \(command): warning: \(warning)")) }
            return .success(
                ClassifierRules(listing: listing, engine: engine, configuration: configuration, retainsDocuments: retainsDocuments) {
                    domain, reason in
                    unusable?.add()
                    printError(VisibleText.escapedLine("aasa \(command): cannot use the document of \(domain): \(reason)"))
                })
        }
        let documents: DomainDocuments
        if isDirectory.boolValue {
            do {
                documents = try DomainDocuments.directory(path, configuration: configuration, threads: threads)
            } catch {
                printError("aasa \(command): \(error)")
                return .failure(.unreadableDocument)
            }
            if documents.sources.isEmpty {
                printError(Self.emptyDirectory(command, path))
                return .failure(.unreadableDocument)
            }
        } else {
            guard let domain else { return .failure(.usage) }
            documents = DomainDocuments.single(file: path, domain: domain, configuration: configuration)
        }
        for warning in documents.warnings { printError(VisibleText.escapedLine("aasa \(command): warning: \(warning)")) }
        let rules = ClassifierRules(documents: documents, engine: engine, configuration: configuration, threads: threads)
        for failure in rules.failures {
            unusable?.add()
            printError(VisibleText.escapedLine("aasa \(command): cannot use the document of \(failure.domain): \(failure.reason)"))
        }
        if !isDirectory.boolValue, !rules.failures.isEmpty { return .failure(.unreadableDocument) }
        return .success(rules)
    }

    static func emptyDirectory(_ command: String, _ path: String) -> String {
        "aasa \(command): no documents in \(path) (expected DOMAIN.json, DOMAIN/apple-app-site-association or DOMAIN/.well-known/apple-app-site-association)"
    }
}

/// The documents a command reported as unusable, counted from whichever thread met them.
final class UnusableCount: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
