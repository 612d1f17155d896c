import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// A snooze outlives a restart (`FileSnoozeStore`, a real file): delivered once, late if it fell due while chimed was
/// down, never again after; dropped with its notification.
@Suite struct SnoozePersistenceTests {
    static let files = [("exam", "[Notification]\nSnoozeSec=10min\n[Trigger]\nAt=2026-10-28 07:00\n")]

    static func kept(_ directory: TemporaryDirectory) throws -> String {
        try String(contentsOfFile: directory.path + "/snoozes.json", encoding: .utf8)
    }

    @Test func aSnoozeFallingDueWhileChimedIsDownIsDeliveredOnceAfterTheRestart() throws {
        let directory = try TemporaryDirectory(prefix: "chime-snoozes")
        defer { directory.remove() }
        let store = MemoryHistoryStore()
        let log = RecordingEventLog()
        let first = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 05:00 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log))
        first.scheduler.install(SchedulerTests.schedule(Self.files))
        first.clock.advance(to: TestDate.timestamp("2026-10-28 06:00 UTC"))
        #expect(first.scheduler.snooze("exam", for: .seconds(600)) == TestDate.timestamp("2026-10-28 06:10 UTC"))
        #expect(try Self.kept(directory).contains(#""id":"exam","due_usec":1793167800000000"#))

        // Down from 06:05 to 06:20: the snooze fell due meanwhile.
        let second = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 06:20 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log))
        second.scheduler.install(SchedulerTests.schedule(Self.files))
        second.clock.advance(to: TestDate.timestamp("2026-10-28 06:20:01 UTC"))
        #expect(second.delivered == ["exam@2026-10-28T06:10:00Z"])
        #expect(try Self.kept(directory).contains(#""snoozes":[]"#))

        let third = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 06:30 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log))
        third.scheduler.install(SchedulerTests.schedule(Self.files))
        third.clock.advance(to: TestDate.timestamp("2026-10-29 06:30 UTC"))
        #expect(third.delivered.isEmpty)
        #expect(log.events(.stateError).isEmpty)
    }

    @Test func aSnoozeWaitsThroughARestartAndGoesWithItsNotification() throws {
        let directory = try TemporaryDirectory(prefix: "chime-snoozes")
        defer { directory.remove() }
        let store = MemoryHistoryStore()
        let log = RecordingEventLog()
        let first = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 06:00 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log))
        first.scheduler.install(SchedulerTests.schedule(Self.files + [("tea", "[Trigger]\nEvery=1d\n")]))
        first.scheduler.snooze("exam", for: .seconds(3600))
        first.scheduler.snooze("tea", for: .seconds(3600))

        // Restarted at once, without tea: exam's snooze comes at its time, tea's is gone.
        let second = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 06:01 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log))
        second.scheduler.install(SchedulerTests.schedule(Self.files))
        #expect(!(try Self.kept(directory)).contains("tea"))
        second.clock.advance(to: TestDate.timestamp("2026-10-28 06:59:59 UTC"))
        #expect(second.delivered.isEmpty)
        second.clock.advance(to: TestDate.timestamp("2026-10-28 08:00 UTC"))
        #expect(second.delivered == ["exam@2026-10-28T07:00:00Z"])
        #expect(second.handedOffLate.isEmpty)
    }

    /// A snooze and a repeat handed to the backends when chimed is killed are delivered again after the restart, as
    /// what they were, and move no history: the occurrence after them still comes.
    @Test func aSnoozeOrARepeatInFlightAtACrashIsDeliveredAgainAsItWas() throws {
        let directory = try TemporaryDirectory(prefix: "chime-snoozes")
        defer { directory.remove() }
        let files = [
            ("exam", "[Notification]\nSnoozeSec=10min\n[Trigger]\nOnCalendar=*-*-* 08:00\n"),
            ("pills", "[Notification]\nRepeat=5min\n[Trigger]\nAt=2026-10-28 07:00\n"),
        ]
        let store = MemoryHistoryStore()
        let log = RecordingEventLog()
        let clock = ManualClock(TestDate.timestamp("2026-10-28 05:00 UTC"))
        // The first run's backends never finish: it is killed with everything it handed over in flight.
        let first = Scheduler(
            clock: clock, timer: clock.makeTimer(), dispatcher: NeverFinishing(), log: log, store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log),
            repeatStore: FileRepeatStore(directory: directory.path, log: log))
        first.install(SchedulerTests.schedule(files))
        first.snooze("exam", for: .seconds(600))
        // 05:10 UTC the snooze, 06:00 UTC pills (07:00 in Berlin), 06:05 its first repeat.
        clock.advance(to: TestDate.timestamp("2026-10-28 06:06 UTC"))

        let second = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-10-28 06:07 UTC")), store: store,
            snoozeStore: FileSnoozeStore(directory: directory.path, log: log),
            repeatStore: FileRepeatStore(directory: directory.path, log: log))
        second.scheduler.install(SchedulerTests.schedule(files))
        let again = second.dispatcher.records.map { ($0.id, $0.isSnoozed, $0.repeatNumber) }
        #expect(again.contains { $0 == ("exam", true, 0) })
        #expect(again.contains { $0 == ("pills", false, 0) })
        #expect(again.contains { $0 == ("pills", false, 1) })
        #expect(second.log.events(.deliveryFailed).contains { $0.message.contains("exam: the snooze of the delivery") })
        #expect(
            second.log.events(.deliveryFailed).contains { $0.message.contains("pills: the repeat 1 of the delivery") })
        // The snooze moved no history: exam's 08:00 (Berlin) still comes, once.
        second.clock.advance(to: TestDate.timestamp("2026-10-28 07:30 UTC"))
        #expect(
            second.delivered.filter { $0.hasPrefix("exam@") } == [
                "exam@2026-10-28T05:10:00Z", "exam@2026-10-28T07:00:00Z",
            ])
        // Finished this time: a third start delivers nothing again.
        let third = SchedulerHarness(clock: ManualClock(TestDate.timestamp("2026-10-28 07:31 UTC")), store: store)
        third.scheduler.install(SchedulerTests.schedule(files))
        #expect(third.delivered.isEmpty)
    }

    @Test func aSnoozeFileThatIsNotOneIsReportedAndIgnored() throws {
        let directory = try TemporaryDirectory(prefix: "chime-snoozes")
        defer { directory.remove() }
        try directory.write("snoozes.json", "{\"version\":2}")
        let log = RecordingEventLog()
        #expect(FileSnoozeStore(directory: directory.path, log: log).load().isEmpty)
        #expect(
            log.events(.stateError).map(\.message) == [
                "\(directory.path)/snoozes.json is not a chime snooze file; the snoozes in it are lost"
            ])
    }
}

/// Backends that never finish: what chimed leaves in flight when it is killed.
private final class NeverFinishing: DeliveryDispatching, Sendable {
    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {}
}
