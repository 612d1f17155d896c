import ChimeCore

/// `chimectl completion bash|zsh|fish`: prints a completion script made from chimectl's own commands and options
/// (`CompletionDescription`), so that it can never fall behind them.
struct CompletionCommand: Command {
    static let name = "completion"
    static let summary = "Print the completion script for bash, zsh or fish"
    static let usage = "chimectl completion bash|zsh|fish"
    static let help = """
        Prints a completion script for the shell: commands with what they do, each command's options with
        what they mean, the values of those that take few, and notification ids (from the running chimed)
        where a command takes them. 'make install' installs all three:
        share/bash-completion/completions/chimectl, share/zsh/vendor-completions/_chimectl and
        share/fish/vendor_completions.d/chimectl.fish. To try one in the current shell:

          source <(chimectl completion bash)        # bash
          source <(chimectl completion zsh)         # zsh, after compinit
          chimectl completion fish | source         # fish

        Options:
          -h, --help            show this help
        """
    static let grammar = ParsedArguments.Grammar()

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let description = CompletionDescription.chimectl
        switch arguments.operands {
        case ["bash"]: context.output.write(BashCompletion.script(description))
        case ["zsh"]: context.output.write(ZshCompletion.script(description))
        case ["fish"]: context.output.write(FishCompletion.script(description))
        default: throw UsageError("expected 'bash', 'zsh' or 'fish'")
        }
        return .success
    }
}
