import ChimeCore

/// The `chimectl` program: picks the verb, parses its arguments, runs it, and maps failures to exit statuses.
public enum Chimectl {
    static let commands: [any Command.Type] = [
        ListCommand.self, NextCommand.self, StatusCommand.self, AddCommand.self, CancelCommand.self,
        DisableCommand.self, EnableCommand.self, FireCommand.self, ReloadCommand.self, HistoryCommand.self,
        BadgeCommand.self,
        VerifyCommand.self, CalendarCommand.self, TimestampCommand.self, TimespanCommand.self, CompletionCommand.self,
    ]

    public static let version = "0.1.0"

    /// Runs `chimectl` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String], context: CommandContext) -> ExitCode {
        defer {
            context.output.flush()
            context.errors.flush()
        }
        return dispatch(arguments, context: context)
    }

    private static func dispatch(_ arguments: [String], context: CommandContext) -> ExitCode {
        guard let verb = arguments.first else {
            context.errors.write(usage)
            return .usage
        }
        switch verb {
        case "-h", "--help", "help":
            context.output.write(usage)
            return .success
        case "--version":
            context.output.line("chimectl \(version)")
            return .success
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == verb }) else {
            context.errors.line("chimectl: unknown command '\(verb)'; see 'chimectl --help'")
            return .usage
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), grammar: command.grammar)
            if parsed.has("help") {
                context.output.write("Usage: \(command.usage)\n\n\(command.summary).\n\n\(command.help)\n")
                return .success
            }
            return try command.run(parsed, in: context)
        } catch let error as UsageError {
            context.errors.line("chimectl \(verb): \(error)")
            context.errors.line("Usage: \(command.usage)")
            return .usage
        } catch {
            context.errors.line("chimectl \(verb): \(error)")
            return .failure
        }
    }

    static var usage: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map {
            "  " + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary
        }
        return """
            Usage: chimectl COMMAND [OPTIONS] [ARGUMENTS]

            Control and inspect chime, the local-notification daemon.

            Commands:
            \(list.joined(separator: "\n"))

            Options:
              -h, --help     show help (also after a command: chimectl calendar --help)
              --version      show the version

            See chimectl(1), chime.notification(5).

            """
    }
}
