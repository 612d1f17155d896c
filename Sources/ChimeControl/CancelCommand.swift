import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl cancel`: removes notifications added at run time (`cancelLocalNotification`, and with `--all`
/// `cancelAllLocalNotifications`, of the iOS API).
struct CancelCommand: Command {
    static let name = "cancel"
    static let summary = "Cancel notifications added with 'chimectl add'"
    static let usage = "chimectl cancel [--json] [--user] [--state-dir=DIR] (ID... | --all)"
    static let help = """
        Removes each notification ID that 'chimectl add' stored (STATE_DIR/added/ID.notification) and makes
        chimed rebuild its schedule, so it is not delivered again. With --all, removes every notification added
        at run time. Notifications defined by files in the configuration directories are not touched: switch
        one off with 'chimectl disable ID'.

        Options:
          --all                 cancel everything added at run time
          --json                {"cancelled":[…],"failed":[{"id":…,"error":…}]}
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory, where requests are kept
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories
          -h, --help            show this help

        Exit status: 0 when every ID was cancelled, 1 when one was not (the others still are), 64 on usage
        errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["all", "json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let all = arguments.has("all")
        if all && !arguments.operands.isEmpty { throw UsageError("give IDs or --all, not both") }
        if !all && arguments.operands.isEmpty { throw UsageError("expected the IDs to cancel, or --all") }
        let view = InstanceView(arguments, environment: context.environment)
        let ids = all ? view.addedIDs() : arguments.operands
        var cancelled: [String] = []
        var failed: [(id: String, error: String)] = []
        if !ids.isEmpty {
            try view.requireOwnStateDirectory()
            try view.requireWritable(view.options.addedDirectory)
        }
        for id in ids {
            let path = view.addedPath(id)
            guard NotificationLoader.isValidID(id), FileManager.default.fileExists(atPath: path) else {
                if NotificationLoader.isValidID(id), let file = view.configuredFile(id) {
                    let error =
                        "'\(id)' is defined by \(file.path), not added at run time; 'chimectl disable \(id)' switches "
                        + "it off"
                    failed.append((id, error))
                } else {
                    failed.append(
                        (id, "no notification '\(id)' was added at run time (none in \(view.options.addedDirectory))"))
                }
                continue
            }
            if unlink(path) == 0 {
                cancelled.append(id)
            } else {
                failed.append((id, "cannot remove \(path): \(String(cString: strerror(errno)))"))
            }
        }
        var status: ExitCode = failed.isEmpty ? .success : .failure
        for failure in failed { context.errors.line("chimectl cancel: \(failure.error)") }
        if !cancelled.isEmpty {
            if view.isRunning {
                do {
                    _ = try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") })
                } catch {
                    context.errors.line("chimectl cancel: \(error)")
                    status = .failure
                }
            } else {
                context.errors.line("chimectl cancel: chimed is not running; nothing to unschedule until it starts.")
            }
        }
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("cancelled", .array(cancelled.map(JSONValue.string))),
                    (
                        "failed",
                        .array(failed.map { .object([("id", .string($0.id)), ("error", .string($0.error))]) })
                    ),
                ]).serialized)
        } else {
            for id in cancelled { context.output.line("Cancelled \(id).") }
            if all && ids.isEmpty {
                context.output.line("Nothing was added at run time (\(view.options.addedDirectory) holds no request).")
            }
        }
        return status
    }
}
