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
    ///
    /// The file gets `permissions` and the directories 0755 whatever the umask, since chimed refuses files that
    /// others can write.
    @discardableResult
    public func write(_ name: String, _ contents: String, permissions: Int = 0o644) throws -> String {
        let fileManager = FileManager.default
        let file = url.appendingPathComponent(name)
        try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var directory = file.deletingLastPathComponent()
        while directory.path.count > url.path.count {
            try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            directory = directory.deletingLastPathComponent()
        }
        try contents.write(to: file, atomically: true, encoding: .utf8)
        try fileManager.setAttributes([.posixPermissions: permissions], ofItemAtPath: file.path)
        return file.path
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
