import ChimeCore
import Foundation

/// `apprise` (an `[Apprise]` section of chimed.conf): runs Debian's `apprise` once per delivery, with the title, the
/// body and a notification type from the interruption level or urgency, to the `URL=`s or the `ConfigFile=`.
///
/// It runs as `CommandRunner` runs every program: an argv (no shell, so no text of a notification is ever shell
/// syntax), its own process group, killed with everything it started after `TimeoutSec=`. Exit status 0 is a
/// delivery; anything else fails it, quoting the end of what apprise said (it logs to stdout) with the URLs' secret
/// parts hidden.
public struct AppriseBackend: DeliveryBackend {
    public let name: String
    public let settings: AppriseSettings
    private let environment: [String: String]
    private let secrets: AppriseSecrets

    public init(settings: AppriseSettings, context: BackendContext) {
        self.name = settings.name
        self.settings = settings
        self.environment = context.environment
        self.secrets = AppriseSecrets(urls: settings.urls)
    }

    public var timeout: Duration? { settings.timeout + CommandRunner.killGrace + .seconds(3) }

    /// The most apprise may print (its log, a line per service) before it counts as running wild.
    static let outputLimit = 256 * 1024

    /// apprise's notification type: `failure` for what is critical, `warning` for what is urgent, else `info`.
    static func notificationType(of notification: ScheduledNotification) -> String {
        if notification.interruptionLevel == .critical || notification.urgency == .critical { return "failure" }
        if notification.interruptionLevel == .timeSensitive { return "warning" }
        return "info"
    }

    /// The argv of one delivery.
    func arguments(for delivery: Delivery) -> [String] {
        let notification = delivery.notification
        // apprise reads the body from stdin when none is given: a notification without one sends its title.
        let body = notification.body.isEmpty ? notification.title : notification.body
        // -v: apprise says on stderr why a service failed, which the failed delivery then quotes.
        var argv = [
            settings.program, "-v", "--title=\(notification.title)", "--body=\(body)",
            "--notification-type=\(Self.notificationType(of: notification))",
        ]
        if let configFile = settings.configFile { argv.append("--config=\(configFile)") }
        return argv + settings.urls
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        guard settings.isConfigured else {
            throw CommandBackendError(reason: "nowhere to send to: set URL= or ConfigFile= in [Apprise] of chimed.conf")
        }
        let outcome: CommandOutcome
        do {
            outcome = try await CommandRunner.run(
                arguments(for: delivery),
                environment: CommandRunner.environment(for: delivery, backend: name, base: environment),
                timeout: settings.timeout, outputLimit: Self.outputLimit)
        } catch {
            throw CommandBackendError(reason: "cannot start \(settings.program): \(error)")
        }
        guard outcome.ending != .exited(status: 0) else { return }
        var reason = "apprise " + outcome.explanation(timeout: settings.timeout, outputLimit: Self.outputLimit)
        // apprise logs to stdout: what it said there and on stderr, the end of it.
        var said = outcome
        said.standardErrorTail = Array(outcome.output.bytes.suffix(4096)) + outcome.standardErrorTail
        if let errors = said.quotedStandardError(
            lines: CommandBackend.quotedLines, characters: CommandBackend.quotedCharacters)
        {
            reason += " (output: \(errors))"
        }
        throw CommandBackendError(reason: secrets.redact(reason))
    }
}
