import ChimeCore
import ChimeSystemd

/// The user's answer to an application's bubble, passed to the application itself: the freedesktop way of
/// launching or waking a D-Bus-activatable application with what it was launched from.
struct ApplicationActivator: Sendable {
    let log: any EventLog

    /// Starts or wakes the application as the Desktop Entry specification has D-Bus-activatable applications
    /// activated: `org.freedesktop.Application` at its bus name and the path made of it (`org.example.App` →
    /// `/org/example/App`), `Activate` for the bubble itself and `ActivateAction(action, [id])` for an action. The
    /// platform data carries the request (`chime-id`, `chime-action`, `chime-info` as `KEY=VALUE` strings): the
    /// application's "launched from a notification". A failure (no such application) is logged.
    func activate(
        _ appID: String, id: String, action: String, info: [(key: String, value: String)], on connection: BusConnection
    ) {
        let path = "/" + appID.replacingOccurrences(of: ".", with: "/").replacingOccurrences(of: "-", with: "_")
        let platformData: [(key: String, value: BusValue)] = [
            ("chime-id", .string(id)), ("chime-action", .string(action)),
            ("chime-info", .strings(info.map { "\($0.key)=\($0.value)" })),
        ]
        Task {
            do {
                try await connection.call(
                    destination: appID, path: path, interface: "org.freedesktop.Application",
                    member: action == "default" ? "Activate" : "ActivateAction",
                    arguments: { writer in
                        if action != "default" {
                            try writer.append(action)
                            try writer.openContainer("a", contents: "v")
                            try writer.append(variant: .string(id))
                            try writer.closeContainer()
                        }
                        try writer.append(dictionary: platformData)
                    }, reply: { _ in () })
            } catch {
                log.record(
                    DaemonEvent(
                        .systemError, "Cannot activate \(appID) for the user's answer to \(id) (\(action)): \(error)",
                        priority: .warning))
            }
        }
    }
}
