import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `Repeat=` on the manual clock: again after each span, the last one over and over, until acknowledged; started
/// afresh by the next occurrence; kept across a restart (`FileRepeatStore`, a real file).
@Suite struct RepeatTests {
    static let pills = [
        ("pills", "[Notification]\nRepeat=5min 10min\n[Trigger]\nOnCalendar=*-*-* 08:00\nTimeZone=UTC\n")
    ]

    /// Deliveries as `id#repeat@hand-off`, the time as HH:MM.
    static func handedOff(_ harness: SchedulerHarness) -> [String] {
        harness.dispatcher.records.map { record in
            "\(record.id)#\(record.repeatNumber)@\(Timestamp.iso8601(record.handedOffAt).dropFirst(11).prefix(5))"
        }
    }

    @Test func itRepeatsAfterEachSpanAndTheLastOverAndOverUntilAcknowledged() {
        let harness = SchedulerHarness(start: "2026-12-01 07:00 UTC")
        harness.scheduler.install(SchedulerTests.schedule(Self.pills))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 08:34 UTC"))
        #expect(Self.handedOff(harness) == ["pills#0@08:00", "pills#1@08:05", "pills#2@08:15", "pills#3@08:25"])
        // Each repeat is of the 08:00 occurrence.
        #expect(Set(harness.dispatcher.records.map(\.fireTime)) == [TestDate.timestamp("2026-12-01 08:00 UTC")])
        #expect(harness.scheduler.repeating.map(\.number) == [4])

        #expect(harness.scheduler.acknowledge(["pills", "other"], by: "chimectl ack") == ["pills"])
        #expect(
            harness.log.events(.acknowledged).map(\.message) == [
                "pills: pills (acknowledged by chimectl ack; no more repeats)"
            ])
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 07:59 UTC"))
        #expect(harness.dispatcher.records.count == 4)
        // Acknowledging again finds nothing to stop.
        #expect(harness.scheduler.acknowledge(["pills"], by: "chimectl ack").isEmpty)

        // The next occurrence starts again from the first span.
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 08:06 UTC"))
        #expect(Self.handedOff(harness).suffix(2) == ["pills#0@08:00", "pills#1@08:05"])
    }

    @Test func aNewOccurrenceReplacesTheRepeatsOfTheLastOne() {
        let harness = SchedulerHarness(start: "2026-12-01 07:00 UTC")
        harness.scheduler.install(
            SchedulerTests.schedule([("tea", "[Notification]\nRepeat=20min\n[Trigger]\nEvery=30min\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 08:10 UTC"))
        #expect(
            Self.handedOff(harness) == [
                "tea#0@07:30", "tea#1@07:50", "tea#0@08:00",
            ])
        #expect(harness.scheduler.repeating.map { Timestamp.iso8601($0.next) } == ["2026-12-01T08:20:00Z"])
    }

    @Test func aSnoozeStopsTheRepeatsUntilItIsDeliveredAndARemovedNotificationStopsThem() {
        let harness = SchedulerHarness(start: "2026-12-01 07:00 UTC")
        harness.scheduler.install(SchedulerTests.schedule(Self.pills))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 08:01 UTC"))
        harness.scheduler.snooze("pills", for: .seconds(1800))
        #expect(harness.scheduler.repeating.isEmpty)
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 08:40 UTC"))
        #expect(Self.handedOff(harness) == ["pills#0@08:00", "pills#0@08:31", "pills#1@08:36"])

        harness.scheduler.install(SchedulerTests.schedule([]))
        #expect(harness.scheduler.repeating.isEmpty)
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 10:00 UTC"))
        #expect(harness.dispatcher.records.count == 3)
    }

    @Test func repeatsOutliveARestartAndOneThatFellDueMeanwhileComesOnce() throws {
        let directory = try TemporaryDirectory(prefix: "chime-repeats")
        defer { directory.remove() }
        let log = RecordingEventLog()
        let history = MemoryHistoryStore()
        let first = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-12-01 07:00 UTC")), store: history,
            repeatStore: FileRepeatStore(directory: directory.path, log: log))
        first.scheduler.install(SchedulerTests.schedule(Self.pills))
        first.clock.advance(to: TestDate.timestamp("2026-12-01 08:06 UTC"))
        let kept = try String(contentsOfFile: directory.path + "/repeats.json", encoding: .utf8)
        #expect(kept.contains(#""id":"pills","due_usec":1796112900000000,"number":2,"fire_usec":1796112000000000"#))

        // Down from 08:06 to 08:40: the repeat due at 08:15 comes once at the start, the next 10 minutes later.
        let second = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-12-01 08:40 UTC")), store: history,
            repeatStore: FileRepeatStore(directory: directory.path, log: log))
        second.scheduler.install(SchedulerTests.schedule(Self.pills))
        second.clock.advance(to: TestDate.timestamp("2026-12-01 08:55 UTC"))
        #expect(Self.handedOff(second) == ["pills#2@08:40", "pills#3@08:50"])
        second.scheduler.acknowledge(["pills"], by: "chimectl ack")
        #expect(
            try String(contentsOfFile: directory.path + "/repeats.json", encoding: .utf8).contains(#""repeats":[]"#))

        let third = SchedulerHarness(
            clock: ManualClock(TestDate.timestamp("2026-12-01 09:00 UTC")), store: history,
            repeatStore: FileRepeatStore(directory: directory.path, log: log))
        third.scheduler.install(SchedulerTests.schedule(Self.pills))
        third.clock.advance(to: TestDate.timestamp("2026-12-01 12:00 UTC"))
        #expect(third.dispatcher.records.isEmpty)
        #expect(log.events(.stateError).isEmpty)
    }
}
