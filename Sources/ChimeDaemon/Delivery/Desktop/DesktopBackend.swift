import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation
import Glibc

/// `desktop`: a notification bubble through `org.freedesktop.Notifications` on the session bus (the Desktop
/// Notifications Specification), and the user's answer back to the daemon.
///
/// Each delivery is one `Notify` call (see `NotifyRequest` for the arguments). A repeating notification replaces its
/// previous bubble (`replaces_id`) rather than stacking another, and so does every notification of a thread the
/// thread's bubble, which counts them ("and 2 more") until it is closed. `ActionInvoked` and `NotificationClosed` for the
/// bubbles it put up go to `context.responder`; the action `dismiss` also closes the bubble.
///
/// Without a session bus or a notification server a delivery throws `BackendUnavailable` (new only for the first
/// failure after a success) and is kept, up to `pendingLimit`; when a server takes the name
/// `org.freedesktop.Notifications`, the kept ones are delivered to it and each is logged as delivered.
public actor DesktopBackend: ShowingBackend {
    public nonisolated let name: String
    public nonisolated let fallback: String?
    private let settings: DesktopSettings
    private let context: BackendContext
    private let callTimeout: Duration

    /// How many undelivered notifications are kept for the server to come (the latest ones).
    static let pendingLimit = 100
    /// How many bubbles are remembered for their answers and for `replaces_id`.
    static let bubbleLimit = 256

    static let service = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    private var connecting: Task<BusConnection, any Error>?
    private var signalSink: AsyncStream<DesktopSignal>.Continuation?
    /// The server's capabilities (in its order), until it changes.
    private var capabilities: [String]? {
        didSet { context.serverSounds?.learn(capabilities) }
    }
    /// The unique bus name of the server that answered the last `Notify`: signals from others are not ours.
    private var serverOwner: String?
    private var bubbles = BubbleMap(limit: bubbleLimit)
    private var early = EarlyAnswers(limit: bubbleLimit)
    private var pending: [Delivery] = []
    /// Whether the last delivery failed for want of a bus or server: the next such failure is not new.
    private var isUnavailable = false
    private var reconnectDelay: Duration = .seconds(1)
    private var reconnecting: Task<Void, Never>?

    /// - Parameter callTimeout: how long a call waits for the server's reply.
    public init(settings: DesktopSettings, context: BackendContext, callTimeout: Duration = .seconds(20)) {
        self.name = settings.name
        self.fallback = settings.fallback
        self.settings = settings
        self.context = context
        self.callTimeout = callTimeout
    }

    deinit {
        signalSink?.finish()
        reconnecting?.cancel()
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        do {
            try await show(delivery)
            isUnavailable = false
        } catch let unreachable as Unreachable {
            pending.append(delivery)
            if pending.count > Self.pendingLimit { pending.removeFirst(pending.count - Self.pendingLimit) }
            let isNew = !isUnavailable
            isUnavailable = true
            // Without a bus there is nothing to watch for a server: connect again later. With one, NameOwnerChanged
            // tells when a server appears.
            if connecting == nil { scheduleReconnect() }
            throw BackendUnavailable(reason: unreachable.reason, isNew: isNew)
        }
    }

    /// The server, its version and vendor and its capabilities: "dunst 1.9.0 (2022-06-27) (knopwob);
    /// capabilities: actions, body, …", or why there is none.
    public func describe() async -> String? {
        do {
            let bus = try await connection()
            let information = try await call(bus, "GetServerInformation") { reader in
                (
                    name: try reader.readString(), vendor: try reader.readString(), version: try reader.readString(),
                    specification: try reader.readString()
                )
            }
            capabilities = nil
            let capabilities = try await serverCapabilities(bus)
            return "\(information.name) \(information.version) (\(information.vendor)); capabilities: "
                + capabilities.joined(separator: ", ")
        } catch let unreachable as Unreachable {
            return unreachable.reason
        } catch {
            return "the notification server did not answer: \(error)"
        }
    }

    /// How many deliveries wait for a notification server.
    var pendingCount: Int { pending.count }

    /// The bubbles the server still shows: put up and not yet closed (`NotificationClosed`).
    public func shown() async -> [Delivery] { bubbles.shown }

    /// Closes the bubbles of `ids`. They are forgotten (and logged as closed by chimed) at once, so that a list
    /// right after no longer holds them; the server's `NotificationClosed` for them then finds nothing.
    public func close(notifications ids: Set<String>) async {
        let closing = bubbles.serverIDs { ids.contains($0.notification.id) }
        guard !closing.isEmpty, let bus = try? await connection() else { return }
        for serverID in closing {
            guard let delivery = bubbles.remove(serverID) else { continue }
            _ = try? await call(bus, "CloseNotification", arguments: { try $0.append(.uint32(serverID)) }) { _ in }
            context.responder.closed(delivery, reason: 3, backend: name)
        }
    }

    /// Puts up the bubble for `delivery`.
    /// - Throws: `Unreachable` when there is no bus or no server; other errors as they come.
    private func show(_ delivery: Delivery) async throws {
        let bus = try await connection()
        let capabilities = Set(try await serverCapabilities(bus))
        let thread = delivery.notification.thread
        let replacing = thread.map(bubbles.serverID(ofThread:)) ?? bubbles.serverID(of: delivery.notification.id)
        let earlier = thread == nil ? 0 : bubbles.count(in: replacing)
        let request = NotifyRequest(
            delivery, settings: settings, capabilities: capabilities, replacing: replacing, earlierInThread: earlier,
            applicationName: delivery.appID.flatMap { context.applicationNames?.name(of: $0) })
        early.callStarted()
        defer { early.callEnded() }
        let (serverID, sender) = try await call(bus, "Notify", arguments: { try request.append(to: &$0) }) { reader in
            (try reader.readUInt32(), reader.sender)
        }
        if let sender { serverOwner = sender }
        // A server that does not honour replaces_id put up another bubble: the count starts again there.
        bubbles.insert(serverID, delivery, count: serverID == replacing ? earlier + 1 : 1)
        for answer in early.take(for: serverID) { await handle(answer) }
    }

    private func serverCapabilities(_ bus: BusConnection) async throws -> [String] {
        if let capabilities { return capabilities }
        let fetched = try await call(bus, "GetCapabilities") { try $0.readStrings() }
        capabilities = fetched
        return fetched
    }

    /// Calls a method of the notification server, turning the errors that mean "no server" into `Unreachable`.
    private func call<Reply: Sendable>(
        _ bus: BusConnection, _ member: String,
        arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void = { _ in },
        reply: @escaping @Sendable (inout BusMessageReader) throws -> Reply
    ) async throws -> Reply {
        do {
            return try await bus.call(
                destination: Self.service, path: Self.objectPath, interface: Self.interface, member: member,
                timeout: callTimeout, arguments: arguments, reply: reply)
        } catch let error as BusMethodError where Self.meansNoServer(error) {
            throw Unreachable(reason: "no notification server on the session bus (\(error))")
        } catch let error as BusMethodError where error.name == "org.freedesktop.DBus.Error.NoReply" {
            // The bus answers so for a server that quit or hung with the call, and sd-bus answers so the calls in
            // flight when the connection ends.
            guard bus.isOpen else { throw Unreachable(reason: "lost the session bus at \(bus.address): \(error)") }
            throw Unreachable(reason: "the notification server did not answer (\(error))")
        } catch let error as SystemdError where Self.meansNoBus(error) {
            throw Unreachable(reason: "lost the session bus at \(bus.address): \(error)")
        }
    }

    static func meansNoServer(_ error: BusMethodError) -> Bool {
        [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Disconnected",
        ].contains(error.name) || error.name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }

    static func meansNoBus(_ error: SystemdError) -> Bool {
        let noBus: [Errno] = [.notConnected, .connectionReset, .connectionRefused, .noSuchFile, .brokenPipe, .shutDown]
        return noBus.contains(error.errno)
    }

    /// The connection to the session bus, made (once, however many callers wait for it) with the matches for the
    /// server's signals installed before anything is sent, so that no answer and no server start is missed.
    private func connection() async throws -> BusConnection {
        if let connecting { return try await connecting.value }
        let task = Task { try await openConnection() }
        connecting = task
        do {
            return try await task.value
        } catch {
            if connecting == task { connecting = nil }
            throw error
        }
    }

    private func openConnection() async throws -> BusConnection {
        guard let address = BusConnection.sessionBusAddress(environment: context.environment) else {
            throw Unreachable(
                reason: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
        }
        let (signals, sink) = AsyncStream.makeStream(of: DesktopSignal.self)
        let bus: BusConnection
        do {
            bus = try BusConnection(address: address, label: "chime.desktop") { sink.yield(.disconnected) }
            try await bus.addMatch(
                "type='signal',path='\(Self.objectPath)',interface='\(Self.interface)'"
            ) { reader in
                if let signal = DesktopSignal(server: &reader) { sink.yield(signal) }
            }
            try await bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                    + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
            ) { reader in
                if let signal = DesktopSignal(ownerChange: &reader) { sink.yield(signal) }
            }
        } catch let error as SystemdError where Self.meansNoBus(error) {
            sink.finish()
            throw Unreachable(reason: "cannot connect to the session bus at \(address): \(error)")
        } catch {
            sink.finish()
            throw error
        }
        signalSink?.finish()
        signalSink = sink
        reconnectDelay = .seconds(1)
        capabilities = nil
        serverOwner = nil
        bubbles.removeAll()
        Task { [weak self] in
            for await signal in signals {
                guard let self else { return }
                await self.handle(signal)
            }
        }
        return bus
    }

    private func handle(_ signal: DesktopSignal) async {
        switch signal {
        case .actionInvoked(let serverID, let key, let sender):
            guard sender == nil || serverOwner == nil || sender == serverOwner else { return }
            guard let delivery = bubbles.delivery(of: serverID) else {
                early.hold(signal)
                return
            }
            context.responder.actionInvoked(key, delivery: delivery, backend: name)
            if key == "dismiss", let bus = try? await connection() {
                _ = try? await call(bus, "CloseNotification", arguments: { try $0.append(.uint32(serverID)) }) {
                    _ in
                }
            }
        case .closed(let serverID, let reason, let sender):
            guard sender == nil || serverOwner == nil || sender == serverOwner else { return }
            guard let delivery = bubbles.remove(serverID) else {
                early.hold(signal)
                return
            }
            context.responder.closed(delivery, reason: reason, backend: name)
        case .ownerChanged(let newOwner):
            // Another server (or none): its capabilities and bubble ids are not the last one's.
            capabilities = nil
            serverOwner = newOwner.isEmpty ? nil : newOwner
            bubbles.removeAll()
            if !newOwner.isEmpty { await deliverPending() }
        case .disconnected:
            connecting = nil
            signalSink?.finish()
            signalSink = nil
            if !pending.isEmpty { scheduleReconnect() }
        }
    }

    /// Delivers what waited for a server, oldest first, logging each; stops at the first that finds none again.
    private func deliverPending() async {
        while !pending.isEmpty {
            let delivery = pending.removeFirst()
            do {
                try await show(delivery)
                isUnavailable = false
                let id = delivery.notification.id
                context.log.record(
                    DaemonEvent(
                        delivery.missedCount > 0 ? .caughtUp : .delivered,
                        "\(id): \(delivery.notification.title) (delivered to \(name) when the notification server "
                            + "appeared)",
                        fields: Dispatcher.fields(of: delivery, backend: name) + [
                            (
                                "CHIME_DELIVERED_AT",
                                Timestamp.iso8601(context.clock.now(), fraction: .microseconds)
                            )
                        ]))
            } catch is Unreachable {
                pending.insert(delivery, at: 0)
                return
            } catch {
                context.log.record(Dispatcher.failure(delivery, backend: name, reason: "\(error)"))
            }
        }
    }

    /// After the bus went away with deliveries waiting: connect again, backing off from 1 s to a minute, and try
    /// them (a new bus may already have a server).
    private func scheduleReconnect() {
        guard reconnecting == nil else { return }
        let delay = reconnectDelay
        reconnectDelay = min(reconnectDelay * 2, .seconds(60))
        reconnecting = Task { [weak self] in
            try? await Task.sleep(for: delay)
            await self?.reconnect()
        }
    }

    private func reconnect() async {
        reconnecting = nil
        guard !pending.isEmpty else { return }
        do {
            _ = try await connection()
            await deliverPending()
        } catch {
            scheduleReconnect()
        }
    }
}

/// The bus or the notification server cannot be reached; `reason` says which and why.
struct Unreachable: Error {
    var reason: String
}

/// A signal the desktop backend acts on, decoded on the bus queue.
enum DesktopSignal: Sendable {
    case actionInvoked(serverID: UInt32, key: String, sender: String?)
    case closed(serverID: UInt32, reason: UInt32, sender: String?)
    /// `NameOwnerChanged` for `org.freedesktop.Notifications`: the new owner, empty when the server went away.
    case ownerChanged(newOwner: String)
    /// The bus connection closed.
    case disconnected

    /// The bubble an answer is for.
    var serverID: UInt32? {
        switch self {
        case .actionInvoked(let serverID, _, _), .closed(let serverID, _, _): serverID
        case .ownerChanged, .disconnected: nil
        }
    }

    /// `ActionInvoked (u id, s key)` or `NotificationClosed (u id, u reason)`.
    init?(server reader: inout BusMessageReader) {
        let sender = reader.sender
        switch reader.member {
        case "ActionInvoked":
            guard let id = try? reader.readUInt32(), let key = try? reader.readString() else { return nil }
            self = .actionInvoked(serverID: id, key: key, sender: sender)
        case "NotificationClosed":
            guard let id = try? reader.readUInt32(), let reason = try? reader.readUInt32() else { return nil }
            self = .closed(serverID: id, reason: reason, sender: sender)
        default:
            return nil
        }
    }

    /// `NameOwnerChanged (s name, s old_owner, s new_owner)`, from the bus driver only: the same signal sent to
    /// chimed's connection by any client would otherwise make it forget every bubble.
    init?(ownerChange reader: inout BusMessageReader) {
        guard let newOwner = BusNameOwner.ownerChange(of: DesktopBackend.service, in: &reader) else { return nil }
        self = .ownerChanged(newOwner: newOwner)
    }
}

/// The bubbles on screen: server id → delivery (for the answers) and notification id → its latest server id (for
/// `replaces_id`), forgetting the oldest beyond `limit`.
struct BubbleMap {
    let limit: Int
    private var deliveries: [UInt32: Delivery] = [:]
    private var order: [UInt32] = []
    private var latest: [String: UInt32] = [:]
    private var latestOfThread: [String: UInt32] = [:]
    /// How many deliveries each bubble stands for (those of a thread that it replaced, and its own).
    private var counts: [UInt32: Int] = [:]

    init(limit: Int) { self.limit = limit }

    /// The server id of the bubble `notificationID` has on screen, or 0.
    func serverID(of notificationID: String) -> UInt32 { latest[notificationID] ?? 0 }

    /// The server id of the bubble of `thread` on screen, or 0.
    func serverID(ofThread thread: String) -> UInt32 { latestOfThread[thread] ?? 0 }

    /// How many deliveries the bubble `serverID` stands for; 0 when it is not on screen.
    func count(in serverID: UInt32) -> Int { counts[serverID] ?? 0 }

    func delivery(of serverID: UInt32) -> Delivery? { deliveries[serverID] }

    /// The deliveries on screen, oldest bubble first.
    var shown: [Delivery] { order.compactMap { deliveries[$0] } }

    /// The server ids of the bubbles whose delivery matches, oldest first.
    func serverIDs(where matches: (Delivery) -> Bool) -> [UInt32] {
        order.filter { deliveries[$0].map(matches) ?? false }
    }

    var count: Int { deliveries.count }

    mutating func insert(_ serverID: UInt32, _ delivery: Delivery, count: Int = 1) {
        if let replaced = deliveries.updateValue(delivery, forKey: serverID) {
            order.removeAll { $0 == serverID }
            if latest[replaced.notification.id] == serverID { latest[replaced.notification.id] = nil }
        }
        order.append(serverID)
        latest[delivery.notification.id] = serverID
        if let thread = delivery.notification.thread { latestOfThread[thread] = serverID }
        counts[serverID] = count
        while order.count > limit { remove(order[0]) }
    }

    @discardableResult
    mutating func remove(_ serverID: UInt32) -> Delivery? {
        guard let delivery = deliveries.removeValue(forKey: serverID) else { return nil }
        order.removeAll { $0 == serverID }
        counts[serverID] = nil
        if latest[delivery.notification.id] == serverID { latest[delivery.notification.id] = nil }
        if let thread = delivery.notification.thread, latestOfThread[thread] == serverID {
            latestOfThread[thread] = nil
        }
        return delivery
    }

    mutating func removeAll() {
        deliveries = [:]
        order = []
        latest = [:]
        latestOfThread = [:]
        counts = [:]
    }
}
