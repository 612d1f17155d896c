import ChimeTestSupport
import Testing

/// `SystemdNotifier.watchdogInterval()` in a child process, whose environment the test sets without touching its
/// own (`sd_watchdog_enabled` reads `getenv`, which other threads of the test process read too).
@Suite struct WatchdogIntervalTests {
    /// Whom `WATCHDOG_PID` names.
    enum Owner: Sendable, CustomTestStringConvertible {
        case unset, probe, other(String)

        /// The shell line that sets the variable; `$$` is the probe's PID, as the shell `exec`s it.
        var assignment: String {
            switch self {
            case .unset: return ""
            case .probe: return "export WATCHDOG_PID=$$"
            case .other(let pid): return "export WATCHDOG_PID='\(pid)'"
            }
        }

        var testDescription: String {
            switch self {
            case .unset: return "no WATCHDOG_PID"
            case .probe: return "WATCHDOG_PID of the process"
            case .other(let pid): return "WATCHDOG_PID=\(pid)"
            }
        }
    }

    static let invalid = "chime-systemd-probe: sd_watchdog_enabled: Invalid argument\n"

    static let cases: [(usec: String?, owner: Owner, output: String)] = [
        ("2500000", .probe, "2500000\n"),
        ("2500000", .unset, "2500000\n"),
        ("1", .probe, "1\n"),
        ("2500000", .other("1"), "none\n"),
        (nil, .unset, "none\n"),
        (nil, .probe, "none\n"),
        ("soon", .probe, invalid),
        ("0", .probe, invalid),
        ("2500000", .other("init"), invalid),
    ]

    @Test(arguments: cases)
    func intervalFromEnvironment(usec: String?, owner: Owner, output: String) throws {
        let script = """
            unset WATCHDOG_USEC WATCHDOG_PID
            \(usec.map { "export WATCHDOG_USEC='\($0)'" } ?? "")
            \(owner.assignment)
            exec "$0" watchdog 2>&1
            """
        let probe = BinaryLocator.path(of: "chime-systemd-probe")
        #expect(try ProcessRunner.run("/bin/sh", ["-c", script, probe]).standardOutput == output)
    }
}
