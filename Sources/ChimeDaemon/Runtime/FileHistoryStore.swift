import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// The state directory's files: `state.json`, a snapshot written atomically (temporary file, fsync, rename,
/// fsync of the directory), and `occurrences.log`, an append-only journal of what happened since, synced on
/// every flush. Loading replays the journal over the snapshot; a torn last line (a crash mid-write) is ignored
/// and cut off, so that the next record starts a line of its own.
/// A snapshot that cannot be read (truncated, garbage, another version) is moved aside, reported, and the store
/// starts empty.
///
/// A compaction at a rebuild (`startCompaction`) renames the journal to `occurrences.log.N` and writes the snapshot
/// on a queue of its own, so that deliveries do not wait for a million histories to be written; records made
/// meanwhile go to a new journal. Once the snapshot is written the set-aside journals go. Until then (or after a
/// crash, or a snapshot that could not be written) loading replays them, oldest first, between the snapshot and the
/// journal: a record replayed over a snapshot that already holds it changes nothing.
///
/// A flush that fails part-way (ENOSPC) keeps the bytes it did not write; the next flush goes on from there, so the
/// journal never holds a record twice or one glued to another, and nothing recorded meanwhile is lost.
public final class FileHistoryStore: HistoryStore, Sendable {
    static let version: Int64 = 1

    /// write(2), or what a test puts in its place to make writes fail part-way.
    typealias Write = @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int

    public let directory: String
    /// Where the records the journal cannot take (a full disk) are kept meanwhile: a file of the runtime directory.
    private let overflow: JournalOverflow?
    private let writeBytes: Write
    private let state = Locked(State())
    /// Where snapshots are written, one at a time.
    private let snapshotQueue = DispatchQueue(label: "chimed.state-snapshot", qos: .utility)

    /// What is recorded and not yet durable, the journal's descriptor, and the deliveries in flight.
    private struct State {
        var pending: [String] = []
        /// Journal bytes that a failed flush could not write yet, from the first byte not written.
        var unwritten: [UInt8] = []
        /// The bytes of the first record in `unwritten` that the journal took already (a write cut short).
        var unwrittenHead: [UInt8] = []
        /// Whether the overflow file may hold records.
        var overflowKept = false
        /// Whether everything written to the journal has been synced.
        var synced = true
        var logDescriptor: Int32 = -1
        /// Records written to the journal since the snapshot was last rewritten (or found there at load).
        var journalRecords = 0
        /// The numbers of the journals set aside (`occurrences.log.N`) and not yet folded into a snapshot.
        var setAside: [Int] = []
        /// Whether a snapshot is being written on `snapshotQueue`.
        var compacting = false
        /// Deliveries handed off and not yet finished, by `id@microseconds`.
        var inFlight: [String: InterruptedDelivery] = [:]
        var interruptedAtLoad: [InterruptedDelivery] = []
    }

    /// Past this many journal records a rebuild rewrites the snapshot; below it, a rebuild only syncs the journal.
    static let compactionThreshold = 20_000

    /// - Parameter overflowDirectory: where the records the journal cannot take are kept until it can (the runtime
    ///   directory, another file system); `nil` keeps them in memory only.
    public convenience init(directory: String, overflowDirectory: String? = nil) {
        self.init(
            directory: directory, overflowDirectory: overflowDirectory,
            write: { descriptor, bytes in Glibc.write(descriptor, bytes.baseAddress, bytes.count) })
    }

    init(directory: String, overflowDirectory: String? = nil, write: @escaping Write) {
        self.directory = directory
        self.overflow = overflowDirectory.map { JournalOverflow(path: $0 + "/state-overflow.log") }
        self.writeBytes = write
    }

    deinit {
        state.withLock { if $0.logDescriptor >= 0 { close($0.logDescriptor) } }
    }

    var snapshotPath: String { directory + "/state.json" }
    var logPath: String { directory + "/occurrences.log" }
    func setAsidePath(_ number: Int) -> String { logPath + ".\(number)" }

    /// The journals set aside in `directory`, oldest first: their numbers, paths and bytes.
    private func setAsideJournals() -> [(number: Int, path: String, bytes: Data)] {
        let prefix = "occurrences.log."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)), number > 0,
                let bytes = FileManager.default.contents(atPath: setAsidePath(number))
            else { return nil }
            return (number, setAsidePath(number), bytes)
        }.sorted { $0.number < $1.number }
    }

    public func load() -> (histories: [String: DeliveryHistory], problems: [String]) {
        let fileManager = FileManager.default
        let journal = fileManager.contents(atPath: logPath)
        let setAside = setAsideJournals()
        var stored = read(
            snapshot: fileManager.contents(atPath: snapshotPath), setAside: setAside.map { ($0.path, $0.bytes) },
            journal: journal)
        let kept = journal.map { journal in
            journal.lastIndex(of: UInt8(ascii: "\n")).map { $0 - journal.startIndex + 1 } ?? 0
        }
        if let journal, let kept, kept < journal.count {
            // Appended to, the torn last record would swallow the next one; `read` already left it out.
            if truncate(logPath, off_t(kept)) != 0 {
                stored.problems.append(
                    "\(logPath): cannot cut off its torn last record (\(String(cString: strerror(errno)))); "
                        + "the next record may be lost")
            }
        }
        if !stored.isSnapshotReadable {
            let aside = snapshotPath + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            let moved = rename(snapshotPath, aside) == 0
            stored.problems.insert(
                "\(snapshotPath) is not a valid chime state file (truncated, garbage or another version); "
                    + (moved ? "moved it to \(aside) and starting afresh" : "starting afresh"),
                at: 0)
        }
        // What the journal could not take when the previous run ended: replayed after it, and written to it first.
        let overflowed = overflow?.records(beyond: kept ?? 0) ?? []
        if let overflow {
            if overflowed.isEmpty {
                overflow.clear()
            } else {
                replay(Data(overflowed), from: overflow.path, into: &stored)
            }
        }
        state.withLock { state in
            state.unwritten = overflowed
            state.overflowKept = !overflowed.isEmpty
            state.inFlight = stored.inFlight
            state.interruptedAtLoad = stored.inFlight.values.sorted { ($0.fireTime, $0.id) < ($1.fireTime, $1.id) }
            state.journalRecords = stored.journalRecords
            state.setAside = setAside.map(\.number)
        }
        return (stored.histories, stored.problems)
    }

    /// The histories kept in `directory`, read without changing anything there (no torn record cut off, no
    /// unreadable state moved aside): for `chimed --check` and `chimectl verify`, which show the next occurrences
    /// as the instance computes them (an `Every=` without `From=` counts from the first sighting it recorded).
    public static func peek(directory: String) -> [String: DeliveryHistory] {
        let store = FileHistoryStore(directory: directory)
        let fileManager = FileManager.default
        return store.read(
            snapshot: fileManager.contents(atPath: store.snapshotPath),
            setAside: store.setAsideJournals().map { ($0.path, $0.bytes) },
            journal: fileManager.contents(atPath: store.logPath)
        ).histories
    }

    /// What `state.json` and `occurrences.log` hold, as `load()` reads them back.
    public struct Contents: Sendable {
        public var histories: [String: DeliveryHistory] = [:]
        /// The deliveries handed off and not finished, by `id@microseconds`.
        public var inFlight: [String: InterruptedDelivery] = [:]
        /// The records in the journals, torn or not: how far they are from wanting a compaction.
        public var journalRecords = 0
        /// False when there was a snapshot and it was not a chime state file; it then counts as empty.
        public var isSnapshotReadable = true
        /// Damage found in the journal, one sentence each.
        public var problems: [String] = []
    }

    /// Replays the bytes of the journals set aside (`setAside`, paths and bytes, oldest first) and of
    /// `occurrences.log` (`journal`) over those of `state.json` (`snapshot`); `nil` for a file that does not exist.
    /// Never fails: what cannot be read is left out and, unless it is a torn last record, reported.
    public func read(snapshot: Data?, setAside: [(path: String, bytes: Data)] = [], journal: Data?) -> Contents {
        var contents = Contents()
        if let snapshot {
            if let parsed = Self.parseSnapshot(snapshot) {
                contents.histories = parsed.histories
                for delivery in parsed.inFlight {
                    contents.inFlight[delivery.key] = delivery
                }
            } else {
                contents.isSnapshotReadable = false
            }
        }
        for earlier in setAside { replay(earlier.bytes, from: earlier.path, into: &contents) }
        if let journal { replay(journal, from: logPath, into: &contents) }
        return contents
    }

    private func replay(_ journal: Data, from path: String, into contents: inout Contents) {
        let lines = journal.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        contents.journalRecords += lines.count - 1
        for (number, line) in lines.enumerated() where !line.isEmpty {
            guard let record = Self.parseRecord(Data(line)) else {
                // Only the last line can be torn by a crash; anything else is damage worth reporting.
                if number < lines.count - 2 {
                    contents.problems.append("\(path):\(number + 1): unreadable record, ignoring")
                }
                continue
            }
            contents.replay(record)
        }
    }

    public func interrupted() -> [InterruptedDelivery] { state.withLock { $0.interruptedAtLoad } }

    public var wantsCompaction: Bool {
        state.withLock { !$0.compacting && $0.journalRecords >= Self.compactionThreshold }
    }

    /// One record for all of them: `{"first_seen":["a","b",…],"at":…}` (one id alone is a string, as it always
    /// was).
    public func recordFirstSeen(_ ids: [String], at date: Date) {
        guard !ids.isEmpty else { return }
        // Written into one string, as the snapshot is: a JSON value for each of a million ids first seen at a start
        // was most of this record's time.
        var line = #"{"first_seen":"#
        line.reserveCapacity(ids.count * 24 + 64)
        if ids.count == 1 {
            JSONValue.quote(ids[0], into: &line)
        } else {
            // A first start of a million quotes them on the scheduler's queue: a share on each core.
            let shares = ids.count < 65_536 ? 1 : 64
            let texts = Array(0..<shares).concurrentMap { share in
                let range = share * ids.count / shares..<(share + 1) * ids.count / shares
                var text = ""
                text.reserveCapacity(range.count * 24)
                for index in range {
                    if index > range.lowerBound { text += "," }
                    JSONValue.quote(ids[index], into: &text)
                }
                return text
            }
            line += "["
            for (share, text) in texts.enumerated() {
                if share > 0 { line += "," }
                line += text
            }
            line += "]"
        }
        line += #","at":""# + Timestamp.iso8601(date, fraction: .microseconds) + #""}"#
        state.withLock { $0.pending.append(line) }
    }

    public func recordOccurrence(_ id: String, at occurrence: Date, missed: Int) {
        let line = Self.record("occurrence", id, at: occurrence, [("missed", .number(Int64(missed)))])
        state.withLock { state in
            state.pending.append(line)
            let key = InterruptedDelivery.key(id, occurrence)
            state.inFlight[key] = InterruptedDelivery(
                id: id, fireTime: occurrence, missed: missed,
                finishedBackends: state.inFlight[key]?.finishedBackends ?? [])
        }
    }

    public func recordFollowUp(_ id: String, at occurrence: Date, _ followUp: InterruptedDelivery.FollowUp) {
        let line = Self.record("follow_up", id, at: occurrence, Self.members(of: followUp))
        state.withLock { state in
            state.pending.append(line)
            let key = InterruptedDelivery.key(id, occurrence, followUp)
            state.inFlight[key] = InterruptedDelivery(
                id: id, fireTime: occurrence, missed: 0,
                finishedBackends: state.inFlight[key]?.finishedBackends ?? [], followUp: followUp)
        }
    }

    public func recordBackendFinished(
        _ id: String, at occurrence: Date, backend: String, followUp: InterruptedDelivery.FollowUp?
    ) {
        let line = Self.record(
            "backend_finished", id, at: occurrence, [("backend", .string(backend))] + Self.members(of: followUp))
        state.withLock { state in
            state.pending.append(line)
            state.inFlight[InterruptedDelivery.key(id, occurrence, followUp)]?.finishedBackends.insert(backend)
        }
        // Promptly, as a finished delivery: the other backends may take long, and a crash meanwhile must not bring
        // this one's delivery again.
        try? flush()
    }

    public func recordSkipped(_ id: String, at occurrence: Date) {
        let line = Self.record("skipped", id, at: occurrence)
        state.withLock { $0.pending.append(line) }
    }

    public func recordFinished(_ id: String, at occurrence: Date, followUp: InterruptedDelivery.FollowUp?) {
        let line = Self.record("finished", id, at: occurrence, Self.members(of: followUp))
        state.withLock { state in
            state.pending.append(line)
            state.inFlight.removeValue(forKey: InterruptedDelivery.key(id, occurrence, followUp))
        }
        // Promptly, so that a crash long after a finished delivery does not repeat it; a failure here only
        // means it may be repeated, and the next flush reports it.
        try? flush()
    }

    public func flush() throws {
        try state.withLock { try flushOrKeep(&$0) }
    }

    /// Flushes; when that fails, what the journal has not taken goes to the overflow file.
    private func flushOrKeep(_ state: inout State) throws {
        do {
            try flush(&state)
        } catch {
            keepOverflow(&state)
            throw error
        }
    }

    private func flush(_ state: inout State) throws {
        if !state.pending.isEmpty {
            // Copied once, record by record: joined into one string and that into bytes, the first sightings of
            // a million (16 MB) were copied three times on the scheduler's queue at a start.
            state.unwritten.reserveCapacity(
                state.unwritten.count + state.pending.reduce(0) { $0 + $1.utf8.count + 1 })
            for record in state.pending {
                state.unwritten.append(contentsOf: record.utf8)
                state.unwritten.append(UInt8(ascii: "\n"))
            }
            state.journalRecords += state.pending.count
            state.pending.removeAll(keepingCapacity: true)
        }
        guard !state.unwritten.isEmpty || !state.synced else { return }
        if state.logDescriptor < 0 {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            state.logDescriptor = try SystemCall.retrying("open \(logPath)") {
                open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            }
        }
        let descriptor = state.logDescriptor
        // Byte by byte what was written leaves `unwritten`: a write cut short keeps the rest, in order.
        while !state.unwritten.isEmpty {
            let written = try SystemCall.retrying("write \(logPath)") {
                state.unwritten.withUnsafeBytes { writeBytes(descriptor, $0) }
            }
            let chunk = state.unwritten[..<written]
            if let newline = chunk.lastIndex(of: UInt8(ascii: "\n")) {
                state.unwrittenHead = Array(chunk[(newline + 1)...])
            } else {
                state.unwrittenHead += chunk
            }
            state.unwritten.removeFirst(written)
            state.synced = false
        }
        // Not kept at the size of the largest record ever written (a start's first sightings).
        state.unwritten = []
        state.unwrittenHead = []
        try SystemCall.retrying("fdatasync \(logPath)") { fdatasync(descriptor) }
        state.synced = true
        clearOverflow(&state)
    }

    /// After a flush that failed: what the journal has not taken goes to the overflow file, whole records, with where
    /// in the journal they begin.
    private func keepOverflow(_ state: inout State) {
        guard let overflow, !state.unwritten.isEmpty else { return }
        var status = stat()
        let length = stat(logPath, &status) == 0 ? Int(status.st_size) : 0
        state.overflowKept =
            overflow.keep(state.unwrittenHead + state.unwritten, after: length - state.unwrittenHead.count)
            || state.overflowKept
    }

    /// The journal (or a snapshot) holds everything: the overflow file goes.
    private func clearOverflow(_ state: inout State) {
        guard state.overflowKept, let overflow else { return }
        overflow.clear()
        state.overflowKept = false
    }

    public func compact(_ histories: [String: DeliveryHistory]) throws {
        // After a snapshot being written in the background, which this one replaces.
        try snapshotQueue.sync {
            try state.withLock { state in
                try writeSnapshot(histories, inFlight: state.inFlight.values)
                clearOverflow(&state)
                // The snapshot now holds everything the journals said; start the journal afresh.
                if state.logDescriptor >= 0 {
                    close(state.logDescriptor)
                    state.logDescriptor = -1
                }
                state.pending.removeAll()
                state.unwritten.removeAll()
                state.synced = true
                state.journalRecords = 0
                unlink(logPath)
                for number in state.setAside { unlink(setAsidePath(number)) }
                state.setAside = []
            }
        }
    }

    /// Makes what was recorded durable, sets the journal aside and writes the snapshot of `histories` (the table as it
    /// stands now) and of the deliveries in flight on `snapshotQueue`; records made meanwhile go to a new journal.
    /// `finished` runs there, with the error when the snapshot could not be written: the set-aside journals then stay
    /// (loading replays them) and the next compaction folds them in.
    public func startCompaction(
        _ histories: [String: DeliveryHistory], finished: @escaping @Sendable ((any Error)?) -> Void
    ) throws {
        let (number, records, inFlight) = try state.withLock { state in
            try flushOrKeep(&state)
            if state.logDescriptor >= 0 {
                close(state.logDescriptor)
                state.logDescriptor = -1
            }
            let number = (state.setAside.last ?? 0) + 1
            if rename(logPath, setAsidePath(number)) == 0 {
                state.setAside.append(number)
            } else if errno != ENOENT {
                throw SystemCallError(call: "rename \(logPath)", errno: .current)
            }
            let records = state.journalRecords
            state.journalRecords = 0
            state.compacting = true
            return (number, records, Array(state.inFlight.values))
        }
        snapshotQueue.async { [self] in
            let error: (any Error)?
            do {
                try writeSnapshot(histories, inFlight: inFlight)
                error = nil
            } catch let failure {
                error = failure
            }
            state.withLock { state in
                state.compacting = false
                // Still to be folded in: the next rebuild tries again.
                guard error == nil else { return state.journalRecords += records }
                for folded in state.setAside where folded <= number { unlink(setAsidePath(folded)) }
                state.setAside.removeAll { $0 <= number }
            }
            finished(error)
        }
    }

    private func writeSnapshot(
        _ histories: [String: DeliveryHistory], inFlight: some Collection<InterruptedDelivery>
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try AtomicFile.write(Self.snapshotText(histories, inFlight: inFlight), to: snapshotPath, mode: 0o644)
    }
}
