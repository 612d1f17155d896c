import ChimeCore

/// `chimectl timespan`: parses time spans as `systemd-analyze timespan` does.
struct TimespanCommand: Command {
    static let name = "timespan"
    static let summary = "Parse time spans and show them in microseconds and normalised"
    static let usage = "chimectl timespan [--json] TIMESPAN..."
    static let help = """
        Parses each TIMESPAN as systemd.time(7) reads one — '15min', '1h 30min', '2d', '500ms', '1.5h', or a bare
        number of seconds — and prints it in microseconds and in normalised form. This is the syntax of Every=
        and SnoozeSec= in notification files.

        Options:
          --json                one JSON object per TIMESPAN and line:
                                {"timespan":…,"usec":…,"normalized":…} or {"timespan":…,"error":…}
          -h, --help            show this help

        Exit status: 0 if every TIMESPAN parsed, 1 otherwise, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar(flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected at least one time span") }
        var status = ExitCode.success
        for (index, text) in arguments.operands.enumerated() {
            let span: Timespan
            do {
                span = try Timespan.parse(text)
            } catch {
                status = .failure
                if arguments.has("json") {
                    context.output.line(
                        JSONValue.object([("timespan", .string(text)), ("error", .string("\(error)"))]).serialized)
                } else {
                    context.errors.line("Failed to parse time span '\(text)': \(error)")
                }
                continue
            }
            if arguments.has("json") {
                let usec: JSONValue = span.isInfinite ? .string("infinity") : .number(Int64(span.microseconds))
                let members: [(String, JSONValue)] = [
                    ("timespan", .string(text)), ("usec", usec), ("normalized", .string(span.description)),
                ]
                context.output.line(JSONValue.object(members).serialized)
                continue
            }
            var lines = LabelledLines()
            lines.add("Original:", text)
            lines.add("μs:", span.isInfinite ? "infinity" : String(span.microseconds))
            lines.add("Human:", span.description)
            context.output.write(lines.rendered())
            if index + 1 < arguments.operands.count { context.output.line() }
        }
        return status
    }
}
