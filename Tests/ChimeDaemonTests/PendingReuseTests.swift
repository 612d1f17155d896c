import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Rebuilds that keep the pending occurrences of unchanged notifications (`Scheduler.install(_:keepingPending:)`)
/// deliver exactly what rebuilds that compute them all anew deliver, and compute anew where a zone changed.
@Suite struct PendingReuseTests {
    typealias Harness = SchedulerHarness

    static let files: [(String, String)] = [
        ("tick", "[Trigger]\nOnCalendar=*:0/7\n"),
        ("water", "[Trigger]\nEvery=95min\nCount=40\n"),
        ("night", "[Trigger]\nOnCalendar=*-*-* 02:30\nPersistent=yes\n"),
        ("tokyo", "[Trigger]\nOnCalendar=*-*-* 08:00\nTimeZone=Asia/Tokyo\n"),
        ("paris", "[Trigger]\nOnCalendar=Mon..Fri 09:00 Europe/Paris\n"),
        ("fleet", "[Trigger]\nOnCalendar=hourly\nRandomizedDelaySec=20min\n"),
        ("coalesced", "[Trigger]\nOnCalendar=*:0/5\nAccuracySec=3min\n"),
        ("rule", "[Trigger]\nRRule=FREQ=DAILY;BYHOUR=6,18\nFrom=2026-10-20 00:00\n"),
        ("once", "[Trigger]\nAt=2026-10-25 02:30\n"),
    ]

    @Test func keptOccurrencesDeliverWhatComputedOnesDeliverThroughAFortnightOfRebuilds() {
        let kept = Harness(start: "2026-10-20 00:00 UTC")
        let computed = Harness(start: "2026-10-20 00:00 UTC")
        for harness in [kept, computed] { harness.scheduler.install(SchedulerTests.schedule(Self.files)) }
        // A rebuild every 97 minutes (through the change to winter time on the 25th), some with a file changed or
        // gone; each variant is read once.
        var changed = Self.files
        changed[1] = ("water", "[Trigger]\nEvery=95min\nCount=45\n")
        let variants = [
            SchedulerTests.schedule(Self.files), SchedulerTests.schedule(changed),
            SchedulerTests.schedule(Array(Self.files.dropLast())),
        ]
        var step = 0
        while kept.clock.now() < TestDate.timestamp("2026-11-03 00:00 UTC") {
            step += 1
            let schedule = variants[step % 5 == 0 ? 1 : step % 7 == 0 ? 2 : 0]
            for harness in [kept, computed] {
                harness.clock.advance(by: .seconds(97 * 60))
            }
            kept.scheduler.install(schedule, keepingPending: true)
            computed.scheduler.install(schedule, keepingPending: false)
            #expect(kept.scheduler.status().scheduled.map(\.next) == computed.scheduler.status().scheduled.map(\.next))
        }
        #expect(kept.delivered == computed.delivered)
        #expect(kept.delivered.count > 3_000)
        #expect(kept.log.events(.missed).count == computed.log.events(.missed).count)
    }

    @Test func aChangedSystemZoneComputesTheOccurrencesAnew() throws {
        let harness = Harness(start: "2026-12-01 00:00 UTC")
        var schedule = SchedulerTests.schedule([("standup", "[Trigger]\nOnCalendar=*-*-* 09:55\n")])
        harness.scheduler.install(schedule)
        #expect(harness.scheduler.status().scheduled.first.map { Timestamp.iso8601($0.next) } == "2026-12-01T08:55:00Z")
        schedule.systemZone = try ZoneDatabase.system.rules(named: "Asia/Tokyo")
        harness.scheduler.install(schedule, keepingPending: true)
        #expect(harness.scheduler.status().scheduled.first.map { Timestamp.iso8601($0.next) } == "2026-12-01T00:55:00Z")
    }

    /// A zone a notification names whose rules a tzdata update changed: that notification's occurrence is computed
    /// anew, and one beside it in the system zone keeps its own.
    @Test func aNamedZoneWhoseRulesChangedComputesItsOccurrenceAnew() throws {
        let directory = try TemporaryDirectory()
        func schedule(_ zone: String) throws -> LoadedSchedule {
            try directory.setTestZone(zone)
            var schedule = LoadedSchedule(systemZone: SchedulerTests.berlin)
            let loader = NotificationLoader(systemZone: SchedulerTests.berlin, zones: directory.testZones)
            for (id, trigger) in [("abroad", "TimeZone=Test/Zone\n"), ("home", "")] {
                let text = "[Notification]\nTitle=\(id)\n[Trigger]\nOnCalendar=*-*-* 09:55\n" + trigger
                let result = loader.load(UnitFile(parsing: text, path: id), id: id, path: id)
                try #require(!result.hasErrors, "\(result.diagnostics)")
                schedule.notifications.append(LoadedNotification(notification: result.notification!, source: id))
            }
            return schedule
        }
        let harness = Harness(start: "2026-12-01 00:00 UTC")
        harness.scheduler.install(try schedule("Asia/Tokyo"))
        func next() -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: harness.scheduler.status().scheduled.map { ($0.id, Timestamp.iso8601($0.next)) })
        }
        #expect(next() == ["abroad": "2026-12-01T00:55:00Z", "home": "2026-12-01T08:55:00Z"])
        harness.scheduler.install(try schedule("America/New_York"), keepingPending: true)
        #expect(next() == ["abroad": "2026-12-01T14:55:00Z", "home": "2026-12-01T08:55:00Z"])
    }
}
