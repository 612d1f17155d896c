import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl ack`: acknowledges notifications that repeat until acknowledged (`Repeat=`), stopping their repeats.
struct AckCommand: Command {
    static let name = "ack"
    static let summary = "Acknowledge notifications that repeat until acknowledged"
    static let usage = "chimectl ack [--json] [--user] [--state-dir=DIR] [--runtime-dir=DIR] ID..."
    static let help = """
        A notification with Repeat= comes again after each of its time spans, the last one over and over, until
        the user acknowledges it: with the 'ack' action or a click on its bubble, by closing the bubble (unless
        DismissAcknowledges=no), through the application interface, or with this command. Its next occurrence
        starts the repeats again.

        Leaves a request for each ID in STATE_DIR/acknowledge/ and makes the running chimed take them at the
        rebuild this asks for. An ID that is not repeating is reported and changes nothing.

        Options:
          --json                {"acknowledged":[…],"failed":[{"id":…,"error":…}]}
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
          -h, --help            show this help

        Exit status: 0 when every ID was acknowledged, 1 when one was not (the others still are), 64 on usage
        errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let ids = arguments.operands
        guard !ids.isEmpty else { throw UsageError("expected the IDs to acknowledge") }
        if let bad = ids.first(where: { !NotificationLoader.isValidID($0) }) {
            throw UsageError("invalid notification id '\(bad)'")
        }
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        let repeating = Self.repeating(view.snapshot)
        var failed: [(id: String, error: String)] = []
        let wanted = ids.filter { id in
            guard repeating.contains(id) else {
                failed.append((id, "'\(id)' is not repeating; there is nothing to acknowledge"))
                return false
            }
            return true
        }
        var acknowledged: [String] = []
        if !wanted.isEmpty {
            try view.requireOwnStateDirectory()
            try view.requireWritable(view.options.stateDirectory)
            try AcknowledgementRequests(stateDirectory: view.options.stateDirectory).request(wanted)
            let after = Self.repeating(try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") }))
            for id in wanted {
                if after.contains(id) {
                    failed.append((id, "'\(id)' is still repeating after chimed's rebuild"))
                } else {
                    acknowledged.append(id)
                }
            }
        }
        for failure in failed { context.errors.line("chimectl ack: \(failure.error)") }
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("acknowledged", .array(acknowledged.map(JSONValue.string))),
                    (
                        "failed",
                        .array(failed.map { .object([("id", .string($0.id)), ("error", .string($0.error))]) })
                    ),
                ]).serialized)
        } else {
            for id in acknowledged { context.output.line("Acknowledged \(id): no more repeats.") }
        }
        return failed.isEmpty ? .success : .failure
    }

    /// The ids the snapshot lists as repeating until acknowledged.
    private static func repeating(_ snapshot: [String: Any]?) -> Set<String> {
        Set((snapshot?["repeating"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
    }
}
