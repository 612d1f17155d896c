import ChimeCore
import Foundation
import Glibc

/// `FileKindProbe` with one `lstat(2)` per entry (and a `stat(2)` and `realpath(3)` for symlinks): what the
/// daemon uses to look through thousands of notification files quickly.
public struct PosixFileKindProbe: FileKindProbe {
    /// The owner and mode of each file read, by path, when kept: the trust of a file is judged on what was read
    /// (`FileTrust`), without another `stat(2)` of each of thousands of files.
    let ownership: Locked<[String: FileOwnership]>?

    public init() {
        ownership = nil
    }

    init(keepingOwnership: Bool) {
        ownership = keepingOwnership ? Locked([:]) : nil
    }

    /// The owner and mode of `path` when it was read.
    func ownership(of path: String) -> FileOwnership? {
        ownership?.withLock { $0[path] }
    }

    public func kind(of path: String) -> FileKind {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .other }
        if status.st_mode & S_IFMT == S_IFLNK {
            if let resolved = realpath(path, nil) {
                defer { free(resolved) }
                if String(cString: resolved) == "/dev/null" { return .null }
            }
            // A dangling symlink is taken for a file, so that reading it reports what is wrong.
            guard stat(path, &status) == 0 else { return .file }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    public func list(_ directory: String) -> DirectoryListing {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return .missing }
        guard isDirectory.boolValue else { return .notDirectory }
        do {
            return .names(try FileManager.default.contentsOfDirectory(atPath: directory))
        } catch {
            return .unreadable(Self.reason(error))
        }
    }

    /// The system's wording for a failed file operation ("Permission denied"), which Foundation keeps in the
    /// underlying POSIX error.
    static func reason(_ error: any Error) -> String {
        let outer = error as NSError
        let underlying = (outer.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let reason = underlying?.localizedFailureReason ?? outer.localizedFailureReason ?? outer.localizedDescription
        return reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }

    /// The file read with `open(2)` and `read(2)` into one buffer: Foundation's reader costs several times the
    /// system calls when thousands of small files are loaded.
    ///
    /// Only a regular file is read, and at most `InputLimits.maximumFileSize` bytes and one more of it: a larger
    /// file throws `FileTooLarge`. It is opened without blocking, so that a FIFO put where a file was a moment
    /// before cannot hang the load.
    public func contents(of path: String) throws -> Data {
        let limit = InputLimits.maximumFileSize
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ReadFailure(errno: errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ReadFailure(errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw NotRegularFile() }
        guard Int(status.st_size) <= limit else { throw FileTooLarge(size: Int(status.st_size)) }
        ownership?.withLock { $0[path] = FileOwnership(owner: status.st_uid, mode: status.st_mode) }
        // Sized from fstat (notification files are small), growing if the file grew meanwhile, up to the limit.
        var bytes = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard filled <= limit else { throw FileTooLarge(size: nil) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit + 1 - bytes.count)))
            }
            let count: Int
            switch SystemCall.retrying({
                bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            }) {
            case .success(let value): count = value
            case .failure(let failure): throw ReadFailure(errno: failure.rawValue)
            }
            if count == 0 { return Data(bytes[0..<filled]) }
            filled += count
            // All that fstat said it holds: no read more to be told so (one that grew before this read filled the
            // buffer and is read on).
            if filled == Int(status.st_size) && filled > 0 && filled < bytes.count { return Data(bytes[0..<filled]) }
        }
    }
}

/// A failed read, described as the system describes its errno ("Permission denied").
struct ReadFailure: LocalizedError {
    let errno: Int32

    var failureReason: String? { String(cString: strerror(errno)) }
    var errorDescription: String? { failureReason }
}

/// Something other than a regular file (a FIFO, a device, a socket) where a file is read.
struct NotRegularFile: LocalizedError {
    var failureReason: String? { "Not a regular file" }
    var errorDescription: String? { failureReason }
}
