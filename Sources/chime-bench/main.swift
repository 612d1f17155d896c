// Not installed: micro-benchmarks of ChimeCore for bench/daemon (see bench/daemon.md).
import ChimeCore
import Foundation

let usage = """
    Usage: chime-bench nextfire [--json] [--runs=N] [--quick]

    Times Trigger.nextOccurrence(after:history:systemZone:) for one trigger of each kind: nanoseconds per call,
    the median of N runs (default 7). --quick makes each run short, to try it; --json prints one JSON object.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("chime-bench: \(message)\n\(usage)\n".utf8))
    exit(64)
}

var benchmark = NextFireBenchmark()
var json = false
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "nextfire" else { fail(arguments.isEmpty ? "no benchmark named" : "unknown benchmark") }
for argument in arguments.dropFirst() {
    switch argument {
    case "--json": json = true
    case "--quick": benchmark.minimumRunTime = .milliseconds(2)
    case _ where argument.hasPrefix("--runs="):
        guard let runs = Int(argument.dropFirst("--runs=".count)), runs > 0 else { fail("bad \(argument)") }
        benchmark.runs = runs
    default: fail("unknown option \(argument)")
    }
}

let results: [NextFireBenchmark.Result]
do {
    results = try benchmark.run()
} catch {
    FileHandle.standardError.write(Data("chime-bench: \(error)\n".utf8))
    exit(1)
}
print(json ? NextFireReport.json(results, runs: benchmark.runs) : NextFireReport.table(results))
