import ChimeCore
import Foundation
import Testing

/// `RandomizedDelaySec=`, `FixedRandomDelay=` and `AccuracySec=`: the delays they draw, how the loader reads them,
/// and the wake-ups that let deliveries share one.
@Suite struct DeliveryTimingTests {
    static let minute = Duration.seconds(60)
    static let fireTime = Date(epochMicroseconds: 1_800_000_000_000_000)
    static let nextDay = Date(epochMicroseconds: 1_800_086_400_000_000)
    static let seeds = DelaySeeds(host: DelaySeeds.host(machineID: "0123456789abcdef0123456789abcdef"), run: 42)
    static let ids = (0..<10_000).map { "webhook-\($0)" }

    @Test func delaysAreWithinTheBoundAndSpreadEvenlyOverTenThousandNotifications() {
        let timing = DeliveryTiming(randomizedDelay: Self.minute * 10)
        let delays = Self.ids.map { timing.delay(id: $0, fireTime: Self.fireTime, seeds: Self.seeds) }
        #expect(delays.allSatisfy { (.zero...(Self.minute * 10)).contains($0) })
        // Ten buckets of a minute each: 1,000 expected in each; a fair draw stays well within ±20 %.
        let buckets = Dictionary(grouping: delays) { Int($0 / Self.minute) }.mapValues(\.count)
        #expect(buckets.keys.sorted() == Array(0...9) || buckets.keys.sorted() == Array(0...10))
        for bucket in 0..<10 { #expect((800...1200).contains(buckets[bucket] ?? 0), "bucket \(bucket)") }
        // Whole milliseconds: 600,001 of them, among which 10,000 draws collide some 80 times.
        #expect(Set(delays).count > 9_800)
        #expect(delays.allSatisfy { $0.wholeMicroseconds % 1000 == 0 })
    }

    @Test func aFixedDelayIsTheSameForEveryOccurrenceAndEveryRunOfAHost() {
        let timing = DeliveryTiming(randomizedDelay: Self.minute * 30, isFixedRandomDelay: true)
        let otherRun = DelaySeeds(host: Self.seeds.host, run: 7)
        let otherHost = DelaySeeds(host: DelaySeeds.host(machineID: "fedcba9876543210fedcba9876543210"), run: 42)
        var sameOnOtherHost = 0
        for id in Self.ids {
            let delay = timing.delay(id: id, fireTime: Self.fireTime, seeds: Self.seeds)
            #expect(timing.delay(id: id, fireTime: Self.nextDay, seeds: Self.seeds) == delay)
            #expect(timing.delay(id: id, fireTime: Self.fireTime, seeds: otherRun) == delay)
            if timing.delay(id: id, fireTime: Self.fireTime, seeds: otherHost) == delay { sameOnOtherHost += 1 }
        }
        #expect(sameOnOtherHost < 10)
        // The machine id is read as machine-id(5) writes it.
        #expect(DelaySeeds.host(machineID: "0123456789ABCDEF0123456789ABCDEF\n") == Self.seeds.host)
    }

    @Test func anUnfixedDelayIsDrawnAnewForEachOccurrenceAndEachRun() {
        let timing = DeliveryTiming(randomizedDelay: Self.minute * 30)
        let otherRun = DelaySeeds(host: Self.seeds.host, run: 7)
        var sameNextDay = 0
        var sameNextRun = 0
        for id in Self.ids {
            let delay = timing.delay(id: id, fireTime: Self.fireTime, seeds: Self.seeds)
            if timing.delay(id: id, fireTime: Self.nextDay, seeds: Self.seeds) == delay { sameNextDay += 1 }
            if timing.delay(id: id, fireTime: Self.fireTime, seeds: otherRun) == delay { sameNextRun += 1 }
        }
        #expect(sameNextDay < 10)
        #expect(sameNextRun < 10)
        #expect(
            DeliveryTiming(accuracy: Self.minute).delay(id: "x", fireTime: Self.fireTime, seeds: Self.seeds) == .zero)
    }

    static func load(_ trigger: String) -> NotificationLoader.Result {
        let loader = NotificationLoader(systemZone: .utc, zones: .system)
        let text = "[Notification]\nTitle=Post\n[Trigger]\nOnCalendar=09:00\n" + trigger
        return loader.load(UnitFile(parsing: text, path: "post.notification"), id: "post", path: "post.notification")
    }

    @Test func theLoaderReadsTheKeysAsSystemdTimersHaveThem() throws {
        let timing = try #require(
            Self.load("RandomizedDelaySec=5min\nFixedRandomDelay=yes\nAccuracySec=30s\n").notification?.timing)
        #expect(
            timing == DeliveryTiming(randomizedDelay: Self.minute * 5, isFixedRandomDelay: true, accuracy: .seconds(30))
        )
        #expect(timing.summary == "RandomizedDelaySec=5min FixedRandomDelay=yes AccuracySec=30s")
        #expect(Self.load("").notification?.timing.isExact == true)
        #expect(Self.load("RandomizedDelaySec=1h 30min\n").notification?.timing.randomizedDelay == Self.minute * 90)

        let bad = Self.load("RandomizedDelaySec=soon\nAccuracySec=infinity\n")
        #expect(bad.hasErrors)
        #expect(
            bad.diagnostics.map(\.description) == [
                "post.notification:5:20: Invalid RandomizedDelaySec= 'soon': expected a time span of at most 49 days, such as '5min'.",
                "post.notification:6:13: Invalid AccuracySec= 'infinity': expected a time span of at most 49 days, such as '5min'.",
            ])
        let lonely = Self.load("FixedRandomDelay=yes\n")
        #expect(!lonely.hasErrors)
        #expect(
            lonely.diagnostics.map(\.description) == [
                "post.notification:5:1: FixedRandomDelay=yes without RandomizedDelaySec= delays nothing."
            ])
    }

    @Test func wakeSystemIsTakenWhereChimedCanWakeTheSystemAndAnErrorThatSaysWhatToGrantElsewhere() throws {
        let timing = try #require(Self.load("WakeSystem=yes\n").notification?.timing)
        #expect(timing == DeliveryTiming(wakesSystem: true))
        #expect(timing.isExact)
        #expect(timing.summary == "WakeSystem=yes")
        #expect(Self.load("WakeSystem=no\n").notification?.timing.wakesSystem == false)

        var loader = NotificationLoader(systemZone: .utc, zones: .system)
        loader.wakeSystemRefusal = "chimed lacks the capability CAP_WAKE_ALARM. Grant it."
        let text = "[Notification]\nTitle=Alarm\n[Trigger]\nOnCalendar=06:30\nWakeSystem=yes\n"
        let refused = loader.load(
            UnitFile(parsing: text, path: "alarm.notification"), id: "alarm", path: "alarm.notification")
        #expect(refused.notification == nil)
        #expect(
            refused.diagnostics.map(\.description) == [
                "alarm.notification:5:12: WakeSystem=yes cannot be honoured: chimed lacks the capability "
                    + "CAP_WAKE_ALARM. Grant it."
            ])
    }

    static func queue(_ dues: [Int64]) -> OccurrenceQueue {
        OccurrenceQueue(dues.enumerated().map { .init(fireTime: $0.element, entry: $0.offset) })
    }

    @Test func deliveriesWithinTheirAccuracyShareOneWakeUp() {
        let second: Int64 = 1_000_000
        // Due at 0, 5 and 20 s, each allowed 30 s: one wake-up at 30 s serves all three.
        #expect(Self.queue([0, 5 * second, 20 * second]).wakeUp { _ in 30 * second } == 30 * second)
        // One due at 40 s is not waited for; the wake-up stays within the first one's window.
        #expect(Self.queue([40 * second, 0, 5 * second]).wakeUp { _ in 30 * second } == 30 * second)
        // A later one with a narrower window pulls the wake-up in: due at 10 s, allowed 2 s.
        #expect(Self.queue([0, 10 * second]).wakeUp { $0 == 1 ? 2 * second : 30 * second } == 12 * second)
        // Exact (no accuracy): the first due time.
        #expect(Self.queue([7, 3, 5]).wakeUp { _ in 0 } == 3)
        #expect(OccurrenceQueue().wakeUp { _ in 30 * second } == nil)
        // Beyond the items looked at, the next one's due time bounds it: nobody waits past their window.
        let many = Self.queue((0..<10).map { Int64($0) * second })
        #expect(many.wakeUp(accuracy: { _ in 60 * second }, lookahead: 4) == 4 * second)
    }
}
