import ChimeCore
import ChimePlatform
import Foundation

/// The instance's badge number (the app-icon badge of the iOS API), kept in `STATE_DIR/badge` as a decimal
/// number: changed by deliveries of notifications with `Badge=`, and by `chimectl badge`.
///
/// Only chimed writes `badge` while it runs; `chimectl badge set/clear` leaves the change in `badge.request`,
/// which chimed applies at its next rebuild, so that a delivery at the same moment cannot undo the request.
public struct BadgeFile: Sendable {
    public let path: String
    public let requestPath: String

    public init(stateDirectory: String) {
        path = stateDirectory + "/badge"
        requestPath = stateDirectory + "/badge.request"
    }

    /// Leaves `change` (`3`, `+2`, `-1`, `clear`) for chimed to apply at its next rebuild: a relative change is
    /// applied to the number as chimed has it then, so that a delivery in between is not undone.
    public func request(_ change: ScheduledNotification.BadgeChange) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write("\(change)\n", to: requestPath)
    }

    /// A requested change, removing the request; `nil` when there is none or it cannot be read.
    public func takeRequest() -> ScheduledNotification.BadgeChange? {
        guard let text = try? String(contentsOfFile: requestPath, encoding: .utf8) else { return nil }
        unlink(requestPath)
        return ScheduledNotification.BadgeChange(parsing: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The stored number; 0 when there is none, and 0 with a problem when the file holds something else.
    public func read() -> (value: Int, problem: String?) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (0, nil) }
        guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value >= 0 else {
            return (0, "\(path) does not hold a badge number; taking 0")
        }
        return (value, nil)
    }

    public func write(_ value: Int) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write("\(value)\n", to: path)
    }

    /// The number after `change` is applied to `value` (never below 0).
    public static func apply(_ change: ScheduledNotification.BadgeChange, to value: Int) -> Int {
        switch change {
        case .set(let number): return number
        case .add(let delta): return max(0, value + delta)
        case .clear: return 0
        }
    }
}
