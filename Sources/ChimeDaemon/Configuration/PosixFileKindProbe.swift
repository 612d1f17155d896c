import ChimeCore
import Glibc

/// `FileKindProbe` with one `lstat(2)` per entry (and a `stat(2)` and `realpath(3)` for symlinks): what the
/// daemon uses to look through thousands of notification files quickly.
public struct PosixFileKindProbe: FileKindProbe {
    public init() {}

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
}
