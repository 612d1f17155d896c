import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

private let systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Re-asks the installed `systemd-analyze` a sample of what the recorded tables hold, so that a different systemd
/// version shows up as a failure here. Skipped where systemd-analyze is not installed.
@Suite(.enabled(if: systemdAnalyze != nil, "systemd-analyze is not installed"))
struct TimeSyntaxLiveTests {
    static let tool = systemdAnalyze

    /// The `Key: value` lines of systemd-analyze's output, keys trimmed.
    private static func fields(_ output: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            fields[line[..<colon.lowerBound].trimmingCharacters(in: .whitespaces)] = String(line[colon.upperBound...])
        }
        return fields
    }

    @Test(arguments: [
        "15min", "1h 30min", "1.5h", "90", ".5", "1 2", "5y 5M 5w 5d", "1.999us", "61.5s", "12.34s.56", "1M1m",
        "infinity", "9223372036854775807us", "5mins", "5.", "-5", "584542y", "",
    ])
    func timespanAgreesWithSystemdAnalyze(input: String) throws {
        let output = try ProcessRunner.run(try #require(Self.tool), ["timespan", "--", input])
        let fields = Self.fields(output.standardOutput)
        switch Result(catching: { () throws(TimeParseError) in try Timespan.parse(input) }) {
        case .success(let span):
            #expect(output.status == 0)
            #expect(fields["μs"] == String(span.microseconds))
            #expect(fields["Human"] == span.description)
        case .failure(let error):
            #expect(output.status != 0)
            let reason = error.isOutOfRange ? "Numerical result out of range" : "Invalid argument"
            #expect(output.standardError.contains(reason))
        }
    }

    /// Inputs that depend neither on the clock nor on a zone name (which systemd-analyze 252 cannot parse).
    @Test(arguments: [
        ("UTC", "2026-12-01 07:00"), ("UTC", "Tue 2026-12-01 07:00:00.5"), ("UTC", "26-02-30"),
        ("UTC", "2026-12-01 23:59:60"), ("UTC", "@1796108400.1234567"), ("UTC", "9999-12-30 23:59:59 UTC"),
        ("UTC", "1969-12-31 23:59:59"), ("UTC", "2026-12-01T07:00"), ("UTC", "Wed 2026-12-01"),
        ("Europe/Berlin", "2026-03-29 02:30"), ("Europe/Berlin", "2026-10-25 02:30"),
        ("Europe/Berlin", "2026-10-25 02:30 CEST"), ("Europe/Berlin", "2026-12-01 12:00 CEST"),
        ("America/New_York", "2026-11-01 01:30"), ("America/New_York", "2026-03-08 02:30 EDT"),
        ("Australia/Lord_Howe", "2026-10-04 02:15"), ("Europe/Dublin", "2026-12-01 12:00 IST"),
    ])
    func timestampAgreesWithSystemdAnalyze(zone: String, input: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        let output = try ProcessRunner.run(
            try #require(Self.tool), ["timestamp", "--", input], environment: ["TZ": zone, "LC_ALL": "C"])
        let fields = Self.fields(output.standardOutput)
        let parsed = Result { () throws(TimeParseError) in
            try Timestamp.parse(input, now: Date(), localZone: rules, zones: .system)
        }
        switch parsed {
        case .success(let date):
            let seconds = Int64(date.epochMicroseconds / 1_000_000)
            let fraction = date.epochMicroseconds % 1_000_000
            let decimals = fraction == 0 ? "" : "." + String(fraction + 1_000_000).dropFirst()
            #expect(fields["UNIX seconds"] == "@\(seconds)\(decimals)")
            #expect(fields["Normalized form"] == Timestamp.format(date, zone: rules))
            if zone != "UTC" { #expect(fields["(in UTC)"] == Timestamp.formatUTC(date)) }
        case .failure:
            #expect(output.status != 0, "systemd-analyze accepted \(input.debugDescription): \(output.standardOutput)")
        }
    }

    /// "From now:" is computed from the real clock; these offsets leave half a unit of slack for the time between
    /// systemd's reading of the clock and ours.
    @Test(arguments: [
        ("+3d 4h 0.5s", "3 days left"), ("-5min 3.5s", "5min ago"), ("+1h 30min 30s", "1h 30min left"),
        ("+49.5s", "49s left"), ("-49.5s", "49s ago"), ("+23h 30min", "23h left"), ("+1d 23h 30min", "1 day 23h left"),
        ("+1M 1d 12h", "1 month 1 day left"), ("+2y 5M 15d", "2 years 5 months left"),
        ("+1w 1d 12h", "1 week 1 day left"),
    ])
    func relativeDescriptionAgreesWithSystemdAnalyze(input: String, expected: String) throws {
        let output = try ProcessRunner.run(
            try #require(Self.tool), ["timestamp", "--", input], environment: ["TZ": "UTC"])
        let fields = Self.fields(output.standardOutput)
        #expect(fields["From now"] == expected)
        let date = try Timestamp.parse(input, now: Date(), localZone: .utc, zones: .system)
        #expect(Timestamp.relativeDescription(of: date, now: Date()) == expected)
    }
}
