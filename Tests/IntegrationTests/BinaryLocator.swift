import Foundation

/// Finds the built `chimed`/`chimectl` binaries next to the test bundle.
enum BinaryLocator {
    static func url(of name: String) -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/\(name)")
    }
}
