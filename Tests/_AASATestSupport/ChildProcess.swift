import Foundation

/// Runs the `aasa` binary as a child process whose own cost can be measured: wall time, and its
/// peak resident memory.
///
/// `CLIRunner` goes through Foundation's `Process`, which reaps the child itself, so the only
/// memory figure left would be `getrusage(RUSAGE_CHILDREN)`: the maximum over *every* child the
/// test process ever had. Even `wait4` on one child is no better: Linux carries the peak RSS
/// across exec, so a child spawned from this (large) test process reports the test process's
/// peak. `run` therefore starts `aasa` through the small `child-rusage` program, which forks it
/// from its own small memory and reports its peak. Standard streams go to files (or devices such
/// as `/dev/full`), so no pipe can fill up and block the child.
public enum ChildProcess {
    public struct Finished {
        /// The exit status, or `nil` when a signal ended the child.
        public var status: Int32?
        public var signal: Int32?
        public var seconds: Double
        /// Peak resident set size of the child alone (from `run`).
        public var maxResidentBytes: Int
        public var stdout: Data
        public var stderr: String

        /// One line for assertion messages: what a failed bound looked like.
        public var summary: String {
            let rss = Double(maxResidentBytes) / 1_048_576
            return "status \(status.map(String.init) ?? "-") signal \(signal.map(String.init) ?? "-"), "
                + String(format: "%.2f s, %.1f MiB peak RSS; stderr: ", seconds, rss) + String(stderr.prefix(600))
        }
    }

    /// A started child: wait for it, or kill it first.
    public final class Running {
        public let pid: pid_t
        let started: Date
        let stdoutPath: String?
        let stderrPath: String

        init(pid: pid_t, started: Date, stdoutPath: String?, stderrPath: String) {
            self.pid = pid
            self.started = started
            self.stdoutPath = stdoutPath
            self.stderrPath = stderrPath
        }

        /// Bytes the child has written to its captured standard output so far.
        public var stdoutBytesSoFar: Int {
            guard let stdoutPath, let attributes = try? FileManager.default.attributesOfItem(atPath: stdoutPath) else { return 0 }
            return (attributes[.size] as? NSNumber)?.intValue ?? 0
        }

        public func kill(_ signal: Int32) {
            _ = Foundation.kill(pid, signal)
        }

        /// Reaps the child and collects what it wrote.
        public func wait() -> Finished {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
            return finished(status: status, usage: usage)
        }

        /// Waits at most `seconds`, then kills the child (SIGKILL) and reaps it: for tests whose
        /// failure is a hang, so that the hang fails the test (`Finished.signal` is set) instead
        /// of stalling the suite.
        public func wait(killingAfter seconds: Double) -> Finished {
            let deadline = started.addingTimeInterval(seconds)
            var status: Int32 = 0
            var usage = rusage()
            while Date() < deadline {
                let reaped = wait4(pid, &status, WNOHANG, &usage)
                if reaped == pid { return finished(status: status, usage: usage) }
                if reaped < 0, errno != EINTR { break }
                usleep(10_000)
            }
            kill(SIGKILL)
            return wait()
        }

        private func finished(status: Int32, usage: rusage) -> Finished {
            let seconds = Date().timeIntervalSince(started)
            let exited = status & 0x7F == 0
            let stdout = stdoutPath.flatMap { FileManager.default.contents(atPath: $0) } ?? Data()
            let stderr = String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self)
            return Finished(
                status: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F, seconds: seconds,
                // Linux reports ru_maxrss in KiB.
                maxResidentBytes: Int(usage.ru_maxrss) * 1024, stdout: stdout, stderr: stderr)
        }
    }

    /// Starts `aasa` with `arguments`, to be killed or waited for (`Finished.maxResidentBytes`
    /// is then not the child's own; use `run` for that). `stdin` and `stdout` are paths (`nil`
    /// stdin: `/dev/null`; `nil` stdout: captured in a file in `folder`); a `stdinDescriptor`
    /// (the read end of a pipe the test feeds) wins over `stdin`.
    public static func start(
        _ arguments: [String], stdin: String? = nil, stdinDescriptor: Int32? = nil, stdout: String? = nil, folder: URL
    ) throws -> Running {
        try spawn([CLIRunner.executable.path] + arguments, stdin: stdin, stdinDescriptor: stdinDescriptor, stdout: stdout, folder: folder)
    }

    /// Runs `aasa` to the end and measures it through `child-rusage`.
    public static func run(_ arguments: [String], stdin: String? = nil, stdout: String? = nil, folder: URL) throws -> Finished {
        let probe = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("child-rusage").path
        let result = folder.appendingPathComponent("rusage-\(UUID().uuidString)").path
        var finished = try spawn(
            [probe, result, CLIRunner.executable.path] + arguments, stdin: stdin, stdinDescriptor: nil, stdout: stdout, folder: folder
        ).wait()
        let fields = (try? String(contentsOfFile: result, encoding: .utf8))?.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? []
        guard fields.count == 3 else { throw NSError(domain: "ChildProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "child-rusage gave no result: \(finished.summary)"]) }
        finished.maxResidentBytes = Int(fields[0]) * 1024
        finished.status = fields[1] >= 0 ? fields[1] : nil
        finished.signal = fields[1] >= 0 ? nil : fields[2]
        return finished
    }

    private static func spawn(
        _ command: [String], stdin: String?, stdinDescriptor: Int32?, stdout: String?, folder: URL
    ) throws -> Running {
        let tag = UUID().uuidString
        let stdoutPath = stdout ?? folder.appendingPathComponent("child-\(tag).out").path
        let stderrPath = folder.appendingPathComponent("child-\(tag).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdinDescriptor {
            posix_spawn_file_actions_adddup2(&actions, stdinDescriptor, STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin ?? "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = Date()
        let result = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(command[0])"])
        }
        return Running(pid: pid, started: started, stdoutPath: stdout == nil ? stdoutPath : nil, stderrPath: stderrPath)
    }
}
