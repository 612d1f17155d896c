import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `MissedOccurrences`: what counts as missed, and how a run of them collapses into one.
@Suite struct MissedOccurrencesTests {
    static let loader = NotificationLoader(systemZone: .utc, zones: .system)

    static func trigger(_ lines: String) -> Trigger {
        let text = "[Notification]\nTitle=t\n[Trigger]\n" + lines
        return loader.load(UnitFile(parsing: text, path: "t.notification"), id: "t", path: "t.notification")
            .notification!.trigger
    }

    @Test func overdueByMoreThanTheThresholdIsMissed() {
        #expect(!MissedOccurrences.isMissed(fireTime: 0, now: 60_000_000, threshold: .seconds(60)))
        #expect(MissedOccurrences.isMissed(fireTime: 0, now: 60_000_001, threshold: .seconds(60)))
    }

    @Test(arguments: [false, true])
    func fiveHoursAsleepAreOneRunOfFive(persistent: Bool) {
        let hourly = Self.trigger("OnCalendar=hourly\nPersistent=\(persistent ? "yes" : "no")\n")
        let missed = MissedOccurrences.collapsing(
            hourly, from: TestDate.iso("2026-11-02T01:00:00Z")!, through: TestDate.iso("2026-11-02T05:30:00Z")!,
            history: DeliveryHistory(firstSeen: TestDate.iso("2026-11-01T00:00:00Z")!), systemZone: .utc)
        #expect(
            missed
                == MissedOccurrences(
                    first: TestDate.iso("2026-11-02T01:00:00Z")!, last: TestDate.iso("2026-11-02T05:00:00Z")!,
                    count: 5, deliversLate: persistent))
    }

    @Test func countingStopsAtTheLimit() {
        let often = Self.trigger("Every=1s\nFrom=2026-11-02 00:00 UTC\n")
        let missed = MissedOccurrences.collapsing(
            often, from: TestDate.iso("2026-11-02T00:00:00Z")!, through: TestDate.iso("2026-11-03T00:00:00Z")!,
            history: DeliveryHistory(firstSeen: TestDate.iso("2026-11-01T00:00:00Z")!), systemZone: .utc, limit: 1000)
        #expect(missed.count == 1000)
        #expect(missed.last == TestDate.iso("2026-11-02T00:16:39Z")!)
    }
}
