import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `WakeSystem=yes` in the scheduler, on the manual clock: one alarm timer for the earliest such occurrence, an
/// inhibitor held for each such delivery until it is done, and a journal entry when the alarm woke the system.
@Suite struct SchedulerWakeTests {
    typealias Harness = SchedulerHarness

    /// Inhibitors taken and released, by reason.
    final class Inhibitions: SleepHolding, @unchecked Sendable {
        let taken = Locked<[String]>([])
        let released = Locked<[String]>([])

        func hold(_ why: String) -> @Sendable () -> Void {
            taken.withLock { $0.append(why) }
            return { self.released.withLock { $0.append(why) } }
        }
    }

    /// A harness whose scheduler wakes the system with `alarm`, a manual timer on its clock.
    static func harness(asleep: Locked<Int64>, inhibitions: Inhibitions) -> (Harness, alarm: ManualTimer) {
        let clock = ManualClock(TestDate.timestamp("2026-12-01 05:00 UTC"))
        let alarm = clock.makeTimer()
        let wake = SystemWake(
            alarm: WakeAlarm(timer: alarm, timeAsleep: { .microseconds(asleep.withLock { $0 }) }),
            sleepHold: inhibitions)
        return (Harness(clock: clock, wake: wake), alarm)
    }

    @Test func theAlarmIsArmedForTheEarliestWakingOccurrenceAndItsDeliveriesKeepTheSystemAwake() throws {
        let asleep = Locked<Int64>(0)
        let inhibitions = Inhibitions()
        let (harness, alarm) = Self.harness(asleep: asleep, inhibitions: inhibitions)
        harness.scheduler.install(
            SchedulerTests.schedule([
                ("alarm", "[Trigger]\nOnCalendar=*-*-* 06:30\nWakeSystem=yes\n"),
                ("pills", "[Trigger]\nAt=2026-12-01 07:00\nWakeSystem=yes\n"),
                ("tick", "[Trigger]\nOnCalendar=*:10/15\n"),
            ]))
        // 06:30 Berlin is 05:30 UTC; tick, which does not wake the system, has the wall-clock timer at 05:10.
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T05:30:00Z")
        #expect(Timestamp.iso8601(harness.timer.deadline!) == "2026-12-01T05:10:00Z")

        // Asleep from before 05:10 until the alarm: tick's two occurrences are missed, alarm is delivered.
        asleep.withLock { $0 = 2_000_000_000 }
        harness.clock.jump(to: TestDate.timestamp("2026-12-01 05:30 UTC"))
        alarm.fire()
        #expect(harness.delivered == ["alarm@2026-12-01T05:30:00Z"])
        let woke = try #require(harness.log.events(.wokeSystem).first)
        #expect(woke.message == "Woke the system for alarm (WakeSystem=yes), after 33min 20s asleep.")
        #expect(woke.fields.first { $0.name == "CHIME_SLEPT_USEC" }?.value == "2000000000")
        #expect(inhibitions.taken.withLock { $0 } == ["Delivering alarm (WakeSystem=yes)"])
        #expect(inhibitions.released.withLock { $0 } == inhibitions.taken.withLock { $0 })
        // Next: pills at 06:00 UTC, then alarm tomorrow.
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T06:00:00Z")

        // Awake all along: the wall-clock timer and the alarm expire together, pills is delivered once, and nothing
        // says the system was woken.
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 06:00 UTC"))
        #expect(harness.delivered.filter { $0.hasPrefix("pills@") } == ["pills@2026-12-01T06:00:00Z"])
        #expect(harness.log.events(.wokeSystem).count == 1)
        #expect(inhibitions.taken.withLock { $0 }.count == 2)
        #expect(inhibitions.released.withLock { $0 }.count == 2)
        // tick's deliveries take no inhibitor.
        #expect(harness.delivered.contains { $0.hasPrefix("tick@") })
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-02T05:30:00Z")

        // A rebuild without any waking notification disarms it.
        harness.scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nOnCalendar=*:0/15\n")]))
        #expect(alarm.deadline == nil)
    }

    /// A repeat or a snooze of a notification that wakes the system keeps it awake while it is delivered, as the
    /// occurrence did.
    @Test func repeatsAndSnoozesOfAWakingNotificationKeepTheSystemAwakeToo() throws {
        let inhibitions = Inhibitions()
        let (harness, _) = Self.harness(asleep: Locked<Int64>(0), inhibitions: inhibitions)
        harness.scheduler.install(
            SchedulerTests.schedule([
                ("pills", "[Notification]\nRepeat=5min\n[Trigger]\nAt=2026-12-01 07:00\nWakeSystem=yes\n")
            ]))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 06:00 UTC"))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 06:05 UTC"))
        #expect(harness.delivered == ["pills@2026-12-01T06:00:00Z", "pills@2026-12-01T06:00:00Z"])
        #expect(harness.scheduler.acknowledge(["pills"], by: "the test") == ["pills"])
        #expect(harness.scheduler.snooze("pills", for: .seconds(600)) != nil)
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 06:15 UTC"))
        #expect(harness.delivered.count == 3)
        #expect(inhibitions.taken.withLock { $0 } == Array(repeating: "Delivering pills (WakeSystem=yes)", count: 3))
        #expect(inhibitions.released.withLock { $0 } == inhibitions.taken.withLock { $0 })
    }

    @Test func usersWakeUpsShareTheAlarmOneEachAndEndWhenTheyCome() throws {
        let asleep = Locked<Int64>(0)
        let (harness, alarm) = Self.harness(asleep: asleep, inhibitions: Inhibitions())
        harness.scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nOnCalendar=hourly\n")]))
        #expect(alarm.deadline == nil)
        harness.scheduler.setUserWake(1000, at: TestDate.timestamp("2026-12-01 06:00 UTC"))
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T06:00:00Z")
        // A new request of the same user replaces the old one; another user's earlier one comes first.
        harness.scheduler.setUserWake(1000, at: TestDate.timestamp("2026-12-01 06:30 UTC"))
        harness.scheduler.setUserWake(1001, at: TestDate.timestamp("2026-12-01 06:10 UTC"))
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T06:10:00Z")
        #expect(harness.scheduler.userWakeTimes.count == 2)

        asleep.withLock { $0 = 600_000_000 }
        harness.clock.jump(to: TestDate.timestamp("2026-12-01 06:10 UTC"))
        alarm.fire()
        let woke = try #require(harness.log.events(.wokeSystem).first)
        #expect(woke.message == "Woke the system for the instance of user 1001 (WakeSystem=yes), after 10min asleep.")
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T06:30:00Z")
        #expect(harness.scheduler.userWakeTimes.keys.sorted() == [1000])
        // A rebuild keeps them; withdrawn, the alarm is off.
        harness.scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nOnCalendar=hourly\n")]))
        #expect(Timestamp.iso8601(alarm.deadline!) == "2026-12-01T06:30:00Z")
        harness.scheduler.setUserWake(1000, at: nil)
        #expect(alarm.deadline == nil)
    }
}
