import CChimeShims
import ChimeCore
import Foundation
import Glibc

/// chimed's player (`SoundPlaying`): the sounds play in a helper process, `chime-sound`, which chimed starts at the
/// first sound and again whenever it has ended (it ends on its own after a minute with nothing to play).
/// GStreamer, libpulse and the decoders of whatever files notifications name live in the helper, not in chimed: a
/// decoder that crashes on a file takes the helper down, not the daemon, and their memory is not chimed's while
/// nothing plays.
///
/// Commands go to the helper's stdin and endings come back on its stdout (`SoundHelperMessages`); one thread per
/// run of the helper reads them, and waits for its exit.
public final class SoundHelper: SoundPlaying, Sendable {
    /// The helper's executable.
    public let path: String
    private let scratchDirectory: String
    private let environment: [String: String]
    private let state = Locked<State>(State())

    private struct State {
        var run: Run?
        var runs = 0
        var nextToken: UInt64 = 0
        var pending: [UInt64: Pending] = [:]
    }

    /// A playback asked for and not yet ended: its command, kept to send again to the next run when the run it went
    /// to ended on its own before reading it.
    private struct Pending {
        var command: Data
        var run: Int
        var finished: @Sendable (SoundEnding) -> Void
        /// How many runs it was sent to: a second run that ends without reading it fails it, so that a helper
        /// that always exits at once is not started again and again.
        var sends = 0
    }

    /// One run of the helper: its number and its stdin (the rest is its reading thread's).
    private struct Run {
        var number: Int
        var input: Int32
        var pid: pid_t
    }

    /// - Parameters:
    ///   - scratchDirectory: where the helper renders speech (chimed's runtime directory).
    ///   - environment: chimed's; the helper's is made from it as a command's is.
    public init(path: String, scratchDirectory: String, environment: [String: String]) {
        self.path = path
        self.scratchDirectory = scratchDirectory
        self.environment = environment
    }

    /// The helper installed with this chimed: beside it (a build tree), or in `../libexec/chime/` (an installed
    /// one); `nil` when there is none.
    public static func installed(scratchDirectory: String, environment: [String: String]) -> SoundHelper? {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let directory = (executable as NSString).deletingLastPathComponent
        let candidates = [directory + "/chime-sound", directory + "/../libexec/chime/chime-sound"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        return SoundHelper(
            path: (found as NSString).standardizingPath, scratchDirectory: scratchDirectory, environment: environment)
    }

    public func play(_ request: SoundRequest, finished: @escaping @Sendable (SoundEnding) -> Void) -> any SoundStopping
    {
        let (token, problem) = state.withLock { state -> (UInt64, String?) in
            state.nextToken += 1
            let token = state.nextToken
            let command = SoundHelperMessages.line(
                SoundHelperMessages.Command(token: token, play: SoundHelperMessages.Playback(request)))
            state.pending[token] = Pending(command: command, run: 0, finished: finished)
            if let problem = send(token, in: &state) {
                state.pending[token] = nil
                return (token, problem)
            }
            return (token, nil)
        }
        if let problem { finished(.failed(problem)) }
        return HelperPlayback(token: token, helper: self)
    }

    /// Stops playback `token` if it has not ended.
    func stop(_ token: UInt64) {
        state.withLock { state in
            guard let pending = state.pending[token], let run = state.run, pending.run == run.number else { return }
            write(SoundHelperMessages.line(SoundHelperMessages.Command(token: token, play: nil)), to: run.input)
        }
    }

    /// Sends the pending command `token` to the running helper, starting one if none runs; why not, if it cannot.
    private func send(_ token: UInt64, in state: inout State) -> String? {
        if state.run == nil {
            do {
                state.run = try start(number: state.runs + 1)
                state.runs += 1
            } catch {
                return "cannot start the sound player \(path): \(error)"
            }
        }
        guard let run = state.run, var pending = state.pending[token] else { return nil }
        pending.run = run.number
        pending.sends += 1
        state.pending[token] = pending
        // A helper that is ending will not read it: its exit sends it again (`ended`).
        write(pending.command, to: run.input)
        return nil
    }

    private func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = chime_write_without_sigpipe(
                    descriptor, bytes.baseAddress! + offset, UInt(bytes.count - offset))
                if written == -Int(EINTR) { continue }
                if written == -Int(EAGAIN) {
                    // The helper is not reading: a command too many for its pipe is dropped, and its playback
                    // ends when the helper does.
                    return
                }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Starts run `number` of the helper and the thread that reads it.
    private func start(number: Int) throws -> Run {
        var helperEnvironment = CommandRunner.programEnvironment(base: environment)
        // A crash ends it at once: Swift's backtracer would take seconds over it, and the sound would play on.
        helperEnvironment["SWIFT_BACKTRACE"] = "enable=no"
        var child = try ChildProcess(
            [path, scratchDirectory], environment: helperEnvironment, workingDirectory: nil, outputPipeSize: 64 * 1024)
        // stdin is the run's (written and closed under the lock); the rest is the reading thread's.
        let run = Run(number: number, input: child.takeInput(), pid: child.pid)
        let watched = child
        let thread = Thread { [self] in watch(watched, run: number) }
        thread.name = "chimed.sound"
        thread.start()
        return run
    }

    /// Reads the endings run `number` writes until it exits, then lets the commands it left go.
    private func watch(_ launched: ChildProcess, run number: Int) {
        var child = launched
        var lines: [UInt8] = []
        var errorTail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while child.output >= 0 || child.standardError >= 0 {
            var descriptors = [child.output, child.standardError].filter { $0 >= 0 }.map {
                pollfd(fd: $0, events: Int16(POLLIN), revents: 0)
            }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
            for descriptor in descriptors where descriptor.revents != 0 {
                let count = read(descriptor.fd, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if descriptor.fd == child.output {
                    guard count > 0 else {
                        child.closeOutputOnly()
                        continue
                    }
                    lines += buffer[0..<count]
                    while let end = lines.firstIndex(of: UInt8(ascii: "\n")) {
                        deliver(Data(lines[..<end]))
                        lines.removeSubrange(...end)
                    }
                    if lines.count > 64 * 1024 { lines = [] }
                } else {
                    guard count > 0 else {
                        child.closeStandardErrorOnly()
                        continue
                    }
                    errorTail = Array((errorTail + buffer[0..<count]).suffix(512))
                }
            }
        }
        child.awaitExit()
        let status = child.status ?? 0x7f
        child.closeAll()
        ended(run: number, status: status, standardError: String(decoding: errorTail, as: UTF8.self))
    }

    private func deliver(_ line: Data) {
        guard let message = try? JSONDecoder().decode(SoundHelperMessages.Ending.self, from: line) else { return }
        let finished = state.withLock { $0.pending.removeValue(forKey: message.token)?.finished }
        finished?(message.ending)
    }

    /// Run `number` has exited with `status`: what it had not answered is sent to a new run when it ended on its
    /// own (it does only when it has nothing to play, so it never read those), and fails otherwise.
    private func ended(run number: Int, status: Int32, standardError: String) {
        let exitedCleanly = status & 0x7f == 0 && (status >> 8) & 0xff == 0
        let failed = state.withLock { state -> [(@Sendable (SoundEnding) -> Void)] in
            if state.run?.number == number {
                Glibc.close(state.run!.input)
                state.run = nil
            }
            let left = state.pending.filter { $0.value.run == number }.map(\.key).sorted()
            var failed: [(@Sendable (SoundEnding) -> Void)] = []
            for token in left {
                if exitedCleanly, state.pending[token]?.sends == 1, send(token, in: &state) == nil { continue }
                if let pending = state.pending.removeValue(forKey: token) { failed.append(pending.finished) }
            }
            return failed
        }
        guard !failed.isEmpty else { return }
        let how =
            status & 0x7f == 0
            ? "exited with status \((status >> 8) & 0xff)"
            : "was killed by signal \(status & 0x7f) (\(String(cString: strsignal(status & 0x7f))))"
        let said = standardError.split(separator: "\n").last.map { ": \($0)" } ?? ""
        for finished in failed { finished(.failed("the sound player \(how)\(said)")) }
    }
}

/// A playback in the helper, stopped by its token.
private struct HelperPlayback: SoundStopping {
    let token: UInt64
    let helper: SoundHelper

    func stop() { helper.stop(token) }
}
