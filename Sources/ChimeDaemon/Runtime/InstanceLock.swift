import ChimeCore
import ChimePlatform
import Foundation

/// Keeps a second chimed off the directories of a running one: an exclusive `flock(2)` on `chimed.lock` in the
/// state directory and on the PID file in the runtime directory, each holding the owner's pid.
///
/// Two chimeds on one state directory would deliver every notification twice, and the second's PID file would
/// hide the first from `chimectl`. The locks are held for the life of the process and the kernel drops them however
/// it ends, so a crash leaves nothing to clean up; a file that is left behind is simply locked again.
public final class InstanceLock: @unchecked Sendable {
    /// Another process holds one of the locks.
    public struct Held: Error, CustomStringConvertible {
        /// The directory that is in use.
        public let directory: String
        /// The holder's pid, as it wrote it into the lock file (`nil` while it has not yet written it).
        public let pid: Int32?

        public var description: String {
            let who = pid.map { "another chimed (pid \($0))" } ?? "another chimed"
            return "\(who) is already running on \(directory); stop it first, or give this one other "
                + "--state-dir and --runtime-dir"
        }
    }

    private let pidPath: String
    private var descriptors: [Int32]
    /// The PID file as this process wrote it, so that only that file is removed at the end.
    private let pidFile: stat

    /// Takes both locks, creating the directories as needed, and writes this process's pid into each file.
    /// - Throws: `Held` when another process holds a lock, `SystemCallError` when a file cannot be made or locked.
    public init(options: DaemonOptions) throws {
        var taken: [Int32] = []
        do {
            let state = try Self.lock(options.stateDirectory + "/chimed.lock", directory: options.stateDirectory)
            taken.append(state.descriptor)
            let pid = try Self.lock(options.pidPath, directory: options.runtimeDirectory)
            taken.append(pid.descriptor)
            pidFile = pid.status
        } catch {
            for descriptor in taken { close(descriptor) }
            throw error
        }
        descriptors = taken
        pidPath = options.pidPath
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Removes the PID file if it is still the one this process wrote. The locks themselves stay until the process
    /// ends: the state directory's lock file is never removed, so that a chimed starting meanwhile cannot lock a
    /// file that is about to disappear.
    public func removePIDFile() {
        var current = stat()
        guard stat(pidPath, &current) == 0, current.st_dev == pidFile.st_dev, current.st_ino == pidFile.st_ino
        else { return }
        unlink(pidPath)
    }

    private static func lock(_ path: String, directory: String) throws -> (descriptor: Int32, status: stat) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        while true {
            let descriptor = try SystemCall.retrying("open \(path)") {
                open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            }
            if case .failure(let failure) = SystemCall.retrying({ flock(descriptor, LOCK_EX | LOCK_NB) }) {
                let holder = readPID(descriptor)
                close(descriptor)
                guard failure == .wouldBlock else {
                    throw SystemCallError(call: "flock \(path)", errno: failure)
                }
                throw Held(directory: directory, pid: holder)
            }
            // A chimed that was stopping may have removed the file between the open and the lock: then the lock
            // is on a file nobody else will open, and the path must be opened again.
            var opened = stat()
            var named = stat()
            guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0, opened.st_dev == named.st_dev,
                opened.st_ino == named.st_ino
            else {
                close(descriptor)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            do {
                // Eleven bytes at most: one pwrite(2) writes them all or fails.
                let written = try SystemCall.retrying("write \(path)") {
                    text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
                }
                guard written == text.count else { throw SystemCallError(call: "write \(path)", errno: .noSpace) }
                try SystemCall.retrying("ftruncate \(path)") { ftruncate(descriptor, off_t(text.count)) }
            } catch {
                close(descriptor)
                throw error
            }
            return (descriptor, opened)
        }
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let read = SystemCall.retrying {
            buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        }
        guard case .success(let count) = read, count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
