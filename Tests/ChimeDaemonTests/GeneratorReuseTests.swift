import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore
@testable import ChimeDaemon

/// `GeneratorReuse`: a rebuild takes a generator's notifications from the rebuild before when it printed the same
/// bytes and the zones read the same, and reads its lines again otherwise.
@Suite struct GeneratorReuseTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    /// A configuration directory with one generator, and a zone database of its own whose `Test/Zone` can change.
    struct Setup {
        let directory: TemporaryDirectory
        var zones: ZoneDatabase { directory.testZones }

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-generator-reuse")
            try setZone("Asia/Tokyo")
        }

        func setZone(_ name: String) throws {
            try directory.setTestZone(name)
        }

        /// The generator prints `lines`, and a warning on stderr.
        func prints(_ lines: [String]) throws {
            let body = lines.map { "echo '\($0)'" }.joined(separator: "\n")
            try directory.write("generators.d/g", "#!/bin/sh\necho 'a note' >&2\n" + body + "\n", permissions: 0o755)
        }

        func load(
            systemZone: ZoneRules = GeneratorReuseTests.berlin, backends: [String]? = nil,
            after previous: LoadedSchedule? = nil
        ) throws -> LoadedSchedule {
            let source = GeneratorSource(
                directories: [directory.path], reuse: previous.flatMap { GeneratorReuse($0) })
            var loader = ScheduleLoader(sources: [source], zones: zones)
            loader.knownBackends = backends
            return try loader.load(systemZone: systemZone)
        }
    }

    static let lines = [
        #"{"Id":"tokyo","Title":"Tokyo","At":"2027-01-01 12:00","TimeZone":"Test/Zone"}"#,
        #"{"Id":"local","Title":"Local","At":"2027-01-01 12:00"}"#,
        #"{"Id":"bad","Title":"Bad","At":"someday"}"#,
    ]

    static func instants(_ schedule: LoadedSchedule) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: schedule.notifications.map {
                ($0.notification.id, Timestamp.iso8601($0.notification.trigger.instants[0]))
            })
    }

    @Test func theSameOutputIsTakenAsItWasWithItsProblems() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        let second = try setup.load(after: first)
        #expect(second.notifications.map(\.notification) == first.notifications.map(\.notification))
        #expect(second.notifications.map(\.line) == [1, 2])
        #expect(second.problems.map(\.description) == first.problems.map(\.description))
        #expect(second.problems.count == 2)  // the bad line, and the stderr of this run
        // Taken, not read again: the very zone loaded the first time.
        let zones = [first, second].map { $0.notifications[0].notification.trigger.timeZone! }
        #expect(zones[0].isSame(as: zones[1]))
        // Without what the first load lent, the lines are read again.
        let fresh = try setup.load()
        #expect(!fresh.notifications[0].notification.trigger.timeZone!.isSame(as: zones[0]))
    }

    @Test func otherOutputIsReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        try setup.prints(Self.lines.map { $0.replacingOccurrences(of: "12:00", with: "13:00") })
        let second = try setup.load(after: first)
        #expect(Self.instants(second) == ["tokyo": "2027-01-01T04:00:00Z", "local": "2027-01-01T12:00:00Z"])
    }

    @Test func aChangedZoneFileOrSystemZoneMakesTheLinesBeReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        #expect(Self.instants(first) == ["tokyo": "2027-01-01T03:00:00Z", "local": "2027-01-01T11:00:00Z"])
        // tzdata changed the rules of a zone a line names: same output, other instants.
        try setup.setZone("Europe/Lisbon")
        let second = try setup.load(after: first)
        #expect(Self.instants(second) == ["tokyo": "2027-01-01T12:00:00Z", "local": "2027-01-01T11:00:00Z"])
        // The system zone changed: the line without TimeZone= moves.
        let third = try setup.load(systemZone: .utc, after: second)
        #expect(Self.instants(third) == ["tokyo": "2027-01-01T12:00:00Z", "local": "2027-01-01T12:00:00Z"])
    }

    /// Lines read again (the output changed) that give the notification they gave before are given that one,
    /// sharing its storage: the very zone loaded the first time, as a reused output would have it.
    @Test func aChangedOutputSharesTheNotificationsThatAreTheSame() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        let added = #"{"Id":"added","Title":"Added","At":"2027-01-02 12:00","TimeZone":"Test/Zone"}"#
        let moved = Self.lines[1].replacingOccurrences(of: "12:00", with: "13:00")
        try setup.prints([added, moved, Self.lines[2], Self.lines[0]])
        let second = try setup.load(after: first)
        #expect(second.notifications.map(\.notification.id) == ["added", "local", "tokyo"])
        #expect(second.notifications.map(\.line) == [1, 2, 4])
        #expect(
            Self.instants(second) == [
                "added": "2027-01-02T03:00:00Z", "local": "2027-01-01T12:00:00Z", "tokyo": "2027-01-01T03:00:00Z",
            ])
        let zone = { (schedule: LoadedSchedule, id: String) in
            schedule.notifications.first { $0.notification.id == id }!.notification.trigger.timeZone!
        }
        #expect(zone(second, "tokyo").isSame(as: zone(first, "tokyo")))
        #expect(!zone(second, "added").isSame(as: zone(first, "tokyo")))
        // The same lines read without the load before are equal, but their own.
        let fresh = try setup.load()
        #expect(fresh.notifications.map(\.notification) == second.notifications.map(\.notification))
        #expect(!zone(fresh, "tokyo").isSame(as: zone(first, "tokyo")))
    }

    /// Lines edited where they were find the notification of then at their own position, and one after a line
    /// that made none finds it by id: each shares what did not change, and reads as it would without the load
    /// before.
    @Test func linesEditedInPlaceOrMovedShareWithTheirEarlierNotification() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        let edited = Self.lines.map { $0.replacingOccurrences(of: #""Title":""#, with: #""Title":"Edited "#) }
        for lines in [edited, [edited[2], edited[0], edited[1]]] {
            try setup.prints(lines)
            let second = try setup.load(after: first)
            #expect(second.notifications.map(\.notification.title) == ["Edited Tokyo", "Edited Local"])
            #expect(second.notifications.map(\.notification) == (try setup.load()).notifications.map(\.notification))
            for (now, then) in zip(second.notifications, first.notifications) {
                #expect(now.notification.trigger.timeZone?.isSame(as: then.notification.trigger.timeZone!) ?? true)
                #expect(now.notification.trigger.instants == then.notification.trigger.instants)
            }
            let tokyo = try #require(second.notifications.first?.notification.trigger.timeZone)
            #expect(tokyo.isSame(as: try #require(first.notifications.first?.notification.trigger.timeZone)))
        }
    }

    /// A changed output's lines printed before are taken as they were, at their new line numbers; a line that had
    /// something to say is read again and says it again, where it now is.
    @Test func aChangedOutputTakesTheLinesItPrintedBeforeAndReadsTheRest() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let warned = #"{"Id":"warned","Title":"Warned","At":"2027-01-01 12:00","Colour":"red"}"#
        try setup.prints(Self.lines + [warned])
        let first = try setup.load()
        let reformatted = #"{"Title":"Local","Id":"local","At":"2027-01-01 12:00"}"#
        try setup.prints([warned, Self.lines[2], Self.lines[0], reformatted])
        let second = try setup.load(after: first)
        #expect(second.notifications.map(\.notification.id) == ["warned", "tokyo", "local"])
        #expect(second.notifications.map(\.line) == [1, 3, 4])
        #expect(second.notifications.map(\.notification) == (try setup.load()).notifications.map(\.notification))
        let problems = second.problems.map(\.description).filter { !$0.contains("stderr") }
        #expect(problems.count == 2)
        #expect(problems.contains { $0.hasPrefix(setup.directory.path + "/generators.d/g:1:") })
        #expect(problems.contains { $0.hasPrefix(setup.directory.path + "/generators.d/g:2:") })
        let record = try #require(second.reusable.generatorOutputs.values.first)
        #expect(record.lineHashes.count == 3)
        #expect(record.lineHashes[0] == 0 && record.lineHashes[1] != 0 && record.lineHashes[2] != 0)
        let zone = { (schedule: LoadedSchedule) in
            schedule.notifications.first { $0.notification.id == "tokyo" }!.notification.trigger.timeZone!
        }
        #expect(zone(second).isSame(as: zone(first)))
    }

    @Test func nothingIsSharedWhenAZoneReadsOtherwise() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let first = try setup.load()
        try setup.setZone("Europe/Lisbon")
        try setup.prints(Self.lines.reversed())
        let second = try setup.load(after: first)
        #expect(Self.instants(second) == ["tokyo": "2027-01-01T12:00:00Z", "local": "2027-01-01T11:00:00Z"])
    }

    /// chimed.conf's backends changed: the same output's Deliver= are checked against them again.
    @Test func aChangedBackendListMakesTheLinesBeReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints([#"{"Id":"hooked","Title":"Hooked","At":"2027-01-01 12:00","Deliver":"hook"}"#])
        let first = try setup.load(backends: ["stdout", "hook"])
        #expect(!first.problems.contains { $0.message.contains("'hook'") })
        let second = try setup.load(backends: ["stdout"], after: first)
        #expect(second.problems.contains { $0.message.contains("Deliver= names 'hook', which is no backend") })
    }

    /// A reused output that is the whole schedule is the earlier schedule's very array, even with the sources that
    /// come after the generators (runtime requests) loaded and empty: the rebuild then looks nothing up. Reserving
    /// room in it for them copied a million entries.
    @Test func theSameOutputIsTheVeryArrayThoughEmptySourcesFollow() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        try setup.prints(Self.lines)
        let added = setup.directory.path + "/added"
        try FileManager.default.createDirectory(atPath: added, withIntermediateDirectories: true)
        func load(after previous: LoadedSchedule?) throws -> LoadedSchedule {
            let sources: [any ScheduleSource] = [
                NotificationDirectorySource(directories: [setup.directory.path + "/none"]),
                GeneratorSource(directories: [setup.directory.path], reuse: previous.flatMap { GeneratorReuse($0) }),
                NotificationDirectorySource(directories: [added], role: "directory of runtime requests"),
            ]
            return try ScheduleLoader(sources: sources, zones: setup.zones).load(systemZone: Self.berlin)
        }
        let first = try load(after: nil)
        let second = try load(after: first)
        let storage = { (schedule: LoadedSchedule) in
            schedule.notifications.withUnsafeBufferPointer { $0.baseAddress }
        }
        #expect(second.notifications.count == 2)
        #expect(storage(second) == storage(first))
    }
}
