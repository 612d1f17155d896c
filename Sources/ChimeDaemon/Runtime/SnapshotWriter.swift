import ChimeCore
import ChimePlatform
import Foundation

/// Keeps `RUNTIME_DIR/schedule.json` — what is armed — up to date for `chimectl list/next/status`.
///
/// Serialising and writing happen on a queue of their own; when the schedule changes faster than the file can
/// be written, only the latest state is written.
final class SnapshotWriter: @unchecked Sendable {
    struct Facts: Sendable {
        var pid: Int32
        var instance: InstanceKind
        var lastRebuild: Date?
        /// When the load of the last finished rebuild began (successful or not).
        var lastLoadStarted: Date?
        var rebuilds: Int
        var lastError: String?
        var configDirectories: [String]
        /// Its own: chimectl given only the runtime directory learns the state directory from it.
        var stateDirectory: String
        var problems: [String]
        var defaultBackends: [String]
        var badge: Int
        var quiet: QuietStatus?
        /// The notifications repeating until acknowledged.
        var repeating: [Scheduler.Repeating] = []
    }

    static let version: Int64 = 1

    let path: String
    private let queue = DispatchQueue(label: "chimed.snapshot", qos: .utility)
    /// The latest snapshot asked for and not yet written.
    private let pending = Locked<(Scheduler.Status, Facts, Date)?>(nil)
    /// Each scheduled item's object as last written, by id, and the rebuild it was written after (a zone's rules may
    /// have changed since): most snapshots follow one request added or one delivery, and formatting a thousand items
    /// again each time was most of what an application's `Add` waited for. On the writer's queue only.
    private var written: [String: (item: Scheduler.Status.Item, backends: [String], text: String)] = [:]
    private var writtenAfter: Date?
    /// The text of the last snapshot, kept for its storage: made anew, the snapshot of ten thousand requests (a MiB)
    /// was mapped, faulted in and given back at every write, a millisecond of each `Add` (bench/daemon.md,
    /// section 7). On the writer's queue only.
    private var text = ""

    init(path: String) {
        self.path = path
    }

    /// Writes the snapshot in the background; when the schedule changes faster than the file can be written, only
    /// the latest state is written.
    func write(status: Scheduler.Status, facts: Facts, now: Date) {
        let wasIdle = pending.withLock { pending in
            let idle = pending == nil
            pending = (status, facts, now)
            return idle
        }
        if wasIdle {
            queue.async { [self] in writePending() }
        }
    }

    /// Runs `work` on the writer's queue once the snapshots requested so far are written.
    func afterPendingWrite(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    private func writePending() {
        guard
            let (status, facts, now) = pending.withLock({ pending in
                defer { pending = nil }
                return pending
            })
        else { return }
        writeText(status: status, facts: facts, now: now)
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // Runtime state, rewritten often: atomic, but not synced to disk.
            try AtomicFile.write(text, to: path, durable: false)
        } catch {
            FileHandle.standardError.write(Data("chimed: cannot write \(path): \(error)\n".utf8))
        }
    }

    /// Makes `text` the text of the file, with the scheduled items' objects taken from `written` where they are
    /// unchanged.
    private func writeText(status: Scheduler.Status, facts: Facts, now: Date) {
        if writtenAfter != facts.lastRebuild {
            written = [:]
            writtenAfter = facts.lastRebuild
        }
        let (head, tail) = Self.members(status: status, facts: facts, now: now)
        text.removeAll(keepingCapacity: true)
        text += JSONValue.object(head).serialized.dropLast()
        text += ",\"scheduled\":["
        var nowWritten: [String: (item: Scheduler.Status.Item, backends: [String], text: String)] = [:]
        nowWritten.reserveCapacity(status.scheduled.count)
        for (index, item) in status.scheduled.enumerated() {
            let backends = item.backends.isEmpty ? facts.defaultBackends : item.backends
            let object: String
            if let before = written[item.id], before.backends == backends, before.item.writesAlike(item) {
                object = before.text
            } else {
                object = Self.json(item, backends: backends).serialized
            }
            if index > 0 { text += "," }
            text += object
            nowWritten[item.id] = (item, backends, object)
        }
        written = nowWritten
        text += "],"
        text += JSONValue.object(tail).serialized.dropFirst()
        text += "\n"
    }

    /// One scheduled item's object.
    static func json(_ item: Scheduler.Status.Item, backends: [String]) -> JSONValue {
        .object(
            [
                ("id", .string(item.id)), ("title", .string(item.title)),
                ("next", .string(Timestamp.iso8601(item.next, fraction: .microseconds))),
                ("next_local", .string(Timestamp.format(item.next, zone: item.zone) ?? "")),
                ("zone", .string(item.zone.name)),
                (
                    "trigger",
                    .string([item.trigger.summary, item.timing.summary].filter { !$0.isEmpty }.joined(separator: " "))
                ),
                ("source", .string(item.source)), ("backends", .array(backends.map(JSONValue.string))),
            ] + (item.thread.map { [("thread", JSONValue.string($0))] } ?? [])
                + (item.delay > .zero ? [("delay_usec", JSONValue.number(item.delay.wholeMicroseconds))] : []))
    }

    /// The whole snapshot.
    static func json(status: Scheduler.Status, facts: Facts, now: Date) -> JSONValue {
        let scheduled = status.scheduled.map { item in
            json(item, backends: item.backends.isEmpty ? facts.defaultBackends : item.backends)
        }
        let (head, tail) = members(status: status, facts: facts, now: now)
        return .object(head + [("scheduled", .array(scheduled))] + tail)
    }

    /// The members of the snapshot's object before `scheduled` and after it.
    private static func members(status: Scheduler.Status, facts: Facts, now: Date) -> (
        head: [(String, JSONValue)], tail: [(String, JSONValue)]
    ) {
        let head: [(String, JSONValue)] = [
            ("version", .number(version)), ("pid", .number(Int64(facts.pid))),
            ("instance", .string(facts.instance == .system ? "system" : "user")),
            ("written_at", .string(Timestamp.iso8601(now, fraction: .microseconds))),
            (
                "last_rebuild",
                facts.lastRebuild.map { .string(Timestamp.iso8601($0, fraction: .microseconds)) } ?? .null
            ),
            (
                "last_load_started",
                facts.lastLoadStarted.map { .string(Timestamp.iso8601($0, fraction: .microseconds)) } ?? .null
            ),
            ("rebuilds", .number(Int64(facts.rebuilds))), ("badge", .number(Int64(facts.badge))),
            ("last_error", facts.lastError.map(JSONValue.string) ?? .null),
            ("config_directories", .array(facts.configDirectories.map(JSONValue.string))),
            ("state_directory", .string(facts.stateDirectory)),
            ("default_backends", .array(facts.defaultBackends.map(JSONValue.string))),
            ("scheduled_count", .number(Int64(status.scheduledCount))),
        ]
        let tail: [(String, JSONValue)] = [
            ("idle_count", .number(Int64(status.idleCount))),
            ("idle", .array(status.idle.map(JSONValue.string))),
            (
                "idle_entries",
                .array(
                    status.idleItems.map { item in
                        .object(
                            [
                                ("id", .string(item.id)), ("title", .string(item.title)),
                                ("trigger", .string(item.trigger.summary)), ("source", .string(item.source)),
                                ("enabled", .bool(item.isEnabled)),
                            ] + (item.thread.map { [("thread", JSONValue.string($0))] } ?? []))
                    })
            ),
            ("problems", .array(facts.problems.map(JSONValue.string))),
            ("quiet", facts.quiet?.json ?? .null),
            (
                "repeating",
                .array(
                    facts.repeating.map { item in
                        .object([
                            ("id", .string(item.id)),
                            ("next", .string(Timestamp.iso8601(item.next, fraction: .microseconds))),
                            ("repeat", .number(Int64(item.number))),
                        ])
                    })
            ),
        ]
        return (head, tail)
    }
}

extension Scheduler.Status.Item {
    /// Whether `other` gives the same object in the snapshot (with the same default backends).
    fileprivate func writesAlike(_ other: Self) -> Bool {
        id == other.id && title == other.title && source == other.source && next == other.next
            && zone.name == other.zone.name && thread == other.thread && delay == other.delay
            && backends == other.backends && timing == other.timing && trigger == other.trigger
    }
}
