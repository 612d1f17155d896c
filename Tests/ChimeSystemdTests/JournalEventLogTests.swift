import ChimeCore
import ChimePlatform
import ChimeSystemd
import Glibc
import Testing

@testable import ChimeDaemon

/// What `JournalEventLog` sends and writes, with the journal replaced by a recorder that can be made to fail.
@Suite struct JournalEventLogTests {
    final class Recorder: Sendable {
        private struct State {
            var entries: [[String]] = []
            var lines: [String] = []
            var failure: SystemdError?
        }
        private let state = Locked(State())

        var entries: [[String]] { state.withLock { $0.entries } }
        var lines: [String] { state.withLock { $0.lines } }

        /// Makes the following sends fail with `failure`, or succeed with `nil`.
        func failSends(with failure: SystemdError?) {
            state.withLock { $0.failure = failure }
        }

        func log(standardErrorIsJournal: Bool) -> JournalEventLog {
            JournalEventLog(
                identifier: "chimed", standardErrorIsJournal: standardErrorIsJournal,
                send: { fields throws(SystemdError) in
                    try self.state.withLock { (state) throws(SystemdError) in
                        if let failure = state.failure { throw failure }
                        state.entries.append(fields.map { "\($0.name)=\($0.value)" })
                    }
                },
                writeLine: { line in self.state.withLock { $0.lines.append(line) } })
        }
    }

    static let reloaded = DaemonEvent(.reloaded, "Reloaded: 3 notifications", fields: [("CHIME_COUNT", "3")])
    static let refused = SystemdError(call: "sd_journal_sendv", errno: Errno(ECONNREFUSED))

    @Test func entryAndLineOnATerminal() {
        let recorder = Recorder()
        recorder.log(standardErrorIsJournal: false).record(Self.reloaded)
        #expect(
            recorder.entries == [
                [
                    "MESSAGE=Reloaded: 3 notifications", "MESSAGE_ID=1f219778db274aaaafe1e1dc21c442ed", "PRIORITY=5",
                    "CHIME_COUNT=3", "SYSLOG_IDENTIFIER=chimed",
                ]
            ])
        #expect(recorder.lines == ["chimed: Reloaded: 3 notifications"])
    }

    @Test func onlyTheEntryWhenStandardErrorIsTheJournal() {
        let recorder = Recorder()
        recorder.log(standardErrorIsJournal: true).record(Self.reloaded)
        #expect(recorder.entries.count == 1)
        #expect(recorder.lines == [])
    }

    @Test func failureIsReportedOncePerOutage() {
        let recorder = Recorder()
        let log = recorder.log(standardErrorIsJournal: false)
        recorder.failSends(with: Self.refused)
        log.record(DaemonEvent(.configError, "first"))
        log.record(DaemonEvent(.configError, "second"))
        recorder.failSends(with: nil)
        log.record(DaemonEvent(.reloaded, "third"))
        recorder.failSends(with: Self.refused)
        log.record(DaemonEvent(.configError, "fourth"))
        let report =
            "chimed: Failed to write to the journal (sd_journal_sendv: Connection refused), writing events here instead"
        #expect(
            recorder.lines == [
                report, "chimed: first", "chimed: second", "chimed: third", report, "chimed: fourth",
            ])
        #expect(recorder.entries.map { $0[0] } == ["MESSAGE=third"])
    }

    /// When stderr is the journal's stream, it still reaches the journal if the native socket fails: the events
    /// go there, with their priority as a `<N>` prefix that journald reads.
    @Test func failureFallsBackToTheJournalStream() {
        let recorder = Recorder()
        let log = recorder.log(standardErrorIsJournal: true)
        recorder.failSends(with: Self.refused)
        log.record(DaemonEvent(.configError, "bad.notification:3: no Title="))
        log.record(DaemonEvent(.configError, "odd.notification:5: unknown key Colour=", priority: .warning))
        log.record(DaemonEvent(.delivered, "Delivered standup"))
        #expect(
            recorder.lines == [
                "<4>Failed to write to the journal (sd_journal_sendv: Connection refused), writing events here instead",
                "<3>bad.notification:3: no Title=", "<4>odd.notification:5: unknown key Colour=",
                "<6>Delivered standup",
            ])
    }
}
