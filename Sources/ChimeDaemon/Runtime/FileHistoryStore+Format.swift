import ChimeCore
import Foundation

/// The bytes of the state directory's files: the text of `state.json` and the records of `occurrences.log`, written
/// and read back.
extension FileHistoryStore {
    /// The text of `state.json`: `{"version":1,"notifications":{ID:{"first_seen":…,"last_occurrence":…},…},
    /// "in_flight":[{"id":…,"at":…,"missed":…,"finished_backends":[…]},…]}`, ids in order (`finished_backends` only
    /// when a backend was done before the others; `kind` and `repeat` only for a snooze or a repeat).
    ///
    /// Written entry by entry into one string, the entries sorted as they are: a tree of JSON values for a hundred
    /// thousand notifications would be half a million small allocations at each compaction, which leave the heap
    /// fragmented long after, and the values and looking each sorted id up again were most of the time a
    /// compaction holds the scheduler's queue (bench/scale.md).
    static func snapshotText(
        _ histories: [String: DeliveryHistory], inFlight: some Collection<InterruptedDelivery>
    ) -> String {
        var text = "{\"version\":\(version),\"notifications\":{"
        text.reserveCapacity(histories.count * 100 + 256)
        for (index, entry) in histories.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { text += "," }
            JSONValue.quote(entry.key, into: &text)
            text += #":{"first_seen":""#
            text += Timestamp.iso8601(entry.value.firstSeen, fraction: .microseconds)
            if let last = entry.value.lastOccurrence {
                text += #"","last_occurrence":""#
                text += Timestamp.iso8601(last, fraction: .microseconds)
                text += #""}"#
            } else {
                text += #"","last_occurrence":null}"#
            }
        }
        let flying: [JSONValue] = inFlight.sorted { ($0.fireTime, $0.id) < ($1.fireTime, $1.id) }.map {
            var members: [(String, JSONValue)] = [
                ("id", .string($0.id)), ("at", .string(Timestamp.iso8601($0.fireTime, fraction: .microseconds))),
                ("missed", .number(Int64($0.missed))),
            ]
            if !$0.finishedBackends.isEmpty {
                members.append(("finished_backends", .array($0.finishedBackends.sorted().map(JSONValue.string))))
            }
            return .object(members + Self.members(of: $0.followUp))
        }
        text += "},\"in_flight\":" + JSONValue.array(flying).serialized + "}\n"
        return text
    }

    enum Record {
        case firstSeen([String], Date)
        case occurrence(String, Date, missed: Int)
        case followUp(String, Date, InterruptedDelivery.FollowUp)
        case skipped(String, Date, missed: Int)
        case finished(String, Date, InterruptedDelivery.FollowUp?)
        case backendFinished(String, Date, backend: String, InterruptedDelivery.FollowUp?)
    }

    /// A record of `occurrences.log`: `{"KIND":ID,"at":…}` and the `members` after them.
    static func record(
        _ kind: String, _ id: String, at instant: Date, _ members: [(String, JSONValue)] = []
    ) -> String {
        JSONValue.object(
            [(kind, .string(id)), ("at", .string(Timestamp.iso8601(instant, fraction: .microseconds)))] + members
        ).serialized
    }

    /// A follow-up's members in a record or an entry in flight: `"kind":"snooze"`, or `"kind":"repeat","repeat":2`.
    static func members(of followUp: InterruptedDelivery.FollowUp?) -> [(String, JSONValue)] {
        switch followUp {
        case nil: []
        case .snooze: [("kind", .string("snooze"))]
        case .repeated(let number): [("kind", .string("repeat")), ("repeat", .number(Int64(number)))]
        }
    }

    /// The follow-up the members of `object` name; `nil` for the occurrence itself (or a kind this chimed does
    /// not know).
    static func followUp(in object: [String: Any]) -> InterruptedDelivery.FollowUp? {
        switch object["kind"] as? String {
        case "snooze": .snooze
        case "repeat": (object["repeat"] as? Int).map { .repeated(max($0, 1)) }
        default: nil
        }
    }

    static func parseRecord(_ data: Data) -> Record? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let at = (object["at"] as? String).flatMap(Timestamp.parseISO8601)
        else { return nil }
        if let id = object["occurrence"] as? String {
            return .occurrence(id, at, missed: object["missed"] as? Int ?? 0)
        }
        if let id = object["follow_up"] as? String, let followUp = followUp(in: object) {
            return .followUp(id, at, followUp)
        }
        if let id = object["skipped"] as? String { return .skipped(id, at, missed: 0) }
        if let id = object["finished"] as? String { return .finished(id, at, followUp(in: object)) }
        if let id = object["backend_finished"] as? String, let backend = object["backend"] as? String {
            return .backendFinished(id, at, backend: backend, followUp(in: object))
        }
        if let id = object["first_seen"] as? String { return .firstSeen([id], at) }
        if let ids = object["first_seen"] as? [String] { return .firstSeen(ids, at) }
        return nil
    }

    static func parseSnapshot(_ data: Data) -> (histories: [String: DeliveryHistory], inFlight: [InterruptedDelivery])?
    {
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
        var inFlight: [InterruptedDelivery] = []
        for value in object["in_flight"] as? [Any] ?? [] {
            guard let entry = value as? [String: Any], let id = entry["id"] as? String,
                let at = (entry["at"] as? String).flatMap(Timestamp.parseISO8601)
            else { return nil }
            inFlight.append(
                InterruptedDelivery(
                    id: id, fireTime: at, missed: entry["missed"] as? Int ?? 0,
                    finishedBackends: Set(entry["finished_backends"] as? [String] ?? []), followUp: followUp(in: entry))
            )
        }
        return (histories, inFlight)
    }
}

extension FileHistoryStore.Contents {
    /// Applies one journal record: first sightings and occurrences only ever move a history forward.
    mutating func replay(_ record: FileHistoryStore.Record) {
        switch record {
        case .firstSeen(let ids, let date):
            for id in ids where histories[id] == nil { histories[id] = DeliveryHistory(firstSeen: date) }
        case .occurrence(let id, let date, let missed), .skipped(let id, let date, let missed):
            if histories[id] == nil { histories[id] = DeliveryHistory(firstSeen: date) }
            if (histories[id]?.lastOccurrence ?? .distantPast) < date { histories[id]?.lastOccurrence = date }
            if case .occurrence = record {
                let key = InterruptedDelivery.key(id, date)
                inFlight[key] = InterruptedDelivery(
                    id: id, fireTime: date, missed: missed, finishedBackends: inFlight[key]?.finishedBackends ?? [])
            }
        case .followUp(let id, let date, let followUp):
            // In flight only: a snooze or a repeat moves no history.
            let key = InterruptedDelivery.key(id, date, followUp)
            inFlight[key] = InterruptedDelivery(
                id: id, fireTime: date, missed: 0, finishedBackends: inFlight[key]?.finishedBackends ?? [],
                followUp: followUp)
        case .finished(let id, let date, let followUp):
            inFlight.removeValue(forKey: InterruptedDelivery.key(id, date, followUp))
        case .backendFinished(let id, let date, let backend, let followUp):
            inFlight[InterruptedDelivery.key(id, date, followUp)]?.finishedBackends.insert(backend)
        }
    }
}
