import ChimeTestSupport
import Foundation
import Testing

/// `make test` runs most suites side by side (tools/test-shards); a suite that sets the wall clock would move every
/// other test's chimed with it, so each must be one of the Makefile's TEST_ALONE, which run with nothing beside them.
@Suite struct TestPassesTests {
    static let tests = BinaryLocator.packageRoot.appendingPathComponent("Tests")

    /// The words of the Makefile's `TEST_ALONE = ...` line.
    static func aloneSuites() throws -> Set<String> {
        let makefile = try String(
            contentsOf: BinaryLocator.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        let line = makefile.split(separator: "\n").first { $0.hasPrefix("TEST_ALONE =") } ?? ""
        return Set(line.dropFirst("TEST_ALONE =".count).split(separator: " ").map(String.init))
    }

    /// Every file under Tests, with its text.
    static func testFiles() throws -> [(path: String, text: String)] {
        let walker = FileManager.default.enumerator(atPath: tests.path)
        var files: [(String, String)] = []
        while let relative = walker?.nextObject() as? String {
            let path = tests.appendingPathComponent(relative).path
            guard !relative.hasPrefix("Fixtures/"), let text = try? String(contentsOfFile: path, encoding: .utf8)
            else { continue }
            files.append((relative, text))
        }
        return files
    }

    /// The names of the test structs a Swift file declares.
    static func suites(in text: String) -> [String] {
        text.matches(of: /struct (\w+Tests)\b/).map { String($0.output.1) }
    }

    @Test func everySuiteThatSetsTheClockRunsAlone() throws {
        let files = try Self.testFiles()
        let alone = try Self.aloneSuites()
        var setters: [String] = []
        for file in files where !file.path.hasSuffix("/TestPassesTests.swift") {
            guard file.text.contains("clock_settime") || file.text.contains("RealtimeClockStepper()") else { continue }
            if file.path.hasSuffix(".swift") {
                setters += Self.suites(in: file.text)
            } else {
                // A script: the suites that run it.
                let name = URL(fileURLWithPath: file.path).lastPathComponent
                setters += files.filter { $0.path.hasSuffix(".swift") && $0.text.contains("/\(name)\"") }
                    .flatMap { Self.suites(in: $0.text) }
            }
        }
        #expect(setters.contains("ChimedClockChangeTests") && setters.contains("SystemdE2ETests"), "\(setters)")
        for suite in setters {
            #expect(alone.contains(suite), "\(suite) sets the wall clock but is not in the Makefile's TEST_ALONE")
        }
        // And each name there is a suite.
        let declared = Set(files.filter { $0.path.hasSuffix(".swift") }.flatMap { Self.suites(in: $0.text) })
        #expect(alone.subtracting(declared).isEmpty, "TEST_ALONE names \(alone.subtracting(declared)), not a suite")
    }
}
