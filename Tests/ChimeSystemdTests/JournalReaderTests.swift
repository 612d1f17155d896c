import ChimeCore
import ChimePlatform
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Glibc
import Testing

/// `JournalReader` on journal files that a private journald wrote, and its errors on an empty directory.
@Suite struct JournalReaderTests {
    static let probe = BinaryLocator.path(of: "chime-systemd-probe")

    /// A journal holding one entry per element of `entries` (each a list of `NAME=value`), sent in order by
    /// `JournalWriter`, each with `CHIME_TOKEN=token` added.
    struct Journal {
        let directory: TemporaryDirectory
        let token: String
        let written: ClosedRange<Date>

        var path: String { PrivateJournal.journalDirectory(in: directory.path + "/store") }

        init(_ entries: [[String]]) throws {
            if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
            directory = try TemporaryDirectory(prefix: "chime-reader")
            let token = UUID().uuidString
            self.token = token
            // One line per entry: the probe, "send", then the fields, each quoted for the shell.
            let script = entries.map { fields in
                (["\"$1\" send", "CHIME_TOKEN=\(token)"] + fields.map { "'" + $0 + "'" }).joined(separator: " ")
            }.joined(separator: "\n")
            let start = Date()
            let result = try PrivateJournal.run(
                script, arguments: [JournalReaderTests.probe], keepingJournalIn: directory.path + "/store")
            written = start...Date()
            #expect(result.output.status == 0, "\(result.output.standardError)")
        }

        /// A reader of this journal that sees only the test's own entries.
        func reader() throws -> JournalReader {
            let reader = try JournalReader(directory: path)
            try reader.addMatch(field: "CHIME_TOKEN", value: token)
            return reader
        }

        func remove() { directory.remove() }
    }

    /// Steps with `step` until it returns false, collecting `value(of: field)` of each entry.
    static func collect(_ reader: JournalReader, _ field: String, step: () throws -> Bool) throws -> [String?] {
        var values: [String?] = []
        while try step() { values.append(try reader.value(of: field)) }
        return values
    }

    @Test func readsEveryFieldForwardsAndBackwards() throws {
        let journal = try Journal([
            ["MESSAGE=first", "CHIME_N=1", "SYSLOG_IDENTIFIER=chime-test"],
            ["MESSAGE=two lines\nsecond", "CHIME_N=2", "CHIME_TITLE=Prüfung — 試験 🔔", "CHIME_EMPTY="],
            ["MESSAGE=third", "CHIME_N=3", "CHIME_REPEATED=a", "CHIME_REPEATED=b"],
        ])
        defer { journal.remove() }
        let reader = try journal.reader()
        try reader.seekHead()
        var entries: [JournalReader.Entry] = []
        while try reader.next() { entries.append(try reader.entry()) }
        try #require(entries.count == 3)
        #expect(entries.map { $0["CHIME_N"] } == ["1", "2", "3"])
        let second = entries[1]
        #expect(second["MESSAGE"] == "two lines\nsecond")
        #expect(second["CHIME_TITLE"] == "Prüfung — 試験 🔔")
        #expect(second["CHIME_EMPTY"] == "")
        #expect(second["_TRANSPORT"] == "journal")
        #expect(second["_UID"] == String(getuid()))
        // Sent without SYSLOG_IDENTIFIER, the entry is stored with the program's name as one.
        #expect(second["SYSLOG_IDENTIFIER"] == "chime-systemd-probe")
        #expect(
            Set(second.fields.keys.filter { !$0.hasPrefix("_") })
                == ["MESSAGE", "CHIME_N", "CHIME_TITLE", "CHIME_EMPTY", "CHIME_TOKEN", "SYSLOG_IDENTIFIER"])
        #expect(entries[2]["CHIME_REPEATED"] == "a")
        let times = entries.map(\.realtimeMicroseconds)
        #expect(times == times.sorted() && Set(times).count == 3)
        #expect(entries.allSatisfy { journal.written.contains($0.realtime) })

        #expect(try reader.next() == false)
        try reader.seekTail()
        #expect(try Self.collect(reader, "CHIME_N", step: reader.previous) == ["3", "2", "1"])
        #expect(try reader.previous() == false)
    }

    @Test func valueOfReadsOneFieldOfTheCurrentEntry() throws {
        let journal = try Journal([["MESSAGE=only", "CHIME_REPEATED=a", "CHIME_REPEATED=b"]])
        defer { journal.remove() }
        let reader = try journal.reader()
        try reader.seekHead()
        #expect(try reader.next())
        #expect(try reader.value(of: "MESSAGE") == "only")
        #expect(try reader.value(of: "CHIME_REPEATED") == "a")
        #expect(try reader.value(of: "CHIME_ABSENT") == nil)
        #expect(try reader.value(of: "_TRANSPORT") == "journal")
        #expect(journal.written.contains(Date(timeIntervalSince1970: Double(try reader.realtimeMicroseconds()) / 1e6)))
    }

    /// Same field: alternatives; different fields: all must hold; a disjunction or conjunction combines groups.
    @Test func matchesCombineAsSdJournalSays() throws {
        let journal = try Journal([
            ["MESSAGE=A", "CHIME_K=1", "CHIME_L=x"], ["MESSAGE=B", "CHIME_K=2", "CHIME_L=x"],
            ["MESSAGE=C", "CHIME_K=1", "CHIME_L=y"], ["MESSAGE=D", "CHIME_K=2", "CHIME_L=y"],
        ])
        defer { journal.remove() }
        let reader = try JournalReader(directory: journal.path)
        func messages(_ install: () throws -> Void) throws -> [String?] {
            reader.flushMatches()
            try reader.addMatch(field: "CHIME_TOKEN", value: journal.token)
            try install()
            try reader.seekHead()
            return try Self.collect(reader, "MESSAGE", step: reader.next)
        }
        #expect(try messages { try reader.addMatch(field: "CHIME_K", value: "1") } == ["A", "C"])
        #expect(
            try messages {
                try reader.addMatch(field: "CHIME_K", value: "1")
                try reader.addMatch(field: "CHIME_K", value: "2")
            } == ["A", "B", "C", "D"])
        #expect(
            try messages {
                try reader.addMatch(field: "CHIME_K", value: "1")
                try reader.addMatch(field: "CHIME_L", value: "y")
            } == ["C"])
        // (CHIME_TOKEN ∧ K=1 ∧ L=x) ∨ (K=2 ∧ L=y)
        #expect(
            try messages {
                try reader.addMatch(field: "CHIME_K", value: "1")
                try reader.addMatch(field: "CHIME_L", value: "x")
                try reader.addDisjunction()
                try reader.addMatch(field: "CHIME_K", value: "2")
                try reader.addMatch(field: "CHIME_L", value: "y")
            } == ["A", "D"])
        // ((CHIME_TOKEN ∧ K=1) ∨ L=y) ∧ (L=x ∨ K=2)
        #expect(
            try messages {
                try reader.addMatch(field: "CHIME_K", value: "1")
                try reader.addDisjunction()
                try reader.addMatch(field: "CHIME_L", value: "y")
                try reader.addConjunction()
                try reader.addMatch(field: "CHIME_L", value: "x")
                try reader.addDisjunction()
                try reader.addMatch(field: "CHIME_K", value: "2")
            } == ["A", "D"])
        #expect(try messages { try reader.addMatch(field: "CHIME_K", value: "3") } == [])
    }

    @Test func seekingToATimeLandsOnTheEntryAtIt() throws {
        let journal = try Journal([["MESSAGE=A"], ["MESSAGE=B"], ["MESSAGE=C"]])
        defer { journal.remove() }
        let reader = try journal.reader()
        try reader.seekHead()
        var times: [UInt64] = []
        while try reader.next() { times.append(try reader.realtimeMicroseconds()) }
        try #require(times.count == 3)
        try reader.seek(realtimeMicroseconds: times[1])
        #expect(try reader.next() && reader.value(of: "MESSAGE") == "B")
        try reader.seek(realtimeMicroseconds: times[1])
        #expect(try reader.previous() && reader.value(of: "MESSAGE") == "B")
        try reader.seek(realtimeMicroseconds: times[1] + 1)
        #expect(try reader.next() && reader.value(of: "MESSAGE") == "C")
        try reader.seek(realtimeMicroseconds: times[1] - 1)
        #expect(try reader.previous() && reader.value(of: "MESSAGE") == "A")
    }

    @Test func errorsCarryTheCallAndErrno() throws {
        #expect(throws: SystemdError(call: "sd_journal_open_directory", errno: Errno(ENOENT))) {
            try JournalReader(directory: "/nonexistent/chime-journal")
        }
        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        let reader = try JournalReader(directory: empty.path)
        try reader.seekHead()
        #expect(try reader.next() == false)
        #expect(throws: SystemdError(call: "sd_journal_get_realtime_usec", errno: Errno(EADDRNOTAVAIL))) {
            try reader.realtimeMicroseconds()
        }
        #expect(throws: SystemdError(call: "sd_journal_add_match", errno: Errno(EINVAL))) {
            try reader.addMatch(field: "lower_case", value: "x")
        }
        #expect(throws: SystemdError(call: "sd_journal_add_match", errno: Errno(EINVAL))) {
            try reader.addMatch(field: "", value: "x")
        }
    }
}
