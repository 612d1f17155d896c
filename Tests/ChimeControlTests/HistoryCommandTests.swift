import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeControl

/// `chimectl history --directory` in-process, reading a private journal that chimed's own code wrote: the
/// `Dispatcher` (with the journal backend, the stdout backend and a backend that does not exist) and the
/// `JournalEventLog` (for the scheduler's missed, skipped-past and caught-up events), in `chime-systemd-probe`.
@Suite struct HistoryCommandTests {
    /// A zone without daylight saving time, so that every time cell is as wide.
    static let tokyo = try! ZoneDatabase.system.rules(named: "Asia/Tokyo")
    static let probe = BinaryLocator.path(of: "chime-systemd-probe")

    /// What chimed logs for a day of notifications, and entries that are not deliveries or not chimed's.
    static let day = #"""
        p=$1
        "$p" dispatch standup Stand-up 2026-11-30T08:55:00.000000Z 0 journal "Daily stand-up" ROOM=4B FLOOR=2
        "$p" dispatch standup Stand-up 2026-11-30T08:55:00.000000Z 0 stdout
        "$p" send SYSLOG_IDENTIFIER=impostor MESSAGE_ID=e73fb9a22fd0422fa10f6ec70955e821 CHIME_ID=standup \
            CHIME_BACKEND=journal MESSAGE=not-chimed
        "$p" event config-error "exam.notification:3: Invalid Urgency= 'loud'" CHIME_ID=exam
        "$p" event skipped-past "old: At=2020-01-01T00:00:00Z is already past; not delivering it." CHIME_ID=old \
            CHIME_TITLE=Old CHIME_FIRE_TIME=2020-01-01T00:00:00.000000Z
        "$p" event caught-up "exam: delivering late what was missed (2 occurrence(s))." CHIME_ID=exam \
            CHIME_TITLE=Exam CHIME_FIRE_TIME=2026-11-29T09:00:00.000000Z \
            CHIME_LAST_FIRE_TIME=2026-11-30T09:00:00.000000Z CHIME_MISSED=2
        "$p" event delivery-failed "exam: the delivery due at 2026-11-30T09:00:00Z was interrupted by the end of \
        the previous run; delivering it again." CHIME_ID=exam CHIME_FIRE_TIME=2026-11-30T09:00:00.000000Z
        "$p" dispatch exam Exam 2026-11-30T09:00:00.000000Z 2 journal
        "$p" dispatch exam Exam 2026-11-30T09:00:00.000000Z 2 nosuch
        "$p" event missed "tick: missed 3 occurrence(s); Persistent=no, not delivering late." CHIME_ID=tick \
            CHIME_TITLE=Tick CHIME_FIRE_TIME=2026-11-30T09:01:00.000000Z \
            CHIME_LAST_FIRE_TIME=2026-11-30T09:03:00.000000Z CHIME_MISSED=3
        """#

    /// What the table shows of the scheduler's entry for a delivery that the previous run did not finish.
    static let interrupted =
        "the delivery due at 2026-11-30T09:00:00Z was interrupted by the end of the previous run; delivering it again."

    /// A journal holding `script`'s entries, in a temporary directory.
    struct Journal {
        let directory: TemporaryDirectory
        /// The instants just before and after the script ran.
        let written: ClosedRange<Date>

        var path: String { PrivateJournal.journalDirectory(in: directory.path + "/store") }

        init(_ script: String = HistoryCommandTests.day) throws {
            if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
            directory = try TemporaryDirectory(prefix: "chime-history")
            let start = Date()
            let result = try PrivateJournal.run(
                script, arguments: [HistoryCommandTests.probe], keepingJournalIn: directory.path + "/store")
            written = start...Date()
            #expect(result.output.status == 0, "\(result.output.standardError)")
        }

        /// Runs `chimectl history --directory=… arguments` in-process.
        func history(_ arguments: [String]) -> ChimectlTests.Run {
            let context = CommandContext(
                output: .init(), errors: .init(), environment: [:], now: Date(), localZone: HistoryCommandTests.tokyo)
            let status = Chimectl.main(["history", "--directory=\(path)"] + arguments, context: context)
            return ChimectlTests.Run(status: status, output: context.output.text, errors: context.errors.text)
        }

        /// The `--json` objects of `history arguments`.
        func objects(_ arguments: [String]) throws -> [[String: Any]] {
            let run = history(["--json"] + arguments)
            #expect(run.status == .success, "\(run.errors)")
            return try run.output.split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }

        func remove() { directory.remove() }
    }

    /// The table's rows without the time column, and the time column itself.
    static func split(_ table: String) -> (times: [String], rest: [String]) {
        let lines = table.split(separator: "\n").map(String.init)
        // "Mon 2026-11-30 19:06:41 JST" is 27 characters, then two spaces.
        return (lines.dropFirst().map { String($0.prefix(27)) }, lines.map { String($0.dropFirst(29)) })
    }

    @Test func tableShowsEachDeliveryOutcomeOldestFirst() throws {
        let journal = try Journal()
        defer { journal.remove() }
        let run = journal.history([])
        #expect(run.status == .success)
        #expect(run.errors.isEmpty)
        let (times, rest) = Self.split(run.output)
        #expect(
            rest == [
                "ID       EVENT        BACKEND  TITLE",
                "standup  delivered    journal  Stand-up",
                "standup  delivered    stdout   Stand-up",
                "exam     interrupted  -        " + Self.interrupted,
                "exam     caught-up    journal  Exam (2 missed)",
                "exam     failed       nosuch   Exam (2 missed; error: no backend named 'nosuch')",
            ])
        // Local time of when journald received each entry, as the JSON's "time" says in UTC.
        let instants = try journal.objects([]).map { try #require(Timestamp.parseISO8601($0["time"] as! String)) }
        #expect(times == instants.map { Timestamp.format($0, zone: Self.tokyo)! })
        #expect(instants.allSatisfy { journal.written.contains($0) }, "\(instants) not in \(journal.written)")
        #expect(instants == instants.sorted())
    }

    @Test func allAddsWhatWasNotDelivered() throws {
        let journal = try Journal()
        defer { journal.remove() }
        let run = journal.history(["--all"])
        #expect(
            Self.split(run.output).rest == [
                "ID       EVENT         BACKEND  TITLE",
                "standup  delivered     journal  Stand-up",
                "standup  delivered     stdout   Stand-up",
                "old      skipped-past  -        Old",
                "exam     interrupted   -        " + Self.interrupted,
                "exam     caught-up     journal  Exam (2 missed)",
                "exam     failed        nosuch   Exam (2 missed; error: no backend named 'nosuch')",
                "tick     missed        -        Tick (3 missed)",
            ])
    }

    @Test func idsSelectNotifications() throws {
        let journal = try Journal()
        defer { journal.remove() }
        #expect(try journal.objects(["exam"]).map { $0["backend"] as? String } == [nil, "journal", "nosuch"])
        #expect(try journal.objects(["--all", "tick", "old"]).map { $0["id"] as? String } == ["old", "tick"])
        let none = journal.history(["unknown"])
        #expect(none.status == .success)
        #expect(none.output == "No entries.\n")
        #expect(try journal.objects(["unknown"]).isEmpty)
    }

    @Test func linesKeepsTheMostRecent() throws {
        let journal = try Journal()
        defer { journal.remove() }
        #expect(try journal.objects(["--lines=1"]).map { $0["backend"] as? String } == ["nosuch"])
        #expect(
            try journal.objects(["--lines=3", "--all"]).map { $0["event"] as? String } == [
                "caught-up", "failed", "missed",
            ])
        #expect(try journal.objects(["--lines=all", "--all"]).count == 7)
        #expect(
            try journal.objects(["--lines=2", "standup"]).map { $0["backend"] as? String } == ["journal", "stdout"])
    }

    @Test func jsonCarriesEveryFieldOfTheEntry() throws {
        let journal = try Journal()
        defer { journal.remove() }
        let lines = journal.history(["--json", "--all"]).output.split(separator: "\n").map(String.init)
        try #require(lines.count == 7)
        // Keys always present and in this order; the receive time and hand-off time vary from run to run.
        let first = try #require(Self.replacingTimes(lines[0]))
        #expect(
            first == #"{"time":"T","id":"standup","event":"delivered","backend":"journal","title":"Stand-up","#
                + #""body":"Daily stand-up","fire_time":"2026-11-30T08:55:00.000000Z","last_fire_time":null,"#
                + #""delivered_at":"T","missed":null,"error":null,"message":"standup: Stand-up (delivered to journal)","#
                + #""info":{"FLOOR":"2","ROOM":"4B"}}"#)
        #expect(
            Self.replacingTimes(lines[2])
                == #"{"time":"T","id":"old","event":"skipped-past","backend":null,"title":"Old","body":null,"#
                + #""fire_time":"2020-01-01T00:00:00.000000Z","last_fire_time":null,"delivered_at":null,"#
                + #""missed":null,"error":null,"#
                + #""message":"old: At=2020-01-01T00:00:00Z is already past; not delivering it.","info":{}}"#)
        #expect(
            Self.replacingTimes(lines[3])
                == #"{"time":"T","id":"exam","event":"interrupted","backend":null,"title":null,"body":null,"#
                + #""fire_time":"2026-11-30T09:00:00.000000Z","last_fire_time":null,"delivered_at":null,"#
                + #""missed":null,"error":null,"message":"exam: \#(Self.interrupted)","info":{}}"#)
        #expect(
            Self.replacingTimes(lines[5])
                == #"{"time":"T","id":"exam","event":"failed","backend":"nosuch","title":"Exam","body":null,"#
                + #""fire_time":"2026-11-30T09:00:00.000000Z","last_fire_time":null,"delivered_at":null,"#
                + #""missed":2,"error":"no backend named 'nosuch'","#
                + #""message":"exam: delivery to nosuch failed: no backend named 'nosuch'","info":{}}"#)
        #expect(
            Self.replacingTimes(lines[6])
                == #"{"time":"T","id":"tick","event":"missed","backend":null,"title":"Tick","body":null,"#
                + #""fire_time":"2026-11-30T09:01:00.000000Z","last_fire_time":"2026-11-30T09:03:00.000000Z","#
                + #""delivered_at":null,"missed":3,"error":null,"#
                + #""message":"tick: missed 3 occurrence(s); Persistent=no, not delivering late.","info":{}}"#)
        // chimed hands over after journald's clock read for the previous entry and before its own entry's.
        let object = try journal.objects(["--lines=1", "standup"])[0]
        let time = try #require(Timestamp.parseISO8601(object["time"] as! String))
        let handOff = try #require(Timestamp.parseISO8601(object["delivered_at"] as! String))
        #expect(handOff <= time && journal.written.contains(handOff))
    }

    /// `line` with the values of "time" and "delivered_at" (ISO 8601 UTC with microseconds) replaced by "T".
    static func replacingTimes(_ line: String) -> String? {
        line.replacingOccurrences(
            of: #""(time|delivered_at)":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z""#, with: #""$1":"T""#,
            options: .regularExpression)
    }

    @Test func sinceAndUntilBoundReceiveTimesInclusively() throws {
        let journal = try Journal()
        defer { journal.remove() }
        let times = try journal.objects(["--all"]).map { $0["time"] as! String }
        try #require(times.count == 7)
        let instants = try times.map { try #require(Timestamp.parseISO8601($0)) }
        func at(_ index: Int, plus microseconds: Int64 = 0) -> String {
            "@" + String(format: "%.6f", Double(instants[index].epochMicroseconds + microseconds) / 1e6)
        }
        #expect(
            try journal.objects(["--all", "--since=\(at(2))"]).map { $0["time"] as! String } == times[2...].map { $0 })
        #expect(try journal.objects(["--all", "--since=\(at(2, plus: 1))"]).count == 4)
        #expect(
            try journal.objects(["--all", "--until=\(at(2))"]).map { $0["time"] as! String } == times[...2].map { $0 })
        #expect(try journal.objects(["--all", "--until=\(at(2, plus: -1))"]).count == 2)
        #expect(
            try journal.objects(["--all", "--since=\(at(1))", "--until=\(at(4))", "--lines=2"]).map {
                $0["time"] as! String
            } == [times[3], times[4]])
        #expect(try journal.objects(["--since=\(at(6, plus: 1))"]).isEmpty)
    }

    @Test(arguments: [
        ["--lines=0"], ["--lines=-3"], ["--lines=many"], ["--since=bogus"], ["--until=25:00"],
        ["--since=2026-12-01", "--until=2026-11-30"], ["--directory"], ["--bogus"],
    ])
    func usageErrorsExit64(arguments: [String]) {
        let run = ChimectlTests.run(["history"] + arguments)
        #expect(run.status == .usage)
        #expect(run.errors.contains("Usage: chimectl history "))
        #expect(run.output.isEmpty)
    }

    /// The system instance's entries are those sent from chimed.service, which runs as the user chime, and those of
    /// a chimed running as root; a user instance's are its user's alone. (Tests/E2E/systemd-e2e reads the deliveries
    /// of a real chimed.service back.)
    @Test func theSystemInstanceIsChimedServiceOrRoot() throws {
        func senders(_ arguments: [String]) throws -> [String] {
            let context = CommandContext(
                output: .init(), errors: .init(), environment: [:], now: Date(), localZone: HistoryCommandTests.tokyo)
            let parsed = try ParsedArguments(arguments, grammar: HistoryCommand.grammar)
            return try HistoryCommand.query(parsed, in: context).senders.map { "\($0.field)=\($0.value)" }
        }
        #expect(try senders([]) == ["_UID=0", "_SYSTEMD_UNIT=chimed.service"])
        #expect(try senders(["--user"]) == ["_UID=\(getuid())"])
    }

    @Test func missingDirectoryIsAFailure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = ChimectlTests.run(["history", "--directory=\(directory.path)/none"])
        #expect(run.status == .failure)
        #expect(
            run.errors
                == "chimectl history: cannot open the journal in \(directory.path)/none: "
                + "sd_journal_open_directory: No such file or directory\n")
    }
}
