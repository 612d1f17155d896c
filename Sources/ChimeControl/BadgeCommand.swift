import ChimeCore
import ChimeDaemon
import Foundation

/// `chimectl badge`: shows, sets or clears the instance's badge number.
struct BadgeCommand: Command {
    static let name = "badge"
    static let summary = "Show, set or clear the badge number"
    static let usage = "chimectl badge [set N|+N|-N | clear] [--json] [--user] [--state-dir=DIR] [--runtime-dir=DIR]"
    static let help = """
        Without arguments, prints the instance's badge number: the count that notifications with Badge= raise,
        lower, set or clear when they are delivered (the app-icon badge of the iOS API). 'set' takes what Badge=
        takes: 'set 3' makes it 3, 'set +2' adds 2, 'set -1' subtracts 1 (never below 0); 'clear' makes it 0
        ("reset the badge at launch"). The running chimed applies the change at the rebuild this asks for, to the
        number it has then. The number is kept in STATE_DIR/badge and shown by 'chimectl status' and in
        chimed's status line.

        Changing the system instance's badge needs it running, or --state-dir naming where it keeps its state.

        Options:
          --json                {"badge":N}
          --user                the calling user's instance
          --state-dir=DIR       the instance's state directory
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
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
            value = (view.isRunning ? view.snapshot?["badge"] as? Int : nil) ?? file.read().value
        case "set":
            guard arguments.operands.count == 2,
                let change = ScheduledNotification.BadgeChange(parsing: arguments.operands[1]),
                change != .clear
            else { throw UsageError("expected 'badge set N', '+N' or '-N' with N a whole number from 0") }
            value = try apply(change, file: file, view: view, stateDirectoryGiven: arguments.value("state-dir") != nil)
        case "clear":
            guard arguments.operands.count == 1 else { throw UsageError("'badge clear' takes no further arguments") }
            value = try apply(.clear, file: file, view: view, stateDirectoryGiven: arguments.value("state-dir") != nil)
        case let other?:
            throw UsageError("unknown badge action '\(other)'; expected 'set N' or 'clear'")
        }
        context.output.line(
            arguments.has("json") ? JSONValue.object([("badge", .number(Int64(value)))]).serialized : "\(value)")
        return .success
    }

    private static func apply(
        _ change: ScheduledNotification.BadgeChange, file: BadgeFile, view: InstanceView, stateDirectoryGiven: Bool
    ) throws -> Int {
        guard view.isRunning else {
            try view.requireRunningToChangeSystemState(stateDirectoryGiven: stateDirectoryGiven)
            try view.requireWritable(view.options.stateDirectory)
            let value = BadgeFile.apply(change, to: file.read().value)
            try file.write(value)
            return value
        }
        try view.requireWritable(view.options.stateDirectory)
        try file.request(change)
        let snapshot = try view.rebuild()
        return snapshot["badge"] as? Int ?? 0
    }
}
