import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Dispatch
import Foundation
import Testing

@testable import ChimeDaemon

/// `schedule.json` as `SnapshotWriter` writes it, reusing the objects of unchanged items from the write before: the
/// file is always what the whole snapshot serialises to.
@Suite struct SnapshotWriterTests {
    static func facts(rebuiltAt rebuild: Date) -> SnapshotWriter.Facts {
        SnapshotWriter.Facts(
            pid: 42, instance: .user, lastRebuild: rebuild, lastLoadStarted: rebuild, rebuilds: 1, lastError: nil,
            configDirectories: ["/etc/chime"], stateDirectory: "/var/lib/chime", problems: [],
            defaultBackends: ["journal"], badge: 0, quiet: nil)
    }

    /// Writes the snapshot of `harness`'s schedule and returns the file, and what it should hold.
    static func written(
        _ writer: SnapshotWriter, _ harness: SchedulerHarness, rebuiltAt rebuild: Date
    ) throws -> (file: String, expected: String) {
        let status = harness.scheduler.status(limit: 1_000)
        let facts = facts(rebuiltAt: rebuild)
        let now = harness.clock.now()
        writer.write(status: status, facts: facts, now: now)
        let done = DispatchSemaphore(value: 0)
        writer.afterPendingWrite { done.signal() }
        done.wait()
        return (
            try String(contentsOfFile: writer.path, encoding: .utf8),
            SnapshotWriter.json(status: status, facts: facts, now: now).serialized + "\n"
        )
    }

    @Test func everyWriteIsTheWholeSnapshotWhateverItReused() throws {
        let directory = try TemporaryDirectory(prefix: "chime-snapshot")
        defer { directory.remove() }
        let writer = SnapshotWriter(path: directory.path + "/schedule.json")
        let harness = SchedulerHarness(start: "2026-10-20 09:00 UTC")
        let rebuild = harness.clock.now()
        let files = [
            ("tea", "[Trigger]\nOnCalendar=*-*-* 16:00\n"), ("pills", "[Trigger]\nOnCalendar=*-*-* 08:00\n"),
            ("exam", "[Notification]\nThread=school\n[Trigger]\nAt=2026-10-28 07:00\n"),
        ]
        harness.scheduler.install(SchedulerTests.schedule(files))
        var (file, expected) = try Self.written(writer, harness, rebuiltAt: rebuild)
        #expect(file == expected)
        #expect(file.contains(#""id":"exam""#) && file.contains(#""thread":"school""#))

        // The same ids, one with another title and one with another trigger, the same rebuild: those two change.
        var changed = SchedulerTests.schedule(files)
        changed.notifications[0].notification.title = "Tea, now"
        changed.notifications[1] =
            SchedulerTests.schedule([("pills", "[Trigger]\nOnCalendar=*-*-* 07:30\n")])
            .notifications[0]
        harness.scheduler.install(changed)
        (file, expected) = try Self.written(writer, harness, rebuiltAt: rebuild)
        #expect(file == expected)
        #expect(file.contains("Tea, now") && file.contains("07:30"))

        // A delivery moves one item on; a later rebuild writes everything anew.
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 16:00 Europe/Berlin"))
        (file, expected) = try Self.written(writer, harness, rebuiltAt: rebuild)
        #expect(file == expected)
        (file, expected) = try Self.written(writer, harness, rebuiltAt: harness.clock.now())
        #expect(file == expected)
    }

    /// What lets an application's `Add` past the listed ones be answered without waiting for the snapshot.
    @Test func earliestThroughIsTheLastListedDueOnlyWhenMoreAreScheduled() {
        let harness = SchedulerHarness(start: "2026-10-20 09:00 UTC")
        harness.scheduler.install(
            SchedulerTests.schedule([
                ("a", "[Trigger]\nAt=2026-10-20 12:00\n"), ("b", "[Trigger]\nAt=2026-10-20 13:00\n"),
                ("c", "[Trigger]\nAt=2026-10-20 14:00\n"),
            ]))
        #expect(
            harness.scheduler.status(limit: 2).earliestThrough == TestDate.timestamp("2026-10-20 13:00 Europe/Berlin"))
        #expect(harness.scheduler.status(limit: 2).scheduled.map(\.id) == ["a", "b"])
        #expect(harness.scheduler.status(limit: 3).earliestThrough == nil)
    }
}
