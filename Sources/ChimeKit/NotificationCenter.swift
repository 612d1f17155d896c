import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// An application's notifications, scheduled through chimed (`org.chime.Notifications1` on the session bus), in the
/// shape of `UNUserNotificationCenter`: add a request and exit; chimed fires it on time, keeps it across restarts
/// and starts itself on the first call.
///
/// ```swift
/// let center = try NotificationCenter(applicationID: "org.example.Reminders")
/// let content = NotificationContent(title: "Exam: Linear Algebra", badge: "+1", userInfo: [("room", "4B")])
/// try await center.add(NotificationRequest(identifier: "exam", content: content, trigger: .date(examMorning)))
/// try await center.removePendingNotificationRequests(withIdentifiers: ["exam"])
/// ```
public final class NotificationCenter: Sendable {
    /// The application's desktop-file id, such as `org.example.Reminders`.
    public let applicationID: String
    private let connection: BusConnection

    static let destination = "org.chime.Notifications1"
    static let path = "/org/chime/Notifications1"
    static let interface = "org.chime.Notifications1"

    /// Connects to the session bus (or the bus at `busAddress`).
    public init(applicationID: String, busAddress: String? = nil) throws {
        self.applicationID = applicationID
        let environment = ProcessInfo.processInfo.environment
        guard let address = busAddress ?? BusConnection.sessionBusAddress(environment: environment) else {
            throw NotificationCenterError.unavailable(
                "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor $XDG_RUNTIME_DIR/bus")
        }
        connection = try BusConnection(address: address, label: "chimekit")
    }

    deinit {
        connection.close()
    }

    /// Schedules `request`, replacing a pending one with its identifier. Returns when it fires next, or `nil`
    /// when its trigger has nothing ahead (then nothing is kept).
    @discardableResult
    public func add(_ request: NotificationRequest) async throws -> Date? {
        let appID = applicationID
        let next: Int64 = try await call("Add") { writer in
            try writer.append(appID)
            try writer.append(request.identifier)
            try writer.append(dictionary: request.content.entries)
            try writer.append(dictionary: request.trigger.busEntries)
        } reply: {
            try $0.readInt64()
        }
        return next < 0 ? nil : Date(epochMicroseconds: next)
    }

    /// The application's requests that have something ahead, by identifier.
    public func pendingNotificationRequests() async throws -> [PendingNotificationRequest] {
        let appID = applicationID
        return try await call("GetPending") {
            try $0.append(appID)
        } reply: { reader in
            try reader.enterContainer("a", contents: "(sa{sv}a{sv}x)")
            var pending: [PendingNotificationRequest] = []
            while try reader.peekType() != nil {
                try reader.enterContainer("r", contents: "sa{sv}a{sv}x")
                let identifier = try reader.readString()
                let content = NotificationContent(entries: try reader.readDictionary())
                let trigger = NotificationTrigger(busEntries: try reader.readDictionary())
                let next = try reader.readInt64()
                try reader.exitContainer()
                pending.append(
                    PendingNotificationRequest(
                        request: NotificationRequest(identifier: identifier, content: content, trigger: trigger),
                        nextFireDate: Date(epochMicroseconds: next)))
            }
            try reader.exitContainer()
            return pending
        }
    }

    /// Removes the pending requests `identifiers`; unknown ones are ignored.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) async throws {
        let appID = applicationID
        try await call("RemovePending") { writer in
            try writer.append(appID)
            try writer.append(strings: identifiers)
        } reply: { _ in
            ()
        }
    }

    public func removeAllPendingNotificationRequests() async throws {
        let appID = applicationID
        try await call("RemoveAllPending") {
            try $0.append(appID)
        } reply: { _ in
            ()
        }
    }

    /// The application's notifications the desktop still shows, oldest first, with their content.
    public func deliveredNotifications() async throws -> [DeliveredNotification] {
        let appID = applicationID
        return try await call("GetDelivered") {
            try $0.append(appID)
        } reply: { reader in
            try reader.enterContainer("a", contents: "(sa{sv}x)")
            var delivered: [DeliveredNotification] = []
            while try reader.peekType() != nil {
                try reader.enterContainer("r", contents: "sa{sv}x")
                let identifier = try reader.readString()
                let content = NotificationContent(entries: try reader.readDictionary())
                let fire = try reader.readInt64()
                try reader.exitContainer()
                delivered.append(
                    DeliveredNotification(
                        identifier: identifier, fireDate: Date(epochMicroseconds: fire), content: content))
            }
            try reader.exitContainer()
            return delivered
        }
    }

    /// Closes the bubbles of the delivered notifications `identifiers`; unknown ones are ignored.
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) async throws {
        let appID = applicationID
        try await call("RemoveDelivered") { writer in
            try writer.append(appID)
            try writer.append(strings: identifiers)
        } reply: { _ in
            ()
        }
    }

    /// Acknowledges the requests `identifiers` that repeat until acknowledged (`Repeat=`), stopping their repeats;
    /// others are ignored.
    public func acknowledgeNotifications(withIdentifiers identifiers: [String]) async throws {
        let appID = applicationID
        try await call("Acknowledge") { writer in
            try writer.append(appID)
            try writer.append(strings: identifiers)
        } reply: { _ in
            ()
        }
    }

    public func removeAllDeliveredNotifications() async throws {
        let appID = applicationID
        try await call("RemoveAllDelivered") {
            try $0.append(appID)
        } reply: { _ in
            ()
        }
    }

    /// Sets the application's badge: the number on its launcher entry (`application://APP_ID.desktop`).
    public func setBadgeCount(_ count: Int) async throws {
        let appID = applicationID
        let value = UInt32(clamping: max(count, 0))
        try await call("SetBadge") { writer in
            try writer.append(appID)
            try writer.append(.uint32(value))
        } reply: { _ in
            ()
        }
    }

    /// The application's badge number: set by `setBadgeCount(_:)` and changed by its requests' `Badge=`.
    public func badgeCount() async throws -> Int {
        let appID = applicationID
        return Int(
            try await call("GetBadge") {
                try $0.append(appID)
            } reply: {
                try $0.readUInt32()
            })
    }

    /// What chimed may present (the user's chimed.conf `[Presentation]`), as `getNotificationSettings`.
    public func notificationSettings() async throws -> NotificationSettings {
        let appID = applicationID
        let entries = try await call("GetSettings") {
            try $0.append(appID)
        } reply: {
            try $0.readDictionary()
        }
        func flag(_ key: String) -> Bool {
            if case .boolean(let value) = entries.first(where: { $0.key == key })?.value { return value }
            return false
        }
        var backends: [String] = []
        if case .strings(let names) = entries.first(where: { $0.key == "backends" })?.value { backends = names }
        var desktop: String?
        if case .string(let server) = entries.first(where: { $0.key == "desktop" })?.value { desktop = server }
        return NotificationSettings(
            alertsAllowed: flag("alert"), soundsAllowed: flag("sound"), badgesAllowed: flag("badge"),
            backends: backends, desktopServer: desktop)
    }

    /// The unique name that owns chimed's bus name: signals are believed only from it (another client could send the
    /// same signal to the application's connection).
    private func chimed() async throws -> BusNameOwner {
        try await BusNameOwner.follow(Self.destination, on: connection)
    }

    /// The application's requests as chimed hands them to their backends, from now on: the `Delivered` signal.
    public func deliveries() async throws -> AsyncStream<DeliveredNotification> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeliveredNotification.self)
        let appID = applicationID
        let chimed = try await chimed()
        try await connection.addMatch(
            "type='signal',sender='\(Self.destination)',path='\(Self.path)',interface='\(Self.interface)',"
                + "member='Delivered',arg0='\(appID)'"
        ) { reader in
            guard chimed.isOwner(reader.sender), (try? reader.readString()) == appID,
                let identifier = try? reader.readString(), let fire = try? reader.readInt64()
            else { return }
            continuation.yield(DeliveredNotification(identifier: identifier, fireDate: Date(epochMicroseconds: fire)))
        }
        return stream
    }

    /// The user's answers to the application's notifications, from now on: `ActionInvoked` and `Dismissed`.
    /// (An application chimed starts for an answer learns it from its activation instead.)
    public func responses() async throws -> AsyncStream<NotificationResponse> {
        let (stream, continuation) = AsyncStream.makeStream(of: NotificationResponse.self)
        let appID = applicationID
        let chimed = try await chimed()
        let match = "type='signal',sender='\(Self.destination)',path='\(Self.path)',interface='\(Self.interface)',"
        try await connection.addMatch(match + "member='ActionInvoked',arg0='\(appID)'") { reader in
            guard chimed.isOwner(reader.sender), (try? reader.readString()) == appID,
                let identifier = try? reader.readString(),
                let action = try? reader.readString(), let info = try? Self.readInfo(&reader)
            else { return }
            continuation.yield(NotificationResponse(identifier: identifier, actionIdentifier: action, userInfo: info))
        }
        try await connection.addMatch(match + "member='Dismissed',arg0='\(appID)'") { reader in
            guard chimed.isOwner(reader.sender), (try? reader.readString()) == appID,
                let identifier = try? reader.readString()
            else { return }
            continuation.yield(
                NotificationResponse(
                    identifier: identifier, actionIdentifier: NotificationResponse.dismissActionIdentifier))
        }
        return stream
    }

    /// An `a{ss}` in order.
    private static func readInfo(_ reader: inout BusMessageReader) throws -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        try reader.enterContainer("a", contents: "{ss}")
        while try reader.peekType() != nil {
            try reader.enterContainer("e", contents: "ss")
            pairs.append((try reader.readString(), try reader.readString()))
            try reader.exitContainer()
        }
        try reader.exitContainer()
        return pairs
    }

    private func call<Reply: Sendable>(
        _ member: String, arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void,
        reply: @escaping @Sendable (inout BusMessageReader) throws -> Reply
    ) async throws -> Reply {
        do {
            return try await connection.call(
                destination: Self.destination, path: Self.path, interface: Self.interface, member: member,
                arguments: arguments, reply: reply)
        } catch let error as BusMethodError {
            switch error.name {
            case "org.chime.Notifications1.Error.InvalidArgument":
                throw NotificationCenterError.invalidArgument(error.message)
            case "org.chime.Notifications1.Error.LimitExceeded":
                throw NotificationCenterError.limitExceeded(error.message)
            case "org.chime.Notifications1.Error.AccessDenied":
                throw NotificationCenterError.accessDenied(error.message)
            default: throw NotificationCenterError.unavailable("\(error)")
            }
        } catch {
            throw NotificationCenterError.unavailable("\(error)")
        }
    }
}
