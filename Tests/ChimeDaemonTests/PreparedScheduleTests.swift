import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// A rebuild prepares its schedule off the scheduler's queue while deliveries go on (`Scheduler.basis`,
/// `PreparedSchedule`, `Scheduler.commit`): what the replaced schedule handled meanwhile is not handled again, what
/// it had not handled yet is not lost, and a basis the schedule moved away from is prepared again at the commit.
@Suite struct PreparedScheduleTests {
    typealias Harness = SchedulerHarness

    static let minutely = ("tick", "[Trigger]\nOnCalendar=*-*-* *:*:00\n")
    static let hourly = ("hour", "[Trigger]\nOnCalendar=hourly\n")

    /// The minutes (UTC) of `id`'s deliveries.
    static func minutes(_ harness: Harness, _ id: String) -> [String] {
        harness.delivered.filter { $0.hasPrefix("\(id)@") }.map { String($0.split(separator: "T")[1].prefix(5)) }
    }

    /// Prepares `files` from the installed schedule as a rebuild does, with `deliveriesMeanwhile` run between the
    /// basis and the preparation or between the preparation and the commit.
    static func rebuild(
        _ harness: Harness, _ files: [(String, String)], keepingPending: Bool, prepareFirst: Bool,
        meanwhile: () -> Void
    ) {
        let basis = harness.scheduler.basis(keepingPending: keepingPending)
        func prepare() -> PreparedSchedule {
            PreparedSchedule(
                SchedulerTests.schedule(files), basis: basis, now: harness.clock.now().epochMicroseconds,
                history: { basis.histories.read($0) })
        }
        let prepared: PreparedSchedule
        if prepareFirst {
            prepared = prepare()
            meanwhile()
        } else {
            meanwhile()
            prepared = prepare()
        }
        harness.scheduler.commit(prepared)
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func whatWasDeliveredWhileItWasPreparedIsNotDeliveredAgain(keepingPending: Bool, prepareFirst: Bool) {
        let harness = Harness(start: "2026-10-20 09:00:30 UTC")
        harness.scheduler.install(SchedulerTests.schedule([Self.minutely, Self.hourly]))
        Self.rebuild(harness, [Self.minutely, Self.hourly], keepingPending: keepingPending, prepareFirst: prepareFirst)
        {
            harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:01:10 UTC"))
        }
        #expect(Self.minutes(harness, "tick") == ["09:01"])
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 10:00:30 UTC"))
        #expect(Self.minutes(harness, "tick") == (1...60).map { String(format: "%02d:%02d", 9 + $0 / 60, $0 % 60) })
        #expect(Self.minutes(harness, "hour") == ["10:00"])
        #expect(harness.handedOffLate.isEmpty)
        #expect(harness.log.events(.missed).isEmpty)
    }

    @Test func aChangedNotificationStartsFromThePreparationAndRepeatsNothing() {
        let harness = Harness(start: "2026-10-20 09:00:30 UTC")
        harness.scheduler.install(SchedulerTests.schedule([Self.minutely]))
        // The same minutes, written another way: a changed trigger, which starts anew.
        let changed = ("tick", "[Trigger]\nOnCalendar=*-*-* *:0/1:00\n")
        Self.rebuild(harness, [changed], keepingPending: true, prepareFirst: true) {
            harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:01:10 UTC"))
        }
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:05:30 UTC"))
        #expect(Self.minutes(harness, "tick") == ["09:01", "09:02", "09:03", "09:04", "09:05"])
        #expect(harness.log.events(.missed).isEmpty)
    }

    @Test func aHandledOccurrenceStaysHandledAcrossTwoRebuilds() {
        let harness = Harness(start: "2026-10-20 09:00:30 UTC")
        harness.scheduler.install(SchedulerTests.schedule([Self.minutely]))
        // Prepared before 09:01 was delivered, committed after: its 09:01 is stale. The next rebuild's basis is
        // taken before that stale item came up, and is prepared from it.
        Self.rebuild(harness, [Self.minutely], keepingPending: true, prepareFirst: true) {
            harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:01:10 UTC"))
        }
        Self.rebuild(harness, [Self.minutely], keepingPending: true, prepareFirst: true) {}
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:03:30 UTC"))
        #expect(Self.minutes(harness, "tick") == ["09:01", "09:02", "09:03"])
        #expect(harness.log.events(.missed).isEmpty)
    }

    @Test func aBasisTheScheduleMovedAwayFromIsPreparedAgainAtTheCommit() {
        let harness = Harness(start: "2026-10-20 09:00:30 UTC")
        harness.scheduler.install(SchedulerTests.schedule([Self.minutely]))
        Self.rebuild(harness, [Self.minutely, Self.hourly], keepingPending: true, prepareFirst: true) {
            harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:01:30 UTC"))
            // The clock was set (to where it was): what the basis says was pending is computed again.
            harness.scheduler.clockChanged()
        }
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 10:30:30 UTC"))
        #expect(Self.minutes(harness, "tick") == (1...90).map { String(format: "%02d:%02d", 9 + $0 / 60, $0 % 60) })
        #expect(Self.minutes(harness, "hour") == ["10:00"])
        #expect(harness.log.events(.missed).isEmpty)
    }

    /// A reused generator output that is the whole schedule is the installed array itself, which the preparation
    /// takes without looking each entry up: it must come out as the same notifications loaded anew would.
    @Test(arguments: [true, false])
    func theInstalledArrayInstalledAgainIsPreparedAsACopyWouldBe(keepingPending: Bool) {
        let harness = Harness(start: "2026-10-20 09:00:30 UTC")
        let files = [Self.minutely, Self.hourly, ("once", "[Trigger]\nAt=2026-10-20 09:30:00 UTC\n")]
        harness.scheduler.install(SchedulerTests.schedule(files))
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 09:02:10 UTC"))
        let basis = harness.scheduler.basis(keepingPending: keepingPending)
        let now = harness.clock.now().epochMicroseconds
        var shared = SchedulerTests.schedule(files)
        shared.notifications = basis.entries
        let again = PreparedSchedule(shared, basis: basis, now: now, history: { basis.histories.read($0) })
        let anew = PreparedSchedule(
            SchedulerTests.schedule(files), basis: basis, now: now, history: { basis.histories.read($0) })
        #expect(again.queue.items == anew.queue.items)
        #expect(again.queue.items.count == 3)
        #expect(again.newIndex == anew.newIndex)
        #expect(again.firstSeen.isEmpty && anew.firstSeen.isEmpty)
        harness.scheduler.commit(again)
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 10:00:30 UTC"))
        #expect(Self.minutes(harness, "tick") == (1...60).map { String(format: "%02d:%02d", 9 + $0 / 60, $0 % 60) })
        #expect(Self.minutes(harness, "once") == ["09:30"])
        #expect(harness.log.events(.missed).isEmpty)
    }
}
