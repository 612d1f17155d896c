import ChimeTestSupport
import Foundation
import Testing

/// Without a journald, a delivery to the journal reaches nobody: chimed and `chimectl fire` must say it failed,
/// and `chimectl history` that there is no journal, instead of reporting success.
///
/// chimed runs in a mount namespace of its own with an empty tmpfs on `/run/systemd`, so that no journal socket
/// exists whatever the host has.
@Suite(.serialized) struct MissingJournalTests {
    let chimed = BinaryLocator.path(of: "chimed")
    let chimectl = BinaryLocator.path(of: "chimectl")
    static let unshare = "/usr/bin/unshare"

    static var unavailableReason: String? {
        if geteuid() != 0 { return "needs root to hide the journal in a mount namespace" }
        if !FileManager.default.isExecutableFile(atPath: unshare) { return "needs \(unshare)" }
        return nil
    }

    /// `program arguments` without a journal socket.
    static func withoutJournal(_ program: String, _ arguments: [String]) -> (String, [String]) {
        let script = "if [ -d /run/systemd ]; then mount -t tmpfs tmpfs /run/systemd || exit 70; fi; exec \"$@\""
        return (unshare, ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", program] + arguments)
    }

    static let tick = "[Notification]\nTitle=Tick\n[Trigger]\nOnCalendar=*:*:*\n"

    @Test func aDeliveryNoJournalTookIsAFailedDelivery() throws {
        if let reason = Self.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chime-nojournal")
        defer { directory.remove() }
        try directory.write("config/tick.notification", Self.tick)
        let (program, arguments) = Self.withoutJournal(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run", "--deliver=journal",
            ])
        let process = try RunningProcess(program, arguments, environment: ["TZ": "UTC"])
        let failure = "tick: delivery to journal failed: no journal listens (/run/systemd/journal/socket is missing)"
        _ = waitFor({ !process.isRunning || process.standardError.contains(failure) }, timeout: 10)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
        let lines = process.standardError.split(separator: "\n")
        #expect(lines.contains { $0.contains(failure) }, "\(process.standardError)")
        // Said once at start, not at every delivery.
        #expect(lines.filter { $0.contains("No journal listens") }.count == 1, "\(process.standardError)")
    }

    @Test func fireReportsTheJournalThatIsMissing() throws {
        if let reason = Self.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chime-nojournal")
        defer { directory.remove() }
        try directory.write("config/tick.notification", Self.tick)
        let (program, arguments) = Self.withoutJournal(
            chimectl, ["fire", "tick", "--config-dir=\(directory.path)/config", "--deliver=journal,stdout"])
        let output = try ProcessRunner.run(program, arguments)
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("journal: failed: no journal listens"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("stdout: delivered"), "\(output.standardOutput)")
    }

    @Test func historySaysThatThereIsNoJournal() throws {
        let directory = try TemporaryDirectory(prefix: "chime-nojournal")
        defer { directory.remove() }
        let output = try ProcessRunner.run(chimectl, ["history", "--directory=\(directory.path)"])
        #expect(output.status == 1)
        #expect(output.standardOutput.isEmpty)
        #expect(
            output.standardError
                == "chimectl history: no journal found: there are no journal files in \(directory.path); chimed "
                + "records its deliveries in the journal, which systemd-journald keeps (is it running?)\n")
    }
}
