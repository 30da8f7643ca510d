/// The exit statuses of `aasa`, the same for every command.
///
/// Error records are data, not failures: a stream job exits 0 when every input line got its
/// record, so that pipelines and Spark's `pipe` (which fail a job on any non-zero status) can
/// run over real, messy URL lists; `--strict` opts back into status 1 for them.
enum ExitCode: Int32, Error {
    /// The command did its job: every record was written, or the check passed.
    case success = 0
    /// A check failed: `--strict` and error records, a failing `test` expectation, a `lint`
    /// error, `diff` differences, a rule `cover` found no URL for, a domain `fetch` could not
    /// fetch, a `check` finding of severity error.
    case failure = 1
    /// The command line is wrong; usage was printed.
    case usage = 2
    /// A document (or the rules, or the artifact) could not be read at all.
    case unreadableDocument = 3
    /// `diff` found no difference but could not prove the documents equivalent (several text
    /// modes, or the search budget); `cover` found no URL for some rule and proved of none that
    /// it has no URL.
    case inconclusive = 4
    /// The input could not be read or an output could not be written (a closed pipe, as with
    /// `| head`, is not this: the run ends quietly with 0).
    case inputOutput = 5

    /// The table `aasa --help` and the README show.
    static let table = """
        EXIT STATUS (every command):
          0  done: every input line got its record (error records included), or the check passed
          1  a check failed: --strict and some records are errors, a test expectation failed,
             lint found an error, diff found differences, cover proved a rule has no URL,
             explain could not split the URL or ran over the work budget, fetch could not
             fetch some domain, check or entitlements found an error
          2  usage error (the message says what is wrong), including a --matrix file that
             cannot be read or is not a matrix
          3  a document, the rules, the compiled artifact or an entitlements file could not
             be read
          4  diff found no difference but could not prove equivalence; cover found no URL for
             some rule without proving there is none
          5  the input could not be read, or an output (-o, --stats, standard output) could not
             be written; a standard output closed by its reader (| head) is not an error and
             ends with 0 (one never opened, >&-, is 5)
        """
}
