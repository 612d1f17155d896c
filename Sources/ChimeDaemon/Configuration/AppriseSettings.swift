/// chimed.conf `[Apprise]`: an `apprise` backend, delivering through the `apprise` program to any of the services
/// it knows (ntfy, Gotify, Matrix, Telegram, e-mail, …); the section repeats, `Name=` telling them apart.
public struct AppriseSettings: Sendable, Equatable {
    public var name = "apprise"
    /// `URL=`: apprise URLs (`ntfy://host/topic`), each given to it as an argument.
    public var urls: [String] = []
    /// `ConfigFile=`: an apprise configuration file (its own text or YAML format), which may hold secrets.
    public var configFile: String?
    /// `TimeoutSec=`: how long one run may take before its process group is killed.
    public var timeout: Duration = .seconds(30)
    /// The program: Debian's `apprise`.
    public var program = "/usr/bin/apprise"

    public init() {}

    /// Whether there is anywhere to deliver to.
    var isConfigured: Bool { !urls.isEmpty || configFile != nil }
}
