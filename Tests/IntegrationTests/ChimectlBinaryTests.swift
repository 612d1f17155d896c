import ChimeTestSupport
import Foundation
import Testing

/// The real `chimectl` executable, run as a user runs it.
@Suite struct ChimectlBinaryTests {
    let chimectl = BinaryLocator.path(of: "chimectl")

    func run(_ arguments: [String], tz: String = "Europe/Berlin") throws -> ProcessRunner.Output {
        // The example configuration's calendar generator finds chime-calendar beside chimectl.
        try ProcessRunner.run(chimectl, arguments, environment: ["TZ": tz, "PATH": BinaryLocator.searchPath])
    }

    @Test func helpAndVersionExitZero() throws {
        let help = try run(["--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("Usage: chimectl COMMAND"))
        for command in ["calendar", "timestamp", "timespan", "verify"] {
            let commandHelp = try run([command, "--help"])
            #expect(commandHelp.status == 0)
            #expect(commandHelp.standardOutput.hasPrefix("Usage: chimectl \(command)"))
        }
        #expect(try run(["--version"]).standardOutput.hasPrefix("chimectl "))
    }

    @Test func exitStatusesFollowSysexits() throws {
        #expect(try run(["calendar"]).status == 64)
        #expect(try run(["no-such-command"]).status == 64)
        let bad = try run(["calendar", "25:00"])
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("Failed to parse calendar specification '25:00'"))
    }

    @Test func exampleConfigurationVerifies() throws {
        let config = BinaryLocator.packageRoot.appendingPathComponent("config").path
        let result = try run(["verify", "--base-time=2026-11-30 09:00 UTC", config])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
        for id in ["standup", "exam-linear-algebra", "stretch", "heartbeat", "month-end", "cal-1ae4d09945600593"] {
            #expect(result.standardOutput.contains(id), "\(id) missing from:\n\(result.standardOutput)")
        }
        #expect(result.standardOutput.contains("Tue 2026-12-01 09:55:00 CET"))
    }

    @Test func localZoneFollowsTZ() throws {
        let tokyo = try run(["calendar", "--json", "--base-time=@1795996800", "12:00"], tz: "Asia/Tokyo")
        #expect(
            tokyo.standardOutput
                == #"{"spec":"12:00","normalized":"*-*-* 12:00:00","elapses":["2026-11-30T03:00:00Z"]}"# + "\n")
        let posix = try run(
            ["calendar", "--json", "--base-time=@1795996800", "12:00"], tz: "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(posix.standardOutput.contains(#""elapses":["2026-11-30T11:00:00Z"]"#))
    }
}
