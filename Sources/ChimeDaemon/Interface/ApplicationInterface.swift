import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// `org.chime.Notifications1` at `/org/chime/Notifications1`, the face of `ApplicationCenter` on the bus
/// (DESIGN.md, "The application interface"): each member's signature, the access it needs and how its arguments are
/// read and its answer written (`members`); who calls (`CallerIdentities`) and whether they may
/// (`CallerAuthorization`); the connection, kept while chimed runs. What a call does is the center's.
///
/// Arguments are read on the bus queue; the center does the work on the scheduler's queue.
final class ApplicationInterface: @unchecked Sendable {
    static let name = "org.chime.Notifications1"
    static let path = "/org/chime/Notifications1"
    static let interface = "org.chime.Notifications1"

    enum Failure: String {
        case invalidArgument = "InvalidArgument"
        case limitExceeded = "LimitExceeded"
        case accessDenied = "AccessDenied"

        var name: String { "org.chime.Notifications1.Error.\(rawValue)" }
    }

    private let queue: DispatchQueue
    private let center: ApplicationCenter
    private let signals: ApplicationSignals
    private let log: any EventLog
    // Set by `start` before the object is exported, read on the bus queue.
    private var authorization: CallerAuthorization?
    /// Served beside it on the system bus: users' instances ask it to wake the system.
    private let wake: WakeService?
    private var callers: CallerIdentities?

    /// - Parameter wake: the system instance's `WakeService`, served beside the interface on the system bus.
    init(
        queue: DispatchQueue, center: ApplicationCenter, signals: ApplicationSignals, wake: WakeService?,
        log: any EventLog
    ) {
        self.queue = queue
        self.wake = wake
        self.center = center
        self.signals = signals
        self.log = log
    }

    /// Connects to the bus at `address`, exports the object, then takes the name: a call that the name's owner
    /// receives always finds the object. When the bus closes the connection later (a message it would not take,
    /// the bus restarting), chimed says so and connects again (`reconnect`).
    /// - Parameter isSystemBus: the system instance on the system bus, where polkit decides who may do what.
    func start(address: String, isSystemBus: Bool) async throws {
        let connection = try BusConnection(address: address, label: "chimed.interface") { [weak self] in
            self?.lost(address: address, isSystemBus: isSystemBus)
        }
        authorization = CallerAuthorization(
            bus: isSystemBus ? .system(PolkitAuthority(connection: connection)) : .session, ownUID: geteuid())
        callers = CallerIdentities(connection: connection, readsSandboxes: !isSystemBus)
        try await connection.exportObject(path: Self.path) { [weak self] call in self?.received(call) }
        if isSystemBus, let wake { try await wake.export(on: connection) }
        guard try await connection.requestName(Self.name) else {
            connection.close()
            throw BusMethodError(
                name: "org.freedesktop.DBus.Error.AddressInUse", message: "\(Self.name) is owned by another process")
        }
        queue.async { self.signals.use(connection) }
    }

    /// The bus closed the connection: says so, and connects again, after 1 s and then twice as long each time it
    /// cannot (at most a minute), until it can.
    private func lost(address: String, isSystemBus: Bool) {
        queue.async { self.signals.use(nil) }
        log.record(
            DaemonEvent(
                .systemError,
                "Lost the connection to the \(isSystemBus ? "system" : "session") bus \(address): \(Self.name) is "
                    + "not served until it is back; connecting again", priority: .warning))
        Task { await reconnect(address: address, isSystemBus: isSystemBus, after: .seconds(1)) }
    }

    private func reconnect(address: String, isSystemBus: Bool, after first: Duration) async {
        var delay = first
        while true {
            try? await Task.sleep(for: delay)
            do {
                try await start(address: address, isSystemBus: isSystemBus)
                log.record(DaemonEvent(.systemError, "Serving \(Self.name) again on \(address).", priority: .notice))
                return
            } catch {
                delay = min(delay * 2, .seconds(60))
            }
        }
    }

    /// On the bus queue: reads the arguments (`members`) and finds out who calls (`CallerIdentities`), then, if the
    /// caller may (`CallerAuthorization`), hands the call to the center.
    private func received(_ call: BusMethodCall) {
        if (call.interface, call.member) == ("org.freedesktop.DBus.Introspectable", "Introspect") {
            return call.reply { try $0.append(Self.introspection) }
        }
        guard call.interface == Self.interface, let member = Self.members[call.member] else {
            return call.reply(
                error: "org.freedesktop.DBus.Error.UnknownMethod",
                "No method \(call.member) in interface \(call.interface) at \(call.path)")
        }
        guard call.signature == member.signature else {
            return call.reply(
                error: "org.freedesktop.DBus.Error.InvalidArgs",
                "\(call.member) takes (\(member.signature)), not (\(call.signature))")
        }
        let appID: String
        let work: @Sendable () -> Void
        do {
            (appID, work) = try member.read(call, center)
        } catch {
            return call.reply(error: "org.freedesktop.DBus.Error.InvalidArgs", "\(error)")
        }
        // Every method names the application first: a name that is no desktop-file id is refused before anybody is
        // asked about the caller.
        guard ApplicationRequests.isValidAppID(appID) else {
            return call.reply(
                error: Failure.invalidArgument.name,
                "Invalid app_id '\(appID)': use a desktop-file id such as org.example.Reminders.")
        }
        guard let authorization, let callers else { return }
        callers.with(call.sender) { result in
            switch result.map({ authorization.verdict(of: $0, appID: appID) }) {
            case .failure(let error):
                call.reply(error: Failure.accessDenied.name, "Cannot tell who calls (\(error)); refused.")
            case .success(.refused(let reason)):
                call.reply(error: Failure.accessDenied.name, reason)
            case .success(.allowed):
                work()
            case .success(.askPolkit):
                Task {
                    if let refusal = await authorization.refusal(
                        asking: call.sender, appID: appID, access: member.access,
                        interactive: call.allowsInteractiveAuthorization)
                    {
                        call.reply(error: Failure.accessDenied.name, refusal)
                    } else {
                        work()
                    }
                }
            }
        }
    }
}
