import ChimeCore

/// One `chimectl` verb.
protocol Command: Sendable {
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    static var usage: String { get }
    /// The body of `--help`, after the usage line.
    static var help: String { get }
    static var grammar: ParsedArguments.Grammar { get }
    /// Whether the command takes words after its options; one that does not refuses them as a usage error.
    static var takesOperands: Bool { get }

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode
}

extension Command {
    static var takesOperands: Bool { true }
}
