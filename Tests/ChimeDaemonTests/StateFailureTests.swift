import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// A state directory that cannot be written for a while (the disk is full): reported once, kept in memory,
/// written again when space returns, and nothing lost or garbled on the way.
@Suite struct StateFailureTests {
    static func date(_ iso: String) -> Date { SchedulerTests.date(iso) }

    /// A disk that takes at most `room` more bytes (then fails with ENOSPC, after a partial write if it can),
    /// or everything while `room` is nil.
    final class FillingDisk: @unchecked Sendable {
        private let lock = NSLock()
        private var room: Int?
        private(set) var failures = 0

        func fill(leaving bytes: Int) { lock.withLock { room = bytes } }
        func free() { lock.withLock { room = nil } }

        func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
            let allowed: Int? = lock.withLock {
                guard let room else { return nil }
                guard room > 0 else {
                    failures += 1
                    return 0
                }
                self.room = room - min(room, bytes.count)
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
        store.recordFirstSeen(["a"], at: Self.date("2026-11-02 00:00 UTC"))
        try store.flush()
        // Room for half a record: the first write stops in the middle of a line, the next fails outright.
        disk.fill(leaving: 30)
        let hours = (1...5).map { Self.date("2026-11-02 0\($0):00 UTC") }
        for hour in hours {
            store.recordOccurrence("a", at: hour, missed: 0)
            store.recordFinished("a", at: hour)
            #expect(throws: AtomicFile.WriteError.self) { try store.flush() }
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

    @Test func aTornLastRecordIsCutOffSoThatTheNextRecordSurvives() throws {
        let directory = try TemporaryDirectory(prefix: "chime-state")
        defer { directory.remove() }
        let store = FileHistoryStore(directory: directory.path)
        store.recordFirstSeen(["a"], at: Self.date("2026-11-02 00:00 UTC"))
        try store.flush()
        // A crash (or a full disk) in the middle of a record.
        let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/occurrences.log"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"occurrence":"a","at":"2026-11-02T0"#.utf8))
        try handle.close()
        let restarted = FileHistoryStore(directory: directory.path)
        #expect(restarted.load().problems.isEmpty)
        restarted.recordOccurrence("a", at: Self.date("2026-11-02 03:00 UTC"), missed: 0)
        try restarted.flush()
        let (histories, problems) = FileHistoryStore(directory: directory.path).load()
        #expect(problems.isEmpty)
        #expect(histories["a"]?.lastOccurrence == Self.date("2026-11-02 03:00 UTC"))
    }
}
