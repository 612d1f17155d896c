import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl status`: whether chimed runs, and what it holds.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "Show whether chimed runs, how much it holds, and its last rebuild and error"
    static let usage = "chimectl status [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Shows whether chimed is running (and its process id), how many notifications are scheduled, the next
        one, when the schedule was last rebuilt, the first error that rebuild found, and every problem it found
        (errors and warnings, by file and line; the first 20, and how many more).

        Options:
          --json                {"running":…,"pid":…,"scheduled":…,"next":…,"badge":…,"last_rebuild":…,
                                "last_error":…,"runtime_directory":…,"problems":[…]}
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, looked at for files changed since
                                chimed's last rebuild; repeatable
          --state-dir=DIR       the instance's state directory
          -h, --help            show this help

        Exit status: 0 when chimed runs, 3 when it does not (as systemctl status).
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        view.warnIfSourcesChanged(context)
        let entries = view.isRunning ? view.entries : []
        let snapshot = view.isRunning ? view.snapshot : nil
        let lastRebuild = snapshot?["last_rebuild"] as? String
        let lastError = snapshot?["last_error"] as? String
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("running", .bool(view.isRunning)), ("pid", view.isRunning ? .number(Int64(view.pid ?? 0)) : .null),
                    ("scheduled", .number(Int64(view.isRunning ? view.scheduledCount : 0))),
                    ("next", entries.first.map { ListCommand.json($0) } ?? .null),
                    ("badge", .number(Int64(snapshot?["badge"] as? Int ?? 0))),
                    ("last_rebuild", lastRebuild.map(JSONValue.string) ?? .null),
                    ("last_error", lastError.map(JSONValue.string) ?? .null),
                    ("runtime_directory", .string(view.options.runtimeDirectory)),
                    ("problems", .array(view.problems.map(JSONValue.string))),
                ]).serialized)
        } else {
            var lines = LabelledLines()
            lines.add("State:", view.isRunning ? "running (pid \(view.pid ?? 0))" : "not running")
            lines.add("Runtime dir:", view.options.runtimeDirectory)
            if view.isRunning {
                lines.add("Scheduled:", String(view.scheduledCount))
                if let first = entries.first {
                    let left = Timestamp.relativeDescription(of: first.next, now: context.now)
                    lines.add("Next:", "\(first.id) at \(first.nextLocal) (\(left))")
                }
                lines.add("Badge:", String(snapshot?["badge"] as? Int ?? 0))
                if let quiet = snapshot?["quiet"] as? [String: Any], quiet["quiet"] as? Bool == true {
                    let until = (quiet["until_local"] as? String).map { " until \($0)" } ?? ""
                    let reasons = (quiet["reasons"] as? [String] ?? []).joined(separator: ", ")
                    lines.add("Quiet:", "yes (\(reasons))\(until), \(quiet["held"] as? Int ?? 0) held")
                }
                let rebuilt = lastRebuild.flatMap(Timestamp.parseISO8601).flatMap {
                    Timestamp.format($0, zone: context.localZone)
                }
                lines.add("Last rebuild:", rebuilt ?? lastRebuild ?? "-")
                lines.add("Last error:", lastError ?? "none")
                view.addProblems(to: &lines)
            }
            context.output.write(lines.rendered())
        }
        return view.isRunning ? .success : .notRunning
    }
}
