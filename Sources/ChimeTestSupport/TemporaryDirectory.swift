import Foundation

/// A fresh directory under the system's temporary directory, removed when `remove()` is called.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(prefix: String = "chime-test") throws {
        let base = FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    /// Writes `contents` to `name` (which may contain subdirectories) and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
