import ChimeCore

/// The `chimectl` program: picks the verb, parses its arguments, runs it, and maps failures to exit statuses.
public enum Chimectl {
    static let commands: [any Command.Type] = [
        ListCommand.self, NextCommand.self, StatusCommand.self, AddCommand.self, CancelCommand.self,
        DisableCommand.self, EnableCommand.self, FireCommand.self, ReloadCommand.self, HistoryCommand.self,
        BadgeCommand.self, QuietCommand.self, AckCommand.self,
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

    /// Options every command takes, before or after its name, as systemctl's do.
    static let globalGrammar = ParsedArguments.Grammar(
        valued: ["config-dir", "state-dir", "runtime-dir"], flags: ["user", "json", "no-pager"])

    private static func dispatch(_ arguments: [String], context: CommandContext) -> ExitCode {
        // The options before the command are global ones; they are read as if they came after it.
        var leading: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "-" {
            let argument = arguments[index]
            index += 1
            if argument == "--version" {
                context.output.line("chimectl \(version)")
                return .success
            }
            if argument == "--" { break }
            leading.append(argument)
            if globalGrammar.takesSeparateValue(argument), index < arguments.count {
                leading.append(arguments[index])
                index += 1
            }
        }
        let global: ParsedArguments
        do {
            global = try ParsedArguments(leading, grammar: globalGrammar)
        } catch {
            context.errors.line("chimectl: \(error)")
            context.errors.line("See 'chimectl --help'.")
            return .usage
        }
        guard index < arguments.count else {
            if global.has("help") {
                context.output.write(usage)
                return .success
            }
            context.errors.write(usage)
            return .usage
        }
        var verb = arguments[index]
        var rest = Array(arguments[(index + 1)...])
        if verb == "help" {
            guard let topic = rest.first else {
                context.output.write(usage)
                return .success
            }
            guard rest.count == 1 else {
                context.errors.line("chimectl help: expected one command, not '\(rest.joined(separator: " "))'")
                return .usage
            }
            verb = topic
            rest = ["--help"]
        }
        guard let command = commands.first(where: { $0.name == verb }) else {
            context.errors.line("chimectl: unknown command '\(verb)'; see 'chimectl --help'")
            return .usage
        }
        do {
            let parsed = try ParsedArguments(leading + rest, grammar: command.grammar.adding(globalGrammar))
            if parsed.has("help") {
                context.output.write("Usage: \(command.usage)\n\n\(command.summary).\n\n\(command.help)\n")
                return .success
            }
            if !command.takesOperands, let extra = parsed.operands.first {
                throw UsageError("unexpected argument '\(extra)'")
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

            Options, before or after the command:
              --user                the calling user's instance instead of the system's
              --config-dir=DIR      the instance's configuration directory; repeatable
              --state-dir=DIR       the instance's state directory
              --runtime-dir=DIR     the instance's runtime directory
              --json                data as JSON, where a command prints data
              --no-pager            accepted for systemctl's sake; chimectl never pages
              -h, --help            show help (of a command: 'chimectl help list', 'chimectl list --help')
              --version             show the version

            See chimectl(1), chime.notification(5).

            """
    }
}
