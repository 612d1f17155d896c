import Foundation

/// Finds the built `chimed`/`chimectl` binaries: next to the test bundle, or in `.build/debug` of the package.
enum BinaryLocator {
    static func path(of name: String) -> String {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// The package's root directory (where Package.swift is).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
