import ChimeCore
import ChimePlatform
import Foundation

/// `STATE_DIRECTORY/quiet.json`: the user's quiet switch (`chimectl quiet on|off`), which `chimectl` writes and
/// chimed reads at every rebuild, so that it holds across restarts. `{"version":1,"mode":"on","set_usec":…,
/// "until_usec":…}`; no file means the switch was never used.
public struct QuietSwitchFile: Sendable {
    public let path: String

    public init(stateDirectory: String) {
        path = stateDirectory + "/quiet.json"
    }

    /// Why the file cannot be read.
    public struct Unreadable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The switch as kept; `nil` when there is no file.
    public func read() throws(Unreadable) -> QuietSwitch? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(description: "\(path) cannot be read")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["version"] as? Int == 1, let modeText = object["mode"] as? String,
            let mode = QuietSwitch.Mode(rawValue: modeText),
            let setAt = (object["set_usec"] as? NSNumber)?.int64Value
        else { throw Unreadable(description: "\(path) is not a chime quiet switch") }
        let until = (object["until_usec"] as? NSNumber).map { Date(epochMicroseconds: $0.int64Value) }
        return QuietSwitch(mode, setAt: Date(epochMicroseconds: setAt), until: until)
    }

    /// Keeps `quietSwitch`, atomically and synced.
    public func write(_ quietSwitch: QuietSwitch) throws {
        var members: [(String, JSONValue)] = [
            ("version", .number(1)), ("mode", .string(quietSwitch.mode.rawValue)),
            ("set_usec", .number(quietSwitch.setAt.epochMicroseconds)),
        ]
        if let until = quietSwitch.until { members.append(("until_usec", .number(until.epochMicroseconds))) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write(JSONValue.object(members).serialized + "\n", to: path)
    }
}
