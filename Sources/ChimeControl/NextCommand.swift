import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl next`: the notification that fires next.
struct NextCommand: Command {
    static let name = "next"
    static let summary = "Show the notification that fires next"
    static let usage = "chimectl next [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Shows which notification the running chimed will deliver next, and when (in its local time).

        Options:
          --json                {"id":…,"title":…,"next":…,"next_local":…,"trigger":…}, or null
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
          --state-dir=DIR       the instance's state directory, for the hint to start it
          -h, --help            show this help

        Exit status: 0, or 1 when chimed is not running.
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        guard let first = view.entries.first else {
            context.output.line(arguments.has("json") ? "null" : "Nothing is scheduled.")
            return .success
        }
        if arguments.has("json") {
            context.output.line(ListCommand.json(first).serialized)
        } else {
            let left = Timestamp.relativeDescription(of: first.next, now: context.now)
            context.output.line("\(first.id): \(first.title)\n  at \(first.nextLocal) (\(left))\n  \(first.trigger)")
        }
        return .success
    }
}
