import ChimeCore
import ChimePlatform
import Foundation

/// Files, directories and symlinks held in memory, for the notification search in tests: the same questions the
/// daemon's `PosixFileKindProbe` answers from the disk.
public struct MemoryFileSystem: FileKindProbe {
    public enum Node: Sendable, Equatable {
        case file(String)
        case directory
        /// A symlink to the path given, absolute or relative to its directory (`/dev/null` masks).
        case link(String)
    }

    /// Every node by absolute path; the directories above a node need not be listed.
    public var nodes: [String: Node]

    public init(_ nodes: [String: Node]) {
        self.nodes = nodes
    }

    /// Why a path cannot be read, worded as the system words it.
    struct Failure: LocalizedError {
        var failureReason: String?
    }

    /// What `path` is after following links (at most 8), or `nil` when nothing is there.
    private func resolved(_ path: String) -> (path: String, node: Node?)? {
        var path = path
        for _ in 0..<8 {
            guard case .link(let target) = node(at: path) else { return (path, node(at: path)) }
            if target == "/dev/null" { return (target, nil) }
            // A relative target is relative to the link's directory.
            path = target.hasPrefix("/") ? target : (path as NSString).deletingLastPathComponent + "/" + target
        }
        return nil
    }

    private func node(at path: String) -> Node? {
        if let node = nodes[path] { return node }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        return nodes.keys.contains { $0.hasPrefix(prefix) } ? .directory : nil
    }

    public func kind(of path: String) -> FileKind {
        guard node(at: path) != nil else { return .other }
        guard let (target, node) = resolved(path) else { return .other }
        if target == "/dev/null" { return .null }
        switch node {
        case .file: return .file
        case .directory: return .directory
        // A dangling symlink is taken for a file, so that reading it reports what is wrong.
        case .link, nil: return .file
        }
    }

    public func list(_ directory: String) -> DirectoryListing {
        switch node(at: directory).flatMap({ _ in resolved(directory)?.node }) {
        case nil: return .missing
        case .directory?: break
        default: return .notDirectory
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let names = Set(
            nodes.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count).prefix { $0 != "/" }) })
        // As readdir(3) says what an entry is: a file or a directory, and a link only as a link.
        return .entries(
            names.map { name in
                switch node(at: prefix + name) {
                case .file?: DirectoryEntry(name, kind: .file)
                case .directory?: DirectoryEntry(name, kind: .directory)
                case .link?, nil: DirectoryEntry(name)
                }
            })
    }

    public func contents(of path: String) throws -> Data {
        guard let (target, node) = resolved(path) else {
            throw Failure(failureReason: "Too many levels of symbolic links")
        }
        if target == "/dev/null" { return Data() }
        switch node {
        case .file(let text):
            guard text.utf8.count <= InputLimits.maximumFileSize else { throw FileTooLarge(size: text.utf8.count) }
            return Data(text.utf8)
        case .directory: throw Failure(failureReason: "Is a directory")
        case .link, nil: throw Failure(failureReason: "No such file or directory")
        }
    }
}
