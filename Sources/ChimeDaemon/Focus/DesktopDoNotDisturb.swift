import ChimeCore
import ChimeSystemd
import Foundation

/// Follows the desktop's do-not-disturb switch on the session bus, without polling, and reports what has it on:
/// dunst's `paused` property (`org.dunstproject.cmd0`, `dunstctl set-paused`) and the notification server's
/// `Inhibited` property (KDE Plasma).
///
/// Property changes come as `PropertiesChanged` signals; a notification server that appears or goes is seen by
/// `NameOwnerChanged` (its switches are read again, or count as off). Nothing here starts a notification server:
/// the properties are read only while one owns its name.
final class DesktopDoNotDisturb: @unchecked Sendable {
    /// The switches, each on or off; touched on the bus queue only.
    private struct Switches {
        var dunstPaused = false
        var serverInhibited = false

        /// What has do-not-disturb on, or `nil`.
        var source: String? {
            if dunstPaused { return "dunst" }
            if serverInhibited { return "the notification server" }
            return nil
        }
    }

    static let service = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let dunstInterface = "org.dunstproject.cmd0"

    private let address: String
    private let changed: @Sendable (String?) -> Void
    private let switches = Locked(Switches())
    private var bus: BusConnection?

    /// - Parameter changed: runs with what has do-not-disturb on, or `nil`, whenever that changes, in the order of
    ///   the changes.
    init(address: String, changed: @escaping @Sendable (String?) -> Void) {
        self.address = address
        self.changed = changed
    }

    /// Connects, subscribes, then reads the switches as they are; throws when the bus cannot be reached.
    func start() async throws {
        let bus = try BusConnection(address: address, label: "chime.focus") { [weak self] in
            self?.update { $0 = Switches() }
        }
        self.bus = bus
        try await bus.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                + "path='\(Self.objectPath)'"
        ) { [weak self] reader in
            self?.propertiesChanged(&reader)
        }
        try await bus.addMatch(
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
        ) { [weak self] reader in
            _ = try? reader.readString()
            _ = try? reader.readString()
            guard let self, let owner = try? reader.readString() else { return }
            if owner.isEmpty {
                update {
                    $0.dunstPaused = false
                    $0.serverInhibited = false
                }
            } else {
                Task { await self.readServer() }
            }
        }
        await readServer()
    }

    /// Reads the server's switches, if a server runs.
    private func readServer() async {
        guard let bus,
            (try? await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner", arguments: { try $0.append(Self.service) }, reply: { try $0.readBoolean() }))
                == true
        else { return }
        let paused = await property(Self.dunstInterface, "paused")
        let inhibited = await property(Self.service, "Inhibited")
        update {
            $0.dunstPaused = paused
            $0.serverInhibited = inhibited
        }
    }

    /// A boolean property of the server's object; `false` when the server does not have it.
    private func property(_ interface: String, _ name: String) async -> Bool {
        let value = try? await bus?.call(
            destination: Self.service, path: Self.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "Get",
            arguments: {
                try $0.append(interface)
                try $0.append(name)
            }, reply: { try $0.readVariant() })
        return value == .boolean(true)
    }

    /// `PropertiesChanged (s interface, a{sv} changed, as invalidated)` of the server's object.
    private func propertiesChanged(_ reader: inout BusMessageReader) {
        guard let interface = try? reader.readString(), let changes = try? reader.readDictionary() else { return }
        let key = interface == Self.dunstInterface ? "paused" : interface == Self.service ? "Inhibited" : nil
        guard let key, let value = changes.first(where: { $0.key == key })?.value else { return }
        let isOn = value == .boolean(true)
        update { switches in
            if interface == Self.dunstInterface {
                switches.dunstPaused = isOn
            } else {
                switches.serverInhibited = isOn
            }
        }
    }

    /// Changes the switches and reports when what has do-not-disturb on changed.
    private func update(_ change: (inout Switches) -> Void) {
        // Reported under the lock, so that two changes from different threads are reported in their order.
        switches.withLock { switches in
            let before = switches.source
            change(&switches)
            if switches.source != before { changed(switches.source) }
        }
    }
}
