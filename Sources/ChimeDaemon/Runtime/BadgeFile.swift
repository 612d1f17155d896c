import ChimeCore
import Foundation

/// The instance's badge number (the app-icon badge of the iOS API), kept in `STATE_DIR/badge` as a decimal
/// number: changed by deliveries of notifications with `Badge=`, and by `chimectl badge`.
///
/// Only chimed writes `badge` while it runs; `chimectl badge set/clear` leaves the new number in `badge.request`,
/// which chimed takes at its next rebuild, so that a delivery at the same moment cannot undo the request.
public struct BadgeFile: Sendable {
    public let path: String
    public let requestPath: String

    public init(stateDirectory: String) {
        path = stateDirectory + "/badge"
        requestPath = stateDirectory + "/badge.request"
    }

    /// Leaves `value` for chimed to take at its next rebuild.
    public func request(_ value: Int) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try AtomicFile.write("\(value)\n", to: requestPath)
    }

    /// A requested number, removing the request; `nil` when there is none.
    public func takeRequest() -> Int? {
        guard let text = try? String(contentsOfFile: requestPath, encoding: .utf8) else { return nil }
        unlink(requestPath)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 >= 0 ? $0 : nil }
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
