import ChimeCore
import ChimeSystemd
import Foundation

/// Shows the badge number on the application's launcher icon through the Unity launcher API, which docks and
/// panels other than Unity's read too (Plank, Dash to Dock, KDE's task manager, …).
///
/// Each `publish(_:)` emits `com.canonical.Unity.LauncherEntry.Update` on the session bus from the object path
/// `/com/canonical/unity/launcherentry/<desktop entry, escaped>` with the arguments
/// `application://<desktopEntry>.desktop` and `{"count": x, "count-visible": b}`; a count of 0 hides the badge.
/// The signals go out in the order of the calls.
public final class UnityLauncherBadge: Sendable {
    public static let interface = "com.canonical.Unity.LauncherEntry"
    static let pathPrefix = "/com/canonical/unity/launcherentry"

    /// The application URI the signal names (`application://chime.desktop`).
    public let applicationURI: String
    /// The object path the signal comes from: stable for a desktop entry.
    public let objectPath: String
    private let environment: [String: String]
    private let onFailure: @Sendable (String) -> Void
    /// The open connection, and whether publishing is failing (so that a failure is told once).
    private let state = Locked<(connection: BusConnection?, isFailing: Bool)>((nil, false))
    /// Held through each `publish` so that calls from several threads queue their signals in call order.
    private let publishing = Locked(())

    /// - Parameters:
    ///   - desktopEntry: the desktop file's name without `.desktop` (chimed.conf `[Desktop] DesktopEntry=`).
    ///   - environment: where the session bus address comes from.
    ///   - onFailure: told why a count could not be published, once until one could be again. Not told when there
    ///     is no session bus at all: a system service has none by design, and nothing to publish to.
    public init(
        desktopEntry: String, environment: [String: String], onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        applicationURI = "application://\(desktopEntry).desktop"
        objectPath =
            (try? BusConnection.objectPath(prefix: Self.pathPrefix, id: desktopEntry)) ?? Self.pathPrefix + "/chime"
        self.environment = environment
        self.onFailure = onFailure
    }

    deinit {
        state.withLock { $0.connection }?.close()
    }

    /// Publishes `count` as the badge (negative counts as 0).
    public func publish(_ count: Int) {
        let uri = applicationURI
        let properties: [(key: String, value: BusValue)] = [
            ("count", .int64(Int64(max(count, 0)))), ("count-visible", .boolean(count > 0)),
        ]
        publishing.withLock { _ in
            guard let bus = openConnection() else { return }
            bus.emitSignal(
                path: objectPath, interface: Self.interface, member: "Update",
                arguments: { writer in
                    try writer.append(uri)
                    try writer.append(dictionary: properties)
                },
                completion: { [weak self] error in self?.report(error) })
        }
    }

    /// The connection to the session bus: the open one, or a new one.
    private func openConnection() -> BusConnection? {
        // isOpen waits for the bus queue, where completions take the lock: not under the lock.
        if let current = state.withLock({ $0.connection }), current.isOpen { return current }
        guard let address = BusConnection.sessionBusAddress(environment: environment) else { return nil }
        do {
            let opened = try BusConnection(address: address, label: "chime.badge")
            state.withLock { $0.connection = opened }
            return opened
        } catch {
            failed("cannot connect to the session bus at \(address): \(error)")
            return nil
        }
    }

    private func report(_ error: (any Error)?) {
        if let error { failed("cannot publish the badge: \(error)") } else { state.withLock { $0.isFailing = false } }
    }

    private func failed(_ reason: String) {
        let isNew = state.withLock { state in
            defer { state.isFailing = true }
            return !state.isFailing
        }
        if isNew { onFailure(reason) }
    }
}
