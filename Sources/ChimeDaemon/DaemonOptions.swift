import Foundation

/// Where a chime instance keeps things, as given on the command line or by systemd's directory variables.
public struct DaemonOptions: Sendable, Equatable {
    /// Configuration directories, earliest first (earlier wins for the same file name).
    public var configDirectories: [String]
    public var stateDirectory: String
    public var runtimeDirectory: String
    public var instance: InstanceKind
    /// `--deliver`: backends for notifications without `Deliver=`, overriding chimed.conf's `[Daemon] Deliver=`.
    public var defaultBackends: [String]?

    public init(configDirectories: [String], stateDirectory: String, runtimeDirectory: String, instance: InstanceKind) {
        self.configDirectories = configDirectories
        self.stateDirectory = stateDirectory
        self.runtimeDirectory = runtimeDirectory
        self.instance = instance
    }

    /// The defaults of DESIGN.md for `instance`, with systemd's `$CONFIGURATION_DIRECTORY`,
    /// `$STATE_DIRECTORY` and `$RUNTIME_DIRECTORY` (set by `ConfigurationDirectory=` etc.) taking precedence.
    public static func defaults(for instance: InstanceKind, environment: [String: String]) -> DaemonOptions {
        func first(_ variable: String) -> String? {
            environment[variable]?.split(separator: ":").first.map(String.init)
        }
        switch instance {
        case .system:
            var config = ["/etc/chime", "/run/chime", "/usr/lib/chime"]
            if let given = first("CONFIGURATION_DIRECTORY"), !config.contains(given) { config.insert(given, at: 0) }
            return DaemonOptions(
                configDirectories: config, stateDirectory: first("STATE_DIRECTORY") ?? "/var/lib/chime",
                runtimeDirectory: first("RUNTIME_DIRECTORY") ?? "/run/chime", instance: .system)
        case .user:
            let home = environment["HOME"] ?? NSHomeDirectory()
            let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
            let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
            let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(getuid())"
            var config = [configHome + "/chime", runtime + "/chime"]
            if let given = first("CONFIGURATION_DIRECTORY"), !config.contains(given) { config.insert(given, at: 0) }
            return DaemonOptions(
                configDirectories: config, stateDirectory: first("STATE_DIRECTORY") ?? stateHome + "/chime",
                runtimeDirectory: first("RUNTIME_DIRECTORY") ?? runtime + "/chime", instance: .user)
        }
    }

    /// The snapshot of what is armed, read by `chimectl list/next/status`.
    public var snapshotPath: String { runtimeDirectory + "/schedule.json" }
    /// The running daemon's process id, read by `chimectl reload`.
    public var pidPath: String { runtimeDirectory + "/chimed.pid" }
    /// Where `chimectl add` stores notifications requested at run time, as `ID.notification` files: in the state
    /// directory, so that they survive restarts and reboots (the runtime directory does not).
    public var addedDirectory: String { stateDirectory + "/added" }
}
