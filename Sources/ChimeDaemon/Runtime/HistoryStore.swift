import ChimeCore
import Foundation

/// Where the scheduler keeps what must survive a restart: per notification its first sighting (the anchor of
/// `Every=` and `Count=`) and its last handled occurrence.
///
/// The scheduler records each handled occurrence before it re-arms its timer, so a crash re-delivers at most the
/// occurrences in flight and never drops one.
public protocol HistoryStore: AnyObject, Sendable {
    /// What was stored, and any problem found reading it (already dealt with: the store starts afresh).
    func load() -> (histories: [String: DeliveryHistory], problems: [String])
    /// Notes that `id` was seen for the first time.
    func recordFirstSeen(_ id: String, at date: Date)
    /// Notes that the occurrence of `id` at `occurrence` was handled (delivered, or counted as missed).
    func recordOccurrence(_ id: String, at occurrence: Date)
    /// Makes the recorded changes durable; called before the timer is re-armed.
    func flush() throws
    /// Replaces the stored state by `histories` (after a rebuild, and at shutdown), dropping what they lack.
    func compact(_ histories: [String: DeliveryHistory]) throws
}

/// A store that forgets everything when the process ends: for tests and `--check`.
public final class MemoryHistoryStore: HistoryStore, @unchecked Sendable {
    private let lock = NSLock()
    private var histories: [String: DeliveryHistory]
    public private(set) var flushCount = 0

    public init(_ histories: [String: DeliveryHistory] = [:]) {
        self.histories = histories
    }

    public func load() -> (histories: [String: DeliveryHistory], problems: [String]) {
        lock.withLock { (histories, []) }
    }

    public func recordFirstSeen(_ id: String, at date: Date) {
        lock.withLock { histories[id] = DeliveryHistory(firstSeen: date) }
    }

    public func recordOccurrence(_ id: String, at occurrence: Date) {
        lock.withLock { histories[id]?.lastOccurrence = occurrence }
    }

    public func flush() throws {
        lock.withLock { flushCount += 1 }
    }

    public func compact(_ histories: [String: DeliveryHistory]) throws {
        lock.withLock { self.histories = histories }
    }

    /// What a restart would find.
    public var stored: [String: DeliveryHistory] { lock.withLock { histories } }
}

/// The state directory's files: `state.json`, a snapshot written atomically (temporary file, fsync, rename,
/// fsync of the directory), and `occurrences.log`, an append-only journal of what happened since, synced on
/// every flush. Loading replays the journal over the snapshot; a torn last line (a crash mid-write) is ignored.
/// A snapshot that cannot be read (truncated, garbage, another version) is moved aside, reported, and the store
/// starts empty.
public final class FileHistoryStore: HistoryStore, @unchecked Sendable {
    static let version: Int64 = 1

    public let directory: String
    private let lock = NSLock()
    private var pending: [String] = []
    private var logDescriptor: Int32 = -1

    public init(directory: String) {
        self.directory = directory
    }

    deinit {
        if logDescriptor >= 0 { close(logDescriptor) }
    }

    var snapshotPath: String { directory + "/state.json" }
    var logPath: String { directory + "/occurrences.log" }

    public func load() -> (histories: [String: DeliveryHistory], problems: [String]) {
        var problems: [String] = []
        var histories: [String: DeliveryHistory] = [:]
        if let data = FileManager.default.contents(atPath: snapshotPath) {
            if let parsed = Self.parseSnapshot(data) {
                histories = parsed
            } else {
                let aside = snapshotPath + ".corrupt-\(Int(Date().timeIntervalSince1970))"
                let moved = rename(snapshotPath, aside) == 0
                problems.append(
                    "\(snapshotPath) is not a valid chime state file (truncated, garbage or another version); "
                        + (moved ? "moved it to \(aside) and starting afresh" : "starting afresh"))
            }
        }
        if let data = FileManager.default.contents(atPath: logPath) {
            let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.isEmpty {
                guard let record = Self.parseRecord(Data(line)) else {
                    // Only the last line can be torn by a crash; anything else is damage worth reporting.
                    if number < lines.count - 2 {
                        problems.append("\(logPath):\(number + 1): unreadable record, ignoring")
                    }
                    continue
                }
                switch record {
                case .firstSeen(let id, let date):
                    if histories[id] == nil { histories[id] = DeliveryHistory(firstSeen: date) }
                case .occurrence(let id, let date):
                    if histories[id] == nil { histories[id] = DeliveryHistory(firstSeen: date) }
                    if (histories[id]?.lastOccurrence ?? .distantPast) < date { histories[id]?.lastOccurrence = date }
                }
            }
        }
        return (histories, problems)
    }

    public func recordFirstSeen(_ id: String, at date: Date) {
        let line = JSONValue.object([
            ("first_seen", .string(id)), ("at", .string(Timestamp.iso8601(date, fraction: .microseconds))),
        ]).serialized
        lock.withLock { pending.append(line) }
    }

    public func recordOccurrence(_ id: String, at occurrence: Date) {
        let line = JSONValue.object([
            ("occurrence", .string(id)), ("at", .string(Timestamp.iso8601(occurrence, fraction: .microseconds))),
        ]).serialized
        lock.withLock { pending.append(line) }
    }

    public func flush() throws {
        try lock.withLock {
            guard !pending.isEmpty else { return }
            if logDescriptor < 0 {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                logDescriptor = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
                guard logDescriptor >= 0 else {
                    throw AtomicFile.WriteError(path: logPath, operation: "open", errno: errno)
                }
            }
            let bytes = Array((pending.joined(separator: "\n") + "\n").utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(logDescriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw AtomicFile.WriteError(path: logPath, operation: "write", errno: errno)
                }
                offset += written
            }
            guard fdatasync(logDescriptor) == 0 else {
                throw AtomicFile.WriteError(path: logPath, operation: "fdatasync", errno: errno)
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    public func compact(_ histories: [String: DeliveryHistory]) throws {
        try lock.withLock {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let entries: [(String, JSONValue)] = histories.keys.sorted().map { id in
                let history = histories[id]!
                return (
                    id,
                    .object([
                        ("first_seen", .string(Timestamp.iso8601(history.firstSeen, fraction: .microseconds))),
                        (
                            "last_occurrence",
                            history.lastOccurrence.map { .string(Timestamp.iso8601($0, fraction: .microseconds)) }
                                ?? .null
                        ),
                    ])
                )
            }
            let text =
                JSONValue.object([("version", .number(Self.version)), ("notifications", .object(entries))])
                .serialized + "\n"
            try AtomicFile.write(text, to: snapshotPath, mode: 0o644)
            // The snapshot now holds everything the journal said; start the journal afresh.
            if logDescriptor >= 0 {
                close(logDescriptor)
                logDescriptor = -1
            }
            pending.removeAll()
            unlink(logPath)
        }
    }

    enum Record {
        case firstSeen(String, Date)
        case occurrence(String, Date)
    }

    static func parseRecord(_ data: Data) -> Record? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let at = (object["at"] as? String).flatMap(Timestamp.parseISO8601)
        else { return nil }
        if let id = object["occurrence"] as? String { return .occurrence(id, at) }
        if let id = object["first_seen"] as? String { return .firstSeen(id, at) }
        return nil
    }

    static func parseSnapshot(_ data: Data) -> [String: DeliveryHistory]? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            (object["version"] as? Int).map(Int64.init) == version,
            let notifications = object["notifications"] as? [String: Any]
        else { return nil }
        var histories: [String: DeliveryHistory] = [:]
        for (id, value) in notifications {
            guard let entry = value as? [String: Any],
                let firstSeen = (entry["first_seen"] as? String).flatMap(Timestamp.parseISO8601)
            else { return nil }
            let last = (entry["last_occurrence"] as? String).flatMap(Timestamp.parseISO8601)
            histories[id] = DeliveryHistory(firstSeen: firstSeen, lastOccurrence: last)
        }
        return histories
    }
}
