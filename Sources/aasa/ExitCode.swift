/// The exit statuses of `aasa`, the same for every command.
enum ExitCode: Int32, Error {
    /// The command ran, and every record was written.
    case success = 0
    /// The command ran, but some records are errors (classify) or a check failed (test, diff).
    case failure = 1
    /// The command line is wrong; usage was printed.
    case usage = 2
    /// A document could not be read at all (missing file, invalid JSON, not an object, too large).
    case unreadableDocument = 3
    /// `diff` found no difference but could not prove the documents equivalent (several text
    /// modes, or the search budget).
    case inconclusive = 4
}
