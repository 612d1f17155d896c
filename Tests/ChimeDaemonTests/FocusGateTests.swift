import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// Focus between the scheduler and the dispatcher, on the manual clock: what quiet holds, passes, records or drops
/// by interruption level, the release when quiet ends (once, as a summary or each on its own), and nothing lost
/// across a restart in the middle of a window.
@Suite struct FocusGateTests {
    /// A scheduler delivering through a `FocusGate` to a recording dispatcher, on one manual clock.
    struct Harness {
        let clock: ManualClock
        let dispatcher: RecordingDispatcher
        let log = RecordingEventLog()
        let gate: FocusGate
        let scheduler: Scheduler

        init(
            start: String, history: MemoryHistoryStore = MemoryHistoryStore(),
            held: MemoryHeldDeliveryStore = MemoryHeldDeliveryStore(), sleepHold: (any SleepHolding)? = nil
        ) {
            clock = ManualClock(TestDate.timestamp(start))
            dispatcher = RecordingDispatcher(clock: clock)
            gate = FocusGate(
                target: dispatcher, clock: clock, timer: clock.makeTimer(), log: log, store: held, sleepHold: sleepHold)
            scheduler = Scheduler(
                clock: clock, timer: clock.makeTimer(), dispatcher: gate, log: log, store: history,
                wake: SystemWake(sleepHold: sleepHold))
        }

        /// As a rebuild does it: the focus settings first, then the schedule.
        func rebuild(_ settings: FocusSettings, switch quietSwitch: QuietSwitch? = nil, files: [(String, String)]) {
            gate.configure(settings, quietSwitch: quietSwitch, systemZone: SchedulerTests.berlin)
            scheduler.install(SchedulerTests.schedule(files))
        }

        var delivered: [String] { dispatcher.records.map { "\($0.id)@\(Timestamp.iso8601($0.handedOffAt))" } }

        func ids(_ kind: DaemonEvent.Kind) -> [String] {
            log.events(kind).map { $0.fields.first { $0.name == "CHIME_ID" }?.value ?? "?" }
        }
    }

    /// 22:00 to 07:00 in Berlin (21:00 to 06:00 UTC in winter).
    static let nightly: FocusSettings = {
        var settings = FocusSettings()
        let calendar = try! CalendarSpec("*-*-* 22:00", localZone: SchedulerTests.berlin, zones: .system)
        settings.hours = QuietHours([.init(calendar: calendar, length: 9 * 3_600_000_000, zone: nil, text: "22:00")])
        return settings
    }()

    static func file(_ id: String, at time: String, level: String = "active", extra: String = "") -> (String, String) {
        (id, "InterruptionLevel=\(level)\n\(extra)[Trigger]\nAt=\(time)\n")
    }

    static let night = [
        file("reading", at: "2026-12-01 22:30"), file("backup", at: "2026-12-01 23:00", level: "passive"),
        file("train", at: "2026-12-01 23:30", level: "time-sensitive"),
        file("server", at: "2026-12-02 00:00", level: "critical"), file("early", at: "2026-12-02 06:59:59"),
    ]

    @Test func quietHoldsAndPassesByLevelAndReleasesOneSummaryWhenItEnds() {
        let harness = Harness(start: "2026-12-01 20:00 UTC")
        harness.rebuild(Self.nightly, files: Self.night)
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 05:59:59.999999 UTC"))
        #expect(harness.delivered == ["train@2026-12-01T22:30:00Z", "server@2026-12-01T23:00:00Z"])
        #expect(harness.ids(.held) == ["reading", "backup", "early"])
        #expect(harness.ids(.passedQuiet) == ["train", "server"])
        #expect(harness.log.events(.quietBegan).count == 1)
        #expect(harness.gate.status.held == 3)

        harness.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        let summary = harness.dispatcher.records.last!
        #expect(harness.delivered.count == 3)
        #expect(summary.id == QuietSummary.id)
        #expect(Timestamp.iso8601(summary.handedOffAt) == "2026-12-02T06:00:00Z")
        #expect(summary.title == "3 notifications while quiet")
        #expect(summary.body == "Tue 22:30 reading\nTue 23:00 backup\nWed 06:59 early")
        #expect(harness.ids(.released) == ["reading", "backup", "early"])
        #expect(harness.log.events(.quietEnded).map(\.message) == ["Quiet ended; releasing 3 held delivery(ies)."])

        // Once: the next day is loud until the next window, which holds nothing.
        harness.clock.advance(to: TestDate.timestamp("2026-12-03 12:00 UTC"))
        #expect(harness.delivered.count == 3)
        #expect(harness.log.events(.quietBegan).count == 2)
        #expect(harness.log.events(.quietEnded).count == 2)
    }

    /// A delivery with `WakeSystem=yes` keeps the system awake when it fires and again when quiet releases it: each
    /// hold lasts until its backends are done.
    @Test func aReleasedDeliveryThatWakesTheSystemKeepsItAwakeAgain() {
        let holds = SchedulerWakeTests.Inhibitions()
        let harness = Harness(start: "2026-12-01 20:00 UTC", sleepHold: holds)
        harness.rebuild(
            Self.nightly,
            files: [
                ("pills", "[Trigger]\nAt=2026-12-01 23:00\nWakeSystem=yes\n"), Self.file("tea", at: "2026-12-01 23:30"),
            ])
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 05:00 UTC"))
        #expect(harness.ids(.held) == ["pills", "tea"])
        #expect(holds.taken.withLock { $0 } == ["Delivering pills (WakeSystem=yes)"])
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        #expect(harness.dispatcher.records.map(\.id) == [QuietSummary.id])
        #expect(
            holds.taken.withLock { $0 } == [
                "Delivering pills (WakeSystem=yes)", "Delivering \(QuietSummary.id) (WakeSystem=yes)",
            ])
        #expect(holds.released.withLock { $0 }.count == 2)
    }

    @Test func releasedEachOnItsOwnWhenConfiguredSo() {
        var settings = Self.nightly
        settings.policy.release = .each
        let harness = Harness(start: "2026-12-01 20:00 UTC")
        harness.rebuild(settings, files: Self.night)
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        #expect(
            harness.delivered.suffix(3) == [
                "reading@2026-12-02T06:00:00Z", "backup@2026-12-02T06:00:00Z", "early@2026-12-02T06:00:00Z",
            ])
        // Each keeps its own occurrence.
        #expect(
            harness.dispatcher.records.suffix(3).map { Timestamp.iso8601($0.fireTime) } == [
                "2026-12-01T21:30:00Z", "2026-12-01T22:00:00Z", "2026-12-02T05:59:59Z",
            ])
    }

    @Test func aSingleHeldDeliveryComesOutAsItself() {
        let harness = Harness(start: "2026-12-01 20:00 UTC")
        harness.rebuild(Self.nightly, files: [Self.file("reading", at: "2026-12-01 22:30")])
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        #expect(harness.delivered == ["reading@2026-12-02T06:00:00Z"])
    }

    @Test func quietCanRecordInTheJournalOnlyOrDropAndHoldTimeSensitiveOnes() {
        var settings = Self.nightly
        settings.policy.passive = .drop
        settings.policy.active = .journal
        settings.policy.timeSensitive = .hold
        let harness = Harness(start: "2026-12-01 20:00 UTC")
        harness.rebuild(settings, files: Self.night)
        harness.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        #expect(harness.ids(.journalOnly) == ["reading", "early"])
        #expect(harness.ids(.dropped) == ["backup"])
        #expect(harness.ids(.held) == ["train"])
        #expect(harness.delivered == ["server@2026-12-01T23:00:00Z", "train@2026-12-02T06:00:00Z"])
    }

    @Test func nothingHeldIsLostOrRepeatedAcrossARestartInTheMiddleOfAWindow() {
        let history = MemoryHistoryStore()
        let held = MemoryHeldDeliveryStore()
        let first = Harness(start: "2026-12-01 20:00 UTC", history: history, held: held)
        first.rebuild(Self.nightly, files: Self.night)
        first.clock.advance(to: TestDate.timestamp("2026-12-01 23:15 UTC"))
        #expect(held.ids == ["reading", "backup"])
        // Held is done as far as the schedule's state goes: the restart does not deliver it again.
        #expect(history.interrupted().isEmpty)

        let second = Harness(start: "2026-12-01 23:20 UTC", history: history, held: held)
        second.rebuild(Self.nightly, files: Self.night)
        second.clock.advance(to: TestDate.timestamp("2026-12-02 06:00 UTC"))
        #expect(first.delivered == ["train@2026-12-01T22:30:00Z", "server@2026-12-01T23:00:00Z"])
        #expect(second.delivered == [".quiet-summary@2026-12-02T06:00:00Z"])
        #expect(second.dispatcher.records.last?.body == "Tue 22:30 reading\nTue 23:00 backup\nWed 06:59 early")
        #expect(held.ids.isEmpty)
    }

    @Test func whatWasHeldComesOutAtTheStartWhenQuietEndedWhileChimedWasDown() {
        let history = MemoryHistoryStore()
        let held = MemoryHeldDeliveryStore()
        let first = Harness(start: "2026-12-01 20:00 UTC", history: history, held: held)
        first.rebuild(Self.nightly, files: Self.night)
        first.clock.advance(to: TestDate.timestamp("2026-12-01 21:45 UTC"))

        let second = Harness(start: "2026-12-02 08:00 UTC", history: history, held: held)
        second.rebuild(Self.nightly, files: Self.night)
        #expect(second.delivered == ["reading@2026-12-02T08:00:00Z"])
        #expect(second.ids(.released) == ["reading"])
        #expect(held.ids.isEmpty)
    }

    @Test func theSwitchMakesItQuietUntilItsEndOrUntilSwitchedOff() {
        let harness = Harness(start: "2026-12-01 10:00 UTC")
        let files = [
            Self.file("lunch", at: "2026-12-01 12:00"), Self.file("tea", at: "2026-12-01 16:00"),
            Self.file("pager", at: "2026-12-01 12:30", level: "critical"),
        ]
        let on = QuietSwitch(.on, setAt: harness.clock.now(), until: TestDate.timestamp("2026-12-01 14:00 UTC"))
        harness.rebuild(FocusSettings(), switch: on, files: files)
        #expect(
            harness.log.events(.quietBegan).first?.message
                == "Quiet (chimectl quiet on) until Tue 2026-12-01 15:00:00 CET.")
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 13:00 UTC"))
        #expect(harness.delivered == ["pager@2026-12-01T11:30:00Z"])
        // Ends by itself at 14:00 UTC and lets lunch out; tea comes at its time.
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 15:00 UTC"))
        #expect(
            harness.delivered == [
                "pager@2026-12-01T11:30:00Z", "lunch@2026-12-01T14:00:00Z", "tea@2026-12-01T15:00:00Z",
            ])

        // On until switched off: off releases at once.
        let later = Harness(start: "2026-12-01 10:00 UTC")
        later.rebuild(FocusSettings(), switch: QuietSwitch(.on, setAt: later.clock.now()), files: files)
        later.clock.advance(to: TestDate.timestamp("2026-12-01 20:00 UTC"))
        #expect(later.delivered == ["pager@2026-12-01T11:30:00Z"])
        later.rebuild(FocusSettings(), switch: QuietSwitch(.off, setAt: later.clock.now()), files: files)
        #expect(later.dispatcher.records.last?.title == "2 notifications while quiet")
    }

    @Test func theDesktopsDoNotDisturbHoldsUntilItIsOff() {
        let harness = Harness(start: "2026-12-01 10:00 UTC")
        harness.rebuild(
            FocusSettings(),
            files: [
                Self.file("lunch", at: "2026-12-01 12:00"),
                Self.file("pager", at: "2026-12-01 12:30", level: "critical"),
            ])
        harness.gate.desktopChanged("dunst")
        harness.clock.advance(to: TestDate.timestamp("2026-12-01 12:00 UTC"))
        #expect(harness.delivered == ["pager@2026-12-01T11:30:00Z"])
        #expect(
            harness.log.events(.held).first?.fields.first { $0.name == "CHIME_QUIET_REASON" }?.value
                == "do-not-disturb (dunst)")
        harness.gate.desktopChanged(nil)
        #expect(harness.delivered == ["pager@2026-12-01T11:30:00Z", "lunch@2026-12-01T12:00:00Z"])

        // Not followed when chimed.conf says so.
        var settings = FocusSettings()
        settings.followsDesktop = false
        let ignoring = Harness(start: "2026-12-01 10:00 UTC")
        ignoring.rebuild(settings, files: [Self.file("lunch", at: "2026-12-01 12:00")])
        ignoring.gate.desktopChanged("dunst")
        ignoring.clock.advance(to: TestDate.timestamp("2026-12-01 12:00 UTC"))
        #expect(ignoring.delivered == ["lunch@2026-12-01T11:00:00Z"])
    }

    @Test func aHeldDeliveryIsKeptWithEverythingABackendUses() throws {
        let directory = try TemporaryDirectory(prefix: "chime-held")
        defer { directory.remove() }
        let log = RecordingEventLog()
        var notification = ScheduledNotification(id: "exam", title: "Exam", trigger: Trigger())
        notification.body = "Room 4"
        notification.urgency = .low
        notification.interruptionLevel = .passive
        notification.icon = "dialog-information"
        notification.category = "im"
        notification.sound = "bell"
        notification.soundStyle = SoundStyle(
            ring: .untilAnswered, volume: 60, fadeIn: .seconds(15), speaks: true, language: "pt-BR")
        notification.actions = [.init(key: "snooze", label: "Later"), .init(key: "open", label: "Open")]
        notification.actionCommands = ["open": ["xdg-open", "https://example.org/a b"]]
        notification.snooze = .seconds(300)
        notification.info = [("course", "maths"), ("room", "4")]
        notification.backends = ["desktop", "journal"]
        var delivery = Delivery(
            notification: notification, fireTime: TestDate.timestamp("2026-12-01 22:30 UTC"), missedCount: 2)
        delivery.badge = 3
        delivery.isSnoozed = true
        delivery.isSoundSuppressed = true
        delivery.origin = .application(appID: "org.example.Reminders", id: "exam")
        let plain = Delivery(
            notification: ScheduledNotification(id: "tea", title: "Tea", trigger: Trigger()),
            fireTime: TestDate.timestamp("2026-12-01 23:00 UTC"))

        FileHeldDeliveryStore(directory: directory.path, log: log).save([delivery, plain])
        let loaded = FileHeldDeliveryStore(directory: directory.path, log: log).load()
        #expect(loaded.map(\.storedJSON) == [delivery.storedJSON, plain.storedJSON])
        #expect(loaded.first?.notification == notification.with(trigger: Trigger()))
        #expect(loaded.first?.badge == 3 && loaded.first?.missedCount == 2)
        #expect(loaded.first?.appID == "org.example.Reminders" && loaded.last?.appID == nil)
        #expect(log.events.isEmpty)

        try "{\"version\":1,\"held\":[{\"id\":\"x\"}]}".write(
            toFile: directory.path + "/held.json", atomically: true, encoding: .utf8)
        #expect(FileHeldDeliveryStore(directory: directory.path, log: log).load().isEmpty)
        #expect(
            log.events(.stateError).map(\.message) == [
                "\(directory.path)/held.json: 1 held deliveries are unreadable and lost"
            ])
    }
}

extension ScheduledNotification {
    fileprivate func with(trigger: Trigger) -> ScheduledNotification {
        var copy = self
        copy.trigger = trigger
        return copy
    }
}
