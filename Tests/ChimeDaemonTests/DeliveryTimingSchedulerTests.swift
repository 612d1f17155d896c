import ChimeCore
import ChimeDaemonTestSupport
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The scheduler with `RandomizedDelaySec=`, `FixedRandomDelay=` and `AccuracySec=`, on the manual clock: when
/// deliveries come, that rebuilds and restarts lose none, and that close ones share a wake-up.
@Suite struct DeliveryTimingSchedulerTests {
    typealias Harness = SchedulerHarness
    static let seeds = DelaySeeds(host: DelaySeeds.host(machineID: "5c1d0c5f2e8b4f0a9d3e7b6a1c2d3e4f"), run: 1)
    static let minute = Duration.seconds(60)

    static func harness(
        at start: String, run: UInt64 = 1, store: MemoryHistoryStore = MemoryHistoryStore()
    ) -> Harness {
        Harness(
            clock: ManualClock(TestDate.timestamp(start)), store: store,
            delaySeeds: DelaySeeds(host: Self.seeds.host, run: run))
    }

    static func delay(_ id: String, _ timing: DeliveryTiming, at fireTime: String, run: UInt64 = 1) -> Duration {
        timing.delay(id: id, fireTime: TestDate.timestamp(fireTime), seeds: DelaySeeds(host: Self.seeds.host, run: run))
    }

    @Test func aRandomizedDelayMovesTheDeliveryNotTheOccurrence() throws {
        let harness = Self.harness(at: "2026-12-01 07:00 UTC")
        // 09:00 in Berlin is 08:00 UTC in December.
        harness.scheduler.install(
            SchedulerTests.schedule([("post", "[Trigger]\nOnCalendar=*-*-* 09:00\nRandomizedDelaySec=10min\n")]))
        let timing = DeliveryTiming(randomizedDelay: Self.minute * 10)
        let first = Self.delay("post", timing, at: "2026-12-01 08:00 UTC")
        #expect(harness.timer.deadline == TestDate.timestamp("2026-12-01 08:00 UTC") + first)
        let listed = try #require(harness.scheduler.status().scheduled.first)
        #expect(listed.delay == first)
        #expect(listed.timing == timing)

        harness.clock.advance(to: TestDate.timestamp("2026-12-04 07:00 UTC"))
        #expect(
            harness.delivered == [
                "post@2026-12-01T08:00:00Z", "post@2026-12-02T08:00:00Z", "post@2026-12-03T08:00:00Z",
            ])
        var delays: Set<Duration> = []
        for record in harness.dispatcher.records {
            let delay = record.handedOffAt.duration(since: record.fireTime)
            #expect(delay == timing.delay(id: "post", fireTime: record.fireTime, seeds: Self.seeds))
            #expect((.zero...(Self.minute * 10)).contains(delay))
            delays.insert(delay)
        }
        // Drawn anew for each occurrence.
        #expect(delays.count == 3)
        #expect(harness.log.events(.missed).isEmpty)
    }

    @Test func aRebuildWhileADelayedDeliveryIsPendingKeepsIt() throws {
        let harness = Self.harness(at: "2026-12-01 07:00 UTC")
        // tick's delivery, between post's occurrence and its delayed delivery, moves the scheduler past both.
        let files = [
            ("post", "[Trigger]\nOnCalendar=*-*-* 09:00\nRandomizedDelaySec=1h\n"),
            ("tick", "[Trigger]\nAt=2026-12-01 09:00:30\n"),
        ]
        harness.scheduler.install(SchedulerTests.schedule(files))
        let delay = Self.delay("post", DeliveryTiming(randomizedDelay: Self.minute * 60), at: "2026-12-01 08:00 UTC")
        try #require(delay > Self.minute * 2, "the seeds give a delay too short to rebuild within: \(delay)")
        // The occurrence is past, its delivery not yet made: a rebuild keeps it pending, a second one too.
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 08:01 UTC"))
        harness.scheduler.install(SchedulerTests.schedule(files))
        harness.clock.advance(by: .seconds(30))
        harness.scheduler.install(SchedulerTests.schedule(files))
        #expect(harness.delivered == ["tick@2026-12-01T08:00:30Z"])
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 09:30 UTC"))
        #expect(harness.delivered == ["tick@2026-12-01T08:00:30Z", "post@2026-12-01T08:00:00Z"])
        #expect(harness.dispatcher.records.last?.handedOffAt == TestDate.timestamp("2026-12-01 08:00 UTC") + delay)
    }

    @Test func aRestartWithinTheWindowDeliversWhatWasPendingInsteadOfMissingIt() throws {
        let store = MemoryHistoryStore()
        let files = [("post", "[Trigger]\nOnCalendar=*-*-* 09:00\nRandomizedDelaySec=1h\n")]
        let before = Self.harness(at: "2026-12-01 07:00 UTC", store: store)
        before.scheduler.install(SchedulerTests.schedule(files))
        let timing = DeliveryTiming(randomizedDelay: Self.minute * 60)
        try #require(Self.delay("post", timing, at: "2026-12-02 08:00 UTC") > Self.minute * 5)
        before.clock.advance(to: TestDate.timestamp("2026-12-02 08:05 UTC"))
        #expect(before.delivered == ["post@2026-12-01T08:00:00Z"])

        // Restarted five minutes after the occurrence: a new run draws a new delay, and the delivery comes then,
        // or at once if that moment is past, but it is not missed.
        let after = Self.harness(at: "2026-12-02 08:05 UTC", run: 2, store: store)
        after.scheduler.install(SchedulerTests.schedule(files))
        after.clock.advance(to: TestDate.timestamp("2026-12-02 09:30 UTC"))
        #expect(after.delivered == ["post@2026-12-02T08:00:00Z"])
        let redrawn = Self.delay("post", timing, at: "2026-12-02 08:00 UTC", run: 2)
        let expected = max(
            TestDate.timestamp("2026-12-02 08:00 UTC") + redrawn, TestDate.timestamp("2026-12-02 08:05 UTC"))
        #expect(after.dispatcher.records.first?.handedOffAt == expected)
        #expect(after.log.events(.missed).isEmpty)

        // Down past the window's end: missed, as without a delay.
        let late = Self.harness(at: "2026-12-03 09:30 UTC", run: 3, store: store)
        late.scheduler.install(SchedulerTests.schedule(files))
        #expect(late.delivered.isEmpty)
        #expect(late.log.events(.missed).count == 1)
    }

    @Test func aFixedDelayIsTheSameAcrossRestartsForTenThousandNotificationsAndWithinItsBound() {
        // One file read, its notification under 10,000 ids: the delays depend on the id.
        var schedule = SchedulerTests.schedule([
            ("host", "[Trigger]\nOnCalendar=*-*-* 09:00\nRandomizedDelaySec=15min\nFixedRandomDelay=yes\n")
        ])
        let read = schedule.notifications[0]
        schedule.notifications = (0..<10_000).map { index in
            var copy = read
            copy.notification.id = "host-\(index)"
            return copy
        }
        var dues: [[String: Date]] = []
        for run: UInt64 in [1, 2] {
            let harness = Self.harness(at: "2026-12-01 07:00 UTC", run: run)
            harness.scheduler.install(schedule)
            dues.append(Dictionary(uniqueKeysWithValues: harness.scheduler.status().scheduled.map { ($0.id, $0.next) }))
        }
        #expect(dues[0].count == 10_000)
        #expect(dues[0] == dues[1])
        let occurrence = TestDate.timestamp("2026-12-01 08:00 UTC")
        let delays = dues[0].values.map { $0.duration(since: occurrence) }
        #expect(delays.allSatisfy { (.zero...(Self.minute * 15)).contains($0) })
        // Spread over the whole quarter of an hour: every minute of it has some.
        #expect(Set(delays.map { Int($0 / Self.minute) }).count >= 15)
    }

    @Test func deliveriesWithinTheirAccuracyShareOneWakeUpAndAreNotMissed() {
        let harness = Self.harness(at: "2026-12-01 07:00 UTC")
        harness.scheduler.install(
            SchedulerTests.schedule([
                ("a", "[Trigger]\nAt=2026-12-01 09:00:00\nAccuracySec=5min\n"),
                ("b", "[Trigger]\nAt=2026-12-01 09:02:00\nAccuracySec=5min\n"),
                ("c", "[Trigger]\nAt=2026-12-01 09:04:00\nAccuracySec=5min\n"),
                ("d", "[Trigger]\nAt=2026-12-01 09:06:00\nAccuracySec=5min\n"),
                ("exact", "[Trigger]\nAt=2026-12-01 09:30:00\n"),
            ]))
        // a may wait until 09:05, which b and c are due before: one wake-up serves the three. d, due after it,
        // waits for a wake-up of its own; exact, which sets no accuracy, comes on the dot.
        #expect(Timestamp.iso8601(harness.timer.deadline!) == "2026-12-01T08:05:00Z")
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 09:00 UTC"))
        let handedOff = harness.dispatcher.records.map { "\($0.id)@\(Timestamp.iso8601($0.handedOffAt))" }
        #expect(
            handedOff == [
                "a@2026-12-01T08:05:00Z", "b@2026-12-01T08:05:00Z", "c@2026-12-01T08:05:00Z",
                "d@2026-12-01T08:11:00Z", "exact@2026-12-01T08:30:00Z",
            ])
        // Five minutes late is within a's window: delivered, not missed.
        #expect(harness.log.events(.missed).isEmpty)
        #expect(harness.delivered.first == "a@2026-12-01T08:00:00Z")
    }
}
