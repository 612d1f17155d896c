import Foundation

/// The notification files of an ordered list of configuration directories, found and parsed the way systemd finds
/// units and their drop-ins (systemd.unit(5)).
///
/// - For each `NAME.notification`, the first directory that has one wins; the others are not read.
/// - Drop-ins `NAME.notification.d/*.conf` come from all directories; for the same drop-in file name the first
///   directory wins. They are applied after the main file in the byte order of their file names, whichever
///   directory each comes from.
/// - A file that is a symlink to `/dev/null` or empty masks: a masked main file switches the notification off, a
///   masked drop-in hides the drop-ins of the same name in later directories.
/// - Names starting with `.` are ignored, and so is anything in a `.d` directory that does not end in `.conf`.
/// - A directory that does not exist is skipped silently: not every instance has every directory.
public struct NotificationSearch: Hashable, Sendable {
    /// The notifications found, sorted by id (by the UTF-8 bytes, so that the order does not depend on the locale).
    public var files: [NotificationFile]
    /// Problems with directories and directory entries that do not belong to one notification (a problem reading
    /// or parsing a notification's own files is in its `UnitFile.diagnostics`).
    public var diagnostics: [UnitFileDiagnostic]

    /// Searches `directories`, earliest first in precedence. Reads the file system through `FileManager` (and
    /// `probe` for what each entry is) and never throws: every problem becomes a diagnostic.
    public init(searching directories: [String], probe: any FileKindProbe = FoundationFileKindProbe()) {
        var finder = Finder(probe: probe)
        files = finder.search(directories)
        diagnostics = finder.diagnostics
    }
}

/// What a directory entry is, after following symlinks.
public enum FileKind: Sendable, Equatable {
    case file
    /// A symlink to `/dev/null` (a mask).
    case null
    case directory
    case other
}

/// Tells what a path is, and reads files. The search asks once per directory entry, so with thousands of files
/// the cost of asking matters: the daemon passes one built on `lstat(2)` and `read(2)`.
public protocol FileKindProbe: Sendable {
    func kind(of path: String) -> FileKind
    /// The whole content of the file at `path`; a thrown error's description says why it could not be read.
    func contents(of path: String) throws -> Data
}

extension FileKindProbe {
    /// At most `InputLimits.maximumFileSize` bytes and one more are read: a larger file throws `FileTooLarge`.
    public func contents(of path: String) throws -> Data {
        // Saying it is not a directory spares URL a stat(2) per file, which is felt with thousands of files.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path, isDirectory: false))
        defer { try? handle.close() }
        let limit = InputLimits.maximumFileSize
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else {
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            throw FileTooLarge(size: size.flatMap { $0 > limit ? $0 : nil })
        }
        return data
    }
}

/// `FileKindProbe` through `FileManager` alone (slower: it also looks up owners' account names).
public struct FoundationFileKindProbe: FileKindProbe {
    public init() {}

    public func kind(of path: String) -> FileKind {
        let fileManager = FileManager.default
        guard var type = (try? fileManager.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else {
            return .other
        }
        if type == .typeSymbolicLink {
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            if target == "/dev/null" {
                return .null
            }
            // A dangling symlink is taken for a file, so that reading it reports what is wrong.
            guard fileManager.fileExists(atPath: path),
                let targetType = (try? fileManager.attributesOfItem(atPath: target))?[.type] as? FileAttributeType
            else {
                return .file
            }
            type = targetType
        }
        switch type {
        case .typeRegular: return .file
        case .typeDirectory: return .directory
        default: return .other
        }
    }
}

private struct Finder {
    static let suffix = ".notification"
    static let dropInDirectorySuffix = ".notification.d"
    static let dropInSuffix = ".conf"

    let fileManager = FileManager.default
    let probe: any FileKindProbe
    var diagnostics: [UnitFileDiagnostic] = []

    init(probe: any FileKindProbe) {
        self.probe = probe
    }

    /// A file that takes part in the search; `masks` if it is a symlink to `/dev/null`.
    struct Candidate {
        var path: String
        var masks: Bool
    }

    mutating func search(_ directories: [String]) -> [NotificationFile] {
        var mainFiles: [String: Candidate] = [:]
        var dropInDirectories: [String: [String]] = [:]
        for directory in directories {
            for (name, path) in entries(of: directory, diagnostics: &diagnostics) {
                if let id = Self.id(name, suffix: Self.suffix) {
                    if mainFiles[id] == nil {
                        mainFiles[id] = candidate(path)
                    }
                } else if let id = Self.id(name, suffix: Self.dropInDirectorySuffix) {
                    if kind(of: path) == .directory {
                        dropInDirectories[id, default: []].append(path)
                    } else {
                        warn(path, "Not a directory, ignoring.")
                    }
                }
            }
        }
        for id in dropInDirectories.keys.sorted(by: Self.byteOrder) where mainFiles[id] == nil {
            for path in dropInDirectories[id]! {
                warn(path, "Drop-in directory for a notification that does not exist, ignoring.")
            }
        }
        // Reading and parsing the files is independent work: spread it over the cores, each file with a copy of
        // the finder whose new warnings are gathered afterwards, in order.
        let finder = self
        let known = diagnostics.count
        let loaded = mainFiles.sorted { Self.byteOrder($0.key, $1.key) }.concurrentMap { id, main in
            var copy = finder
            let file = copy.load(id: id, main: main, dropInDirectories: dropInDirectories[id] ?? [])
            return (file, copy.diagnostics.dropFirst(known))
        }
        for (_, warnings) in loaded { diagnostics += warnings }
        return loaded.map(\.0)
    }

    private mutating func load(id: String, main: Candidate, dropInDirectories: [String]) -> NotificationFile {
        let masked = NotificationFile(id: id, path: main.path, dropInPaths: [], content: .masked)
        guard !main.masks else { return masked }
        var file: UnitFile
        switch read(main.path) {
        case .failure(let diagnostic):
            file = UnitFile(diagnostics: [diagnostic])
        case .success(let contents):
            // systemd masks with an empty file as well as with a link to /dev/null.
            guard !contents.isEmpty else { return masked }
            file = UnitFile(parsing: contents, path: main.path)
        }
        var applied: [String] = []
        let dropIns = dropIns(in: dropInDirectories, diagnostics: &file.diagnostics)
        guard dropIns.count <= InputLimits.maximumDropIns else {
            let message =
                "Notification has \(InputLimits.grouped(dropIns.count)) drop-ins, more than the "
                + "\(InputLimits.maximumDropIns) a notification may have."
            file.diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: main.path), message))
            return NotificationFile(id: id, path: main.path, dropInPaths: [], content: .loaded(file))
        }
        for dropIn in dropIns where !dropIn.masks {
            switch read(dropIn.path) {
            case .failure(let diagnostic):
                file.diagnostics.append(diagnostic)
            case .success(let contents) where contents.isEmpty:
                continue
            case .success(let contents):
                file.apply(dropIn: UnitFile(parsing: contents, path: dropIn.path))
                applied.append(dropIn.path)
            }
        }
        return NotificationFile(id: id, path: main.path, dropInPaths: applied, content: .loaded(file))
    }

    /// The `*.conf` files of `directories`, the first directory winning for each file name, in the order to apply
    /// them.
    private mutating func dropIns(
        in directories: [String], diagnostics: inout [UnitFileDiagnostic]
    ) -> [Candidate] {
        var byName: [String: Candidate] = [:]
        for directory in directories {
            for (name, path) in entries(of: directory, diagnostics: &diagnostics)
            where Self.id(name, suffix: Self.dropInSuffix) != nil && byName[name] == nil {
                byName[name] = candidate(path)
            }
        }
        return byName.sorted { Self.byteOrder($0.key, $1.key) }.map(\.value)
    }

    /// The entry at `path` as a candidate, or `nil` (and a warning) if it is neither a file nor a link to one.
    private mutating func candidate(_ path: String) -> Candidate? {
        switch kind(of: path) {
        case .file:
            return Candidate(path: path, masks: false)
        case .null:
            return Candidate(path: path, masks: true)
        case .directory, .other:
            warn(path, "Not a regular file, ignoring.")
            return nil
        }
    }

    /// The visible entries of `directory` as (name, path), sorted by name; nothing if it does not exist.
    private func entries(
        of directory: String, diagnostics: inout [UnitFileDiagnostic]
    ) -> [(name: String, path: String)] {
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else {
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), "Not a directory."))
            return []
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: directory)
        } catch {
            let message = "Failed to list directory: \(Self.reason(error))."
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), message))
            return []
        }
        let separator = directory.hasSuffix("/") ? "" : "/"
        return names.filter { !$0.hasPrefix(".") }.sorted(by: Self.byteOrder).map { ($0, directory + separator + $0) }
    }

    private func kind(of path: String) -> FileKind {
        probe.kind(of: path)
    }

    private func read(_ path: String) -> Result<Data, UnitFileDiagnostic> {
        do {
            return .success(try probe.contents(of: path))
        } catch let error as FileTooLarge {
            return .failure(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), error.description))
        } catch {
            let message = "Failed to read file: \(Self.reason(error))."
            return .failure(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), message))
        }
    }

    private mutating func warn(_ path: String, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.warning, at: UnitFileLocation(file: path), message))
    }

    /// The system's wording for a failed file operation ("No such file or directory"), which Foundation keeps in
    /// the underlying POSIX error.
    private static func reason(_ error: any Error) -> String {
        let outer = error as NSError
        let underlying = (outer.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let reason = underlying?.localizedFailureReason ?? outer.localizedFailureReason ?? outer.localizedDescription
        return reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }

    /// `NAME` of `NAME<suffix>`, or `nil` if `name` does not have that form.
    private static func id(_ name: String, suffix: String) -> String? {
        let bytes = Array(name.utf8)
        let suffixBytes = Array(suffix.utf8)
        guard bytes.count > suffixBytes.count, bytes.suffix(suffixBytes.count).elementsEqual(suffixBytes) else {
            return nil
        }
        return String(decoding: bytes.dropLast(suffixBytes.count), as: UTF8.self)
    }

    private static func byteOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
