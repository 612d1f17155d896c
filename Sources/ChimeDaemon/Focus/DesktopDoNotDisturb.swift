import ChimeCore
import ChimeSystemd
import Foundation

/// Follows the desktop's do-not-disturb switch on the session bus, without polling, and reports what has it on:
/// dunst's `paused` property (`org.dunstproject.cmd0`, `dunstctl set-paused`), the notification server's
/// `Inhibited` property (KDE Plasma), and GNOME's `show-banners` setting, read from dconf's database in-process
/// (`SettingsDatabase`) at start and when dconf's writer announces a change to it.
///
/// Property changes come as `PropertiesChanged` signals, believed only from the unique name that owns
/// `org.freedesktop.Notifications` now (`BusNameOwner`); a notification server that appears or goes is seen by the
/// bus driver's `NameOwnerChanged` (its switches are read again, or count as off). Nothing here starts a notification server:
/// the properties are read only while one owns its name.
final class DesktopDoNotDisturb: @unchecked Sendable {
    /// The switches, each on or off; touched on the bus queue only.
    private struct Switches {
        var dunstPaused = false
        var serverInhibited = false
        var gnomeBannersHidden = false
        /// How many times each server switch was set by a signal or by the server going: a read that was sent
        /// before one of those comes back stale and is not applied.
        var dunstChanges = 0
        var inhibitedChanges = 0

        /// What has do-not-disturb on, or `nil`.
        var source: String? {
            if dunstPaused { return "dunst" }
            if serverInhibited { return "the notification server" }
            if gnomeBannersHidden { return "GNOME" }
            return nil
        }
    }

    static let service = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let dunstInterface = "org.dunstproject.cmd0"
    /// GNOME's do-not-disturb: `show-banners` (schema `org.gnome.desktop.notifications`) false.
    static let bannersPath = "/org/gnome/desktop/notifications/show-banners"

    private let address: String
    private let settings: (any SettingsDatabase)?
    /// Reads GNOME's setting off the bus queue: one read at a time and at most one more after it, however many
    /// changes are announced (any client can send dconf's signal), so the last read is of the last change.
    private var bannersRead: CoalescedJob?
    private let changed: @Sendable (String?) -> Void
    private let switches = Locked(Switches())
    private var bus: BusConnection?

    /// - Parameters:
    ///   - settings: the settings database that holds GNOME's setting (dconf); `nil` follows the server's switches
    ///     only.
    ///   - changed: runs with what has do-not-disturb on, or `nil`, whenever that changes, in the order of the
    ///     changes.
    init(address: String, settings: (any SettingsDatabase)?, changed: @escaping @Sendable (String?) -> Void) {
        self.address = address
        self.settings = settings
        self.changed = changed
        if settings != nil {
            bannersRead = CoalescedJob(label: "chime.focus.banners") { [weak self] in self?.readBanners() }
        }
    }

    /// Connects, subscribes, then reads the switches as they are; throws when the bus cannot be reached.
    func start() async throws {
        let bus = try BusConnection(address: address, label: "chime.focus") { [weak self] in
            self?.update { $0 = Switches() }
        }
        self.bus = bus
        // The server's switches are believed only from the program that owns its name now.
        let server = try await BusNameOwner.follow(Self.service, on: bus) { [weak self] owner in
            guard let self else { return }
            if owner == nil {
                update {
                    $0.dunstPaused = false
                    $0.serverInhibited = false
                    $0.dunstChanges += 1
                    $0.inhibitedChanges += 1
                }
            } else {
                Task { await self.readServer() }
            }
        }
        try await bus.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                + "path='\(Self.objectPath)'"
        ) { [weak self] reader in
            guard server.isOwner(reader.sender) else { return }
            self?.propertiesChanged(&reader)
        }
        if let bannersRead {
            try await bus.addMatch("type='signal',interface='ca.desrt.dconf.Writer',member='Notify'") { reader in
                guard Self.touchesBanners(&reader) else { return }
                bannersRead.ask()
            }
            bannersRead.ask()
        }
        if server.current != nil { await readServer() }
    }

    /// dconf's `Notify (s prefix, as changes, s tag)`: whether the change reaches `show-banners` (a change of a
    /// directory ends in `/` and covers every key under it).
    private static func touchesBanners(_ reader: inout BusMessageReader) -> Bool {
        guard let prefix = try? reader.readString(), let changes = try? reader.readStrings() else { return false }
        let paths = changes.isEmpty ? [prefix] : changes.map { prefix + $0 }
        return paths.contains { $0 == bannersPath || ($0.hasSuffix("/") && bannersPath.hasPrefix($0)) }
    }

    /// Reads `show-banners` from the settings database; never set (or no GNOME at all) counts as showing banners,
    /// GNOME's default.
    private func readBanners() {
        guard let settings else { return }
        let hidden = settings.boolean(at: Self.bannersPath) == false
        update { $0.gnomeBannersHidden = hidden }
    }

    /// Reads the switches of the server that runs. A signal handled while the read is on its way is newer than
    /// what the read returns, so the read does not overwrite it.
    private func readServer() async {
        let before = switches.withLock { ($0.dunstChanges, $0.inhibitedChanges) }
        guard bus != nil else { return }
        let paused = await property(Self.dunstInterface, "paused")
        let inhibited = await property(Self.service, "Inhibited")
        update {
            if $0.dunstChanges == before.0 { $0.dunstPaused = paused }
            if $0.inhibitedChanges == before.1 { $0.serverInhibited = inhibited }
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
                switches.dunstChanges += 1
            } else {
                switches.serverInhibited = isOn
                switches.inhibitedChanges += 1
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
