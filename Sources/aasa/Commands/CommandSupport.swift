import AASAKit
import Foundation

/// Steps every command shares: parsing with help and usage errors, loading a document with the
/// documented exit status, building the chosen engine.
enum CommandSupport {
    /// Parses, printing help (exit 0) or a usage error (exit 2) when that is the outcome.
    static func parse(_ spec: CommandSpec, _ arguments: ArraySlice<String>) -> Result<ParsedArguments, ExitCode> {
        do {
            let parsed = try spec.parse(Array(arguments))
            if parsed.helpRequested {
                print(spec.helpText, terminator: "")
                return .failure(.success)
            }
            return .success(parsed)
        } catch {
            printError("aasa \(spec.name): \(error)\nUsage: \(spec.usage)\nSee 'aasa \(spec.name) --help'.")
            return .failure(.usage)
        }
    }

    static func usageError(_ spec: CommandSpec, _ message: String) -> ExitCode {
        printError("aasa \(spec.name): \(message)\nUsage: \(spec.usage)\nSee 'aasa \(spec.name) --help'.")
        return .usage
    }

    /// The configuration, with the limits the command line raised or lowered.
    static func configuration(_ parsed: ParsedArguments) -> Result<Configuration, UsageError> {
        var configuration = Configuration()
        if let text = parsed.value("max-document-bytes") {
            guard let value = Int(text), value >= 0 else { return .failure(UsageError(message: "--max-document-bytes needs a whole number")) }
            configuration.maxDocumentBytes = value
        }
        return .success(configuration)
    }

    static let configurationOptions: [CommandSpec.Option] = [
        .init(name: "max-document-bytes", valueName: "n", help: "Largest document accepted, inclusive (default 131072).")
    ]

    /// Reads and decodes a document; on failure prints "cannot read FILE: reason" and returns
    /// exit status 3.
    static func loadDocument(_ path: String, configuration: Configuration) -> Result<AASADocument, ExitCode> {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "no such file"
            printError("aasa: cannot read \(path): \(reason)")
            return .failure(.unreadableDocument)
        }
        if data.count > configuration.maxDocumentBytes {
            let error = DocumentError.tooLarge(size: data.count, limit: configuration.maxDocumentBytes)
            printError("aasa: cannot read \(path): \(error)")
            return .failure(.unreadableDocument)
        }
        do {
            return .success(try AASADocument(bytes: [UInt8](data), configuration: configuration))
        } catch {
            printError("aasa: cannot read \(path): \(error)")
            return .failure(.unreadableDocument)
        }
    }

    static let engineNames = ["dfa", "reference"]

    /// Builds the named engine; a document the compiler cannot handle within its limits is
    /// reported (exit 3), never silently matched as "no match".
    static func engine(named name: String, document: AASADocument, domain: String) -> Result<any DecisionEngine, ExitCode> {
        switch name {
        case "reference":
            return .success(ReferenceMatcher(document: document, domain: domain))
        default:
            do {
                return .success(DFAMatcher(try CompiledDocument(document: document, domain: domain)))
            } catch {
                printError("aasa: cannot compile the document: \(error)")
                return .failure(.unreadableDocument)
            }
        }
    }
}
