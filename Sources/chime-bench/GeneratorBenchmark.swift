import ChimeCore
import ChimePlatform
import Foundation

/// Times reading a generator's output into validated notifications (`GeneratorOutput.validated(parsing:path:by:)`),
/// the part of a start or of a rebuild with changed output that grows with the number of lines, without the
/// process, the pipe and the install around it.
struct GeneratorBenchmark {
    /// The figures of one timed run.
    struct Run: Sendable {
        var wallMilliseconds: Double
        /// User and system time of the whole process during the run, all threads.
        var cpuMilliseconds: Double
    }

    var output: [UInt8]
    var runs = 5

    /// Reads each line of `output` as chimed would at a start, `runs` times, and how many lines gave a
    /// notification (the same every run).
    func run(systemZone: ZoneRules) -> (runs: [Run], notifications: Int, problems: Int) {
        var timed: [Run] = []
        var notifications = 0
        var problems = 0
        for _ in 0..<runs {
            let loader = NotificationLoader(
                systemZone: systemZone, zones: ZoneDatabase.system.cachingLookups(), calendarCache: CalendarCache())
            let cpuBefore = Self.processCPU()
            let start = ContinuousClock.now
            let results = GeneratorOutput.validated(parsing: output, path: "bench", by: loader)
            let wall = ContinuousClock.now - start
            let cpu = Self.processCPU() - cpuBefore
            notifications = results.count { $0.result.notification != nil }
            problems = results.reduce(0) { $0 + $1.result.diagnostics.count }
            timed.append(Run(wallMilliseconds: Self.milliseconds(wall), cpuMilliseconds: Self.milliseconds(cpu)))
        }
        return (timed, notifications, problems)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    static func processCPU() -> Duration {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}
