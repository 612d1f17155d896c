import ChimeCore
import ChimeDaemon
import Foundation

/// Times `Trigger.nextOccurrence(after:history:systemZone:)`, the call the scheduler makes for every notification at
/// each rebuild and after each fire, for one trigger of each kind.
///
/// Each trigger is read from the `[Trigger]` lines a notification file would have, through `NotificationLoader`, so
/// it is the value chimed would schedule. The instants asked about are spread over the year 2026, on every weekday
/// and hour and on both sides of the DST changes, and each case is asked about them in turn.
struct NextFireBenchmark {
    /// One kind of trigger, as the lines of its `[Trigger]` section.
    struct Case: Sendable {
        var kind: String
        var lines: [String]
        /// Asked about the instants in ascending order, each after the answer to the one before, as the scheduler
        /// asks after each fire; otherwise about the spread `queries`.
        var inOrder = false
    }

    /// The figures of one case: nanoseconds per call in each timed run.
    struct Result: Sendable {
        var kind: String
        var lines: [String]
        var callsPerRun: Int
        var nanosecondsPerCall: [Double]
        /// How many of the instants asked about have a next occurrence (the others get `nil`).
        var found: Int
        var queries: Int

        var median: Double { nanosecondsPerCall.sorted()[nanosecondsPerCall.count / 2] }
    }

    enum Failure: Error, CustomStringConvertible {
        case invalidCase(String, [String])

        var description: String {
            switch self {
            case .invalidCase(let kind, let problems):
                return "the \(kind) case does not load: \(problems.joined(separator: "; "))"
            }
        }
    }

    /// 2026-01-01 00:00:00 UTC, the base time of bench/run's calendar suite.
    static let baseTime = Date(timeIntervalSince1970: 1_767_225_600)

    static let cases: [Case] = [
        Case(kind: "At= one-shot", lines: ["At=2026-07-01 09:00:00 UTC"]),
        Case(kind: "Every=", lines: ["Every=90min"]),
        Case(kind: "OnCalendar= simple", lines: ["OnCalendar=Mon..Fri 09:55"]),
        Case(kind: "OnCalendar= ranged", lines: ["OnCalendar=Mon..Fri 08..18:00/30"]),
        Case(kind: "OnCalendar= repeated", lines: ["OnCalendar=*:0/15"]),
        Case(kind: "OnCalendar= zoned (in the spec)", lines: ["OnCalendar=*-*-* 02:30 Europe/Berlin"]),
        Case(kind: "OnCalendar= zoned (TimeZone=)", lines: ["OnCalendar=*-*-* 02:30", "TimeZone=Europe/Berlin"]),
        Case(
            kind: "Every= with Count=, Until=",
            lines: ["Every=90min", "From=2026-01-01 00:00:00 UTC", "Count=5000", "Until=2026-12-31 23:59:59 UTC"]),
        Case(
            kind: "mixed with Until=",
            lines: [
                "OnCalendar=Mon..Fri 09:55", "OnCalendar=Sat,Sun 10:30", "Every=6h", "At=2026-07-01 12:00:00 UTC",
                "From=2026-01-01 00:00:00 UTC", "Until=2026-12-31 23:59:59 UTC", "TimeZone=Europe/Berlin",
            ]),
        Case(
            kind: "mixed with Count=, Until=",
            lines: [
                "OnCalendar=Mon..Fri 09:55", "OnCalendar=Sat,Sun 10:30", "Every=6h", "At=2026-07-01 12:00:00 UTC",
                "From=2026-01-01 00:00:00 UTC", "Count=2000", "Until=2026-12-31 23:59:59 UTC",
                "TimeZone=Europe/Berlin",
            ]),
        // RRule= started ten years before the instants asked about: none may walk from DTSTART at each call.
        Case(
            kind: "RRule= daily, started 2016",
            lines: [
                "RRule=FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0", "From=2016-01-01 00:00:00", "TimeZone=Europe/Berlin",
            ]),
        Case(
            kind: "RRule= last working day, started 2016",
            lines: [
                "RRule=FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "From=2016-01-01 17:00:00",
                "TimeZone=Europe/Berlin",
            ]),
        Case(
            kind: "RRule= every 90 minutes, started 2016",
            lines: ["RRule=FREQ=MINUTELY;INTERVAL=90", "From=2016-01-01 00:00:00", "TimeZone=Europe/Berlin"]),
        Case(
            kind: "RRule= with COUNT, spread",
            lines: ["RRule=FREQ=DAILY;COUNT=5000", "From=2016-01-01 09:00:00", "TimeZone=Europe/Berlin"]),
        Case(
            kind: "RRule= with COUNT, in order",
            lines: ["RRule=FREQ=DAILY;COUNT=5000", "From=2016-01-01 09:00:00", "TimeZone=Europe/Berlin"],
            inOrder: true),
        Case(
            kind: "RRule= hourly with COUNT, in order",
            lines: ["RRule=FREQ=HOURLY;COUNT=200000", "From=2016-01-01 09:00:00", "TimeZone=Europe/Berlin"],
            inOrder: true),
    ]

    /// Timed runs per case; the figure is their median.
    var runs = 7
    /// Each run makes at least this many calls, and doubles them until a run lasts `minimumRunTime`.
    var minimumCalls = 1_024
    var minimumRunTime = Duration.milliseconds(20)

    /// The instants asked about: 4,096 of them over 2026, each 0.618 of a year (the golden ratio, to the second)
    /// after the one before, modulo the year, so that the first thousand are spread over the year as evenly as all
    /// of them: a slow case timed on fewer calls still sees instants of every month.
    static let queries: [Date] = (0..<4_096).map { index in
        baseTime.addingTimeInterval(Double(index * 19_490_621 % (365 * 86_400)))
    }

    func run(_ selected: [Case] = cases) throws -> [Result] {
        let loader = NotificationLoader(systemZone: .utc, zones: .system)
        return try selected.map { benchmarkCase in
            let text =
                "[Notification]\nTitle=\(benchmarkCase.kind)\n\n[Trigger]\n"
                + benchmarkCase.lines.joined(separator: "\n") + "\n"
            let loaded = loader.load(UnitFile(parsing: text, path: "bench.notification"), id: "bench", path: "bench")
            guard let trigger = loaded.notification?.trigger else {
                throw Failure.invalidCase(benchmarkCase.kind, loaded.diagnostics.map { "\($0)" })
            }
            return measure(benchmarkCase, trigger: trigger)
        }
    }

    private func measure(_ benchmarkCase: Case, trigger: Trigger) -> Result {
        let history = DeliveryHistory(firstSeen: Self.baseTime.addingTimeInterval(-86_400))
        let time = benchmarkCase.inOrder ? Self.timeInOrder : Self.time
        var calls = minimumCalls
        while calls < 1 << 26 && time(trigger, history, calls).elapsed < minimumRunTime {
            calls *= 2
        }
        let nanoseconds = (0..<runs).map { _ in
            let elapsed = time(trigger, history, calls).elapsed
            return elapsed.timeInterval * 1e9 / Double(calls)
        }
        let found = Self.queries.filter {
            trigger.nextOccurrence(after: $0, history: history, systemZone: .utc) != nil
        }.count
        return Result(
            kind: benchmarkCase.kind, lines: benchmarkCase.lines, callsPerRun: calls, nanosecondsPerCall: nanoseconds,
            found: found, queries: Self.queries.count)
    }

    /// `calls` calls, cycling through the queries; the checksum keeps the optimiser from dropping them.
    @inline(never)
    private static func time(_ trigger: Trigger, history: DeliveryHistory, calls: Int) -> (
        elapsed: Duration, checksum: Int64
    ) {
        let queries = Self.queries
        let clock = ContinuousClock()
        var checksum: Int64 = 0
        let start = clock.now
        for index in 0..<calls {
            let next = trigger.nextOccurrence(
                after: queries[index % queries.count], history: history, systemZone: .utc)
            checksum &+= next?.epochMicroseconds ?? 1
        }
        let elapsed = clock.now - start
        blackHole(checksum)
        return (elapsed, checksum)
    }

    /// `calls` calls, each after the answer to the one before, from the base time (and from there again when the
    /// occurrences run out).
    @inline(never)
    private static func timeInOrder(_ trigger: Trigger, history: DeliveryHistory, calls: Int) -> (
        elapsed: Duration, checksum: Int64
    ) {
        let clock = ContinuousClock()
        var checksum: Int64 = 0
        var after = baseTime
        let start = clock.now
        for _ in 0..<calls {
            let next = trigger.nextOccurrence(after: after, history: history, systemZone: .utc)
            checksum &+= next?.epochMicroseconds ?? 1
            after = next ?? baseTime
        }
        let elapsed = clock.now - start
        blackHole(checksum)
        return (elapsed, checksum)
    }
}

@inline(never)
func blackHole(_ value: Int64) {
    if value == 0x5EED_5EED_5EED_5EED { print("") }
}
