import ChimeCore
import ChimePlatform
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Glibc
import Testing

/// `JournalWriter` against a real journald of the test's own, and against no journald at all.
@Suite struct JournalWriterTests {
    let probe = BinaryLocator.path(of: "chime-systemd-probe")

    @Test func entryHoldsExactlyTheFieldsSent() throws {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let token = UUID().uuidString
        let fields: [(name: String, value: String)] = [
            ("MESSAGE", "Exam: Linear Algebra\nStarts at 09:00, room 4B\n"),
            ("MESSAGE_ID", "e73fb9a22fd0422fa10f6ec70955e821"),
            ("PRIORITY", "6"),
            ("SYSLOG_IDENTIFIER", "chime-test"),
            ("CHIME_TITLE", "Prüfung — 試験 🔔"),
            ("CHIME_BODY", "a tab\there, a bell \u{07} and = signs = too"),
            ("CHIME_ACTION", "open"),
            ("CHIME_ACTION", "snooze"),
            ("CHIME_EMPTY", ""),
            ("CHIME_TOKEN", token),
        ]
        let result = try PrivateJournal.run(
            #"exec "$@""#, arguments: [probe, "send"] + fields.map { "\($0.name)=\($0.value)" })
        #expect(result.output.status == 0, "\(result.output.standardError)")

        let sent = try #require(result.entries.first { $0["CHIME_TOKEN"] == token }, "no entry in the journal")
        #expect(sent["_TRANSPORT"] == "journal")
        let expected = Dictionary(fields.map { ($0.name, [$0.value]) }, uniquingKeysWith: +)
        #expect(sent.senderFields == expected)
    }

    @Test func availabilityFollowsTheSocket() throws {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let result = try PrivateJournal.run(#""$1" journal-available"#, arguments: [probe])
        #expect(result.output.standardOutput == "yes\n")
    }

    /// libsystemd treats a missing socket as "no journal, nothing to do" and returns success; anything else at the
    /// socket's path that refuses the datagram is an error.
    @Test func missingJournalIsSilentRefusingOneIsAnError() throws {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let script = #"""
            mount -t tmpfs tmpfs /run/systemd
            "$1" journal-available
            "$1" send MESSAGE=lost && echo "sent"
            mkdir /run/systemd/journal
            touch /run/systemd/journal/socket
            "$1" send MESSAGE=refused || echo "failed: $?"
            """#
        let result = try ProcessRunner.run(
            "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", probe])
        #expect(result.standardOutput == "no\nsent\nfailed: 1\n")
        #expect(result.standardError == "chime-systemd-probe: sd_journal_sendv: Connection refused\n")
    }

    @Test(arguments: [
        [],
        [(name: "", value: "no name")],
    ])
    func malformedEntriesAreRejected(fields: [(name: String, value: String)]) {
        #expect(throws: SystemdError(call: "sd_journal_sendv", errno: Errno(EINVAL))) {
            try JournalWriter().send(fields)
        }
    }
}
