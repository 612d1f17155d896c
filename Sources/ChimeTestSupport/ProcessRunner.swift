import ChimeCore
import Foundation

/// Runs a program to completion and collects its output: the tests' way of running real binaries.
public enum ProcessRunner {
    public struct Output: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// Runs `path` with `arguments`; `environment` entries are added to (and override) the test's environment.
    /// `directory` is its working directory (by default the test's).
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        directory: String? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true) }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so that neither can fill up and block the child.
        let errData = LockedData()
        let reader = Thread { errData.set(errPipe.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { usleep(1_000) }
        return Output(
            status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData.value, as: UTF8.self))
    }
}

private final class LockedData: Sendable {
    private let data = Locked<Data?>(nil)

    func set(_ value: Data) {
        data.withLock { $0 = value }
    }

    var isSet: Bool { data.withLock { $0 != nil } }

    var value: Data { data.withLock { $0 ?? Data() } }
}
