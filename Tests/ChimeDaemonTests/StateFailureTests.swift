import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// A state directory that cannot be written for a while (the disk is full): reported once, kept in memory,
/// written again when space returns, and nothing lost or garbled on the way.
@Suite struct StateFailureTests {

    /// A disk that takes at most `room` more bytes (then fails with ENOSPC, after a partial write if it can),
    /// or everything while `room` is nil.
    final class FillingDisk: @unchecked Sendable {
        private struct State {
            var room: Int?
            var failures = 0
        }
        private let state = Locked(State())

        var failures: Int { state.withLock { $0.failures } }
        func fill(leaving bytes: Int) { state.withLock { $0.room = bytes } }
        func free() { state.withLock { $0.room = nil } }

        func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
            let allowed: Int? = state.withLock { state in
                guard let room = state.room else { return nil }
                guard room > 0 else {
                    state.failures += 1
                    return 0
                }
                state.room = room - min(room, bytes.count)
                return min(room, bytes.count)
            }
            guard let allowed else { return Glibc.write(descriptor, bytes.baseAddress, bytes.count) }
            guard allowed > 0 else {
                errno = ENOSPC
                return -1
            }
            return Glibc.write(descriptor, bytes.baseAddress, allowed)
        }
    }

    @Test func aFlushCutShortByAFullDiskGoesOnWhereItStopped() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let disk = FillingDisk()
        let store = FileHistoryStore(directory: directory.path) { disk.write($0, $1) }
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        try store.flush()
        // Room for half a record: the first write stops in the middle of a line, the next fails outright.
        disk.fill(leaving: 30)
        let hours = (1...5).map { TestDate.timestamp("2026-11-02 0\($0):00 UTC") }
        for hour in hours {
            store.recordOccurrence("a", at: hour, missed: 0)
            store.recordFinished("a", at: hour)
            #expect(throws: SystemCallError.self) { try store.flush() }
        }
        #expect(disk.failures >= 5)
        disk.free()
        try store.flush()
        let text = try String(contentsOfFile: directory.path + "/occurrences.log", encoding: .utf8)
        // Every record once, whole, on a line of its own.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1 + 10 + 1)
        #expect(lines.last == "")
        #expect(lines.dropLast().allSatisfy { FileHistoryStore.parseRecord(Data($0.utf8)) != nil })
        let reopened = FileHistoryStore(directory: directory.path)
        let (histories, problems) = reopened.load()
        #expect(problems.isEmpty)
        #expect(histories["a"]?.lastOccurrence == hours.last)
        #expect(reopened.interrupted().isEmpty)
    }

    /// While the disk is full, what the journal cannot take goes to the overflow file (the runtime directory's): a
    /// restart before space returns reads it there (the delivered hours are not in flight, the last one is handled),
    /// writes it to the journal first, and the file goes.
    @Test func whatAFullDiskCannotTakeIsKeptInTheOverflowAcrossARestart() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let disk = FillingDisk()
        let store = FileHistoryStore(directory: directory.path + "/state", overflowDirectory: runtime) {
            disk.write($0, $1)
        }
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        try store.flush()
        disk.fill(leaving: 30)
        let hours = (1...3).map { TestDate.timestamp("2026-11-02 0\($0):00 UTC") }
        for hour in hours {
            store.recordOccurrence("a", at: hour, missed: 0)
            #expect(throws: SystemCallError.self) { try store.flush() }
            store.recordFinished("a", at: hour)
        }
        let overflow = runtime + "/state-overflow.log"
        #expect(FileManager.default.fileExists(atPath: overflow))

        // Killed now, and started again with the disk still full of something else's.
        let restarted = FileHistoryStore(directory: directory.path + "/state", overflowDirectory: runtime)
        let (histories, problems) = restarted.load()
        #expect(problems.isEmpty)
        #expect(histories["a"]?.lastOccurrence == hours.last)
        #expect(restarted.interrupted().isEmpty)
        try restarted.flush()
        #expect(!FileManager.default.fileExists(atPath: overflow))
        let again = FileHistoryStore(directory: directory.path + "/state")
        #expect(again.load().histories["a"]?.lastOccurrence == hours.last)
        #expect(again.interrupted().isEmpty)
    }

    /// An overflow file left behind by a crash just after the journal took its records: they are not replayed a
    /// second time after the journal's later ones (a delivery finished there would be in flight again).
    @Test func anOverflowTheJournalTookAlreadyIsNotReplayedAgain() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let hour = TestDate.timestamp("2026-11-02 01:00 UTC")
        let store = FileHistoryStore(directory: directory.path + "/state", overflowDirectory: runtime)
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        try store.flush()
        let before = try #require(FileManager.default.contents(atPath: directory.path + "/state/occurrences.log"))
        store.recordOccurrence("a", at: hour, missed: 0)
        try store.flush()
        let journal = try #require(FileManager.default.contents(atPath: directory.path + "/state/occurrences.log"))
        // The overflow as a failed flush left it: the occurrence's record, after the first sighting.
        let occurrence = String(decoding: journal.dropFirst(before.count), as: UTF8.self)
        try directory.write("run/state-overflow.log", "{\"journal_offset\":\(before.count)}\n" + occurrence)
        store.recordFinished("a", at: hour)
        let restarted = FileHistoryStore(directory: directory.path + "/state", overflowDirectory: runtime)
        #expect(restarted.load().histories["a"]?.lastOccurrence == hour)
        #expect(restarted.interrupted().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: runtime + "/state-overflow.log"))
    }

    @Test func aTornLastRecordIsIgnoredAndCutOffSoThatTheNextRecordSurvives() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: TestDate.timestamp("2026-11-02 00:00 UTC"))
        try store.flush()
        // A crash (or a full disk) in the middle of a record.
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/occurrences.log"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"occurrence":"a","at":"2026-11-02T0"#.utf8))
        try handle.close()
        // The torn record is ignored without a word: it is what an interrupted write leaves.
        let restarted = FileHistoryStore(directory: directory.path)
        let (before, problemsBefore) = restarted.load()
        #expect(problemsBefore.isEmpty)
        #expect(before["a"]?.lastOccurrence == nil)
        restarted.recordOccurrence("a", at: TestDate.timestamp("2026-11-02 03:00 UTC"), missed: 0)
        try restarted.flush()
        let (histories, problems) = FileHistoryStore(directory: directory.path).load()
        #expect(problems.isEmpty)
        #expect(histories["a"]?.lastOccurrence == TestDate.timestamp("2026-11-02 03:00 UTC"))
    }

    /// A memory store whose writes fail while `failing` is set, as a full disk makes them.
    final class FailingStore: HistoryStore, @unchecked Sendable {
        let memory = MemoryHistoryStore()
        private struct State {
            var failingFlush = false
            var failingCompaction = false
            var attempts = 0
        }
        private let state = Locked(State())

        var attempts: Int { state.withLock { $0.attempts } }

        struct DiskFull: Error, CustomStringConvertible {
            var description: String { "write /state/occurrences.log: No space left on device" }
        }

        func fail(flush: Bool, compaction: Bool) {
            state.withLock {
                $0.failingFlush = flush
                $0.failingCompaction = compaction
            }
        }

        func load() -> (histories: [String: DeliveryHistory], problems: [String]) { memory.load() }
        func interrupted() -> [InterruptedDelivery] { memory.interrupted() }
        func recordFirstSeen(_ ids: [String], at date: Date) { memory.recordFirstSeen(ids, at: date) }
        func recordOccurrence(_ id: String, at occurrence: Date, missed: Int) {
            memory.recordOccurrence(id, at: occurrence, missed: missed)
        }
        func recordSkipped(_ id: String, at occurrence: Date) { memory.recordSkipped(id, at: occurrence) }
        func recordFollowUp(_ id: String, at occurrence: Date, _ followUp: InterruptedDelivery.FollowUp) {
            memory.recordFollowUp(id, at: occurrence, followUp)
        }
        func recordFinished(_ id: String, at occurrence: Date, followUp: InterruptedDelivery.FollowUp?) {
            memory.recordFinished(id, at: occurrence, followUp: followUp)
        }
        func recordBackendFinished(
            _ id: String, at occurrence: Date, backend: String, followUp: InterruptedDelivery.FollowUp?
        ) {
            memory.recordBackendFinished(id, at: occurrence, backend: backend, followUp: followUp)
        }
        var wantsCompaction: Bool { true }

        func flush() throws {
            try state.withLock { state throws(DiskFull) in
                state.attempts += 1
                if state.failingFlush { throw DiskFull() }
            }
            try memory.flush()
        }

        func compact(_ histories: [String: DeliveryHistory]) throws {
            try state.withLock { state throws(DiskFull) in
                if state.failingCompaction { throw DiskFull() }
            }
            try memory.compact(histories)
        }
    }

    @Test func aStateThatCannotBeWrittenIsReportedOnceAndItsRecoveryOnce() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = FailingStore()
        let harness = SchedulerHarness(clock: clock, store: store)
        let (scheduler, dispatcher, log) = (harness.scheduler, harness.dispatcher, harness.log)
        scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nEvery=1s\n")]))
        store.fail(flush: true, compaction: true)
        clock.advance(to: TestDate.timestamp("2026-11-02 00:00:30 UTC"))
        // 30 fires, each delivered on time and each trying to write, one report.
        #expect(dispatcher.records.count == 30)
        #expect(dispatcher.records.allSatisfy { $0.handedOffAt == $0.fireTime })
        let reports = log.events(.stateError)
        #expect(reports.map(\.priority) == [.error])
        #expect(reports.first?.message.hasPrefix("Cannot record state: write /state/occurrences.log: No space") == true)
        #expect(reports.first?.fields.first { $0.name == "CHIME_ERROR" }?.value.contains("No space") == true)
        // A rebuild that cannot compact nor flush belongs to the same episode.
        scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nEvery=1s\n")]))
        #expect(log.events(.stateError).count == 1)
        store.fail(flush: false, compaction: false)
        clock.advance(to: TestDate.timestamp("2026-11-02 00:00:31 UTC"))
        let events = log.events(.stateError)
        #expect(events.count == 2)
        #expect(events.last?.priority == .notice)
        #expect(
            events.last?.message
                == "State recorded again, after 31 failed attempt(s) since 2026-11-02T00:00:01.000000Z; "
                + "nothing recorded meanwhile was lost.")
        #expect(store.memory.stored["tick"]?.lastOccurrence == TestDate.timestamp("2026-11-02 00:00:31 UTC"))
        // And nothing more while writes succeed.
        clock.advance(to: TestDate.timestamp("2026-11-02 00:01:00 UTC"))
        #expect(log.events(.stateError).count == 2)
    }

    @Test func whileStateCannotBeWrittenTheTimerAlsoWakesToTryAgain() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = FailingStore()
        let harness = SchedulerHarness(clock: clock, store: store)
        let (scheduler, log) = (harness.scheduler, harness.log)
        store.fail(flush: true, compaction: true)
        scheduler.install(SchedulerTests.schedule([("exam", "[Trigger]\nAt=2026-11-03 07:00 UTC\n")]))
        // Nothing due for a day, yet the state is tried again in 10 s, and every 10 s while it fails.
        #expect(scheduler.armedDeadline == TestDate.timestamp("2026-11-02 00:00:10 UTC"))
        clock.advance(to: TestDate.timestamp("2026-11-02 00:00:30 UTC"))
        #expect(store.attempts == 4)
        #expect(scheduler.armedDeadline == TestDate.timestamp("2026-11-02 00:00:40 UTC"))
        store.fail(flush: false, compaction: false)
        clock.advance(to: TestDate.timestamp("2026-11-02 00:00:40 UTC"))
        #expect(log.events(.stateError).map(\.priority) == [.error, .notice])
        // Recovered: back to one wake-up, for the exam.
        #expect(scheduler.armedDeadline == TestDate.timestamp("2026-11-03 07:00 UTC"))
        clock.advance(to: TestDate.timestamp("2026-11-02 12:00 UTC"))
        #expect(store.attempts == 5)
    }

    @Test func aSnapshotThatCannotBeWrittenLeavesTheJournalWrittenAndIsReportedOnce() {
        let clock = ManualClock(TestDate.timestamp("2026-11-02 00:00 UTC"))
        let store = FailingStore()
        let harness = SchedulerHarness(clock: clock, store: store)
        let (scheduler, log) = (harness.scheduler, harness.log)
        store.fail(flush: false, compaction: true)
        for _ in 0..<3 {
            scheduler.install(SchedulerTests.schedule([("tick", "[Trigger]\nEvery=1s\n")]))
            clock.advance(by: .seconds(5))
        }
        scheduler.saveState()
        let events = log.events(.stateError)
        #expect(events.map(\.priority) == [.warning])
        #expect(events.first?.message.hasPrefix("Cannot compact the state (") == true)
        // Each attempt fell back to the journal, which was written.
        #expect(store.memory.flushCount == store.attempts)
        #expect(store.attempts > 4)
    }
}
