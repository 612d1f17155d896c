import ChimeCore
import ChimeDaemon
import ChimeSystemd
import Foundation

/// One outcome of a chime notification as chimed logged it in the journal: a delivery to one backend (delivered,
/// caught-up, failed), a delivery cut short by the end of chimed's previous run (interrupted, then delivered
/// again), or, for `history --all`, an occurrence it did not deliver (missed, skipped-past).
struct HistoryRecord {
    /// When journald received the entry.
    var time: Date
    var id: String
    var event: String
    /// The backend of a delivery outcome; `nil` for interrupted, missed and skipped-past.
    var backend: String?
    /// `nil` for interrupted, whose entry does not carry it.
    var title: String?
    var body: String?
    /// The occurrence the entry is about (`CHIME_FIRE_TIME`, ISO 8601 UTC), as written.
    var fireTime: String?
    /// The last of several missed occurrences (`CHIME_LAST_FIRE_TIME`).
    var lastFireTime: String?
    /// When chimed handed the notification to the backend (`CHIME_DELIVERED_AT`).
    var deliveredAt: String?
    /// How many occurrences a late delivery or a missed entry stands for (`CHIME_MISSED`).
    var missed: Int?
    var error: String?
    /// The entry's `MESSAGE`, as `journalctl` shows it.
    var message: String
    /// `CHIME_INFO_KEY=value` fields as (`KEY`, value), sorted by key.
    var info: [(key: String, value: String)]

    /// The name of an entry of `kind` in `history`: the kind's name, but "failed" for a delivery-failed entry
    /// of a backend and "interrupted" for one without a backend, which the scheduler logs at start for each
    /// delivery the previous run did not finish, before delivering it again.
    static func eventName(_ kind: DaemonEvent.Kind, hasBackend: Bool) -> String {
        guard kind == .deliveryFailed else { return kind.rawValue }
        return hasBackend ? "failed" : "interrupted"
    }

    /// The record of `entry`, or `nil` when it is not one: it lacks `CHIME_ID` or a known `MESSAGE_ID`, or it is
    /// the scheduler's announcement of a late delivery (caught-up without `CHIME_BACKEND`), whose outcomes follow
    /// as entries of their own, one per backend.
    init?(_ entry: JournalReader.Entry) {
        guard let id = entry["CHIME_ID"], let messageID = entry["MESSAGE_ID"],
            let kind = DaemonEvent.Kind.allCases.first(where: { $0.messageID == messageID })
        else { return nil }
        let backend = entry["CHIME_BACKEND"]
        if kind == .caughtUp && backend == nil { return nil }
        time = Date(epochMicroseconds: Int64(clamping: entry.realtimeMicroseconds))
        self.id = id
        event = Self.eventName(kind, hasBackend: backend != nil)
        self.backend = backend
        title = entry["CHIME_TITLE"]
        body = entry["CHIME_BODY"]
        fireTime = entry["CHIME_FIRE_TIME"]
        lastFireTime = entry["CHIME_LAST_FIRE_TIME"]
        deliveredAt = entry["CHIME_DELIVERED_AT"]
        missed = entry["CHIME_MISSED"].flatMap { Int($0) }
        error = entry["CHIME_ERROR"]
        message = entry["MESSAGE"] ?? ""
        let prefix = "CHIME_INFO_"
        info = entry.fields.filter { $0.key.hasPrefix(prefix) }
            .map { (key: String($0.key.dropFirst(prefix.count)), value: $0.value) }
            .sorted { $0.key < $1.key }
    }

    /// `{"time":…,"id":…,"event":…,"backend":…,"title":…,"body":…,"fire_time":…,"last_fire_time":…,
    /// "delivered_at":…,"missed":…,"error":…,"message":…,"info":{…}}`: every key always present, `null` when the
    /// entry lacks the field; `time` is journald's receive time in ISO 8601 UTC with microseconds.
    var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            ("time", .string(Timestamp.iso8601(time, fraction: .microseconds))), ("id", .string(id)),
            ("event", .string(event)), ("backend", text(backend)), ("title", text(title)), ("body", text(body)),
            ("fire_time", text(fireTime)), ("last_fire_time", text(lastFireTime)),
            ("delivered_at", text(deliveredAt)), ("missed", missed.map { .number(Int64($0)) } ?? .null),
            ("error", text(error)), ("message", .string(message)),
            ("info", .object(info.map { ($0.key, .string($0.value)) })),
        ])
    }

    /// The last column of the table: the title, with the error of a failure or the count of a late or missed
    /// delivery in parentheses; without a title (interrupted), the message after its `ID: ` prefix.
    var summary: String {
        guard let title else {
            let prefix = id + ": "
            return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        }
        var details: [String] = []
        if let missed, missed > 0 { details.append("\(missed) missed") }
        if let error { details.append("error: " + error) }
        return details.isEmpty ? title : "\(title) (\(details.joined(separator: "; ")))"
    }
}
