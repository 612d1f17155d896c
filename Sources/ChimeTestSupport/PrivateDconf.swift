import Foundation

/// GNOME's settings database of the test's own: a private session bus that starts the real `dconf-service` at its
/// first write, with the database in the test's directory, written with `gsettings` as GNOME's own switches do.
public final class PrivateDconf: Sendable {
    public let bus: PrivateSessionBus
    /// Where the database is: what a program that reads it needs besides the bus (`XDG_CONFIG_HOME`,
    /// `XDG_RUNTIME_DIR`).
    public let environment: [String: String]
    private let pidFile: String

    /// Why the database cannot be made here, if it cannot (Debian: libglib2.0-bin, dconf-service,
    /// gsettings-desktop-schemas, dconf-gsettings-backend).
    public static var unmetRequirement: String? {
        if PrivateSessionBus.daemonPath == nil { return "needs dbus-daemon" }
        let files = [
            ("/usr/bin/gsettings", "libglib2.0-bin"), ("/usr/libexec/dconf-service", "dconf-service"),
            ("/usr/share/glib-2.0/schemas/org.gnome.desktop.notifications.gschema.xml", "gsettings-desktop-schemas"),
            ("/usr/lib/x86_64-linux-gnu/gio/modules/libdconfsettings.so", "dconf-gsettings-backend"),
        ]
        let missing = files.filter { !FileManager.default.fileExists(atPath: $0.0) }
        return missing.isEmpty ? nil : "needs " + missing.map(\.1).joined(separator: ", ")
    }

    /// `limits`: the bus daemon's `<limit>`s by name.
    public init(directory: TemporaryDirectory, limits: [String: Int] = [:]) throws {
        // dconf-service outlives the bus daemon: it says where it is, to be killed by `stop()` (SIGKILL, as the bus:
        // it may inherit a mask that blocks SIGTERM), and keeps its output away from the daemon's pipe, which the
        // test would otherwise wait on.
        pidFile = directory.path + "/dconf-service.pid"
        try directory.write(
            "dconf-services/ca.desrt.dconf.service",
            "[D-BUS Service]\nName=ca.desrt.dconf\n"
                + "Exec=/bin/sh -c 'echo $$ >\(pidFile); exec /usr/libexec/dconf-service >/dev/null 2>&1'\n")
        let runtime = directory.path + "/xdg-runtime"
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment = ["XDG_CONFIG_HOME": directory.path + "/xdg-config", "XDG_RUNTIME_DIR": runtime]
        bus = try PrivateSessionBus(
            directory: directory, serviceDirectory: directory.path + "/dconf-services", environment: environment,
            limits: limits)
    }

    /// `gsettings set SCHEMA KEY VALUE` through the private dconf service.
    public func set(_ schema: String, _ key: String, _ value: String) throws {
        let output = try ProcessRunner.run(
            "/usr/bin/gsettings", ["set", schema, key, value],
            environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address, "GSETTINGS_BACKEND": "dconf"]) {
                $1
            })
        guard output.status == 0 else { throw FixtureError("gsettings set \(key) \(value): \(output.standardError)") }
    }

    /// Stops the bus and the dconf service it started.
    public func stop() {
        bus.stop()
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGKILL)
        }
    }
}
