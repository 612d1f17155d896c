import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeControl

/// `chimectl` run in-process: output, exit statuses and help texts.
@Suite struct ChimectlTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    /// Mon 2026-11-30 09:00:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_796_029_200)

    struct Run: Sendable {
        let status: ExitCode
        let output: String
        let errors: String
    }

    static func run(_ arguments: [String], zone: ZoneRules = berlin, now: Date = now) -> Run {
        let context = CommandContext(
            output: .init(), errors: .init(), environment: [:], now: now, localZone: zone)
        let status = Chimectl.main(arguments, context: context)
        return Run(status: status, output: context.output.text, errors: context.errors.text)
    }

    @Test func calendarMirrorsSystemdAnalyze() {
        let run = Self.run(["calendar", "--iterations=2", "Mon..Fri 09:55"])
        #expect(run.status == .success)
        #expect(
            run.output == """
                  Original form: Mon..Fri 09:55
                Normalized form: Mon..Fri *-*-* 09:55:00
                    Next elapse: Tue 2026-12-01 09:55:00 CET
                       (in UTC): Tue 2026-12-01 08:55:00 UTC
                       From now: 23h left
                       Iter. #2: Wed 2026-12-02 09:55:00 CET
                       (in UTC): Wed 2026-12-02 08:55:00 UTC
                       From now: 1 day 23h left

                """)
    }

    @Test func calendarOmitsTheUTCLineInUTCAndTheOriginalWhenNormal() {
        let run = Self.run(["calendar", "*-*-* 12:00:00"], zone: .utc)
        #expect(
            run.output == """
                Normalized form: *-*-* 12:00:00
                    Next elapse: Mon 2026-11-30 12:00:00 UTC
                       From now: 3h 0min left

                """)
    }

    @Test func calendarJSONContract() {
        let run = Self.run(
            ["calendar", "--json", "--iterations=2", "--base-time=2026-03-29 00:00 UTC", "*-*-* 02:30", "*:*/15"])
        #expect(run.status == .failure)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines.first
                == #"{"spec":"*-*-* 02:30","normalized":"*-*-* 02:30:00","elapses":["2026-03-30T00:30:00Z","2026-03-31T00:30:00Z"]}"#
        )
        #expect(lines.last?.hasPrefix(#"{"spec":"*:*/15","error":"#) == true)
    }

    @Test func calendarFailureGoesToStandardErrorAndOthersStillAnswer() {
        let run = Self.run(["calendar", "bogus", "daily"])
        #expect(run.status == .failure)
        #expect(run.errors.hasPrefix("Failed to parse calendar specification 'bogus': "))
        #expect(run.output.contains("Normalized form: *-*-* 00:00:00"))
    }

    @Test func calendarHonoursTheLocalZone() {
        let run = Self.run(["calendar", "--base-time=@1774728000", "--json", "*-*-* 1/5:00"])
        // systemd 252 fails here ("Infinite loop in calendar calculation"); chime answers.
        #expect(run.output.contains(#""elapses":["2026-03-29T00:00:00Z"]"#))
    }

    @Test(arguments: [
        ["calendar"], ["calendar", "--iterations=x", "daily"], ["calendar", "--bogus", "daily"], ["nonsense"], [],
        ["timespan"], ["verify"],
    ])
    func usageErrorsExit64(arguments: [String]) {
        let run = Self.run(arguments)
        #expect(run.status == .usage)
        #expect(!run.errors.isEmpty)
    }

    @Test func timespanAndTimestamp() {
        let span = Self.run(["timespan", "1h 30min"])
        #expect(span.status == .success)
        #expect(span.output == "Original: 1h 30min\n      μs: 5400000000\n   Human: 1h 30min\n")
        let stamp = Self.run(["timestamp", "--json", "2026-12-01 07:00"])
        #expect(
            stamp.output
                == #"{"timestamp":"2026-12-01 07:00","utc":"2026-12-01T06:00:00Z","epoch_usec":1796104800000000}"#
                + "\n")
    }

    @Test func verifyListsNextFiresAndReportsProblems() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("good.notification", "[Notification]\nTitle=Good\n[Trigger]\nOnCalendar=*-*-* 12:00\n")
        try directory.write("bad.notification", "[Notification]\nTitle=Bad\nUrgency=loud\n[Trigger]\nEvery=0\n")
        let run = Self.run(["verify", directory.path])
        #expect(run.status == .failure)
        #expect(run.errors.contains("bad.notification:3:9: Invalid Urgency= 'loud': expected low, normal or critical."))
        #expect(run.errors.contains("bad.notification:5:7: Every= must be a finite interval greater than zero"))
        #expect(run.output.contains("good  Mon 2026-11-30 12:00:00 CET"))
        let good = Self.run(["verify", directory.path + "/good.notification"])
        #expect(good.status == .success)
        #expect(good.errors.isEmpty)
    }

    /// A command's help, however it is asked for, as `systemctl help status` and `systemctl status -h` agree.
    @Test(arguments: [
        ["help", "list"], ["list", "-h"], ["--help", "list"], ["-h", "list"], ["--user", "list", "-h"],
    ])
    func helpOfACommandIsTheSameHoweverAskedFor(invocation: [String]) {
        let run = Self.run(invocation)
        #expect(run.status == .success)
        #expect(run.output == Self.run(["list", "--help"]).output)
        #expect(run.output.hasPrefix("Usage: chimectl list "))
    }

    /// Words a command does not take are usage errors, not ignored.
    @Test(arguments: [
        (["status", "water"], "chimectl status: unexpected argument 'water'\n"),
        (["list", "extra"], "chimectl list: unexpected argument 'extra'\n"),
        (["next", "soon"], "chimectl next: unexpected argument 'soon'\n"),
        (["reload", "now"], "chimectl reload: unexpected argument 'now'\n"),
        (["help", "list", "extra"], "chimectl help: expected one command, not 'list extra'\n"),
        (["--bogus", "list"], "chimectl: unknown option '--bogus'\n"),
        (["help", "frobnicate"], "chimectl: unknown command 'frobnicate'; see 'chimectl --help'\n"),
    ])
    func extraWordsAreUsageErrors(invocation: [String], message: String) {
        let run = Self.run(invocation)
        #expect(run.status == .usage)
        #expect(run.errors.hasPrefix(message), "\(run.errors)")
        #expect(run.output.isEmpty)
    }

    /// The options every command takes may come before or after it, in any order, as systemctl's do.
    @Test func globalOptionsGoBeforeOrAfterTheCommand() throws {
        let directory = try TemporaryDirectory(prefix: "chimectl-global")
        defer { directory.remove() }
        let runtime = directory.path + "/run"
        let invocations = [
            ["status", "--json", "--runtime-dir=\(runtime)", "--no-pager"],
            ["--runtime-dir", runtime, "status", "--json"],
            ["--json", "--no-pager", "status", "--runtime-dir", runtime],
            ["--runtime-dir=/elsewhere", "status", "--json", "--runtime-dir=\(runtime)"],
        ]
        let expected = Self.run(invocations[0])
        #expect(expected.status == .notRunning)
        #expect(expected.output.contains(#""runtime_directory":"\#(runtime)""#), "\(expected.output)")
        for invocation in invocations.dropFirst() {
            let run = Self.run(invocation)
            #expect(run.status == expected.status, "\(invocation)")
            #expect(run.output == expected.output, "\(invocation)")
        }
        // Every command takes them, whether or not it talks to an instance.
        let calendar = Self.run(["--user", "--state-dir=\(directory.path)", "calendar", "--json", "daily"])
        #expect(calendar.status == .success, "\(calendar.errors)")
        #expect(calendar.output.hasPrefix(#"{"spec":"daily""#))
    }

    /// Help texts are part of the interface: any change shows up here and in the snapshot files.
    @Test(arguments: [
        "--help", "calendar --help", "timestamp --help", "timespan --help", "verify --help", "list --help",
        "next --help", "status --help", "reload --help", "add --help", "cancel --help", "disable --help",
        "enable --help", "fire --help", "history --help", "completion --help", "badge --help",
    ])
    func helpSnapshots(invocation: String) throws {
        let run = Self.run(invocation.split(separator: " ").map(String.init))
        #expect(run.status == .success)
        let name = invocation.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "")
        let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
        let file = snapshots.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["CHIME_UPDATE_SNAPSHOTS"] == "1" {
            try run.output.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(
            contentsOf: Bundle.module.url(forResource: "Snapshots/\(name)", withExtension: "txt")
                ?? file, encoding: .utf8)
        #expect(run.output == expected)
    }
}
