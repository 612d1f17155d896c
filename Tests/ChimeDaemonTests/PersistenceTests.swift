import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// State across restarts: what the store keeps, and how a restarted scheduler treats what it missed.
@Suite struct PersistenceTests {
    typealias Harness = SchedulerTests.Harness

    /// A scheduler on `clock` over `store`, as a restarted daemon would build it.
    static func restart(_ clock: ManualClock, store: MemoryHistoryStore) -> (
        Scheduler, RecordingDispatcher, RecordingEventLog
    ) {
        let harness = SchedulerHarness(clock: clock, store: store)
        return (harness.scheduler, harness.dispatcher, harness.log)
    }

    @Test(arguments: [false, true])
    func occurrencesMissedWhileDownAreCaughtUpOnlyWhenPersistent(persistent: Bool) {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = MemoryHistoryStore()
        let files = [("hourly", "[Trigger]\nOnCalendar=hourly\nPersistent=\(persistent ? "yes" : "no")\n")]
        do {
            let (scheduler, dispatcher, _) = Self.restart(clock, store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp("2026-11-02 02:30 UTC"))
            #expect(dispatcher.records.count == 2)
            scheduler.saveState()
        }
        // Down from 02:30 to 07:10: 03:00 ... 07:00 were missed.
        clock.jump(to: TestDate.timestamp("2026-11-02 07:10 UTC"))
        let (scheduler, dispatcher, log) = Self.restart(clock, store: store)
        scheduler.install(SchedulerTests.schedule(files))
        clock.advance(to: TestDate.timestamp("2026-11-02 07:10:00.001 UTC"))
        let late = dispatcher.records.filter { $0.missedCount > 0 }
        if persistent {
            #expect(late.count == 1)
            #expect(late.first?.missedCount == 5)
            #expect(log.events(.caughtUp).first?.fields.first { $0.name == "CHIME_MISSED" }?.value == "5")
        } else {
            #expect(late.isEmpty)
            #expect(log.events(.missed).first?.fields.first { $0.name == "CHIME_MISSED" }?.value == "5")
        }
        #expect(dispatcher.records.filter { $0.missedCount == 0 }.isEmpty)
        clock.advance(to: TestDate.timestamp("2026-11-02 08:00 UTC"))
        #expect(dispatcher.records.last?.fireTime == TestDate.timestamp("2026-11-02 08:00 UTC"))
        #expect(log.events(.skippedPast).isEmpty)
    }

    @Test func aOneShotThatPassedWhileDownIsDeliveredOnceOnlyWithPersistent() {
        for persistent in [false, true] {
            let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
            let store = MemoryHistoryStore()
            let files = [("exam", "[Trigger]\nAt=2026-11-02 06:00 UTC\nPersistent=\(persistent ? "yes" : "no")\n")]
            do {
                let (scheduler, _, _) = Self.restart(clock, store: store)
                scheduler.install(SchedulerTests.schedule(files))
                scheduler.saveState()
            }
            clock.jump(to: TestDate.timestamp("2026-11-02 09:00 UTC"))
            let (scheduler, dispatcher, log) = Self.restart(clock, store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp("2026-11-03 09:00 UTC"))
            #expect(dispatcher.records.map(\.missedCount) == (persistent ? [1] : []))
            #expect(log.events(.missed).count == (persistent ? 0 : 1))
            // A third start: nothing more, ever.
            let (again, againDispatcher, _) = Self.restart(clock, store: store)
            again.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp("2026-11-04 09:00 UTC"))
            #expect(againDispatcher.records.isEmpty)
        }
    }

    @Test func countAndEveryAnchorSurviveRestarts() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = MemoryHistoryStore()
        let files = [("water", "[Trigger]\nEvery=1h\nCount=5\n")]
        var delivered: [Date] = []
        for stop in ["2026-11-02 02:30 UTC", "2026-11-02 02:45 UTC", "2026-11-02 04:10 UTC", "2026-11-03 00:00 UTC"] {
            let (scheduler, dispatcher, _) = Self.restart(clock, store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp(stop))
            scheduler.saveState()
            delivered += dispatcher.records.map(\.fireTime)
        }
        // Anchored at the first start (00:00), five in all, each once, though the daemon restarted three times.
        #expect(delivered == (1...5).map { TestDate.timestamp("2026-11-02 0\($0):00 UTC") })
    }

    /// At a first start with nothing stored the table of first sightings is made while preparing and taken whole; with
    /// histories stored, new ones join them. Either way only enabled notifications are seen, and the store hears of
    /// the same.
    @Test func firstSightingsAtAFirstStartAndAfterARestart() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = MemoryHistoryStore()
        let files = [("water", "[Trigger]\nEvery=1h\n"), ("off", "[Notification]\nEnabled=no\n[Trigger]\nEvery=1h\n")]
        do {
            let (scheduler, _, _) = Self.restart(clock, store: store)
            scheduler.install(SchedulerTests.schedule(files))
            #expect(scheduler.histories == ["water": DeliveryHistory(firstSeen: clock.now())])
            #expect(store.stored == scheduler.histories)
            clock.advance(to: TestDate.timestamp("2026-11-02 01:30 UTC"))
            scheduler.saveState()
        }
        let (scheduler, dispatcher, _) = Self.restart(clock, store: store)
        scheduler.install(SchedulerTests.schedule(files + [("tea", "[Trigger]\nEvery=1h\n")]))
        #expect(
            scheduler.histories == [
                "water": DeliveryHistory(
                    firstSeen: TestDate.timestamp("2026-11-02 00:00 UTC"),
                    lastOccurrence: TestDate.timestamp("2026-11-02 01:00 UTC")),
                "tea": DeliveryHistory(firstSeen: TestDate.timestamp("2026-11-02 01:30 UTC")),
            ])
        #expect(store.stored == scheduler.histories)
        clock.advance(to: TestDate.timestamp("2026-11-02 02:30 UTC"))
        #expect(dispatcher.records.map(\.id) == ["water", "tea"])
    }

    /// A dispatcher whose deliveries never finish, as when the process dies during them.
    final class StuckDispatcher: DeliveryDispatching, @unchecked Sendable {
        func dispatch(
            _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
            finished: @escaping @Sendable () -> Void
        ) {}
    }

    @Test func whatWasInFlightAtACrashIsDeliveredAgainAndNothingElse() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = MemoryHistoryStore()
        let files = [("hourly", "[Trigger]\nOnCalendar=hourly\n")]
        do {
            // 01:00 finishes; 02:00 is handed off and the process dies before it finishes.
            let (scheduler, _, _) = Self.restart(clock, store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp("2026-11-02 01:00 UTC"))
        }
        do {
            let scheduler = Scheduler(
                clock: clock, timer: clock.makeTimer(), dispatcher: StuckDispatcher(), log: RecordingEventLog(),
                store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: TestDate.timestamp("2026-11-02 02:00 UTC"))
            #expect(store.deliveriesInFlight.map(\.fireTime) == [TestDate.timestamp("2026-11-02 02:00 UTC")])
        }
        clock.jump(to: TestDate.timestamp("2026-11-02 02:00:05 UTC"))
        let (scheduler, dispatcher, log) = Self.restart(clock, store: store)
        scheduler.install(SchedulerTests.schedule(files))
        #expect(dispatcher.records.map(\.fireTime) == [TestDate.timestamp("2026-11-02 02:00 UTC")])
        #expect(log.events(.deliveryFailed).count == 1)
        #expect(store.deliveriesInFlight.isEmpty)
        clock.advance(to: TestDate.timestamp("2026-11-02 03:00 UTC"))
        #expect(dispatcher.records.map(\.fireTime).last == TestDate.timestamp("2026-11-02 03:00 UTC"))
        #expect(dispatcher.records.count == 2)
    }

    @Test func fileStoreKeepsInFlightDeliveriesUntilFinished() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        store.recordOccurrence("a", at: TestDate.timestamp("2026-11-02 01:00 UTC"), missed: 0)
        store.recordOccurrence("a", at: TestDate.timestamp("2026-11-02 02:00 UTC"), missed: 3)
        try store.flush()
        store.recordFinished("a", at: TestDate.timestamp("2026-11-02 01:00 UTC"))
        let reopened = FileHistoryStore(directory: directory.path)
        _ = reopened.load()
        #expect(
            reopened.interrupted() == [
                InterruptedDelivery(id: "a", fireTime: TestDate.timestamp("2026-11-02 02:00 UTC"), missed: 3)
            ])
        // Compaction keeps it in the snapshot.
        try reopened.compact(reopened.load().histories)
        let again = FileHistoryStore(directory: directory.path)
        _ = again.load()
        #expect(again.interrupted().map(\.missed) == [3])
    }

    /// A backend done with a delivery while another is still at work is kept with it in flight, in the journal and
    /// in the snapshot, and handed over again (after a restart) the occurrence keeps it.
    @Test func fileStoreKeepsTheBackendsThatFinishedADeliveryInFlight() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let at = TestDate.timestamp("2026-11-02 01:00 UTC")
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        store.recordOccurrence("a", at: at, missed: 0)
        store.recordBackendFinished("a", at: at, backend: "stdout")
        let reopened = FileHistoryStore(directory: directory.path)
        _ = reopened.load()
        #expect(
            reopened.interrupted() == [
                InterruptedDelivery(id: "a", fireTime: at, missed: 0, finishedBackends: ["stdout"])
            ])
        // Handed over again and killed again: the journal's second occurrence keeps what the first one's backend did.
        reopened.recordOccurrence("a", at: at, missed: 0)
        reopened.recordBackendFinished("a", at: at, backend: "journal")
        try reopened.compact(reopened.load().histories)
        let again = FileHistoryStore(directory: directory.path)
        _ = again.load()
        #expect(again.interrupted().map(\.finishedBackends) == [["stdout", "journal"]])
        again.recordOccurrence("a", at: at, missed: 0)
        try again.flush()
        let third = FileHistoryStore(directory: directory.path)
        _ = third.load()
        #expect(third.interrupted().map(\.finishedBackends) == [["stdout", "journal"]])
    }

    /// A snooze and a repeat in flight are kept apart from their occurrence (the same notification and fire time),
    /// in the journal and in the snapshot, and move no history.
    @Test func fileStoreKeepsFollowUpsInFlightApartFromTheirOccurrence() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let at = TestDate.timestamp("2026-11-02 01:00 UTC")
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        store.recordOccurrence("a", at: at, missed: 0)
        store.recordFollowUp("a", at: at, .repeated(2))
        store.recordBackendFinished("a", at: at, backend: "stdout", followUp: .repeated(2))
        store.recordFollowUp("a", at: at + 600, .snooze)
        try store.flush()
        let reopened = FileHistoryStore(directory: directory.path)
        #expect(reopened.load().histories["a"]?.lastOccurrence == at)
        #expect(
            Set(reopened.interrupted()) == [
                InterruptedDelivery(id: "a", fireTime: at, missed: 0),
                InterruptedDelivery(
                    id: "a", fireTime: at, missed: 0, finishedBackends: ["stdout"], followUp: .repeated(2)),
                InterruptedDelivery(id: "a", fireTime: at + 600, missed: 0, followUp: .snooze),
            ])
        // Through a compaction (the snapshot) and the repeat finished: the occurrence and the snooze stay.
        try reopened.compact(reopened.load().histories)
        reopened.recordFinished("a", at: at, followUp: .repeated(2))
        try reopened.flush()
        let third = FileHistoryStore(directory: directory.path)
        #expect(third.load().histories["a"]?.lastOccurrence == at)
        #expect(Set(third.interrupted().map(\.followUp)) == [nil, .snooze])
    }

    /// What was in flight at a crash goes again only to the backends that had not finished it.
    @Test func whatWasInFlightGoesAgainOnlyToTheBackendsThatHadNotFinished() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 01:59 UTC"))
        let store = MemoryHistoryStore()
        let files = [("hourly", "[Notification]\nDeliver=stdout slow\n[Trigger]\nOnCalendar=hourly\n")]
        let at = TestDate.timestamp("2026-11-02 02:00 UTC")
        do {
            let scheduler = Scheduler(
                clock: clock, timer: clock.makeTimer(), dispatcher: StuckDispatcher(), log: RecordingEventLog(),
                store: store)
            scheduler.install(SchedulerTests.schedule(files))
            clock.advance(to: at)
            store.recordBackendFinished("hourly", at: at, backend: "stdout")
        }
        clock.jump(to: TestDate.timestamp("2026-11-02 02:00:05 UTC"))
        let (scheduler, dispatcher, log) = Self.restart(clock, store: store)
        scheduler.install(SchedulerTests.schedule(files))
        #expect(dispatcher.records.map(\.fireTime) == [at])
        #expect(dispatcher.records.map(\.finishedBackends) == [["stdout"]])
        #expect(
            log.events(.deliveryFailed).map(\.message) == [
                "hourly: the delivery due at 2026-11-02T02:00:00Z was interrupted by the end of the previous run; "
                    + "delivering it again except to stdout, which had finished."
            ])
    }

    @Test func manyFirstSightingsAreOneRecordAndSurviveARestart() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        let ids = (0..<1000).map { "n\($0)" }
        store.recordFirstSeen(ids, at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        store.recordFirstSeen(["late"], at: TestDate.timestamp("2026-11-02 01:00 UTC"))
        try store.flush()
        let log = try String(contentsOfFile: directory.path + "/occurrences.log", encoding: .utf8)
        #expect(log.split(separator: "\n").count == 2)
        #expect(!store.wantsCompaction)
        let histories = FileHistoryStore(directory: directory.path).load().histories
        #expect(histories.count == 1001)
        #expect(histories["n999"] == DeliveryHistory(firstSeen: TestDate.timestamp("2026-11-02 00:00 UTC")))
        #expect(histories["late"] == DeliveryHistory(firstSeen: TestDate.timestamp("2026-11-02 01:00 UTC")))
    }

    /// Quoted in shares side by side from 65,536 on: the same record, ids in order.
    @Test func manyFirstSightingsQuotedInSharesAreOneRecordInOrder() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        let ids = (0..<70_001).map { $0 % 1000 == 0 ? "quoted \"\($0)\"" : "n\($0)" }
        store.recordFirstSeen(ids, at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        try store.flush()
        let log = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/occurrences.log"))
        let record = try JSONSerialization.jsonObject(with: log) as? [String: Any]
        #expect(record?["first_seen"] as? [String] == ids)
        #expect(record?["at"] as? String == "2026-11-02T00:00:00.000000Z")
    }

    @Test func firstSightingsAreTheJSONTheyAlwaysWere() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a", "b\"quoted\"", "c\\d"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        store.recordFirstSeen(["late"], at: TestDate.timestamp("2026-11-02 01:00 UTC"))
        try store.flush()
        let log = try String(contentsOfFile: directory.path + "/occurrences.log", encoding: .utf8)
        #expect(
            log == #"{"first_seen":["a","b\"quoted\"","c\\d"],"at":"2026-11-02T00:00:00.000000Z"}"# + "\n"
                + #"{"first_seen":"late","at":"2026-11-02T01:00:00.000000Z"}"# + "\n")
        let histories = FileHistoryStore(directory: directory.path).load().histories
        #expect(histories.keys.sorted() == ["a", "b\"quoted\"", "c\\d", "late"])
    }

    @Test func fileStoreKeepsHistoriesAcrossInstances() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let first = FileHistoryStore(directory: directory.path)
        first.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        first.recordOccurrence("a", at: TestDate.timestamp("2026-11-02 01:00 UTC"), missed: 0)
        first.recordFinished("a", at: TestDate.timestamp("2026-11-02 01:00 UTC"))
        try first.flush()
        // No compaction: the journal alone must bring it back.
        let (histories, problems) = FileHistoryStore(directory: directory.path).load()
        #expect(problems.isEmpty)
        #expect(
            histories["a"]
                == DeliveryHistory(
                    firstSeen: TestDate.timestamp("2026-11-02 00:00 UTC"),
                    lastOccurrence: TestDate.timestamp("2026-11-02 01:00 UTC")))
        try first.compact(histories)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/occurrences.log"))
        #expect(FileHistoryStore(directory: directory.path).load().histories == histories)
    }

    @Test func theSnapshotIsTheJSONItAlwaysWas() {
        let histories = [
            "b\"quoted\"": DeliveryHistory(firstSeen: TestDate.timestamp("2026-11-02 00:00 UTC")),
            "a": DeliveryHistory(
                firstSeen: TestDate.timestamp("2026-11-01 00:00 UTC"),
                lastOccurrence: TestDate.timestamp("2026-11-02 01:00 UTC")),
        ]
        let flying = [InterruptedDelivery(id: "a", fireTime: TestDate.timestamp("2026-11-02 01:00 UTC"), missed: 2)]
        #expect(
            FileHistoryStore.snapshotText(histories, inFlight: flying)
                == #"{"version":1,"notifications":{"a":{"first_seen":"2026-11-01T00:00:00.000000Z","#
                + #""last_occurrence":"2026-11-02T01:00:00.000000Z"},"b\"quoted\"":{"first_seen":"#
                + #""2026-11-02T00:00:00.000000Z","last_occurrence":null}},"in_flight":[{"id":"a","#
                + #""at":"2026-11-02T01:00:00.000000Z","missed":2}]}"# + "\n")
        #expect(
            FileHistoryStore.parseSnapshot(Data(FileHistoryStore.snapshotText(histories, inFlight: flying).utf8))?
                .histories == histories)
    }

    /// The bytes of the two files as `load()` reads them, without a directory: what the state fuzz target feeds.
    @Test func readsTheFilesBytesAsLoadDoes() {
        let store = FileHistoryStore(directory: "/nonexistent")
        let snapshot = """
            {"version":1,"notifications":{"a":{"first_seen":"2026-11-02T00:00:00.000000Z","last_occurrence":null}},\
            "in_flight":[{"id":"a","at":"2026-11-02T01:00:00.000000Z","missed":0}]}
            """
        // The second record is damaged, the last one torn; an occurrence far past 9999 is an instant like any other
        // (`At=@2534022174400` is accepted, as by systemd; fuzz-timestamp found its ISO 8601 form unreadable).
        let journal = """
            {"finished":"a","at":"2026-11-02T01:00:00.000000Z"}
            not a record
            {"occurrence":"far","at":"82269-12-19T08:26:40.000000Z","missed":0}
            {"occurrence":"a","at":"2026-11-02T0
            """
        let contents = store.read(snapshot: Data(snapshot.utf8), journal: Data(journal.utf8))
        #expect(contents.isSnapshotReadable)
        #expect(contents.histories["a"] == DeliveryHistory(firstSeen: TestDate.timestamp("2026-11-02 00:00 UTC")))
        let far = Date(epochMicroseconds: 2_534_022_174_400_000_000)
        #expect(contents.histories["far"] == DeliveryHistory(firstSeen: far, lastOccurrence: far))
        #expect(contents.inFlight.values.map(\.id) == ["far"])
        #expect(contents.journalRecords == 3)
        #expect(contents.problems == ["/nonexistent/occurrences.log:2: unreadable record, ignoring"])
        #expect(!store.read(snapshot: Data("{}".utf8), journal: nil).isSnapshotReadable)
        #expect(store.read(snapshot: nil, journal: nil).histories.isEmpty)
    }

    @Test(arguments: [
        ("truncated", #"{"version":1,"notifications":{"a":{"first_seen":"2026-11-02T00:0"#),
        ("garbage", "\u{0}\u{1}not json at all"),
        ("wrong version", #"{"version":99,"notifications":{}}"#),
    ])
    func aCorruptSnapshotIsMovedAsideAndReported(kind: String, text: String) throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        try directory.write("state.json", text)
        let (histories, problems) = FileHistoryStore(directory: directory.path).load()
        #expect(histories.isEmpty)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("is not a valid chime state file") == true, "\(kind)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix("state.json.corrupt-") })
        #expect(!names.contains("state.json"))
    }

    @Test func storeProblemsReachTheLog() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        try directory.write("state.json", "garbage")
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let log = RecordingEventLog()
        _ = Scheduler(
            clock: clock, timer: clock.makeTimer(), dispatcher: RecordingDispatcher(clock: clock), log: log,
            store: FileHistoryStore(directory: directory.path))
        #expect(log.events(.stateError).count == 1)
    }
}
