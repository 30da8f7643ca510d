// The Swift side of `make bench-embed`'s decide pairing: the README's Swift API
// (`DFAMatcher.decide(_:app:)` on a `CompiledDocument`), one URL per call, on the documents and
// URLs that Benchmarks/Embed/decide_bench.c runs through libaasa's `aasa_decide`. The two print
// the same line, so that Benchmarks/Embed/bench_embed.py can interleave them and pair rounds.
// No jemalloc here: libaasa runs on its caller's malloc (glibc's in the C program), and so does
// this side.
//
// usage: aasa-bench-decide MANIFEST URLS REPETITIONS
//   MANIFEST     lines "DOCUMENT-PATH<TAB>DOMAIN"
//   URLS         one URL per line, each on DOMAIN's host
// prints: documents D urls U decides N wall_ns W cpu_ns C checksum K
import AASAKit
import Foundation

func clock(_ id: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(id, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let repetitions = Int(arguments[3]), repetitions > 0,
    let manifest = try? String(contentsOfFile: arguments[1], encoding: .utf8),
    let urlText = try? String(contentsOfFile: arguments[2], encoding: .utf8)
else {
    FileHandle.standardError.write(Data("usage: aasa-bench-decide MANIFEST URLS REPETITIONS\n".utf8))
    exit(2)
}
let urls = urlText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
var documents = 0
var decides = 0
var wall = 0.0
var cpu = 0.0
// Matches plus errors: both sides must arrive at the same figure, or they did not decide alike.
var checksum = 0
for line in manifest.split(separator: "\n") {
    let fields = line.split(separator: "\t").map(String.init)
    guard fields.count == 2, let bytes = FileManager.default.contents(atPath: fields[0]),
        let document = try? AASADocument(bytes: Array(bytes)),
        let compiled = try? CompiledDocument(document: document, domain: fields[1])
    else { continue }
    let matcher = DFAMatcher(compiled)
    func pass(count: Bool) {
        for url in urls {
            do {
                let decision = try matcher.decide(url, app: nil)
                if count { checksum += decision.decisions.reduce(0) { $0 + ($1.kind == .match ? 1 : 0) } }
            } catch {
                if count { checksum += 1 }
            }
        }
    }
    pass(count: true)  // warm-up: the lazy DFA's states are built here, as the C side's are
    let (wall0, cpu0) = (clock(CLOCK_MONOTONIC), clock(CLOCK_THREAD_CPUTIME_ID))
    for _ in 0..<repetitions { pass(count: false) }
    wall += clock(CLOCK_MONOTONIC) - wall0
    cpu += clock(CLOCK_THREAD_CPUTIME_ID) - cpu0
    documents += 1
    decides += urls.count * repetitions
}
print("documents \(documents) urls \(urls.count) decides \(decides) wall_ns \(Int(wall)) cpu_ns \(Int(cpu)) checksum \(checksum)")
