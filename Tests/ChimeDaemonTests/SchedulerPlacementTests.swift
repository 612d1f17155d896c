import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// An application's request placed into the schedule or withdrawn from it without a rebuild: the same result as a
/// rebuild that read it, and nothing of the one it replaced is left to fire or to be cleaned up.
@Suite struct SchedulerPlacementTests {
    typealias Harness = SchedulerHarness

    static let directory = "/var/lib/chime/apps/org.example.App"

    /// The request `id` of org.example.App, with `trigger` lines, as the interface places it.
    static func request(_ id: String, _ trigger: String, title: String? = nil) -> LoadedNotification {
        let loaded = SchedulerTests.schedule([(id, trigger)]).notifications[0]
        var notification = loaded.notification
        notification.id = "org.example.App:\(id)"
        if let title { notification.title = title }
        return LoadedNotification(application: notification, source: "\(directory)/\(id).notification")
    }

    static func harness() -> Harness {
        let harness = Harness(start: "2026-10-20 00:00 UTC")
        harness.scheduler.install(SchedulerTests.schedule([("file", "[Trigger]\nAt=2026-10-20 06:00\n")]))
        return harness
    }

    @Test func aPlacedRequestFiresAsIfARebuildHadReadIt() {
        let harness = Self.harness()
        let next = harness.scheduler.place(Self.request("exam", "[Trigger]\nAt=2026-10-20 05:00\n"))
        #expect(next == TestDate.timestamp("2026-10-20 05:00 Europe/Berlin"))
        #expect(harness.scheduler.scheduledCount == 2)
        // Listed among the soonest, not always as `chimectl add`'s requests are: an application may have thousands.
        #expect(harness.scheduler.status(limit: 0).scheduled.isEmpty)
        #expect(harness.scheduler.status(limit: 1).scheduled.map(\.id) == ["org.example.App:exam"])
        // A request whose time is already past is skipped, as a new file's is.
        #expect(harness.scheduler.place(Self.request("late", "[Trigger]\nAt=2026-10-19 09:00\n")) == nil)
        #expect(harness.log.events(.skippedPast).count == 1)
        harness.clock.advance(to: TestDate.timestamp("2026-10-21 00:00 UTC"))
        #expect(harness.delivered == ["org.example.App:exam@2026-10-20T03:00:00Z", "file@2026-10-20T04:00:00Z"])
    }

    /// An application replacing one large request thousands of times: what it replaced is let go of at once, not
    /// held until the next compaction or rebuild.
    @Test func aReplacedRequestsContentIsLetGoOfAtOnce() {
        let harness = Self.harness()
        let large = String(repeating: "x", count: 60_000)
        for round in 0..<3 {
            var request = Self.request("exam", "[Trigger]\nAt=2026-10-20 05:00\n", title: "round \(round)")
            request.notification.body = large
            harness.scheduler.place(request)
        }
        let kept = harness.scheduler.entries.filter { !$0.notification.body.isEmpty }
        #expect(kept.map(\.notification.title) == ["round 2"])
        #expect(harness.scheduler.requests.retired.count == 2)
        harness.clock.advance(to: TestDate.timestamp("2026-10-21 00:00 UTC"))
        #expect(harness.delivered == ["org.example.App:exam@2026-10-20T03:00:00Z", "file@2026-10-20T04:00:00Z"])
    }

    @Test func aReplacedRequestFiresOnlyAsItIsNowAndIsNotTakenForFinished() {
        let harness = Self.harness()
        harness.scheduler.place(Self.request("exam", "[Trigger]\nAt=2026-10-20 05:00\n", title: "first"))
        harness.scheduler.place(Self.request("exam", "[Trigger]\nAt=2026-10-20 08:00\n", title: "second"))
        #expect(harness.scheduler.scheduledCount == 2)
        // The replaced entry has the same file: it must not be reported finished (its file would be removed).
        #expect(harness.scheduler.status().finishedPinnedSources.isEmpty)
        #expect(harness.scheduler.status().idleCount == 0)
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 07:00 Europe/Berlin"))
        #expect(harness.delivered == ["file@2026-10-20T04:00:00Z"])
        // Only the file has nothing left to fire; the replaced request is no idle entry of the schedule.
        #expect(harness.scheduler.status().idle == ["file"])
        #expect(harness.scheduler.status().finishedPinnedSources.isEmpty)
        harness.clock.advance(to: TestDate.timestamp("2026-10-21 00:00 UTC"))
        #expect(harness.delivered == ["file@2026-10-20T04:00:00Z", "org.example.App:exam@2026-10-20T06:00:00Z"])
        #expect(harness.dispatcher.records.last?.title == "second")
        #expect(harness.scheduler.status().finishedPinnedSources == ["\(Self.directory)/exam.notification"])
    }

    @Test func aWithdrawnRequestNeverFiresAndARebuildAgreesWithThePlacements() {
        let harness = Self.harness()
        harness.scheduler.place(Self.request("a", "[Trigger]\nAt=2026-10-20 05:00\n"))
        harness.scheduler.place(Self.request("b", "[Trigger]\nEvery=6h\n"))
        harness.scheduler.withdraw(["org.example.App:a", "org.example.App:unknown"])
        #expect(harness.scheduler.scheduledCount == 2)
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 07:00 UTC"))
        #expect(harness.delivered == ["file@2026-10-20T04:00:00Z", "org.example.App:b@2026-10-20T06:00:00Z"])
        // A rebuild that reads b from its file continues it where it was: no repeat, no gap, the same anchor.
        var schedule = SchedulerTests.schedule([("file", "[Trigger]\nAt=2026-10-20 06:00\n")])
        schedule.notifications.append(Self.request("b", "[Trigger]\nEvery=6h\n"))
        harness.scheduler.install(schedule)
        harness.clock.advance(to: TestDate.timestamp("2026-10-20 13:00 UTC"))
        #expect(
            harness.delivered == [
                "file@2026-10-20T04:00:00Z", "org.example.App:b@2026-10-20T06:00:00Z",
                "org.example.App:b@2026-10-20T12:00:00Z",
            ])
    }

    /// Thousands of replacements between two rebuilds: the replaced entries are let go of on the way, and the
    /// request still fires once, as it was placed last.
    @Test func manyReplacementsLeaveOneRequest() {
        let harness = Self.harness()
        for minute in 0..<3000 {
            harness.scheduler.place(
                Self.request(
                    "tick", "[Trigger]\nAt=2026-10-21 \(minute / 60 % 24):\(minute % 60)\n", title: "\(minute)"))
        }
        #expect(harness.scheduler.scheduledCount == 2)
        #expect(harness.scheduler.status().idleCount == 0)
        harness.clock.advance(to: TestDate.timestamp("2026-10-23 00:00 UTC"))
        #expect(harness.delivered.filter { $0.hasPrefix("org.example.App:tick@") }.count == 1)
        #expect(harness.dispatcher.records.last?.title == "2999")
    }
}
