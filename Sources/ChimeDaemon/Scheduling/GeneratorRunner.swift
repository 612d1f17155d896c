import Foundation
import Glibc

/// How one run of a generator went: how it ended, what it printed on stdout, and the end of its stderr.
struct GeneratorRun: Sendable {
    enum Ending: Sendable, Equatable {
        case exited(status: Int32)
        case killedBySignal(Int32)
        /// Still running (or its output still open) at the deadline: killed with everything it started.
        case timedOut
        /// Printed more than the output limit: killed with everything it started.
        case printedTooMuch
        /// Could not be started; the system's reason.
        case failedToStart(String)
    }

    var ending: Ending
    var output: [UInt8] = []
    /// The last `GeneratorRunner.standardErrorTailLimit` bytes it wrote to stderr.
    var standardErrorTail: [UInt8] = []
}

/// Runs one generator: the executable itself (argv is just its path, no shell), stdin from /dev/null, stdout and
/// stderr read until both are closed, all within a deadline.
///
/// The generator is started in a process group of its own, so that on timeout (or too much output) SIGKILL to the
/// group also ends whatever it started: a helper left behind would otherwise keep the output pipe open.
///
/// A generator has finished when it has exited and everything it started has too: Foundation reports the exit only
/// once no process holds the descriptor it watches, which children inherit. So one that leaves a process running in
/// the background runs into the timeout, and that process is killed with it.
struct GeneratorRunner: Sendable {
    var timeout: Duration
    /// The most stdout bytes accepted; a generator printing more is killed.
    var outputLimit: Int

    static let standardErrorTailLimit = 2048

    /// A started generator: the process, the read ends of its output, and a semaphore signalled at its exit.
    private struct Child {
        let process: Process
        let stdout: FileHandle
        let stderr: FileHandle
        let exited: DispatchSemaphore
    }

    /// How often a start that fails with ETXTBSY is tried again, a few milliseconds more apart each time.
    static let busyRetries = 5

    func run(_ path: String, environment: [String: String], workingDirectory: String) -> GeneratorRun {
        let deadline = ContinuousClock.now + timeout
        var child: Child
        var attempt = 0
        while true {
            do {
                child = try start(path, environment: environment, workingDirectory: workingDirectory)
                break
            } catch {
                // "Text file busy": the file is open for writing somewhere. Often only for a moment: an editor
                // saving it, or a fork(2) in another thread of this process that has not yet reached exec and
                // closed its inherited descriptors.
                attempt += 1
                guard Self.posixCode(error) == ETXTBSY, attempt <= Self.busyRetries, ContinuousClock.now < deadline
                else { return GeneratorRun(ending: .failedToStart(Self.startFailure(error))) }
                usleep(UInt32(attempt) * 10_000)
            }
        }
        defer {
            try? child.stdout.close()
            try? child.stderr.close()
        }
        let process = child.process
        let exited = child.exited
        let pid = process.processIdentifier
        // Foundation starts the child as the leader of a new process group (POSIX_SPAWN_SETPGROUP). Should that
        // ever change, signal the child alone rather than the group it shares with chimed.
        let ownsGroup = getpgid(pid) == pid
        func killAll() { kill(ownsGroup ? -pid : pid, SIGKILL) }

        var run = GeneratorRun(ending: .exited(status: 0))
        run.ending = read(
            stdout: child.stdout.fileDescriptor, stderr: child.stderr.fileDescriptor, into: &run, until: deadline)
        run.standardErrorTail = Array(run.standardErrorTail.suffix(Self.standardErrorTailLimit))
        if run.ending == .exited(status: 0), exited.wait(timeout: Self.dispatchTime(deadline)) == .timedOut {
            // It closed stdout and stderr but has not exited.
            run.ending = .timedOut
        }
        guard run.ending == .exited(status: 0) else {
            killAll()
            _ = exited.wait(timeout: .now() + .seconds(5))
            return run
        }
        let status = process.terminationStatus
        run.ending = process.terminationReason == .uncaughtSignal ? .killedBySignal(status) : .exited(status: status)
        return run
    }

    private func start(
        _ path: String, environment: [String: String], workingDirectory: String
    ) throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = []
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory, isDirectory: true)
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        return Child(
            process: process, stdout: stdout.fileHandleForReading, stderr: stderr.fileHandleForReading, exited: exited)
    }

    /// Reads both pipes until both are closed (`.exited(status: 0)` as a placeholder), the deadline passes or
    /// stdout exceeds the limit.
    private func read(
        stdout: Int32, stderr: Int32, into run: inout GeneratorRun, until deadline: ContinuousClock.Instant
    ) -> GeneratorRun.Ending {
        var descriptors = [pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)]
        descriptors.append(pollfd(fd: stderr, events: Int16(POLLIN), revents: 0))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while descriptors.contains(where: { $0.fd >= 0 }) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .timedOut }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Self.milliseconds(remaining))
            if ready < 0 && errno != EINTR { return .timedOut }
            for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let count = Glibc.read(descriptors[index].fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    // Closed (or failed): poll(2) skips negative descriptors.
                    descriptors[index].fd = -1
                    continue
                }
                if index == 0 {
                    run.output += buffer[..<count]
                    if run.output.count > outputLimit { return .printedTooMuch }
                } else {
                    run.standardErrorTail += buffer[..<count]
                    if run.standardErrorTail.count > 2 * Self.standardErrorTailLimit {
                        run.standardErrorTail.removeFirst(run.standardErrorTail.count - Self.standardErrorTailLimit)
                    }
                }
            }
        }
        return .exited(status: 0)
    }

    /// `duration` in whole milliseconds, rounded up so that poll(2) does not wake just before the deadline.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }

    private static func dispatchTime(_ deadline: ContinuousClock.Instant) -> DispatchTime {
        let (seconds, attoseconds) = max(.zero, deadline - ContinuousClock.now).components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// Why `Process.run()` failed, with a hint for the two usual mistakes with scripts.
    private static func startFailure(_ error: any Error) -> String {
        switch posixCode(error) {
        case ENOEXEC: return "\(reason(error)) (does it start with a #! line?)"
        case ENOENT: return "\(reason(error)) (is the interpreter named in its #! line installed?)"
        default: return reason(error)
        }
    }

    /// The system's wording for a failed Foundation file or process operation ("Permission denied"), which
    /// Foundation keeps in the underlying POSIX error.
    static func reason(_ error: any Error) -> String {
        guard let code = posixCode(error) else { return (error as NSError).localizedDescription }
        return String(cString: strerror(code))
    }

    private static func posixCode(_ error: any Error) -> Int32? {
        let outer = error as NSError
        if outer.domain == NSPOSIXErrorDomain { return Int32(outer.code) }
        guard let underlying = outer.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        else { return nil }
        return Int32(underlying.code)
    }
}
