import ChimeCore
import ChimeDaemon
import ChimeSystemd
import Dispatch
import Foundation

/// `chimectl add --app=APP_ID`: the request goes to chimed over the application interface
/// (`org.chime.Notifications1.Add` on the session bus), as an application's would, instead of into a file.
enum ApplicationAdd {
    /// Sends `request` as `appID`'s request `id`; prints the id and the next fire as `add` does.
    static func run(
        _ request: NotificationRequest, appID: String, id: String, zone: ZoneRules, context: CommandContext,
        json: Bool
    ) throws -> ExitCode {
        guard let address = BusConnection.sessionBusAddress(environment: context.environment) else {
            throw CommandFailure(
                "--app: no session bus to reach chimed on (neither DBUS_SESSION_BUS_ADDRESS nor $XDG_RUNTIME_DIR/bus)")
        }
        let (content, trigger) = BusRequestEntries.of(UnitFile(parsing: request.text, path: id))
        let answer = wait {
            let connection = try BusConnection(address: address, label: "chimectl.add")
            defer { connection.close() }
            return try await connection.call(
                destination: "org.chime.Notifications1", path: "/org/chime/Notifications1",
                interface: "org.chime.Notifications1", member: "Add",
                arguments: { writer in
                    try writer.append(appID)
                    try writer.append(id)
                    try writer.append(dictionary: content)
                    try writer.append(dictionary: trigger)
                }, reply: { try $0.readInt64() })
        }
        let next: Int64
        switch answer {
        case .success(let value): next = value
        case .failure(let error as BusMethodError): throw CommandFailure("chimed refused the request: \(error.message)")
        case .failure(let error): throw CommandFailure("cannot reach chimed on the session bus: \(error)")
        }
        guard next >= 0 else { throw CommandFailure("the notification would never fire; nothing was kept") }
        let date = Date(epochMicroseconds: next)
        let local = Timestamp.format(date, zone: zone) ?? "?"
        if json {
            context.output.line(
                JSONValue.object([
                    ("app", .string(appID)), ("id", .string(id)),
                    ("next", .string(Timestamp.iso8601(date, fraction: .microseconds))), ("next_local", .string(local)),
                    ("scheduled", .bool(true)),
                ]).serialized)
        } else {
            let left = Timestamp.relativeDescription(of: date, now: context.now)
            context.output.line("Added \(appID):\(id): next at \(local) (\(left)).")
        }
        return .success
    }

    /// Runs `body` to its end from synchronous code.
    private static func wait<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) -> Result<Value, any Error> {
        let result = Locked<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await body()
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }!
    }
}
