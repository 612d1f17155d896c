import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// A compaction at a rebuild writes the snapshot in the background: what is recorded meanwhile, a snapshot that
/// cannot be written and a crash before the set-aside journal goes all leave the state as a restart should find it.
@Suite struct StateCompactionTests {
    static let seen = TestDate.timestamp("2026-11-02 00:00 UTC")
    static let first = TestDate.timestamp("2026-11-02 01:00 UTC")
    static let second = TestDate.timestamp("2026-11-02 02:00 UTC")

    /// Starts a compaction of what `store` loaded and waits for its end; its error, if any.
    static func compactInBackground(_ store: FileHistoryStore, _ histories: [String: DeliveryHistory]) throws -> String?
    {
        let ended = DispatchSemaphore(value: 0)
        let error = Locked<String?>(nil)
        try store.startCompaction(histories) { failure in
            error.withLock { $0 = failure.map { "\($0)" } }
            ended.signal()
        }
        #expect(ended.wait(timeout: .now() + 10) == .success)
        return error.withLock { $0 }
    }

    static func names(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func whatIsRecordedWhileTheSnapshotIsWrittenGoesToANewJournal() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: Self.seen)
        store.recordOccurrence("a", at: Self.first, missed: 0)
        try store.flush()
        let histories = FileHistoryStore(directory: directory.path).load().histories

        let ended = DispatchSemaphore(value: 0)
        try store.startCompaction(histories) { error in
            #expect(error == nil)
            ended.signal()
        }
        // The journal so far is set aside at once; these go to a new one, whenever the snapshot is written.
        store.recordFinished("a", at: Self.first)
        store.recordFirstSeen(["b"], at: Self.second)
        store.recordOccurrence("b", at: Self.second, missed: 2)
        try store.flush()
        #expect(ended.wait(timeout: .now() + 10) == .success)

        #expect(try Self.names(in: directory) == ["occurrences.log", "state.json"])
        let journal = try String(contentsOfFile: directory.path + "/occurrences.log", encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 3)
        let snapshot = try String(contentsOfFile: directory.path + "/state.json", encoding: .utf8)
        #expect(snapshot.contains(#""a":{"first_seen""#) && !snapshot.contains(#""b":"#))
        let reopened = FileHistoryStore(directory: directory.path)
        let (restored, problems) = reopened.load()
        #expect(problems.isEmpty)
        #expect(restored["a"] == DeliveryHistory(firstSeen: Self.seen, lastOccurrence: Self.first))
        #expect(restored["b"] == DeliveryHistory(firstSeen: Self.second, lastOccurrence: Self.second))
        #expect(reopened.interrupted() == [InterruptedDelivery(id: "b", fireTime: Self.second, missed: 2)])
    }

    @Test func aSnapshotThatCannotBeWrittenLeavesItsJournalToBeReadAndFoldedInLater() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        // A directory where the snapshot goes: renaming the new snapshot over it fails, even for root.
        try directory.write("state.json/in-the-way", "")
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: Self.seen)
        store.recordOccurrence("a", at: Self.first, missed: 0)
        try store.flush()
        let error = try Self.compactInBackground(store, ["a": DeliveryHistory(firstSeen: Self.seen)])
        #expect(error?.contains("rename") == true, "\(error ?? "no error")")
        store.recordFirstSeen(["b"], at: Self.second)
        try store.flush()
        #expect(try Self.names(in: directory) == ["occurrences.log", "occurrences.log.1", "state.json"])

        // Read back as a restart would: the set-aside journal, then the new one.
        let reopened = FileHistoryStore(directory: directory.path)
        let (restored, problems) = reopened.load()
        #expect(problems.isEmpty)
        #expect(restored["a"] == DeliveryHistory(firstSeen: Self.seen, lastOccurrence: Self.first))
        #expect(restored["b"] == DeliveryHistory(firstSeen: Self.second))
        #expect(reopened.interrupted().map(\.id) == ["a"])
        #expect(FileHistoryStore.peek(directory: directory.path) == restored)

        // Room again: the next compaction sets the new journal aside too and folds both in.
        try FileManager.default.removeItem(atPath: directory.path + "/state.json")
        #expect(try Self.compactInBackground(reopened, restored) == nil)
        #expect(try Self.names(in: directory) == ["state.json"])
        let again = FileHistoryStore(directory: directory.path)
        #expect(again.load().histories == restored)
        #expect(again.interrupted().map(\.id) == ["a"])
    }

    /// A crash after the snapshot was written and before the set-aside journal went: its records, already in the
    /// snapshot, are replayed over it and change nothing.
    @Test func aJournalReplayedOverTheSnapshotThatHoldsItChangesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a", "b"], at: Self.seen)
        store.recordOccurrence("a", at: Self.first, missed: 0)
        store.recordOccurrence("b", at: Self.first, missed: 0)
        store.recordFinished("a", at: Self.first)
        store.recordOccurrence("a", at: Self.second, missed: 1)
        try store.flush()
        let journal = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/occurrences.log"))
        let reference = FileHistoryStore(directory: directory.path)
        let histories = reference.load().histories
        let interrupted = reference.interrupted()
        try store.compact(histories)
        try journal.write(to: URL(fileURLWithPath: directory.path + "/occurrences.log.7"))

        let reopened = FileHistoryStore(directory: directory.path)
        let (restored, problems) = reopened.load()
        #expect(problems.isEmpty)
        #expect(restored == histories)
        #expect(reopened.interrupted() == interrupted)
        #expect(interrupted.map(\.id) == ["b", "a"])
        // It is numbered on from there, and folded in with the next.
        #expect(try Self.compactInBackground(reopened, restored) == nil)
        #expect(try Self.names(in: directory) == ["state.json"])
    }

    @Test func aDamagedRecordOfASetAsideJournalIsReportedWithItsFile() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        try directory.write(
            "occurrences.log.1",
            #"{"first_seen":"a","at":"2026-11-02T00:00:00.000000Z"}"# + "\nnot a record\n"
                + #"{"first_seen":"b","at":"2026-11-02T00:00:00.000000Z"}"# + "\n")
        try directory.write("occurrences.log", #"{"first_seen":"c","at":"2026-11-02T00:00:00.000000Z"}"# + "\n")
        let (histories, problems) = FileHistoryStore(directory: directory.path).load()
        #expect(histories.keys.sorted() == ["a", "b", "c"])
        #expect(problems == ["\(directory.path)/occurrences.log.1:2: unreadable record, ignoring"])
    }
}
