import ChimeCore
import Foundation
import Glibc

/// `FileKindProbe` with `readdir(3)`'s entry types, and an `lstat(2)` (and a `stat(2)` and `realpath(3)` for
/// symlinks) only for entries whose type it did not give: what the daemon uses to look through thousands of
/// notification files quickly.
public struct PosixFileKindProbe: FileKindProbe {
    /// The owner and mode of each file read, by path, when kept: the trust of a file is judged on what was read
    /// (`FileTrust`), without another `stat(2)` of each of thousands of files.
    let ownership: Locked<[String: FileOwnership]>?

    public init() {
        ownership = nil
    }

    public init(keepingOwnership: Bool) {
        ownership = keepingOwnership ? Locked([:]) : nil
    }

    /// The owner and mode of `path` when it was read.
    public func ownership(of path: String) -> FileOwnership? {
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

    /// The entries of `directory` from `readdir(3)`, each with the kind its `d_type` gives: regular files and
    /// directories need no `lstat(2)` of their own. A symlink, or a file system that does not fill `d_type`, is
    /// left for `kind(of:)`.
    public func list(_ directory: String) -> DirectoryListing {
        guard let stream = opendir(directory) else {
            switch errno {
            case ENOENT: return .missing
            case ENOTDIR: return .notDirectory
            case let failure: return .unreadable(String(cString: strerror(failure)))
            }
        }
        defer { closedir(stream) }
        var entries: [DirectoryEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                guard errno == 0 else { return .unreadable(String(cString: strerror(errno))) }
                return .entries(entries)
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard name != "." && name != ".." else { continue }
            entries.append(DirectoryEntry(name, kind: Self.kind(of: entry.pointee.d_type)))
        }
    }

    private static func kind(of type: UInt8) -> FileKind? {
        switch Int32(type) {
        case Int32(DT_REG): .file
        case Int32(DT_DIR): .directory
        case Int32(DT_LNK), Int32(DT_UNKNOWN): nil
        default: .other
        }
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
public struct ReadFailure: LocalizedError {
    public let errno: Int32

    public var failureReason: String? { String(cString: strerror(errno)) }
    public var errorDescription: String? { failureReason }
}

/// Something other than a regular file (a FIFO, a device, a socket) where a file is read.
struct NotRegularFile: LocalizedError {
    var failureReason: String? { "Not a regular file" }
    var errorDescription: String? { failureReason }
}
