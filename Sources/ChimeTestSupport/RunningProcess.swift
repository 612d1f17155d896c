import ChimeCore
import Foundation

/// A program started in the background whose output the test reads as it comes.
public final class RunningProcess: Sendable {
    private let process = Process()
    /// What it wrote to stdout and stderr so far.
    private let output = Locked<(out: Data, err: Data)>((Data(), Data()))
    /// Left once by each of stdout and stderr at its end of file.
    private let outputEnded = DispatchGroup()

    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        read(outPipe) { $0.out.append($1) }
        read(errPipe) { $0.err.append($1) }
        try Self.withNoSignalsBlocked { try process.run() }
    }

    /// Runs `body` with no signal blocked on this thread. A child starts with its parent thread's signal mask,
    /// and Swift's concurrency threads block SIGHUP, SIGINT and SIGTERM: a program started from one would never
    /// hear the signal a test sends it to stop, and would be killed only when `wait` gives up.
    private static func withNoSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    /// Appends what arrives on `pipe` to the output with `append`, and leaves `outputEnded` at its end.
    private func read(_ pipe: Pipe, _ append: @escaping @Sendable (inout (out: Data, err: Data), Data) -> Void) {
        outputEnded.enter()
        let ended = outputEnded
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            // At the end of the output the handler is removed: Foundation's handle keeps itself (and so the process
            // and its pipes) alive while it has one, which the leak checker reported for every process started.
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                ended.leave()
                return
            }
            self?.output.withLock { append(&$0, data) }
        }
    }

    /// Waits (up to `limit`) for the end of stdout and stderr, which comes once every process holding their
    /// write ends (the program, and children it left behind) has closed them.
    private func waitForEndOfOutput(limit: Duration = .seconds(5)) {
        _ = outputEnded.wait(timeout: .now() + limit.dispatchInterval)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    public var standardOutput: String { output.withLock { String(decoding: $0.out, as: UTF8.self) } }
    public var standardError: String { output.withLock { String(decoding: $0.err, as: UTF8.self) } }

    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end, up to `timeout` seconds; returns its exit status, or `nil` if it is still
    /// running (then it is killed).
    @discardableResult
    public func wait(timeout: Double) -> Int32? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        // Returns at once; Foundation lets go of what it keeps for a process it started only here.
        process.waitUntilExit()
        waitForEndOfOutput()
        return process.terminationStatus
    }

    deinit {
        // A process that Foundation started and nobody waited for is leaked with its pipes and handles (the leak
        // checker reported every one a test had not waited for).
        guard process.processIdentifier != 0 else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

extension RunningProcess {
    /// Waits up to `timeout` for standard output to satisfy `condition`; returns it then, or `nil`.
    public func waitForOutput(timeout: Duration, where condition: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let output = standardOutput
            if condition(output) { return output }
            if !isRunning {
                waitForEndOfOutput()
                return condition(standardOutput) ? standardOutput : nil
            }
            usleep(10_000)
        }
        return nil
    }
}
