import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Loading from several sources: earlier sources win for the same id, and a directory that cannot be read fails
/// the whole load.
@Suite struct ScheduleLoaderTests {
    static func file(_ title: String) -> String {
        "[Notification]\nTitle=\(title)\n[Trigger]\nEvery=1h\n"
    }

    @Test func laterSourcesLoseDuplicateIDsWithAWarning() throws {
        let directory = try TemporaryDirectory(prefix: "chime-loader")
        defer { directory.remove() }
        try directory.write("one/a.notification", Self.file("A from one"))
        try directory.write("one/b.notification", Self.file("B"))
        try directory.write("two/a.notification", Self.file("A from two"))
        try directory.write("two/c.notification", Self.file("C"))
        let loader = ScheduleLoader(sources: [
            NotificationDirectorySource(directories: [directory.path + "/one"]),
            NotificationDirectorySource(directories: [directory.path + "/two"]),
        ])
        let loaded = try loader.load(systemZone: .utc)
        #expect(loaded.notifications.map(\.notification.title) == ["A from one", "B", "C"])
        #expect(
            loaded.problems.map(\.description) == [
                "\(directory.path)/two/a.notification: A notification named 'a' was already loaded, ignoring this one."
            ])
    }

    @Test func withoutDuplicatesEverythingLoadsInOrder() throws {
        let directory = try TemporaryDirectory(prefix: "chime-loader")
        defer { directory.remove() }
        for name in ["c", "a", "b"] { try directory.write("\(name).notification", Self.file(name)) }
        let loader = ScheduleLoader(sources: [
            NotificationDirectorySource(directories: [directory.path + "/missing", directory.path])
        ])
        let loaded = try loader.load(systemZone: .utc)
        #expect(loaded.notifications.map(\.notification.id) == ["a", "b", "c"])
        #expect(loaded.problems.isEmpty)
    }

    @Test func aConfigurationPathThatIsNotADirectoryFailsTheLoad() throws {
        let directory = try TemporaryDirectory(prefix: "chime-loader")
        defer { directory.remove() }
        let path = try directory.write("plain-file", "x")
        let loader = ScheduleLoader(sources: [NotificationDirectorySource(directories: [path])])
        #expect(throws: ScheduleLoadError("Cannot read configuration directory \(path) (Not a directory)")) {
            try loader.load(systemZone: .utc)
        }
    }

    /// A generator's line, or the fingerprint of the files a notification was read from, is kept in one word
    /// beside it, where the entry had padding: a schedule holds up to a million.
    @Test func aLoadedNotificationKeepsItsLineOrFingerprintCompactly() {
        let notification = ScheduledNotification(id: "a", title: "t", trigger: Trigger())
        #expect(MemoryLayout<LoadedNotification>.stride == 136)
        #expect(LoadedNotification(notification: notification, source: "gen", line: 7).kind == .generator)
        #expect(LoadedNotification(notification: notification, source: "/etc/a.notification").kind == .file)
        let request = ScheduledNotification(id: "org.example.Reminders:tea", title: "t", trigger: Trigger())
        let application = LoadedNotification(application: request, source: "/var/lib/chime/apps/x")
        #expect(application.kind == .application && application.line == nil && !application.fingerprinted)
        #expect(application.deliveryOrigin == .application(appID: "org.example.Reminders", id: "tea"))
        let added = LoadedNotification(notification: notification, source: "/a", fingerprint: 42, kind: .added)
        #expect(added.kind == .added && added.fingerprinted && added.deliveryOrigin == .added)
        #expect(LoadedNotification(notification: notification, source: "gen").line == nil)
        #expect(LoadedNotification(notification: notification, source: "gen", line: 7).line == 7)
        #expect(!LoadedNotification(notification: notification, source: "gen", line: 7).fingerprinted)
        let bytes = NotificationBytes(id: "a", paths: ["/etc/a.notification"], fingerprint: -42)
        let read = LoadedNotification(
            notification: notification, source: "/etc/a.notification", fingerprint: -42, kind: .file)
        #expect(read.line == nil && read.fingerprinted && read.wasRead(from: bytes))
        #expect(!read.wasRead(from: NotificationBytes(id: "a", paths: ["/etc/a.notification"], fingerprint: 42)))
        #expect(!read.wasRead(from: NotificationBytes(id: "a", paths: ["/run/a.notification"], fingerprint: -42)))
        // 0 is no fingerprint: files with a problem are never known again.
        let unknown = LoadedNotification(
            notification: notification, source: "/etc/a.notification", fingerprint: 0, kind: .file)
        #expect(!unknown.fingerprinted)
    }
}
