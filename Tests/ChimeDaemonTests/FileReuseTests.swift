import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore
@testable import ChimeDaemon

/// `FileReuse`: a rebuild takes a notification from the rebuild before when its files hold the same bytes and the
/// load reads alike, and reads them again otherwise.
@Suite struct FileReuseTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    /// A configuration directory, and a zone database of its own whose `Test/Zone` can change.
    struct Setup {
        let directory: TemporaryDirectory
        var config: String { directory.path + "/config" }
        var zones: ZoneDatabase { directory.testZones }

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-file-reuse")
            try setZone("Asia/Tokyo")
            try write("tokyo", "Title=Tokyo\n[Trigger]\nAt=2027-01-01 12:00\nTimeZone=Test/Zone\n")
            try write("local", "Title=Local\n[Trigger]\nAt=2027-01-01 12:00\n")
            try write("warned", "Title=Warned\nColour=red\n[Trigger]\nAt=2027-01-01 12:00\n")
            try write("bad", "Title=Bad\n[Trigger]\nAt=someday\n")
        }

        func setZone(_ name: String) throws {
            try directory.setTestZone(name)
        }

        func write(_ id: String, _ notification: String) throws {
            try directory.write("config/\(id).notification", "[Notification]\n" + notification)
        }

        func load(
            systemZone: ZoneRules = FileReuseTests.berlin, backends: [String]? = nil,
            after previous: LoadedSchedule? = nil
        ) throws -> LoadedSchedule {
            let source = NotificationDirectorySource(directories: [config], reuse: previous.flatMap { FileReuse($0) })
            var loader = ScheduleLoader(sources: [source], zones: zones)
            loader.knownBackends = backends
            return try loader.load(systemZone: systemZone)
        }
    }

    /// The instants of `tokyo` and `local`.
    static func instants(_ schedule: LoadedSchedule) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: schedule.notifications.filter { $0.notification.id != "warned" }.map {
                ($0.notification.id, Timestamp.iso8601($0.notification.trigger.instants[0]))
            })
    }

    static func zone(_ schedule: LoadedSchedule, _ id: String) -> ZoneRules {
        schedule.notifications.first { $0.notification.id == id }!.notification.trigger.timeZone!
    }

    @Test func unchangedFilesAreTakenAsTheyWereAndTheRestReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load()
        #expect(first.notifications.map(\.notification.id) == ["local", "tokyo", "warned"])
        // Only what loaded without a problem is known again.
        #expect(first.notifications.map(\.fingerprinted) == [true, true, false])
        let second = try setup.load(after: first)
        #expect(second.notifications.map(\.notification) == first.notifications.map(\.notification))
        #expect(second.notifications.map(\.source) == first.notifications.map(\.source))
        // Taken, not read again: the very zone loaded the first time.
        #expect(Self.zone(second, "tokyo").isSame(as: Self.zone(first, "tokyo")))
        // The file with a warning and the one with an error are read again and say so again.
        #expect(second.problems.map(\.description) == first.problems.map(\.description))
        #expect(second.problems.count == 2)
        // Without what the first load lent, every file is read again.
        let fresh = try setup.load()
        #expect(!Self.zone(fresh, "tokyo").isSame(as: Self.zone(first, "tokyo")))
    }

    @Test func anEditedFileOrDropInIsReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load()
        try setup.write("local", "Title=Local\n[Trigger]\nAt=2027-01-01 13:00\n")
        let second = try setup.load(after: first)
        #expect(Self.instants(second) == ["tokyo": "2027-01-01T03:00:00Z", "local": "2027-01-01T12:00:00Z"])
        #expect(Self.zone(second, "tokyo").isSame(as: Self.zone(first, "tokyo")))
        try setup.directory.write("config/tokyo.notification.d/later.conf", "[Trigger]\nAt=\nAt=2027-01-01 14:00\n")
        let third = try setup.load(after: second)
        #expect(Self.instants(third) == ["tokyo": "2027-01-01T05:00:00Z", "local": "2027-01-01T12:00:00Z"])
        #expect(!Self.zone(third, "tokyo").isSame(as: Self.zone(first, "tokyo")))
        #expect(third.notifications.map(\.fingerprinted) == [true, true, false])
        // The drop-in's bytes are part of what is compared.
        try setup.directory.write("config/tokyo.notification.d/later.conf", "[Trigger]\nAt=\nAt=2027-01-01 15:00\n")
        let fourth = try setup.load(after: third)
        #expect(Self.instants(fourth)["tokyo"] == "2027-01-01T06:00:00Z")
    }

    @Test func aChangedZoneFileSystemZoneOrBackendListMakesTheFilesBeReadAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load()
        #expect(Self.instants(first) == ["tokyo": "2027-01-01T03:00:00Z", "local": "2027-01-01T11:00:00Z"])
        // tzdata changed the rules of a zone a file names: same files, other instants.
        try setup.setZone("Europe/Lisbon")
        let second = try setup.load(after: first)
        #expect(Self.instants(second) == ["tokyo": "2027-01-01T12:00:00Z", "local": "2027-01-01T11:00:00Z"])
        // The system zone changed: the file without TimeZone= moves.
        let third = try setup.load(systemZone: .utc, after: second)
        #expect(Self.instants(third) == ["tokyo": "2027-01-01T12:00:00Z", "local": "2027-01-01T12:00:00Z"])
        // chimed.conf's backends changed: Deliver= is checked against them again.
        try setup.write("local", "Title=Local\nDeliver=hook\n[Trigger]\nAt=2027-01-01 12:00\n")
        let fourth = try setup.load(systemZone: .utc, backends: ["stdout", "hook"], after: third)
        #expect(!fourth.problems.contains { $0.message.contains("'hook'") })
        let fifth = try setup.load(systemZone: .utc, backends: ["stdout"], after: fourth)
        #expect(fifth.problems.contains { $0.message.contains("Deliver= names 'hook', which is no backend") })
    }

    /// The owner and mode of each file are checked at every load: a file that others may now write is refused,
    /// though its bytes are those loaded before.
    @Test func aFileThatBecameWritableByOthersIsRefusedThoughUnchanged() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load()
        let path = setup.config + "/local.notification"
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        let second = try setup.load(after: first)
        #expect(second.notifications.map(\.notification.id) == ["tokyo", "warned"])
        #expect(second.problems.contains { $0.location.file == path && $0.severity == .error })
    }
}
