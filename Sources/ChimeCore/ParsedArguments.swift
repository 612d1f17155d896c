/// A command line split into options and operands, checked against what a command accepts.
///
/// Accepts `--name=value`, `--name value`, `-x value` for options that take a value, bare `--flag`s, and `--` to end
/// options. Anything else starting with `-` is a usage error (exit status 64).
public struct ParsedArguments: Sendable {
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var operands: [String] = []

    /// What a command accepts: option names taking a value, flags, and short aliases (`"h": "help"`).
    public struct Grammar: Sendable {
        public var valued: Set<String>
        public var flags: Set<String>
        public var aliases: [Character: String]

        public init(valued: Set<String> = [], flags: Set<String> = [], aliases: [Character: String] = [:]) {
            self.valued = valued
            self.flags = flags.union(["help"])
            self.aliases = aliases.merging(["h": "help"]) { a, _ in a }
        }

        /// This grammar and `other`'s options together.
        public func adding(_ other: Grammar) -> Grammar {
            Grammar(
                valued: valued.union(other.valued), flags: flags.union(other.flags),
                aliases: aliases.merging(other.aliases) { a, _ in a })
        }

        /// Whether `argument` is an option that takes its value from the next argument (`--name value`, `-x value`).
        public func takesSeparateValue(_ argument: String) -> Bool {
            if argument.hasPrefix("--") {
                return !argument.contains("=") && valued.contains(String(argument.dropFirst(2)))
            }
            guard argument.count == 2, let letter = argument.dropFirst().first, let long = aliases[letter] else {
                return false
            }
            return valued.contains(long)
        }
    }

    public init(_ arguments: [String], grammar: Grammar) throws(UsageError) {
        var index = 0
        var onlyOperands = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            // A negative number is a word, not an option: `badge set -1`.
            let isNegativeNumber = argument.count > 1 && argument.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") || isNegativeNumber {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                onlyOperands = true
                continue
            }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    inlineValue = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                }
            } else {
                let letters = Array(argument.dropFirst())
                guard let first = letters.first, let long = grammar.aliases[first] else {
                    throw UsageError("unknown option '\(argument)'")
                }
                name = long
                if letters.count > 1 { inlineValue = String(letters.dropFirst()) }
            }
            if grammar.flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                flags.insert(name)
            } else if grammar.valued.contains(name) {
                if inlineValue == nil {
                    guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                    inlineValue = arguments[index]
                    index += 1
                }
                values[name, default: []].append(inlineValue ?? "")
            } else {
                throw UsageError("unknown option '\(argument)'")
            }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The last value given for `name`.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for `name`, in order.
    public func all(_ name: String) -> [String] { values[name] ?? [] }
}

/// Bad invocation: printed with the command's name, exit status 64 (`EX_USAGE`).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
