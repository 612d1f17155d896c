import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The scheduler with an injected wall clock and timer: a fortnight of schedule in microseconds.
@Suite struct SchedulerTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    static func iso(_ date: Date) -> String { Timestamp.iso8601(date) }

    /// A schedule made of notification files given as `id: body-of-[Trigger]` (plus optional extra lines).
    static func schedule(_ files: [(String, String)]) -> LoadedSchedule {
        var schedule = LoadedSchedule(systemZone: berlin)
        let loader = NotificationLoader(systemZone: berlin, zones: .system)
        for (id, trigger) in files {
            let text = "[Notification]\nTitle=\(id)\n" + trigger
            let result = loader.load(
                UnitFile(parsing: text, path: "\(id).notification"), id: id, path: "\(id).notification")
            precondition(!result.hasErrors, "\(result.diagnostics)")
            schedule.notifications.append(
                LoadedNotification(notification: result.notification!, source: "\(id).notification"))
        }
        return schedule
    }

    typealias Harness = SchedulerHarness

    static let fortnight: [(String, String)] = [
        ("exam", "[Trigger]\nAt=2026-10-28 07:00\n"),
        ("water", "[Trigger]\nEvery=6h\nCount=5\n"),
        ("night", "[Trigger]\nOnCalendar=*-*-* 02:30\n"),
        ("old", "[Trigger]\nAt=2026-10-01 09:00\n"),
        ("off", "[Notification]\nEnabled=no\n[Trigger]\nOnCalendar=hourly\n"),
    ]

    static let fortnightExpected: [String] = {
        var expected = [
            "water@2026-10-20T06:00:00Z", "water@2026-10-20T12:00:00Z", "water@2026-10-20T18:00:00Z",
            "water@2026-10-21T00:00:00Z", "water@2026-10-21T06:00:00Z", "exam@2026-10-28T06:00:00Z",
        ]
        // 02:30 in Berlin: CEST (UTC+2) up to and including the night of the change, CET (UTC+1) after it.
        for day in 20...25 { expected.append("night@2026-10-\(day)T00:30:00Z") }
        for day in 26...31 { expected.append("night@2026-10-\(day)T01:30:00Z") }
        for day in 1...2 { expected.append("night@2026-11-0\(day)T01:30:00Z") }
        return expected.sorted { $0.split(separator: "@")[1] < $1.split(separator: "@")[1] }
    }()

    /// `entry` as a request of `chimectl add` kept at `path`.
    static func request(_ entry: LoadedNotification, _ path: String) -> LoadedNotification {
        LoadedNotification(notification: entry.notification, source: path, kind: .added)
    }

    @Test func fortnightDeliversExactlyWhatIsDueExactlyWhenDue() {
        let harness = Harness(start: "2026-10-20 00:00 UTC")
        harness.scheduler.install(Self.schedule(Self.fortnight))
        harness.clock.advance(to: TestDate.timestamp("2026-11-03 00:00 UTC"))
        #expect(harness.delivered == Self.fortnightExpected)
        #expect(harness.handedOffLate.isEmpty)
        // The past one-shot is reported, never delivered; the disabled one does nothing.
        #expect(harness.log.events(.skippedPast).map { $0.fields.first { $0.name == "CHIME_ID" }?.value } == ["old"])
        #expect(!harness.delivered.contains { $0.hasPrefix("old@") || $0.hasPrefix("off@") })
        // One timer, armed once per distinct fire time (plus the initial arming), never polled.
        #expect(harness.timer.armCount == Set(Self.fortnightExpected.map { $0.split(separator: "@")[1] }).count + 1)
    }

    @Test func nothingBeforeItsTimeExactlyOnceAtIt() {
        let harness = Harness(start: "2026-10-28 05:00 UTC")
        harness.scheduler.install(Self.schedule([("exam", "[Trigger]\nAt=2026-10-28 07:00\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 05:59:59 UTC"))
        #expect(harness.delivered.isEmpty)
        #expect(harness.scheduler.armedDeadline == TestDate.timestamp("2026-10-28 06:00 UTC"))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 06:00 UTC"))
        #expect(harness.delivered == ["exam@2026-10-28T06:00:00Z"])
        harness.clock.advance(to: TestDate.timestamp("2026-11-28 06:00 UTC"))
        #expect(harness.delivered.count == 1)
        #expect(harness.scheduler.armedDeadline == nil)
    }

    @Test func aSnoozedNotificationIsDeliveredAgainAfterItsSnoozeAndOnlyOnce() {
        let harness = Harness(start: "2026-10-28 05:00 UTC")
        let files = [
            ("exam", "[Notification]\nSnoozeSec=10min\n[Trigger]\nAt=2026-10-28 07:00\n"),
            ("night", "[Trigger]\nOnCalendar=*-*-* 07:05\n"),
        ]
        harness.scheduler.install(Self.schedule(files))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 06:00 UTC"))
        #expect(harness.scheduler.snooze("exam", for: .seconds(600)) == TestDate.timestamp("2026-10-28 06:10 UTC"))
        // A rebuild keeps the snooze.
        harness.scheduler.install(Self.schedule(files))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 06:09:59 UTC"))
        #expect(harness.delivered == ["exam@2026-10-28T06:00:00Z", "night@2026-10-28T06:05:00Z"])
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 06:10 UTC"))
        #expect(
            harness.delivered == [
                "exam@2026-10-28T06:00:00Z", "night@2026-10-28T06:05:00Z", "exam@2026-10-28T06:10:00Z",
            ])
        #expect(harness.handedOffLate.isEmpty)
        harness.clock.advance(to: TestDate.timestamp("2026-10-29 05:00 UTC"))
        #expect(harness.delivered.filter { $0.hasPrefix("exam@") }.count == 2)
        // Snoozing what no longer exists does nothing; a rebuild without it drops its snooze.
        #expect(harness.scheduler.snooze("nosuch", for: .seconds(60)) == nil)
        harness.scheduler.snooze("night", for: .seconds(60))
        harness.scheduler.install(Self.schedule([files[0]]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-29 06:00 UTC"))
        #expect(harness.delivered.count == 3)  // neither night's snooze nor its next occurrence (06:05 UTC)
    }

    @Test(arguments: [0, 1, 2, 7, 100, 4999, 5000, 6000])
    func theEarliestItemsOfTheQueueComeOutInOrderWithoutDisturbingIt(limit: Int) {
        var random = SeededRandomNumberGenerator(seed: 42)
        // Many equal fire times, so that the tie-break by entry index is exercised too.
        let items = (0..<5000).map {
            OccurrenceQueue.Item(fireTime: Int64.random(in: 0..<800, using: &random), entry: $0)
        }
        var queue = OccurrenceQueue(items)
        let expected = items.sorted { ($0.fireTime, $0.entry) < ($1.fireTime, $1.entry) }.prefix(limit)
        let earliest = queue.earliest(limit)
        #expect(earliest.map(\.entry) == expected.map(\.entry))
        var drained: [Int] = []
        while let item = queue.popFirst() { drained.append(item.entry) }
        #expect(drained == items.sorted { ($0.fireTime, $0.entry) < ($1.fireTime, $1.entry) }.map(\.entry))
    }

    @Test func statusListsTheSoonestAndThePinnedAndCountsAll() {
        let harness = Harness(start: "2026-10-20 00:00 UTC")
        var files = (0..<30).map {
            ("n\($0)", "[Trigger]\nAt=2026-10-21 \(String(format: "%02d", $0 % 24)):\($0 / 24)0\n")
        }
        files.append(("past", "[Trigger]\nAt=2026-10-01 09:00\n"))
        var schedule = Self.schedule(files)
        schedule.notifications[29] = Self.request(schedule.notifications[29], "/var/lib/chime/added/n29.notification")
        harness.scheduler.install(schedule)
        let status = harness.scheduler.status(limit: 3)
        #expect(status.scheduled.map(\.id) == ["n0", "n24", "n1", "n29"])
        #expect(status.scheduledCount == 30)
        #expect(status.idle == ["past"])
        #expect(status.idleCount == 1)
        #expect(harness.scheduler.status().scheduled.count == 30)
    }

    /// A pinned notification (a runtime request) with nothing left to fire is finished only once its delivery is
    /// done: a crash in between must still find it to deliver it again.
    @Test func aPinnedRequestIsFinishedOnlyWhenItsDeliveryIsDone() {
        let clock = ManualClock(TestDate.timestamp("2026-10-20 00:00 UTC"))
        let timer = clock.makeTimer()
        let dispatcher = HoldingDispatcher()
        let scheduler = Scheduler(
            clock: clock, timer: timer, dispatcher: dispatcher, log: RecordingEventLog(), store: MemoryHistoryStore())
        var schedule = Self.schedule([
            ("once", "[Trigger]\nAt=2026-10-20 03:00\n"), ("later", "[Trigger]\nAt=2026-10-22 03:00\n"),
            ("file", "[Trigger]\nAt=2026-10-20 03:00\n"),
        ])
        schedule.notifications[0] = Self.request(schedule.notifications[0], "/var/lib/chime/added/once.notification")
        schedule.notifications[1] = Self.request(schedule.notifications[1], "/var/lib/chime/added/later.notification")
        let follower = Follower()
        scheduler.followed(by: follower)
        scheduler.install(schedule)
        #expect(scheduler.status().finishedPinnedSources.isEmpty)
        clock.advance(to: TestDate.timestamp("2026-10-20 03:00 Europe/Berlin"))
        #expect(dispatcher.held == 2)
        #expect(scheduler.status().finishedPinnedSources.isEmpty)
        dispatcher.releaseAll()
        #expect(follower.finished.withLock { $0 } == 1)
        #expect(scheduler.status().finishedPinnedSources == ["/var/lib/chime/added/once.notification"])
    }

    @Test func rebuildsInTheMiddleChangeNothingThatShouldNotChange() {
        let harness = Harness(start: "2026-10-20 00:00 UTC")
        harness.scheduler.install(Self.schedule(Self.fortnight))
        // Rebuild the same schedule every few hours: no duplicate, no loss, Every= keeps its anchor.
        let end = TestDate.timestamp("2026-11-03 00:00 UTC")
        var instant = TestDate.timestamp("2026-10-20 00:00 UTC")
        while instant < end {
            instant = min(instant.addingTimeInterval(5 * 3600 + 17 * 60), end)
            harness.clock.advance(to: instant)
            harness.scheduler.install(Self.schedule(Self.fortnight))
        }
        harness.clock.advance(to: TestDate.timestamp("2026-11-03 00:00 UTC"))
        #expect(harness.delivered == Self.fortnightExpected)
        #expect(harness.log.events(.skippedPast).count == 1)
    }

    @Test func anOccurrenceDueDuringARebuildIsNotLost() {
        let harness = Harness(start: "2026-10-28 05:00 UTC")
        harness.scheduler.install(Self.schedule([("exam", "[Trigger]\nAt=2026-10-28 07:00\n")]))
        // The clock passes the fire time while the rebuild loads (the timer has not run yet).
        harness.clock.jump(to: TestDate.timestamp("2026-10-28 06:00:00.2 UTC"))
        harness.scheduler.install(Self.schedule([("exam", "[Trigger]\nAt=2026-10-28 07:00\n")]))
        #expect(harness.scheduler.armedDeadline == TestDate.timestamp("2026-10-28 06:00 UTC"))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 06:00:01 UTC"))
        #expect(harness.delivered == ["exam@2026-10-28T06:00:00Z"])
    }

    @Test func aNotificationAddedAfterItsDateIsSkippedNotDelivered() {
        let harness = Harness(start: "2026-10-28 05:00 UTC")
        harness.scheduler.install(Self.schedule([]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-28 08:00 UTC"))
        harness.scheduler.install(Self.schedule([("late", "[Trigger]\nAt=2026-10-28 07:00\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-29 08:00 UTC"))
        #expect(harness.delivered.isEmpty)
        #expect(harness.log.events(.skippedPast).count == 1)
    }

    @Test func aReloadNeverFiresAPastDateOfAnEditedOrReaddedNotification() {
        let harness = Harness(start: "2026-11-02 00:00 UTC")
        let hourly = ("kept", "[Trigger]\nOnCalendar=*-*-* 00/6:00\nPersistent=yes\n")
        harness.scheduler.install(Self.schedule([hourly]))
        // Removed at 01:00 UTC, added back at 13:30: 06:00 and 12:00 (Berlin) are not caught up.
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 01:00 UTC"))
        harness.scheduler.install(Self.schedule([]))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 13:30 UTC"))
        harness.scheduler.install(Self.schedule([hourly]))
        // Edited at 14:00 to add a one-shot at 13:45, between the last processing and now: not fired either.
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 14:00 UTC"))
        harness.scheduler.install(
            Self.schedule([("kept", "[Trigger]\nOnCalendar=*-*-* 00/6:00\nAt=2026-11-02 13:45 UTC\nPersistent=yes\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 18:00 UTC"))
        #expect(harness.delivered == ["kept@2026-11-02T17:00:00Z"])  // 18:00 in Berlin
        #expect(harness.dispatcher.records.allSatisfy { $0.missedCount == 0 })
        #expect(harness.log.events(.skippedPast).count == 1)
    }

    @Test func removingAFileStopsIt() {
        let harness = Harness(start: "2026-10-20 00:00 UTC")
        harness.scheduler.install(Self.schedule([("night", "[Trigger]\nOnCalendar=*-*-* 02:30\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-21 12:00 UTC"))
        harness.scheduler.install(Self.schedule([]))
        harness.clock.advance(to: TestDate.timestamp("2026-10-25 12:00 UTC"))
        #expect(harness.delivered == ["night@2026-10-20T00:30:00Z", "night@2026-10-21T00:30:00Z"])
        #expect(harness.scheduler.armedDeadline == nil)
    }

    @Test func forwardJumpCountsJumpedOverOccurrencesAsMissed() {
        let harness = Harness(start: "2026-11-02 00:00 UTC")
        harness.scheduler.install(
            Self.schedule([
                ("hourly", "[Trigger]\nOnCalendar=hourly\n"),
                ("kept", "[Trigger]\nOnCalendar=hourly\nPersistent=yes\n"),
            ]))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 01:00 UTC"))
        #expect(harness.delivered == ["hourly@2026-11-02T01:00:00Z", "kept@2026-11-02T01:00:00Z"])
        // The clock is stepped 5 h 30 min ahead: 02:00 ... 06:00 are jumped over.
        harness.clock.jump(to: TestDate.timestamp("2026-11-02 06:30 UTC"))
        harness.scheduler.clockChanged()
        let missed = harness.log.events(.missed)
        #expect(missed.count == 1)
        #expect(missed.first?.fields.first { $0.name == "CHIME_MISSED" }?.value == "5")
        // Persistent=yes: one late delivery standing for the five.
        let caughtUp = harness.dispatcher.records.filter { $0.missedCount > 0 }
        #expect(caughtUp.map(\.id) == ["kept"])
        #expect(caughtUp.first?.missedCount == 5)
        #expect(harness.log.events(.caughtUp).count == 1)
        // Then ordinary service resumes at 07:00.
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 07:00 UTC"))
        #expect(harness.delivered.suffix(2) == ["hourly@2026-11-02T07:00:00Z", "kept@2026-11-02T07:00:00Z"])
        #expect(harness.dispatcher.records.count == 5)
    }

    @Test func backwardJumpNeverRedelivers() {
        let harness = Harness(start: "2026-11-02 00:00 UTC")
        harness.scheduler.install(Self.schedule([("hourly", "[Trigger]\nOnCalendar=hourly\n")]))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 03:30 UTC"))
        #expect(harness.delivered.count == 3)
        harness.clock.jump(to: TestDate.timestamp("2026-11-02 01:15 UTC"))
        harness.scheduler.clockChanged()
        // Back at 01:15: 02:00 and 03:00 were delivered already; the next is 04:00.
        #expect(harness.scheduler.armedDeadline == TestDate.timestamp("2026-11-02 04:00 UTC"))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 04:00 UTC"))
        #expect(
            harness.delivered == [
                "hourly@2026-11-02T01:00:00Z", "hourly@2026-11-02T02:00:00Z", "hourly@2026-11-02T03:00:00Z",
                "hourly@2026-11-02T04:00:00Z",
            ])
        #expect(harness.log.events(.missed).isEmpty)
    }

    @Test func allOccurrencesDueAtOneInstantGoTogether() {
        let harness = Harness(start: "2026-11-02 00:00 UTC")
        let files = (0..<50).map { ("n\($0)", "[Trigger]\nAt=2026-11-02 12:00 UTC\n") }
        harness.scheduler.install(Self.schedule(files))
        harness.clock.advance(to: TestDate.timestamp("2026-11-02 12:00 UTC"))
        #expect(harness.dispatcher.records.count == 50)
        #expect(Set(harness.dispatcher.records.map(\.handedOffAt)) == [TestDate.timestamp("2026-11-02 12:00 UTC")])
        #expect(harness.timer.armCount == 1)
    }
}

/// How a rebuild finds each notification's previous entry: where the last one was found, shifted, else by id.
@Suite struct PreviousEntriesTests {
    static func entries(_ ids: [String]) -> [LoadedNotification] {
        ids.map {
            LoadedNotification(notification: ScheduledNotification(id: $0, title: $0, trigger: Trigger()), source: "s")
        }
    }

    /// The previous position of each of `now`, as a rebuild finds them.
    static func positions(before: [String], now: [String]) -> [Int?] {
        entries(now).withUnsafeBufferPointer { PreviousEntries(entries(before)).matches(of: $0) }.map(\.position)
    }

    @Test func findsEachNotificationWhereverItMoved() {
        let before = ["a", "b", "c", "d"]
        #expect(Self.positions(before: before, now: before) == [0, 1, 2, 3])
        // One added in front shifts the rest by one; one removed shifts them back.
        #expect(Self.positions(before: before, now: ["new", "a", "b", "c", "d"]) == [nil, 0, 1, 2, 3])
        #expect(Self.positions(before: before, now: ["a", "c", "d"]) == [0, 2, 3])
        #expect(Self.positions(before: before, now: ["d", "c", "b", "a"]) == [3, 2, 1, 0])
        #expect(Self.positions(before: [], now: ["a"]) == [nil])
        #expect(Self.positions(before: before, now: ["x", "y"]) == [nil, nil])
    }

    /// Looked up a share at a time on all cores: each share finds its own shift, and the index serves them all.
    @Test func aLargeScheduleIsFoundInSharesWhateverTheOrder() {
        let count = 3 * PreviousEntries.share + 5
        let before = (0..<count).map { "n\($0)" }
        let reversed = Self.positions(before: before, now: before.reversed())
        #expect(reversed == (0..<count).reversed().map { Int?($0) })
        let shifted = Self.positions(before: before, now: ["new"] + before.dropFirst(7) + ["other"])
        #expect(shifted == [nil] + (7..<count).map { Int?($0) } + [nil])
    }

    /// Whether each fires as it did is told along with where it was: an edited trigger or delivery timing is not.
    @Test func tellsWhichFireAsTheyDid() throws {
        func notification(_ id: String, _ spec: String, accuracy: Duration = .zero) throws -> LoadedNotification {
            var trigger = Trigger()
            trigger.calendars = [try CalendarSpec(spec, localZone: .utc, zones: .system)]
            var notification = ScheduledNotification(id: id, title: id, trigger: trigger)
            notification.timing = DeliveryTiming(accuracy: accuracy)
            return LoadedNotification(notification: notification, source: "s")
        }
        let before = [
            try notification("same", "*-*-* 09:00"), try notification("moved", "*-*-* 09:00"),
            try notification("slack", "*-*-* 09:00"),
        ]
        let now = [
            try notification("slack", "*-*-* 09:00", accuracy: .seconds(60)), try notification("moved", "*-*-* 10:00"),
            try notification("same", "*-*-* 09:00"), try notification("new", "*-*-* 09:00"),
        ]
        let matches = now.withUnsafeBufferPointer { PreviousEntries(before).matches(of: $0) }
        #expect(matches.map(\.position) == [2, 1, 0, nil])
        #expect(matches.map(\.firesAlike) == [false, false, true, false])
        #expect(matches.map(\.keepsPending) == [false, false, true, false])
        #expect(MemoryLayout<PreviousEntries.Match>.size == 4)
    }
}

/// Holds every delivery in flight until `releaseAll()`.
private final class HoldingDispatcher: DeliveryDispatching, @unchecked Sendable {
    private let pending = Locked<[@Sendable () -> Void]>([])

    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        pending.withLock { $0.append(finished) }
    }

    var held: Int { pending.withLock { $0.count } }

    func releaseAll() {
        for finished in pending.withLock({ list in
            defer { list = [] }; return list
        }) { finished() }
    }
}

/// Counts the requests' deliveries the scheduler tells its follower were finished.
private final class Follower: ScheduleFollowing, @unchecked Sendable {
    let finished = Locked(0)

    func scheduleFired() {}
    func requestDeliveryFinished() { finished.withLock { $0 += 1 } }
}
