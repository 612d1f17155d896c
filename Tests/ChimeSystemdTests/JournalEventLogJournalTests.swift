import ChimeTestSupport
import Testing

/// `JournalEventLog` in a process of its own with a real journal, its stderr connected to that journal by
/// `systemd-cat` as systemd connects a service's.
@Suite struct JournalEventLogJournalTests {
    let probe = BinaryLocator.path(of: "chime-systemd-probe")

    func record(announcingStream: Bool) throws -> [JournalEntry] {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        // systemd-cat connects stdout and stderr to journald's stream socket but, unlike systemd, does not set
        // JOURNAL_STREAM: set it as systemd would, from the socket that stderr now is.
        let announce = announcingStream ? #"export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); "# : ""
        let result = try PrivateJournal.run(
            #"""
            systemd-cat -t chime-stderr /bin/sh -c '\#(announce)exec "$0" event config-error "$1" CHIME_ID=exam' \
                "$1" "bad.notification:3: no Title="
            """#, arguments: [probe])
        #expect(result.output.status == 0, "\(result.output.standardError)")
        return result.entries
    }

    @Test func nativeEntryAndStderrLineWithoutJournalStream() throws {
        let entries = try record(announcingStream: false)
        let native = try #require(entries.first { $0["SYSLOG_IDENTIFIER"] == "chimed" })
        #expect(
            native.senderFields == [
                "MESSAGE": ["bad.notification:3: no Title="], "MESSAGE_ID": ["8c44231129914d17b3df15853b9facd7"],
                "PRIORITY": ["3"], "CHIME_ID": ["exam"], "SYSLOG_IDENTIFIER": ["chimed"],
            ])
        #expect(native["_TRANSPORT"] == "journal")
        let stream = entries.filter { $0["_TRANSPORT"] == "stdout" }.compactMap { $0["MESSAGE"] }
        #expect(stream == ["chimed: bad.notification:3: no Title="])
    }

    @Test func onlyTheNativeEntryWhenStderrIsTheJournal() throws {
        let entries = try record(announcingStream: true)
        #expect(entries.filter { $0["SYSLOG_IDENTIFIER"] == "chimed" }.count == 1)
        #expect(entries.filter { $0["_TRANSPORT"] == "stdout" }.compactMap { $0["MESSAGE"] } == [])
    }
}
