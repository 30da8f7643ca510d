import AASAKit
import Foundation

/// Runs the built `aasa` binary, as a user would, and captures what it prints.
public enum CLIRunner {
    public struct Output {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The raw bytes of standard output, for byte-exact comparisons of large outputs.
        public var stdoutData: Data

        /// Lines of standard output (newline-terminated records), counted by `ByteSearch`: outputs
        /// run to hundreds of megabytes.
        public var lineCount: Int { occurrences(of: "\n") }

        /// Occurrences of `needle` in standard output.
        public func occurrences(of needle: String) -> Int { ByteSearch.occurrences(of: needle, in: stdoutData) }
    }

    /// The `aasa` executable next to the test bundle (SwiftPM builds every product into the same
    /// folder before running tests).
    public static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("aasa")
    }

    public static func run(_ arguments: [String], stdin: Data? = nil) throws -> Output {
        try run(executable: executable, arguments, stdin: stdin)
    }

    /// Runs a bash script (pipelines such as `aasa … | head`); `status` is the script's.
    public static func runShell(_ script: String) throws -> Output {
        try run(executable: URL(fileURLWithPath: "/bin/bash"), ["-c", script], stdin: nil)
    }

    static func run(executable: URL, _ arguments: [String], stdin: Data?) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        // Not `waitUntilExit()`: on Linux it polls its run loop every 50 ms, which added about
        // 35 ms to every child (a third of the CLI tests' time); the handler runs at the exit.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = outPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if let stdin { inPipe.fileHandleForWriting.write(stdin) }
        try inPipe.fileHandleForWriting.close()
        exited.wait()
        group.wait()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
    }

    /// The `"error"` of a record, `nil` when it is no error record.
    public static func errorMessage(fromRecord line: String) throws -> String? {
        guard case .object(let record) = try JSONParser.parse(line), case .string(let message)? = record["error"] else {
            return nil
        }
        return message
    }

    /// A `match` record parsed back into decisions (`nil` for an error record).
    public static func decisions(fromRecord line: String) throws -> [AppDecision]? {
        guard case .object(let record) = try JSONParser.parse(line) else { return nil }
        if record["error"] != nil { return nil }
        guard case .array(let items)? = record["decisions"] else { return nil }
        return items.compactMap { item -> AppDecision? in
            guard case .object(let object) = item, case .string(let app)? = object["app"],
                case .string(let kind)? = object["decision"], let decision = DecisionKind(rawValue: kind)
            else { return nil }
            var entry: Int?
            var rule: Int?
            if case .number(let n)? = object["entry"] { entry = Int(n) }
            if case .number(let n)? = object["rule"] { rule = Int(n) }
            return AppDecision(app: app, kind: decision, entry: entry, rule: rule)
        }
    }
}
