import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The sources of an instance: configuration directories first, then the runtime requests of `chimectl add`.
@Suite struct RuntimeRequestSourceTests {
    static func notification(_ title: String) -> String {
        "[Notification]\nTitle=\(title)\n[Trigger]\nOnCalendar=daily\n"
    }

    @Test func runtimeRequestsLoadAfterTheFilesAndNeverShadowOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("etc/standup.notification", Self.notification("From the file"))
        try directory.write("state/added/standup.notification", Self.notification("Added"))
        try directory.write("state/added/tea.notification", Self.notification("Tea"))
        let options = DaemonOptions(
            configDirectories: [directory.path + "/etc"], stateDirectory: directory.path + "/state",
            runtimeDirectory: directory.path + "/run", instance: .system)
        #expect(options.addedDirectory == directory.path + "/state/added")

        let loaded = try ScheduleLoader(sources: ScheduleLoader.instanceSources(options: options, environment: [:]))
            .load(
                systemZone: .utc)
        #expect(loaded.notifications.map(\.notification.id) == ["standup", "tea"])
        #expect(loaded.notifications.map(\.notification.title) == ["From the file", "Tea"])
        #expect(loaded.notifications.last?.source == directory.path + "/state/added/tea.notification")
        #expect(
            loaded.problems.map(\.description) == [
                "\(directory.path)/state/added/standup.notification: "
                    + "A notification named 'standup' was already loaded, ignoring this one."
            ])
    }

    @Test func aMissingAddedDirectoryIsNoProblem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("etc/tea.notification", Self.notification("Tea"))
        let options = DaemonOptions(
            configDirectories: [directory.path + "/etc"], stateDirectory: directory.path + "/state",
            runtimeDirectory: directory.path + "/run", instance: .user)
        let loaded = try ScheduleLoader(sources: ScheduleLoader.instanceSources(options: options, environment: [:]))
            .load(
                systemZone: .utc)
        #expect(loaded.notifications.map(\.notification.id) == ["tea"])
        #expect(loaded.problems.isEmpty)
    }
}
