import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Suspend and resume as logind announces them (`PrepareForSleep`), on the manual clock: what fell due while the
/// machine slept is handled at the resume like a jump of the clock.
@Suite struct SchedulerSleepTests {
    typealias Harness = SchedulerHarness

    static func field(_ event: DaemonEvent, _ name: String) -> String? {
        event.fields.first { $0.name == name }?.value
    }

    @Test func whatFellDueWhileAsleepIsCaughtUpOnceOrMissedAtTheResume() throws {
        let harness = Harness(start: "2026-12-01 06:59 UTC")
        harness.scheduler.install(
            SchedulerTests.schedule([
                ("tick", "[Trigger]\nOnCalendar=*:0/10\n"),
                ("pills", "[Trigger]\nOnCalendar=*-*-* 09:00\nOnCalendar=*-*-* 10:00\nPersistent=yes\n"),
                ("later", "[Trigger]\nAt=2026-12-01 11:05\n"),
            ]))
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 07:05 UTC"))
        #expect(harness.delivered == ["tick@2026-12-01T07:00:00Z"])

        // Asleep from 07:05 to 10:02 UTC (08:05 to 11:02 in Berlin): the processes are frozen, and the clock moves
        // on without a timer firing.
        harness.scheduler.sleeping()
        harness.clock.jump(to: TestDate.timestamp("2026-12-01 10:02 UTC"))
        harness.scheduler.resumed()

        // pills' two occurrences (09:00 and 10:00 Berlin) come once, late; tick's 18 are one missed entry; later,
        // not yet due, waits for its time.
        #expect(harness.delivered == ["tick@2026-12-01T07:00:00Z", "pills@2026-12-01T09:00:00Z"])
        #expect(harness.dispatcher.records.last?.missedCount == 2)
        let missed = try #require(harness.log.events(.missed).first)
        #expect(Self.field(missed, "CHIME_ID") == "tick")
        #expect(Self.field(missed, "CHIME_MISSED") == "18")
        let sleeping = try #require(harness.log.events(.sleeping).first)
        #expect(Self.field(sleeping, "CHIME_NOW") == "2026-12-01T07:05:00.000000Z")
        let resumed = try #require(harness.log.events(.resumed).first)
        #expect(Self.field(resumed, "CHIME_SLEPT_USEC") == "10620000000")
        #expect(resumed.message == "The system resumed after sleeping 2h 57min; handling what fell due meanwhile.")

        harness.clock.advance(to: TestDate.timestamp("2026-12-01 10:06 UTC"))
        #expect(harness.delivered.count == 3)
        #expect(harness.delivered.last == "later@2026-12-01T10:05:00Z")
    }
}
