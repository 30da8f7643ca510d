import Foundation

// child-rusage RESULT-FILE EXECUTABLE [ARGUMENT...]
//
// Runs EXECUTABLE with the given arguments and standard streams, waits for it, and writes
// "<peak RSS in KiB> <exit status or -1> <signal or 0>" to RESULT-FILE.
//
// Why a separate process: Linux carries a process's peak RSS across exec, and a child forked
// (or vforked) from the test process starts with the test process's memory counted, often
// gigabytes after the large-output tests. Forked from this small program instead, the
// measured child's peak is its own (`ChildProcess`).
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: child-rusage RESULT-FILE EXECUTABLE [ARGUMENT...]\n".utf8))
    exit(2)
}
let argv: [UnsafeMutablePointer<CChar>?] = arguments[2...].map { strdup($0) } + [nil]
var pid: pid_t = 0
let spawned = posix_spawn(&pid, arguments[2], nil, nil, argv, environ)
guard spawned == 0 else {
    FileHandle.standardError.write(Data("child-rusage: cannot start \(arguments[2]): \(String(cString: strerror(spawned)))\n".utf8))
    exit(2)
}
var status: Int32 = 0
var usage = rusage()
while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
let exited = status & 0x7F == 0
let line = "\(usage.ru_maxrss) \(exited ? (status >> 8) & 0xFF : -1) \(exited ? 0 : status & 0x7F)\n"
exit(FileManager.default.createFile(atPath: arguments[1], contents: Data(line.utf8)) ? 0 : 2)
