import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl badge`: shows, sets or clears the instance's badge number.
struct BadgeCommand: Command {
    static let name = "badge"
    static let summary = "Show, set or clear the badge number"
    static let usage = "chimectl badge [set N | clear] [--json] [--user] [--state-dir=DIR] [--runtime-dir=DIR]"
    static let help = """
        Without arguments, prints the instance's badge number: the count that notifications with Badge= raise,
        lower, set or clear when they are delivered (the app-icon badge of the iOS API). 'set N' makes it N and
        'clear' makes it 0 ("reset the badge at launch"); chimed takes the new number at the rebuild this asks for.
        The number is kept in STATE_DIR/badge and shown by 'chimectl status' and in chimed's status line.

        Options:
          --json                {"badge":N}
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory
          --runtime-dir=DIR     the instance's runtime directory
          -h, --help            show this help

        Exit status: 0, 1 on failure, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        let file = BadgeFile(stateDirectory: view.options.stateDirectory)
        var value: Int
        switch arguments.operands.first {
        case nil:
            guard arguments.operands.isEmpty else { throw UsageError("unexpected '\(arguments.operands[0])'") }
            value = (view.isRunning ? view.snapshot?["badge"] as? Int : nil) ?? file.read().value
        case "set":
            guard arguments.operands.count == 2, let number = Int(arguments.operands[1]), number >= 0,
                number <= 1_000_000_000
            else { throw UsageError("expected 'badge set N' with N a whole number from 0") }
            value = try change(to: number, file: file, view: view, context: context)
        case "clear":
            guard arguments.operands.count == 1 else { throw UsageError("'badge clear' takes no further arguments") }
            value = try change(to: 0, file: file, view: view, context: context)
        case let other?:
            throw UsageError("unknown badge action '\(other)'; expected 'set N' or 'clear'")
        }
        context.output.line(
            arguments.has("json") ? JSONValue.object([("badge", .number(Int64(value)))]).serialized : "\(value)")
        return .success
    }

    private static func change(to value: Int, file: BadgeFile, view: InstanceView, context: CommandContext) throws
        -> Int
    {
        try view.requireWritable(view.options.stateDirectory)
        guard view.isRunning else {
            try file.write(value)
            return value
        }
        try file.request(value)
        let snapshot = try view.rebuild()
        return snapshot["badge"] as? Int ?? value
    }
}
