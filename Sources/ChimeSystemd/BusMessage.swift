import CSystemd
import ChimePlatform
import Glibc

/// A D-Bus value of one of the basic types chime sends and reads in variants (`v`) and `a{sv}` dictionaries.
public enum BusValue: Sendable, Equatable {
    case string(String)
    case byte(UInt8)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    case strings([String])
    /// A value read of a type none of the others is (`d`, `v`, `a{sv}`…), by its signature: kept so that a caller
    /// can be told what it sent instead of it being left out. It cannot be written.
    case unsupported(signature: String)

    /// The D-Bus type signature of the value (`s`, `y`, `b`, `i`, `u`, `x`, `d`, `as`).
    public var signature: String {
        switch self {
        case .unsupported(let signature): return signature
        case .strings: return "as"
        case .string: return "s"
        case .byte: return "y"
        case .boolean: return "b"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .double: return "d"
        }
    }
}

/// An error reply to a method call: its D-Bus error name and message.
public struct BusMethodError: Error, Equatable, CustomStringConvertible {
    /// e.g. `org.freedesktop.DBus.Error.ServiceUnknown`.
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// Appends arguments to an outgoing `sd_bus_message`, valid only inside the closure it is handed to (on the bus
/// queue).
///
/// sd-bus's variadic `sd_bus_message_append` cannot be called from Swift; this appends one basic value at a time
/// (`sd_bus_message_append_basic`) and opens and closes containers (`sd_bus_message_open_container`,
/// `sd_bus_message_close_container`).
public struct BusMessageWriter {
    let message: OpaquePointer

    /// Appends a string (`s`).
    public mutating func append(_ value: String) throws(SystemdError) {
        let result = value.withCString { sd_bus_message_append_basic(message, Self.type("s"), $0) }
        try SystemdError.check(result, call: "sd_bus_message_append_basic")
    }

    /// Appends a basic value of the type the enum case names.
    public mutating func append(_ value: BusValue) throws(SystemdError) {
        switch value {
        case .string(let string): try append(string)
        case .byte(let byte): try appendBasic("y", byte)
        case .boolean(let flag): try appendBasic("b", Int32(flag ? 1 : 0))
        case .int32(let number): try appendBasic("i", number)
        case .uint32(let number): try appendBasic("u", number)
        case .int64(let number): try appendBasic("x", number)
        case .double(let number): try appendBasic("d", number)
        case .strings(let strings): try append(strings: strings)
        case .unsupported: throw SystemdError(call: "sd_bus_message_append_basic", errno: .invalidArgument)
        }
    }

    /// Appends an array of strings (`as`).
    public mutating func append(strings: [String]) throws(SystemdError) {
        try openContainer("a", contents: "s")
        for string in strings { try append(string) }
        try closeContainer()
    }

    /// Appends a variant (`v`) holding `value`.
    public mutating func append(variant value: BusValue) throws(SystemdError) {
        try openContainer("v", contents: value.signature)
        try append(value)
        try closeContainer()
    }

    /// Appends a dictionary of variants (`a{sv}`), entries in the given order.
    public mutating func append(dictionary entries: [(key: String, value: BusValue)]) throws(SystemdError) {
        try openContainer("a", contents: "{sv}")
        for entry in entries {
            try openContainer("e", contents: "sv")
            try append(entry.key)
            try append(variant: entry.value)
            try closeContainer()
        }
        try closeContainer()
    }

    /// Opens a container with `sd_bus_message_open_container`: `a` (array), `v` (variant), `r` (struct) or `e`
    /// (dictionary entry) holding `contents`.
    public mutating func openContainer(_ type: Character, contents: String) throws(SystemdError) {
        let result = contents.withCString { sd_bus_message_open_container(message, Self.type(type), $0) }
        try SystemdError.check(result, call: "sd_bus_message_open_container")
    }

    /// Closes the innermost open container (`sd_bus_message_close_container`).
    public mutating func closeContainer() throws(SystemdError) {
        try SystemdError.check(sd_bus_message_close_container(message), call: "sd_bus_message_close_container")
    }

    private mutating func appendBasic<T>(_ type: Character, _ value: T) throws(SystemdError) {
        var copy = value
        let result = withUnsafePointer(to: &copy) { sd_bus_message_append_basic(message, Self.type(type), $0) }
        try SystemdError.check(result, call: "sd_bus_message_append_basic")
    }

    static func type(_ character: Character) -> CChar { CChar(character.asciiValue!) }
}

/// Reads the arguments of an incoming `sd_bus_message` (a reply or a signal), valid only inside the closure it is
/// handed to (on the bus queue).
///
/// Wraps `sd_bus_message_read_basic`, `sd_bus_message_enter_container`, `sd_bus_message_exit_container`,
/// `sd_bus_message_peek_type` and `sd_bus_message_skip`. Reading a value of another type than the next one throws
/// `SystemdError` with `ENXIO`.
public struct BusMessageReader {
    let message: OpaquePointer

    /// The unique name of the sending connection (`:1.42`), if the message has one.
    public var sender: String? { sd_bus_message_get_sender(message).map { String(cString: $0) } }
    public var path: String? { sd_bus_message_get_path(message).map { String(cString: $0) } }
    public var interface: String? { sd_bus_message_get_interface(message).map { String(cString: $0) } }
    public var member: String? { sd_bus_message_get_member(message).map { String(cString: $0) } }

    /// Reads a string (`s`) or object path (`o`).
    public mutating func readString() throws(SystemdError) -> String {
        let kind = try peekType()?.type
        var pointer: UnsafePointer<CChar>?
        let result = sd_bus_message_read_basic(message, BusMessageWriter.type(kind == "o" ? "o" : "s"), &pointer)
        try SystemdError.check(result == 0 ? -ENXIO : result, call: "sd_bus_message_read_basic")
        return pointer.map { String(cString: $0) } ?? ""
    }

    public mutating func readUInt32() throws(SystemdError) -> UInt32 { try readBasic("u", UInt32(0)) }
    public mutating func readInt64() throws(SystemdError) -> Int64 { try readBasic("x", Int64(0)) }
    public mutating func readInt32() throws(SystemdError) -> Int32 { try readBasic("i", Int32(0)) }
    public mutating func readBoolean() throws(SystemdError) -> Bool { try readBasic("b", Int32(0)) != 0 }

    /// Reads a file descriptor (`h`) and returns a copy of it (close-on-exec) that the caller owns: the message's
    /// own is closed with the message.
    public mutating func readFileDescriptor() throws(SystemdError) -> Int32 {
        let borrowed = try readBasic("h", Int32(-1))
        let copy = fcntl(borrowed, F_DUPFD_CLOEXEC, 3)
        try SystemdError.check(copy < 0 ? -errno : copy, call: "fcntl(F_DUPFD_CLOEXEC)")
        return copy
    }

    /// Reads an array of strings (`as`).
    public mutating func readStrings() throws(SystemdError) -> [String] {
        try enterContainer("a", contents: "s")
        var strings: [String] = []
        while try peekType() != nil { strings.append(try readString()) }
        try exitContainer()
        return strings
    }

    /// Reads a variant: a value of the types `BusValue` has, else `.unsupported` with its signature (skipped);
    /// `nil` at the end of the message or container.
    public mutating func readVariant() throws(SystemdError) -> BusValue? {
        guard let (_, contents) = try peekType(), let contents else { return nil }
        try enterContainer("v", contents: contents)
        let value: BusValue?
        switch contents {
        case "s": value = .string(try readString())
        case "y": value = .byte(try readBasic("y", UInt8(0)))
        case "b": value = .boolean(try readBasic("b", Int32(0)) != 0)
        case "i": value = .int32(try readBasic("i", Int32(0)))
        case "u": value = .uint32(try readBasic("u", UInt32(0)))
        case "x": value = .int64(try readBasic("x", Int64(0)))
        case "d": value = .double(try readBasic("d", Double(0)))
        case "as": value = .strings(try readStrings())
        default:
            try skip(contents)
            value = .unsupported(signature: contents)
        }
        try exitContainer()
        return value
    }

    /// Reads a dictionary of variants (`a{sv}`), in message order; a value of a type `BusValue` has no case for is
    /// `.unsupported` with its signature.
    public mutating func readDictionary() throws(SystemdError) -> [(key: String, value: BusValue)] {
        try enterContainer("a", contents: "{sv}")
        var entries: [(key: String, value: BusValue)] = []
        while try peekType() != nil {
            try enterContainer("e", contents: "sv")
            let key = try readString()
            if let value = try readVariant() { entries.append((key, value)) }
            try exitContainer()
        }
        try exitContainer()
        return entries
    }

    /// The type of the next argument and, for a container, the signature of its contents; `nil` at the end of the
    /// message or of the current container.
    public mutating func peekType() throws(SystemdError) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let result = sd_bus_message_peek_type(message, &type, &contents)
        try SystemdError.check(result, call: "sd_bus_message_peek_type")
        guard result > 0 else { return nil }
        return (Character(UnicodeScalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    public mutating func enterContainer(_ type: Character, contents: String) throws(SystemdError) {
        let result = contents.withCString {
            sd_bus_message_enter_container(message, BusMessageWriter.type(type), $0)
        }
        try SystemdError.check(result == 0 ? -ENXIO : result, call: "sd_bus_message_enter_container")
    }

    public mutating func exitContainer() throws(SystemdError) {
        try SystemdError.check(sd_bus_message_exit_container(message), call: "sd_bus_message_exit_container")
    }

    /// Skips arguments of the signature `types`.
    public mutating func skip(_ types: String) throws(SystemdError) {
        let result = types.withCString { sd_bus_message_skip(message, $0) }
        try SystemdError.check(result, call: "sd_bus_message_skip")
    }

    private mutating func readBasic<T>(_ type: Character, _ initial: T) throws(SystemdError) -> T {
        var value = initial
        let result = withUnsafeMutablePointer(to: &value) {
            sd_bus_message_read_basic(message, BusMessageWriter.type(type), $0)
        }
        try SystemdError.check(result == 0 ? -ENXIO : result, call: "sd_bus_message_read_basic")
        return value
    }
}
