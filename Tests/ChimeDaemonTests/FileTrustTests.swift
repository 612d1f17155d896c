import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Notification files that someone other than root or chimed's user could change are refused, saying why and how
/// to fix it; the rest of the directory loads.
@Suite struct FileTrustTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    static let notification = "[Notification]\nTitle=t\n[Trigger]\nOnCalendar=daily\n"

    func load(_ directory: TemporaryDirectory) throws -> LoadedSchedule {
        let loader = ScheduleLoader(sources: [NotificationDirectorySource(directories: [directory.path])])
        return try loader.load(systemZone: Self.berlin)
    }

    @Test(arguments: [
        (0o646, "others", "o"), (0o664, "its group", "g"), (0o666, "its group and by others", "go"),
    ])
    func aFileOthersCanWriteIsRefused(permissions: Int, whom: String, who: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("kept.notification", Self.notification)
        let path = try directory.write("open.notification", Self.notification, permissions: permissions)
        let schedule = try load(directory)
        #expect(schedule.notifications.map(\.notification.id) == ["kept"])
        #expect(
            schedule.problems.map(\.description) == [
                "\(path): File is writable by \(whom); refusing to load it (chmod \(who)-w \(path))."
            ])
        #expect(schedule.errorCount == 1)
    }

    @Test func aDropInOthersCanWriteRefusesItsNotification() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.notification", Self.notification)
        let dropIn = try directory.write(
            "a.notification.d/10-body.conf", "[Notification]\nBody=b\n", permissions: 0o646)
        let schedule = try load(directory)
        #expect(schedule.notifications.isEmpty)
        #expect(
            schedule.problems.map(\.description) == [
                "\(dropIn): File is writable by others; refusing to load it (chmod o-w \(dropIn))."
            ])
    }

    @Test func aMaskIsNotChecked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("a.notification", "", permissions: 0o666)
        let schedule = try load(directory)
        #expect(schedule.notifications.isEmpty && schedule.problems.isEmpty)
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file away"))
    func aFileOfAnotherUserIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("theirs.notification", Self.notification)
        #expect(chown(path, 4242, 4242) == 0)
        let schedule = try load(directory)
        #expect(schedule.notifications.isEmpty)
        #expect(
            schedule.problems.map(\.description) == [
                "\(path): File is owned by uid 4242, not by root; refusing to load it (chown root \(path))."
            ])
        // chimed running as uid 4242 trusts it, and names itself when it refuses another user's file.
        #expect(FileTrust(daemonUser: 4242).objection(to: path, subject: "File", action: "load it") == nil)
        #expect(
            FileTrust(daemonUser: 4343).objection(to: path, subject: "File", action: "load it")
                == "File is owned by uid 4242, not by root or uid 4343, which chimed runs as; refusing to load it "
                + "(chown 4343 \(path)).")
    }

    @Test func aSymlinkIsJudgedByItsTarget() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = try directory.write("elsewhere/a.txt", Self.notification, permissions: 0o646)
        let link = directory.path + "/a.notification"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let schedule = try load(directory)
        #expect(
            schedule.problems.map(\.description) == [
                "\(link): File is writable by others; refusing to load it (chmod o-w \(link))."
            ])
    }
}
