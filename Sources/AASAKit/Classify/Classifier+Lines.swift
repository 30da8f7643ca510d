/// What `classify` makes of one input line, shared by the CLI's workers and by libaasa, so that
/// a URL handed to the C ABI gets the very record (or values) the CLI writes for that line.
extension Classifier {
    /// The error of a blank line under `--blank-lines record` (and of an empty URL in libaasa,
    /// which owes every URL a result).
    public static let emptyLineMessage = "empty line"
    /// No URL starts with a brace (a scheme starts with a letter): one byte compared per URL turns
    /// "no scheme" into the cause and its remedy.
    public static let jsonLineHint = "not a URL: the line is a JSON object (read JSON lines with --input-format ndjson)"

    /// A line the reader delivered, as `classify` with plain URL lines treats it: an over-long URL,
    /// a JSON object or an unreadable line get their error record, any other line is classified.
    public func classify(line: URLLineReader.Line, limits: Configuration.Input, into out: RecordBuffer) {
        switch Self.verdict(line, limits: limits) {
        case .url(let bytes, let plain): classify(bytes, plain: plain, into: out)
        case .unreadable(let text, let message): appendUnreadable(text: text, message: message, into: out)
        }
    }

    /// An error record for a URL over `limits.maxURLBytes` (shorter than its line), showing its
    /// start as the line reader shows an over-long line.
    public func appendTooLong(_ url: UnsafeBufferPointer<UInt8>, limit: Int, extra: Extra? = nil, into out: RecordBuffer) {
        let (text, message) = Self.tooLong(ByteView(url), limit: limit)
        appendUnreadable(text: text, message: message, extra: extra, into: out)
    }

    /// A blank line's error record (`--blank-lines record`).
    public func appendEmptyLine(extra: Extra? = nil, into out: RecordBuffer) {
        appendUnreadable(text: "", message: Self.emptyLineMessage, extra: extra, into: out)
    }

    /// Any whole line, however long, judged as the reader judges it; `nil` for a blank line.
    /// `terminated`: an LF ended the line (a stream's last line may lack one; its final CR is
    /// then content). A line handed over on its own counts as terminated.
    @inline(__always)
    public static func judge(
        wholeLine segment: UnsafeBufferPointer<UInt8>, maxLineBytes: Int, terminated: Bool = true, _ body: (URLLineReader.Line) -> Void
    ) -> Bool {
        judge(wholeLine: ByteView(segment), maxLineBytes: maxLineBytes, terminated: terminated, body)
    }

    /// As `judge(wholeLine:maxLineBytes:terminated:_:)`, the line lent as a view.
    @inline(__always)
    static func judge(wholeLine segment: ByteView, maxLineBytes: Int, terminated: Bool = true, _ body: (URLLineReader.Line) -> Void) -> Bool {
        switch LineAssembler.judgeWholeLine(segment, maxLineBytes: maxLineBytes, terminated: terminated) {
        case .line(let line):
            body(line)
            return true
        case .blank:
            return false
        case .tooLongForWindow:
            var assembler = LineAssembler(maxLineBytes: maxLineBytes)
            assembler.append(segment)
            var delivered = false
            assembler.finish(terminated: terminated) {
                delivered = true
                body($0)
            }
            return delivered
        }
    }

    /// One line (a URL given on its own, trimmed as the reader trims) classified: its record
    /// appended to `out`, a blank one getting the "empty line" error record.
    public func classify(wholeLine segment: UnsafeBufferPointer<UInt8>, limits: Configuration.Input, into out: RecordBuffer) {
        let delivered = Self.judge(wholeLine: ByteView(segment), maxLineBytes: limits.maxLineBytes) {
            classify(line: $0, limits: limits, into: out)
        }
        if !delivered { appendEmptyLine(into: out) }
    }

    /// As `classify(wholeLine:limits:into:)`, as values instead of a record.
    public func classification(ofWholeLine segment: UnsafeBufferPointer<UInt8>, limits: Configuration.Input) -> Classification {
        var result = Classification(domain: nil, decisions: [], error: Self.emptyLineMessage)
        _ = Self.judge(wholeLine: ByteView(segment), maxLineBytes: limits.maxLineBytes) { line in
            switch Self.verdict(line, limits: limits) {
            case .url(let bytes, _): result = classification(of: bytes)
            case .unreadable(_, let message):
                countUnreadable()
                result = Classification(domain: nil, decisions: [], error: message)
            }
        }
        return result
    }

    /// As `classification(ofWholeLine:limits:)`, the outcome lent to `body` (`withOutcome(of:_:)`).
    public func withOutcome(
        ofWholeLine segment: UnsafeBufferPointer<UInt8>, limits: Configuration.Input, _ body: (Outcome) -> Void
    ) {
        let delivered = Self.judge(wholeLine: ByteView(segment), maxLineBytes: limits.maxLineBytes) { line in
            switch Self.verdict(line, limits: limits) {
            case .url(let bytes, _): withOutcome(of: bytes, body)
            case .unreadable(_, let message):
                countUnreadable()
                body(Outcome(domain: nil, error: message))
            }
        }
        if !delivered { body(Outcome(domain: nil, error: Self.emptyLineMessage)) }
    }

    /// One URL (trimmed, valid UTF-8) decided, as values: what its record says.
    public func classification(of url: UnsafeBufferPointer<UInt8>) -> Classification {
        classification(of: ByteView(url))
    }

    /// As `classification(of:)`, the URL lent as a view.
    func classification(of url: ByteView) -> Classification {
        var result = Classification(domain: nil, decisions: [], error: nil)
        withOutcome(of: url) { outcome in
            let domain = outcome.domain.map { rules.domains[$0].name }
            guard let document = outcome.document else {
                result = Classification(domain: domain, decisions: [], error: outcome.error)
                return
            }
            var decisions: [AppDecision] = []
            decisions.reserveCapacity(outcome.decisions.count)
            for (app, id) in outcome.decisions.enumerated() {
                let name = document.appIDs[app]
                if id < 0 {
                    decisions.append(AppDecision(app: name, kind: .noMatch))
                } else {
                    let rule = outcome.rule(id)
                    decisions.append(AppDecision(app: name, kind: rule.exclude ? .exclude : .match, entry: rule.entry, rule: rule.rule))
                }
            }
            result = Classification(domain: domain, decisions: decisions, error: nil)
        }
        return result
    }

    /// One URL (trimmed, valid UTF-8) decided, its outcome lent to `body` without building
    /// values: for callers that copy the answer into their own form (libaasa's column batches).
    /// Not generic, so that a caller in another module runs it specialised.
    public func withOutcome(of url: UnsafeBufferPointer<UInt8>, _ body: (Outcome) -> Void) {
        withOutcome(of: ByteView(url), body)
    }

    /// As `withOutcome(of:_:)`, the URL lent as a view.
    @inline(__always)
    func withOutcome(of url: ByteView, _ body: (Outcome) -> Void) {
        switch route(url) {
        case .unsplittable(let message):
            body(Outcome(domain: nil, error: message))
        case .noDomain:
            body(Outcome(domain: nil, error: nil))
        case .failed(let slot, let message):
            body(Outcome(domain: domainIndex(ofSlot: slot), error: message))
        case .decided(let slot, let decisions):
            withDecided(slot, decisions) { index, document, decisions in
                body(Outcome(domain: index, document: document, decisions: decisions))
            }
        }
    }

    /// What one URL came to, valid only inside the `withOutcome` call that lends it.
    public struct Outcome {
        /// The index in `rules.domains` of the domain serving the URL's host, `nil` when none does
        /// (or when the URL could not be split).
        public let domain: Int?
        /// Why the URL got no decisions (the record's `"error"`).
        public let error: String?
        let document: ClassifierRules.Loaded?
        /// Per app of the domain's document, in its order: the deciding rule id, or -1 for
        /// `no_match`; empty without decisions.
        public let decisions: UnsafeBufferPointer<Int32>

        /// An outcome without decisions.
        init(domain: Int?, error: String?) {
            self.domain = domain
            self.error = error
            document = nil
            decisions = BufferView<Int32>.empty.buffer
        }

        /// A decided outcome: `decisions` is lent for as long as the outcome.
        init(domain: Int, document: ClassifierRules.Loaded, decisions: BufferView<Int32>) {
            self.domain = domain
            error = nil
            self.document = document
            self.decisions = decisions.buffer
        }

        /// The deciding rule `id` (from `decisions`, not -1): its entry and rule index, and
        /// whether it excludes.
        public func rule(_ id: Int32) -> (entry: Int, rule: Int, exclude: Bool) {
            guard let document, id >= 0, Int(id) < document.rules.count else { return (-1, -1, false) }
            return document.rules[Int(id)]
        }

        /// The app IDs of the domain's document (empty without decisions).
        public var appIDs: [String] { document?.appIDs ?? [] }
    }

    enum LineVerdict {
        /// A URL to classify; `plain` as `URLLineReader.Line.url` says.
        case url(ByteView, plain: Bool)
        case unreadable(text: String, message: String)
    }

    static func verdict(_ line: URLLineReader.Line, limits: Configuration.Input) -> LineVerdict {
        switch line {
        case .invalid(let text, let error):
            return .unreadable(text: text, message: error.description)
        case .url(let buffer, let plain):
            let bytes = ByteView(buffer)
            if bytes.count > limits.maxURLBytes {
                let (text, message) = tooLong(bytes, limit: limits.maxURLBytes)
                return .unreadable(text: text, message: message)
            }
            if !bytes.isEmpty, bytes[0] == UInt8(ascii: "{") {
                return .unreadable(text: bytes.string(0..<bytes.count), message: jsonLineHint)
            }
            return .url(bytes, plain: plain)
        }
    }

    static func tooLong(_ url: ByteView, limit: Int) -> (text: String, message: String) {
        (url.shownText(), URLSplitError.tooLong(length: url.count, limit: limit).description)
    }
}

/// One URL's outcome as values: the fields of its `classify` record.
public struct Classification: Sendable, Hashable {
    /// The domain whose document serves the URL's host, `nil` when none does (or when the URL
    /// could not be split).
    public var domain: String?
    /// Per app of the document, in its order; empty without a domain or with an error.
    public var decisions: [AppDecision]
    /// Why the URL got no decisions (the record's `"error"`), `nil` when it got them.
    public var error: String?

    public init(domain: String?, decisions: [AppDecision], error: String?) {
        self.domain = domain
        self.decisions = decisions
        self.error = error
    }

    /// The apps the URL opens, in app order (the record's `"apps"`).
    public var apps: [String] { decisions.compactMap { $0.kind == .match ? $0.app : nil } }
}
