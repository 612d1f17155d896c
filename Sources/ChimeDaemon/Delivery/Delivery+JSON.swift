import ChimeCore
import Foundation

extension Delivery {
    /// The delivery as the JSON object that the `stdout` line and the webhook's request body both carry.
    ///
    /// `{"id":…,"title":…,"body":…,"info":{…},"fire_time":…,"delivered_at":…,"backend":…}`, then `"missed"`,
    /// `"badge"`, `"repeat"`, `"interruption_level"` (other than `active`) and `"thread"` when there are any; times in
    /// ISO 8601 UTC with microseconds; `backend` is the name of the backend that delivers it.
    public func json(deliveredAt: Date, backend: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(notification.id)), ("title", .string(notification.title)),
            ("body", .string(notification.body)),
            ("info", .object(notification.info.map { ($0.key, .string($0.value)) })),
            ("fire_time", .string(Timestamp.iso8601(fireTime, fraction: .microseconds))),
            ("delivered_at", .string(Timestamp.iso8601(deliveredAt, fraction: .microseconds))),
            ("backend", .string(backend)),
        ]
        if missedCount > 0 { members.append(("missed", .number(Int64(missedCount)))) }
        if let badge { members.append(("badge", .number(Int64(badge)))) }
        if repeatNumber > 0 { members.append(("repeat", .number(Int64(repeatNumber)))) }
        if notification.interruptionLevel != .active {
            members.append(("interruption_level", .string(notification.interruptionLevel.rawValue)))
        }
        if let thread = notification.thread { members.append(("thread", .string(thread))) }
        return .object(members)
    }
}
