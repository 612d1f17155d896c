import ChimeCore
import Foundation

/// `stdout`: one JSON line per delivery, for pipelines and for watching `chimed` in the foreground.
///
/// `{"id":…,"title":…,"body":…,"info":{…},"fire_time":…,"delivered_at":…,"backend":"stdout"}`, times in ISO 8601
/// UTC with microseconds (`Delivery.json(deliveredAt:backend:)`, which the webhook's request body shares).
public final class StandardOutputBackend: DeliveryBackend, Sendable {
    public let name = "stdout"
    /// One line at a time, whole: deliveries run concurrently.
    private let writing = Locked(())
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go; standard output by default.
    public init(write: @escaping @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }) {
        self.write = write
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        let line = Self.line(for: delivery, deliveredAt: deliveredAt) + "\n"
        writing.withLock { _ in write(line) }
    }

    public static func line(for delivery: Delivery, deliveredAt: Date) -> String {
        delivery.json(deliveredAt: deliveredAt, backend: "stdout").serialized
    }
}
