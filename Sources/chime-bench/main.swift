// Not installed: micro-benchmarks of ChimeCore for bench/daemon (see bench/daemon.md).
import ChimeCore
import ChimePlatform
import Foundation

let usage = """
    Usage: chime-bench nextfire [--json] [--runs=N] [--quick]
           chime-bench interface --address=BUS [--round-trips=N] [--burst=N]
           chime-bench generator [--runs=N] FILE

    nextfire: times Trigger.nextOccurrence(after:history:systemZone:) for one trigger of each kind: nanoseconds per
    call, the median of N runs (default 7). --quick makes each run short, to try it; --json prints one JSON object.

    interface: one application's client of org.chime.Notifications1 on the bus at BUS (which starts chimed): N
    Add round trips one after the other (default 200), a burst of N Adds in flight together (default 10000) until
    GetPending lists them, then the round trips again with those pending. Prints one JSON object.

    generator: reads FILE, a generator's output (JSON lines), into validated notifications as a start of chimed
    would, N times (default 5), in UTC; prints one JSON object with each run's wall and CPU milliseconds.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("chime-bench: \(message)\n\(usage)\n".utf8))
    exit(64)
}

func option(_ argument: String, _ name: String) -> String? {
    argument.hasPrefix("--\(name)=") ? String(argument.dropFirst(name.count + 3)) : nil
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "nextfire": runNextFire(arguments.dropFirst())
case "interface": await runInterface(arguments.dropFirst())
case "generator": runGenerator(arguments.dropFirst())
default: fail(arguments.isEmpty ? "no benchmark named" : "unknown benchmark")
}

func runNextFire(_ arguments: ArraySlice<String>) {
    var benchmark = NextFireBenchmark()
    var json = false
    for argument in arguments {
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
}

func runInterface(_ arguments: ArraySlice<String>) async {
    var address: String?
    var roundTrips = 200
    var burst = 10_000
    for argument in arguments {
        if let value = option(argument, "address") {
            address = value
        } else if let value = option(argument, "round-trips"), let number = Int(value), number > 0 {
            roundTrips = number
        } else if let value = option(argument, "burst"), let number = Int(value), number > 0 {
            burst = number
        } else {
            fail("unknown option \(argument)")
        }
    }
    guard let address else { fail("interface needs --address=BUS") }
    let tomorrow = Int(Date().timeIntervalSince1970) + 86_400
    do {
        let client = try InterfaceBenchmark(address: address)
        let empty = try await client.roundTrips(roundTrips, prefix: "single", at: tomorrow)
        let (answered, listed) = try await client.burst(burst, prefix: "burst", at: tomorrow)
        let loaded = try await client.roundTrips(roundTrips, prefix: "loaded", at: tomorrow)
        let report: [String: Any] = [
            "round_trips_us": empty, "burst": ["count": burst, "answered_ms": answered, "listed_ms": listed],
            "round_trips_loaded_us": loaded, "pending_while_loaded": burst + roundTrips,
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    } catch {
        FileHandle.standardError.write(Data("chime-bench: \(error)\n".utf8))
        exit(1)
    }
}

func runGenerator(_ arguments: ArraySlice<String>) {
    var path: String?
    var runs = 5
    for argument in arguments {
        if let value = option(argument, "runs") {
            guard let number = Int(value), number > 0 else { fail("bad \(argument)") }
            runs = number
        } else if argument.hasPrefix("-") || path != nil {
            fail("unknown option \(argument)")
        } else {
            path = argument
        }
    }
    guard let path, let data = FileManager.default.contents(atPath: path) else { fail("generator needs a FILE") }
    let output = [UInt8](data)
    let benchmark = GeneratorBenchmark(output: output, runs: runs)
    let (timed, notifications, problems) = benchmark.run(systemZone: try! ZoneDatabase.system.rules(named: "UTC"))
    let lines = output.count { $0 == UInt8(ascii: "\n") }
    let report: [String: Any] = [
        "lines": lines, "notifications": notifications, "problems": problems,
        "wall_ms": timed.map(\.wallMilliseconds), "cpu_ms": timed.map(\.cpuMilliseconds),
    ]
    let json = try! JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}
