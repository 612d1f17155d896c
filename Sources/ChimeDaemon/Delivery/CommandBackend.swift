import Foundation

/// `command` (a `[Command]` section of chimed.conf): runs the program of `Exec=` once per delivery.
///
/// The program gets the notification twice, as data and never as shell syntax: in its environment
/// (`CommandRunner.environment(for:backend:base:)`: `CHIME_ID`, `CHIME_TITLE`, `CHIME_BODY`, `CHIME_INFO_KEY`, …)
/// and as one line of JSON on stdin (`Delivery.json`: the line the `stdout` backend prints, with `"backend"` this
/// backend's name).
/// It runs as `CommandRunner` describes: no shell, its own process group, stdout discarded, killed with everything
/// it started after `TimeoutSec=`. Exit status 0 is a delivery; anything else fails it with the exit status, signal
/// or timeout and the end of its stderr.
public struct CommandBackend: DeliveryBackend {
    public let name: String
    public let settings: CommandSettings
    /// chimed's environment, which the program inherits (less what `CommandRunner.programEnvironment` removes).
    private let environment: [String: String]

    /// How many lines and characters of stderr the failure message quotes, from the end.
    static let quotedLines = 10
    static let quotedCharacters = 1000

    public init(settings: CommandSettings, context: BackendContext) {
        self.name = settings.name
        self.settings = settings
        self.environment = context.environment
    }

    /// The dispatcher's cap: beyond `TimeoutSec=`, the runner's SIGTERM-to-SIGKILL grace and a margin, so that the
    /// runner's own kill, with its report of what happened, always comes first.
    public var timeout: Duration? { settings.timeout + CommandRunner.killGrace + .seconds(3) }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        guard let program = settings.argv.first else {
            throw CommandBackendError(reason: "nothing to run: set Exec= in [Command] of chimed.conf" + section)
        }
        let input = delivery.json(deliveredAt: deliveredAt, backend: name).serialized + "\n"
        let outcome: CommandOutcome
        do {
            outcome = try await CommandRunner.run(
                settings.argv, environment: CommandRunner.environment(for: delivery, backend: name, base: environment),
                input: Data(input.utf8), timeout: settings.timeout)
        } catch {
            throw CommandBackendError(reason: "cannot start \(program): \(error)")
        }
        guard outcome.ending != .exited(status: 0) else { return }
        var reason = program + " " + outcome.explanation(timeout: settings.timeout)
        if let errors = outcome.quotedStandardError(lines: Self.quotedLines, characters: Self.quotedCharacters) {
            reason += " (stderr: \(errors))"
        }
        throw CommandBackendError(reason: reason)
    }

    /// Which `[Command]` section, when there are several.
    private var section: String { name == "command" ? "" : " (the one with Name=\(name))" }
}

/// A failed delivery of the `command` backend; the description is the whole reason, as logged in `CHIME_ERROR=`.
public struct CommandBackendError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
