import Foundation

/// Finds the package's built executables (`chimed`, `chimectl`, test helpers): next to the test bundle, or in
/// `.build/debug` of the package.
public enum BinaryLocator {
    public static func path(of name: String) -> String {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// A `PATH` that finds the package's executables first (the example calendar generator runs `chime-calendar`),
    /// then the system's.
    public static var searchPath: String {
        URL(fileURLWithPath: path(of: "chime-calendar")).deletingLastPathComponent().path
            + ":/usr/local/bin:/usr/bin:/bin"
    }

    /// The package's root directory (where Package.swift is).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
