import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl reload`: asks chimed to rebuild the schedule (SIGHUP) and waits until it has.
struct ReloadCommand: Command {
    static let name = "reload"
    static let summary = "Make chimed rebuild the whole schedule now (SIGHUP)"
    static let usage = "chimectl reload [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Sends SIGHUP to the running chimed, which reloads every notification and rebuilds the whole schedule,
        and waits (up to 10 s) until the rebuild is done; then prints the new count, the first error and every
        problem the rebuild found (the first 20, and how many more).
        'systemctl reload chimed' does the same through systemd.

        Options:
          --json                {"scheduled":…,"last_rebuild":…,"last_error":…,"problems":[…]}
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
          --state-dir=DIR       the instance's state directory, for the hint to start it
          -h, --help            show this help

        Exit status: 0 when the rebuild finished, 1 otherwise.
        """
    static let grammar = ParsedArguments.Grammar.instance()
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        let snapshot = try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") })
        let count = snapshot["scheduled_count"] as? Int ?? (snapshot["scheduled"] as? [Any])?.count ?? 0
        let lastError = snapshot["last_error"] as? String
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("scheduled", .number(Int64(count))),
                    ("last_rebuild", (snapshot["last_rebuild"] as? String).map(JSONValue.string) ?? .null),
                    ("last_error", lastError.map(JSONValue.string) ?? .null),
                    ("problems", .array(InstanceView.problems(in: snapshot).map(JSONValue.string))),
                ]).serialized)
            return .success
        }
        context.output.line("Reloaded: \(count) scheduled.")
        if let lastError { context.output.line("Last error: \(lastError)") }
        var lines = LabelledLines()
        InstanceView.addProblems(InstanceView.problems(in: snapshot), to: &lines)
        if !lines.isEmpty { context.output.write(lines.rendered()) }
        return .success
    }
}
