import ChimeCore
import ChimeSystemd
import Foundation

/// What applications are told of their requests, on the connection the application interface owns its name on:
/// `Delivered` when one goes out, `ActionInvoked` (launching the application for an action or a click) and
/// `Dismissed` when the user answers its bubble. Nothing is said while there is no connection.
///
/// Bound to the scheduler's queue: the delivery stages and the answers run there, and the interface hands over its
/// connection there.
final class ApplicationSignals: @unchecked Sendable {
    private let queue: DispatchQueue?
    private let log: any EventLog
    private var connection: BusConnection?

    /// - Parameter queue: the queue it is used on; tests that call it directly give none.
    init(queue: DispatchQueue?, log: any EventLog) {
        self.queue = queue
        self.log = log
    }

    /// The connection signals go out on from now on; `nil` when it was lost.
    func use(_ connection: BusConnection?) {
        onQueue()
        self.connection = connection
    }

    /// `Delivered(app_id, id, fire_usec)`.
    func delivered(appID: String, id: String, fireTime: Date) {
        onQueue()
        guard let connection else { return }
        let fireTime = fireTime.epochMicroseconds
        emit("Delivered", on: connection) { writer in
            try writer.append(appID)
            try writer.append(id)
            try writer.append(.int64(fireTime))
        }
    }

    /// The user answered the bubble of `delivery`: `ActionInvoked(app_id, id, action, info)` for an action (the
    /// plain click is `default`), after launching the application for it unless chimed handles it (`snooze`,
    /// `dismiss`); `Dismissed(app_id, id)` when it was closed (`action` nil). Nothing for a delivery that is not
    /// an application's.
    func answered(_ delivery: Delivery, action: String?) {
        onQueue()
        guard let connection, case .application(let appID, let id) = delivery.origin else { return }
        guard let action else {
            emit("Dismissed", on: connection) { writer in
                try writer.append(appID)
                try writer.append(id)
            }
            return
        }
        let info = delivery.notification.info
        if !["snooze", "dismiss"].contains(action) {
            ApplicationActivator(log: log).activate(appID, id: id, action: action, info: info, on: connection)
        }
        emit("ActionInvoked", on: connection) { writer in
            try writer.append(appID)
            try writer.append(id)
            try writer.append(action)
            try writer.openContainer("a", contents: "{ss}")
            for (key, value) in info {
                try writer.openContainer("e", contents: "ss")
                try writer.append(key)
                try writer.append(value)
                try writer.closeContainer()
            }
            try writer.closeContainer()
        }
    }

    private func emit(
        _ member: String, on connection: BusConnection,
        _ arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void
    ) {
        connection.emitSignal(
            path: ApplicationInterface.path, interface: ApplicationInterface.interface, member: member,
            arguments: arguments)
    }

    private func onQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}
