import ChimeCore

/// What the shell completions of `chimectl` know, taken from the commands themselves so that no script can fall
/// behind them: each command with its summary, its options (a description from its `--help`, and the values some
/// of them take), and what its operands are. Bash, zsh and fish scripts are written from this one description.
struct CompletionDescription {
    struct Option {
        var name: String
        var takesValue: Bool
        var description: String
        /// The words the value may be, where there are few.
        var values: [String]
    }

    enum Operands {
        case none
        /// Ids of the running chimed's notifications (`chimectl list --json`).
        case ids
        case files
        case words([String])
    }

    struct Command {
        var name: String
        var summary: String
        var options: [Option]
        var operands: Operands
    }

    let commands: [Command]

    /// Values of options, and words of operands, where there are few.
    static let optionValues: [String: [String]] = [
        "urgency": ["low", "normal", "critical"],
        "interruption-level": ["passive", "active", "time-sensitive", "critical"],
    ]
    static let operandWords: [String: [String]] = [
        "quiet": ["on", "off", "status"], "badge": ["set", "clear"], "completion": ["bash", "zsh", "fish"],
    ]
    static let idCommands: Set<String> = ["cancel", "disable", "enable", "fire", "history", "ack"]

    /// The description of `Chimectl.commands`.
    static var chimectl: CompletionDescription {
        CompletionDescription(
            commands: Chimectl.commands.map { command in
                let grammar = command.grammar.adding(Chimectl.globalGrammar)
                let help = command.help + "\n" + Chimectl.usage
                let options =
                    grammar.valued.map { ($0, true) } + grammar.flags.map { ($0, false) }
                let operands: Operands =
                    idCommands.contains(command.name)
                    ? .ids
                    : command.name == "verify"
                        ? .files : operandWords[command.name].map(Operands.words) ?? .none
                return Command(
                    name: command.name, summary: command.summary,
                    options: options.sorted { $0.0 < $1.0 }.map { name, takesValue in
                        Option(
                            name: name, takesValue: takesValue, description: describe(name, in: help),
                            values: optionValues[name] ?? [])
                    }, operands: operands)
            })
    }

    /// What `--help` says of `--name`: the text after the names on the line that introduces it
    /// (`  --title=TEXT          the summary (required)`), or the line after when the names fill theirs.
    static func describe(_ name: String, in help: String) -> String {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let text: Substring = line.drop(while: { $0 == " " })
            return (indent: line.count - text.count, text: text)
        }
        for (index, line) in lines.enumerated() where line.text.hasPrefix("-") && line.indent <= 4 {
            let gap = line.text.range(of: "  ")
            let names = (gap.map { line.text[..<$0.lowerBound] } ?? line.text).split(separator: ", ").map {
                $0.prefix { $0 != "=" && $0 != " " && $0 != "[" }
            }
            guard names.contains(where: { $0 == "--\(name)" }) else { continue }
            if let gap { return String(line.text[gap.upperBound...].drop(while: { $0 == " " })) }
            if index + 1 < lines.count, lines[index + 1].indent > line.indent, !lines[index + 1].text.hasPrefix("-") {
                return String(lines[index + 1].text)
            }
            return ""
        }
        return ""
    }
}
