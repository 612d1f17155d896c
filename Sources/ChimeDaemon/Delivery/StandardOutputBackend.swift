import ChimeCore
import Foundation

/// `stdout`: one JSON line per delivery, for pipelines and for watching `chimed` in the foreground.
///
/// `{"id":…,"title":…,"body":…,"info":{…},"fire_time":…,"delivered_at":…,"backend":"stdout"}`, times in ISO 8601
/// UTC with microseconds.
public final class StandardOutputBackend: DeliveryBackend, @unchecked Sendable {
    public let name = "stdout"
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go; standard output by default.
    public init(write: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }) {
        self.write = write
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        let line = Self.line(for: delivery, deliveredAt: deliveredAt) + "\n"
        lock.withLock { write(line) }
    }

    /// The delivery as one line of JSON (no newline), as `stdout` prints it and the `command` backend writes it to
    /// its program's stdin; `backend` is the name that delivers it.
    public static func line(for delivery: Delivery, deliveredAt: Date, backend: String = "stdout") -> String {
        let notification = delivery.notification
        var members: [(String, JSONValue)] = [
            ("id", .string(notification.id)), ("title", .string(notification.title)),
            ("body", .string(notification.body)),
            ("info", .object(notification.info.map { ($0.key, .string($0.value)) })),
            ("fire_time", .string(Timestamp.iso8601(delivery.fireTime, fraction: .microseconds))),
            ("delivered_at", .string(Timestamp.iso8601(deliveredAt, fraction: .microseconds))),
            ("backend", .string(backend)),
        ]
        if delivery.missedCount > 0 { members.append(("missed", .number(Int64(delivery.missedCount)))) }
        if let badge = delivery.badge { members.append(("badge", .number(Int64(badge)))) }
        return JSONValue.object(members).serialized
    }
}
