import AASAKit
import CCurl
import Foundation

/// Many HTTPS GETs at once through libcurl's multi interface: bounded connections, connection
/// reuse, timeouts, a size cap, and retries with backoff for transient failures only.
///
/// HTTP and TLS are libcurl's (never hand-written here); this file decides what to ask for and
/// how to read the outcome. Redirects are never followed (Apple does not follow them for this
/// file), and certificates are always verified: against libcurl's default store, or against
/// `Options.caBundle` (`TrustStore.bundle(adding:)` makes one of the system store plus more).
/// Retries cover what may succeed a moment later: no connection, 5xx, and 429 after its
/// `Retry-After`. A request and its retries share one `--timeout`: a retry is made only while
/// that time lasts, and gets what is left of it, and a timeout is final. So a server that
/// stalls, or answers 500 a moment before the timeout, costs one `--timeout` a URL, not one an
/// attempt.
public final class Transfers {
    /// How the transfers run; the defaults are `aasa fetch`'s.
    public struct Options: Sendable {
        public var jobs = 32
        public var connectTimeout = 10.0
        public var timeout = 30.0
        public var limit = 131_072
        public var retries = 2
        /// The first backoff; each further retry doubles it.
        public var retryDelay = 1.0
        /// A `Retry-After` longer than this, or than `timeout`, is not waited for: the failure
        /// is reported.
        public var maxRetryAfter = 60.0
        /// The one CA bundle file to trust (see `TrustStore`); `nil` for libcurl's default store.
        public var caBundle: String?
        public var connectTo: [String] = []
        public var progress = false
        /// Sent as User-Agent, so that server logs can tell the checker from a device.
        public var userAgent = "aasa"

        public init() {}
    }

    /// One GET.
    public struct Request: Sendable {
        public var url: String
        /// Extra request headers, "Name: value".
        public var headers: [String] = []

        public init(url: String, headers: [String] = []) {
            self.url = url
            self.headers = headers
        }
    }

    /// What came back for one request, after any retries.
    public struct Response: Sendable {
        public var url: String
        /// `nil` when no HTTP response arrived.
        public var status: Int?
        /// Lowercased names; the last value of a repeated header.
        public var headers: [String: String] = [:]
        public var body: [UInt8] = []
        /// The failure, or `nil` for any HTTP response read completely within the limit.
        public var failure: FetchRecord.FailureKind?
        public var error: String?
        public var attempts = 1

        /// The value of a header, by its lowercased name.
        public func header(_ name: String) -> String? { headers[name] }
    }

    public let options: Options
    /// Appended to the progress line, e.g. which slice of the domains this batch is.
    public var progressNote = ""
    /// One multi handle for every batch: its connection cache lets the root-path retry and the
    /// CDN requests (one host for all domains) reuse the connections earlier batches opened.
    private let multi: UnsafeMutableRawPointer?

    public init(options: Options) {
        self.options = options
        _ = Transfers.globalInit
        multi = curl_multi_init()
        if let multi {
            _ = aasa_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, options.jobs))
            _ = aasa_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, options.jobs))
        }
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }
    }

    /// libcurl's one-time process setup, done before the first handle exists.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_SSL))

    /// Performs every request, at most `jobs` at a time, and returns the responses in request
    /// order.
    public func run(_ requests: [Request], label: String = "fetched") -> [Response] {
        var responses = [Response?](repeating: nil, count: requests.count)
        guard !requests.isEmpty else { return [] }
        guard let multi else {
            return requests.map { Response(url: $0.url, failure: .connection, error: "cannot start libcurl") }
        }
        var fresh = Array(requests.indices.reversed())
        var waiting: [Attempt] = []
        var active: [UnsafeMutableRawPointer: TransferState] = [:]
        var idle: [UnsafeMutableRawPointer] = []
        defer {
            for (handle, state) in active {
                curl_multi_remove_handle(multi, handle)
                curl_easy_cleanup(handle)
                state.release()
            }
            for handle in idle { curl_easy_cleanup(handle) }
        }
        var done = 0
        let progress = ProgressLine(enabled: options.progress, label: label, total: requests.count, note: progressNote)
        while done < requests.count {
            let now = Self.now()
            while active.count < max(1, options.jobs) {
                let next: Attempt
                if let due = waiting.firstIndex(where: { $0.due <= now }) {
                    next = waiting.remove(at: due)
                } else if let index = fresh.popLast() {
                    next = Attempt(due: now, index: index, number: 1, deadline: now + options.timeout)
                } else {
                    break
                }
                guard let handle = idle.popLast() ?? curl_easy_init() else {
                    responses[next.index] = Response(
                        url: requests[next.index].url, failure: .connection, error: "cannot start libcurl")
                    done += 1
                    continue
                }
                let state = TransferState(request: requests[next.index], attempt: next, limit: options.limit)
                configure(handle, state)
                if curl_multi_add_handle(multi, handle) != CURLM_OK {
                    responses[next.index] = Response(
                        url: requests[next.index].url, failure: .connection, error: "cannot start the transfer")
                    done += 1
                    curl_easy_cleanup(handle)
                    // The callbacks' reference `configure` took: the handle is gone, so no
                    // callback can run, and nothing else would give it back.
                    state.release()
                    continue
                }
                active[handle] = state
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                // SAFETY: `message` stays valid until its handle is removed or cleaned up
                // (libcurl's docs); both reads of it, here and `data.result` below, come before
                // `curl_multi_remove_handle`.
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let state = active.removeValue(forKey: handle)
                else { continue }
                let code = message.pointee.data.result
                var status = 0
                _ = aasa_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                curl_multi_remove_handle(multi, handle)
                var response = finish(state, code: code, status: status)
                if response.failure == .timeout, var previous = state.attempt.previous {
                    // A retry that ran out of the request's time: the answer to report is the
                    // one that made it retry.
                    previous.attempts = state.attempt.number
                    response = previous
                }
                curl_easy_reset(handle)
                state.release()
                idle.append(handle)
                let attempt = state.attempt
                if let delay = retryDelay(response, attempt: attempt.number), Self.now() + delay < attempt.deadline {
                    waiting.append(
                        Attempt(due: Self.now() + delay, index: attempt.index, number: attempt.number + 1, deadline: attempt.deadline, previous: response))
                } else {
                    responses[attempt.index] = response
                    done += 1
                    progress.update(done)
                }
            }
            if done == requests.count { break }
            // Sleep until libcurl has work or the next retry is due.
            var wait = 1000.0
            if let due = waiting.map(\.due).min() { wait = min(wait, max(0, (due - Self.now()) * 1000)) }
            if active.isEmpty {
                if wait > 0 { usleep(UInt32(min(wait, 1000) * 1000)) }
            } else {
                curl_multi_poll(multi, nil, 0, Int32(max(1, wait)), nil)
            }
        }
        progress.finish()
        return requests.indices.map {
            responses[$0] ?? Response(url: requests[$0].url, failure: .connection, error: "not performed")
        }
    }

    /// One try at a request: which, the how-manieth, and until when its request may take.
    struct Attempt {
        var due: Double
        var index: Int
        var number: Int
        /// When the request's time (`--timeout`, shared by its retries) runs out, in `now()`.
        var deadline: Double
        /// What the attempt before this one got.
        var previous: Response?
    }

    private func configure(_ handle: UnsafeMutableRawPointer, _ state: TransferState) {
        // SAFETY: the callbacks' reference, given back exactly once (`retained`) by `release()`,
        // which runs only once the handle is out of the multi handle and reset or cleaned up
        // (or was never added to it).
        let context = Unmanaged.passRetained(state).toOpaque()
        state.retained = true
        _ = aasa_easy_setopt_string(handle, CURLOPT_URL, state.request.url)
        _ = aasa_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https,http")
        _ = aasa_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = aasa_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = aasa_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = aasa_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        // A retry gets what is left of its request's time, at least a millisecond.
        let left = max(0.001, state.attempt.deadline - Self.now())
        _ = aasa_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(min(options.connectTimeout, left) * 1000))
        _ = aasa_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(left * 1000))
        _ = aasa_easy_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent)
        if let bundle = options.caBundle {
            _ = aasa_easy_setopt_string(handle, CURLOPT_CAINFO, bundle)
            // The bundle holds the whole store, so the CA folder adds nothing; and libcurl
            // caches a parsed bundle between connections only when no CA folder is set, which
            // spares parsing some hundred certificates on every handshake.
            _ = aasa_easy_setopt_string(handle, CURLOPT_CAPATH, nil)
        }
        // SAFETY: `errorBuffer` has the `CURL_ERROR_SIZE` bytes libcurl may write, and lives as
        // long as `state`, which is alive until the handle is reset or cleaned up (see `context`).
        _ = aasa_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, state.errorBuffer)
        _ = aasa_easy_setopt_callback(handle, CURLOPT_WRITEFUNCTION, bodyCallback)
        _ = aasa_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = aasa_easy_setopt_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
        _ = aasa_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        // SAFETY: libcurl keeps both lists without copying them; `release()` frees them only after
        // the handle is reset or cleaned up.
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in state.request.headers { headers = curl_slist_append(headers, header) }
        state.headerList = headers
        if let headers { _ = aasa_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) }
        var connectTo: UnsafeMutablePointer<curl_slist>?
        for entry in options.connectTo { connectTo = curl_slist_append(connectTo, entry) }
        state.connectToList = connectTo
        if let connectTo { _ = aasa_easy_setopt_slist(handle, CURLOPT_CONNECT_TO, connectTo) }
    }

    private func finish(_ state: TransferState, code: CURLcode, status: Int) -> Response {
        var response = Response(
            url: state.request.url, status: status > 0 ? status : nil, headers: state.headers, body: state.body)
        response.attempts = state.attempt.number
        // SAFETY: the buffer was zeroed in `init`, and libcurl writes a NUL-terminated message
        // within its `CURL_ERROR_SIZE` bytes.
        let detail = String(cString: state.errorBuffer)
        var reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if code == CURLE_OUT_OF_MEMORY, detail.isEmpty {
            // libcurl refuses a header line past its 100 KB this way, with no message of its
            // own: "Out of memory" alone would blame this machine for what the server sent.
            reason = "a header line is longer than libcurl accepts (100 KB), or memory ran out"
        }
        if state.tooLarge, status == 200 {
            response.failure = .tooLarge
            response.error = "the body is larger than \(options.limit) bytes; refused"
            response.body = []
            return response
        }
        if let problem = state.headerProblem {
            response.failure = .invalidResponse
            response.status = nil
            response.body = []
            response.error = "the response cannot be read: \(problem)"
            return response
        }
        switch code {
        case CURLE_OK:
            return response
        case CURLE_WRITE_ERROR where state.tooLarge:
            // A long error page: the status says what went wrong.
            response.body = []
            return response
        case CURLE_OPERATION_TIMEDOUT:
            response.failure = .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
            response.failure = .tls
        case CURLE_WEIRD_SERVER_REPLY, CURLE_PARTIAL_FILE, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL,
            CURLE_HTTP2_STREAM, CURLE_OUT_OF_MEMORY, CURLE_RANGE_ERROR, CURLE_FILESIZE_EXCEEDED:
            // The server answered; what it sent is not HTTP libcurl can read (libcurl reports a
            // header past its size limit as out of memory).
            response.failure = .invalidResponse
        case CURLE_RECV_ERROR where status > 0:
            // The server answered, then sent what cannot be read (a chunk size that is not
            // hexadecimal): not a connection to try again.
            response.failure = .invalidResponse
        case CURLE_RECV_ERROR where Self.refusedByHTTP2Parser(detail), CURLE_HTTP2 where Self.refusedByHTTP2Parser(detail):
            // HTTP/2 frames the server sent that nghttp2 refuses (a header block continued
            // without end, headers past libcurl's limit), before any status: the server's fault,
            // like broken HTTP/1.1 framing, not a lost connection to retry.
            response.failure = .invalidResponse
            if detail.contains("-902") {
                // libcurl's own header callback refused the block, and nghttp2 says only that "the
                // user callback function failed", which reads as this program's fault.
                reason = "libcurl refused its HTTP/2 headers (it takes at most 128 KB of them): \(detail)"
            }
        default:
            response.failure = .connection
        }
        response.status = nil
        response.body = []
        response.error = response.failure == .invalidResponse ? "the response cannot be read: \(reason)" : reason
        return response
    }

    /// Whether libcurl's message says nghttp2 refused what the server sent: libcurl reports
    /// those as a receive error (or, in later versions, an HTTP/2 error) naming nghttp2, which
    /// a socket that failed never does.
    static func refusedByHTTP2Parser(_ detail: String) -> Bool {
        detail.contains("nghttp2")
    }

    /// The delay before another attempt, or `nil` when the response is final.
    private func retryDelay(_ response: Response, attempt: Int) -> Double? {
        guard attempt <= options.retries else { return nil }
        let backoff = options.retryDelay * pow(2, Double(attempt - 1))
        if response.failure == .connection { return backoff }
        guard response.failure == nil, let status = response.status else { return nil }
        // A `Retry-After` that is neither seconds nor a date is ignored (RFC 9110, 10.2.3): the
        // status is retried with backoff, as it is without the header.
        if status == 429 || status == 503, let after = response.header("retry-after"), let seconds = Self.retryAfterSeconds(after) {
            // Never longer than a request may take (`--timeout`): a server cannot hold a domain
            // for minutes by asking to be retried later.
            guard seconds <= min(options.maxRetryAfter, options.timeout) else { return nil }
            return max(seconds, 0)
        }
        if status == 429 || (500...599).contains(status) { return backoff }
        return nil
    }

    /// `Retry-After` as seconds from now: a number of seconds, or an HTTP date.
    static func retryAfterSeconds(_ value: String) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return Double(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return date.timeIntervalSinceNow
    }

    /// Monotonic seconds, for deadlines and backoff.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// One transfer's buffers, reached from libcurl's callbacks through an opaque pointer.
final class TransferState {
    let request: Transfers.Request
    let attempt: Transfers.Attempt
    let limit: Int
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var tooLarge = false
    /// The blank line after the headers has come: further header lines are trailers.
    var headersEnded = false
    /// Header fields of the current response, counted as they come (repeats included).
    var headerFields = 0
    /// Bytes of trailer lines so far: libcurl bounds the headers but not the trailers after a
    /// chunked body, and a server sending them without end filled gigabytes within `--timeout`.
    var trailerBytes = 0
    static let maxTrailerBytes = 64 << 10
    /// What makes the current response's headers unreadable as one answer: more fields than
    /// any server sends, or two Content-Lengths that disagree (which one framed the body?).
    var headerProblem: String?
    /// The status of the response whose headers are coming, from its status line.
    var status = 0
    let errorBuffer: UnsafeMutablePointer<CChar>
    var headerList: UnsafeMutablePointer<curl_slist>?
    var connectToList: UnsafeMutablePointer<curl_slist>?
    var retained = false

    init(request: Transfers.Request, attempt: Transfers.Attempt, limit: Int) {
        self.request = request
        self.attempt = attempt
        self.limit = limit
        // SAFETY: allocated and zeroed here (an empty C string until libcurl writes one), freed
        // once, in `deinit`.
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Drops what libcurl held: the lists and the reference the callbacks used. Called once
    /// the handle is out of the multi handle and reset (or cleaned up), so nothing points here
    /// any more.
    func release() {
        curl_slist_free_all(headerList)
        curl_slist_free_all(connectToList)
        headerList = nil
        connectToList = nil
        if retained {
            retained = false
            // SAFETY: gives back the reference `configure` took, at most once (`configure` set
            // `retained`, cleared just above); the caller still holds `self`.
            Unmanaged.passUnretained(self).release()
        }
    }

    deinit { errorBuffer.deallocate() }
}

private let bodyCallback: aasa_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    // SAFETY: `context` is the state `configure` retained for this handle; that reference is given
    // back only once libcurl no longer calls back for it (see `TransferState.release()`).
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    let needed = state.body.count + length
    guard needed <= state.limit else {
        // Returning less than given makes libcurl stop the transfer (CURLE_WRITE_ERROR).
        state.tooLarge = true
        return 0
    }
    // Grown by doubling up to the limit, never past it: appending alone made a body of the
    // limit hold twice that, for every transfer at once.
    if needed > state.body.capacity { state.body.reserveCapacity(min(state.limit, max(needed, state.body.capacity * 2))) }
    // SAFETY: libcurl passes `size * count` readable bytes at `data` for this call; `CChar` and
    // `UInt8` share a layout, and the bytes are copied before the callback returns.
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

private let headerCallback: aasa_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    // SAFETY: as in `bodyCallback`: the state `configure` retained, alive until `release()`.
    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    if state.headersEnded {
        state.trailerBytes += length
        if state.trailerBytes > TransferState.maxTrailerBytes {
            // Returning less than given stops the transfer; the response is refused as such.
            state.headerProblem = state.headerProblem ?? "more than \(TransferState.maxTrailerBytes) bytes of trailers"
            return 0
        }
    }
    // SAFETY: as in `bodyCallback`: `size * count` bytes at `data`, decoded (copied) here.
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }.trimmingCharacters(in: .whitespacesAndNewlines)
    if line.hasPrefix("HTTP/") {
        // A new response (after a 100 Continue, say): only the last one's headers count.
        state.headers = [:]
        state.headersEnded = false
        state.headerFields = 0
        state.trailerBytes = 0
        state.headerProblem = nil
        state.status = line.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
    } else if line.isEmpty {
        if !state.headersEnded, state.status == 200, let length = state.headers["content-length"].flatMap({ Int($0) }),
            length > state.limit
        {
            // A body announced over the limit is refused now, not read (or waited for) first.
            state.tooLarge = true
            return 0
        }
        state.headersEnded = true
    } else if !state.headersEnded, state.headerFields >= 200 {
        // Kept no further, and the response is refused: a Content-Encoding or a second
        // Content-Length past the cut would otherwise go unseen.
        state.headerProblem = state.headerProblem ?? "more than 200 header fields"
    } else if !state.headersEnded, let colon = line.firstIndex(of: ":") {
        state.headerFields += 1
        // After the blank line only trailers come (a chunked body's), and the response is
        // judged by its headers: a trailer must not replace the Content-Type the body was sent
        // with. A repeated header keeps every value, comma-joined as HTTP combines fields, so
        // two Content-Types read as neither.
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = String(line[line.index(after: colon)...].prefix(8192)).trimmingCharacters(in: .whitespaces)
        if let earlier = state.headers[name] {
            if name == "content-length", earlier != value {
                state.headerProblem = state.headerProblem ?? "two Content-Length headers that disagree (\(earlier.prefix(20)) and \(value.prefix(20)))"
            }
            state.headers[name] = String((earlier + ", " + value).prefix(8192))
        } else {
            state.headers[name] = value
        }
    }
    return length
}

/// "fetched 120/1000" on standard error, rewritten in place, only when it is a terminal.
final class ProgressLine {
    let enabled: Bool
    let label: String
    let total: Int
    let note: String
    private var last = 0.0

    init(enabled: Bool, label: String, total: Int, note: String) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
        self.label = label
        self.total = total
        self.note = note
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let now = Transfers.now()
        guard now - last > 0.1 || done == total else { return }
        last = now
        FileHandle.standardError.write(Data("\r\(label) \(done)/\(total)\(note)".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
