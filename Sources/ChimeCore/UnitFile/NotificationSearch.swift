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

    /// Searches `directories`, earliest first in precedence, reading the file system through `probe`. Never
    /// throws: every problem becomes a diagnostic.
    public init(searching directories: [String], probe: any FileKindProbe) {
        (files, diagnostics) = Self.map(searching: directories, probe: probe) { file, _ in file }
    }

    /// Searches as `init(searching:probe:)` does, handing each notification's file to `transform` as soon as it
    /// is read, on the thread that read it, and keeping only what `transform` returns, in the same order.
    ///
    /// For a load of thousands of files: the parsed files are not all held at once, and what each leaves behind
    /// is made beside the working memory of the next file rather than after all of theirs.
    ///
    /// A notification whose files were all read without a problem is first offered to `earlier`, before it is
    /// parsed; when that returns a result, it is kept and the files are not parsed. `transform` gets the
    /// fingerprint of the files too (0 where they had a problem).
    public static func map<T>(
        searching directories: [String], probe: any FileKindProbe,
        reusing earlier: (NotificationBytes) -> T? = { _ in nil },
        _ transform: (NotificationFile, _ fingerprint: Int) -> T
    ) -> (results: [T], diagnostics: [UnitFileDiagnostic]) {
        var finder = Finder(probe: probe)
        let results = finder.search(directories, earlier, transform)
        return (results, finder.diagnostics)
    }
}

/// A notification's files as read, before they are parsed: what is needed to tell whether they are the files an
/// earlier load read.
public struct NotificationBytes: Sendable {
    /// `NAME`, the file name without `.notification`.
    public var id: String
    /// The main file, then the drop-ins applied to it, in order.
    public var paths: [String]
    /// A hash of the bytes of each of `paths` and of the drop-ins' paths (`Hasher`, whose seed is random for each
    /// process: two files cannot be made to collide on purpose); never 0.
    public var fingerprint: Int

    public init(id: String, paths: [String], fingerprint: Int) {
        self.id = id
        self.paths = paths
        self.fingerprint = fingerprint
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

/// What a directory holds, as `FileKindProbe.list(_:)` finds it.
public enum DirectoryListing: Sendable, Equatable {
    /// It does not exist.
    case missing
    /// Something other than a directory is there.
    case notDirectory
    /// Its entries, without `.` and `..`, in no particular order.
    case entries([DirectoryEntry])
    /// It cannot be listed, for the reason given ("Permission denied").
    case unreadable(String)
}

/// A name in a directory, and what it is when the directory listing says so (`readdir(3)`'s `d_type`): a search of
/// thousands of files then needs no `lstat(2)` of each.
public struct DirectoryEntry: Sendable, Equatable {
    public var name: String
    /// `nil` when the listing did not say, and for a symlink, whose kind is that of what it points to.
    public var kind: FileKind?

    public init(_ name: String, kind: FileKind? = nil) {
        self.name = name
        self.kind = kind
    }
}

/// The file system as the search reads it: what a path is, what a directory holds, what a file says. ChimeCore
/// does no I/O of its own; the daemon and chimectl pass one built on `lstat(2)` and `read(2)`, and the search asks
/// once per directory entry, so with thousands of files the cost of asking matters.
public protocol FileKindProbe: Sendable {
    func kind(of path: String) -> FileKind
    /// What `directory` holds.
    func list(_ directory: String) -> DirectoryListing
    /// The whole content of the file at `path`, at most `InputLimits.maximumFileSize` bytes (more throws
    /// `FileTooLarge`); a thrown error's description says why it could not be read.
    func contents(of path: String) throws -> Data
}

private struct Finder {
    static let suffix = ".notification"
    static let dropInDirectorySuffix = ".notification.d"
    static let dropInSuffix = ".conf"

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

    mutating func search<T>(
        _ directories: [String], _ earlier: (NotificationBytes) -> T?, _ transform: (NotificationFile, Int) -> T
    ) -> [T] {
        var mainFiles: [String: Candidate] = [:]
        // Also in the order found, each directory's by name: nearly the order of their ids already, which the sort
        // below then takes in a pass or two instead of sorting a dictionary's order.
        var found: [(id: String, main: Candidate)] = []
        var dropInDirectories: [String: [String]] = [:]
        for directory in directories {
            for (name, path, listedKind) in entries(of: directory, diagnostics: &diagnostics) {
                if let id = Self.id(name, suffix: Self.suffix) {
                    if mainFiles[id] == nil, let main = candidate(path, listedKind) {
                        mainFiles[id] = main
                        found.append((id, main))
                    }
                } else if let id = Self.id(name, suffix: Self.dropInDirectorySuffix) {
                    if (listedKind ?? kind(of: path)) == .directory {
                        dropInDirectories[id, default: []].append(path)
                    } else {
                        warn(path, "Not a directory, ignoring.")
                    }
                } else if let meant = Self.misspelling(name) {
                    let ending = meant.hasSuffix(Self.dropInDirectorySuffix) ? Self.dropInDirectorySuffix : Self.suffix
                    warn(path, "Ignoring: only names ending in '\(ending)' are read here. Did you mean '\(meant)'?")
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
        // Each file's warnings go to a slot of its own rather than into a pair with its result: taking the results
        // out of pairs copied each, retaining and then releasing all that each notification holds.
        let finder = self
        let known = diagnostics.count
        let sorted = found.sorted { Self.byteOrder($0.id, $1.id) }
        var warnings = [ArraySlice<UnitFileDiagnostic>](repeating: [], count: sorted.count)
        let results = warnings.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            return Array(sorted.indices).concurrentMap { index in
                let (id, main) = sorted[index]
                var copy = finder
                let result = copy.load(
                    id: id, main: main, dropInDirectories: dropInDirectories[id] ?? [], earlier, transform)
                slots[index] = copy.diagnostics.dropFirst(known)
                return result
            }
        }
        for fileWarnings in warnings where !fileWarnings.isEmpty { diagnostics += fileWarnings }
        return results
    }

    /// The notification `id`: its files read whole first, then offered to `earlier`, and parsed only if that
    /// has nothing for them.
    private mutating func load<T>(
        id: String, main: Candidate, dropInDirectories: [String], _ earlier: (NotificationBytes) -> T?,
        _ transform: (NotificationFile, Int) -> T
    ) -> T {
        let masked = NotificationFile(id: id, path: main.path, dropInPaths: [], content: .masked)
        guard !main.masks else { return transform(masked, 0) }
        let contents = read(main.path)
        // systemd masks with an empty file as well as with a link to /dev/null.
        if case .success(let contents) = contents, contents.isEmpty { return transform(masked, 0) }
        var listingProblems: [UnitFileDiagnostic] = []
        let dropIns = dropIns(in: dropInDirectories, diagnostics: &listingProblems)
        let tooMany = dropIns.count > InputLimits.maximumDropIns
        let dropInContents = tooMany ? [] : dropIns.filter { !$0.masks }.map { ($0.path, read($0.path)) }
        var applied: [(path: String, contents: Data)] = []
        var readAll = listingProblems.isEmpty && !tooMany
        for (path, result) in dropInContents {
            switch result {
            case .failure: readAll = false
            case .success(let contents) where contents.isEmpty: continue
            case .success(let contents): applied.append((path, contents))
            }
        }
        var fingerprint = 0
        if readAll, case .success(let mainContents) = contents {
            fingerprint = Self.fingerprint(of: mainContents, dropIns: applied)
            let bytes = NotificationBytes(id: id, paths: [main.path] + applied.map(\.path), fingerprint: fingerprint)
            if let reused = earlier(bytes) { return reused }
        }
        var file: UnitFile
        switch contents {
        case .failure(let diagnostic): file = UnitFile(diagnostics: [diagnostic])
        case .success(let contents): file = UnitFile(parsing: contents, path: main.path)
        }
        file.diagnostics += listingProblems
        guard !tooMany else {
            let message =
                "Notification has \(InputLimits.grouped(dropIns.count)) drop-ins, more than the "
                + "\(InputLimits.maximumDropIns) a notification may have."
            file.diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: main.path), message))
            return transform(NotificationFile(id: id, path: main.path, dropInPaths: [], content: .loaded(file)), 0)
        }
        for (path, result) in dropInContents {
            switch result {
            case .failure(let diagnostic): file.diagnostics.append(diagnostic)
            case .success(let contents) where contents.isEmpty: continue
            case .success(let contents): file.apply(dropIn: UnitFile(parsing: contents, path: path))
            }
        }
        let loaded = NotificationFile(
            id: id, path: main.path, dropInPaths: applied.map(\.path), content: .loaded(file))
        return transform(loaded, fingerprint)
    }

    /// The hash of a notification's bytes and its drop-ins' paths and bytes, each length-prefixed so that no two
    /// different sets of files hash the same input.
    private static func fingerprint(of contents: Data, dropIns: [(path: String, contents: Data)]) -> Int {
        var hasher = Hasher()
        hasher.combine(contents.count)
        contents.withUnsafeBytes { hasher.combine(bytes: $0) }
        for dropIn in dropIns {
            hasher.combine(dropIn.path)
            hasher.combine(dropIn.contents.count)
            dropIn.contents.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        let hash = hasher.finalize()
        return hash == 0 ? 1 : hash
    }

    /// The name `name` was likely meant to have (`x.notification` for `x.notificaton` or `x.Notification`), or
    /// `nil`: a file whose extension is close to the one searched for would otherwise be passed over in silence.
    /// Editors' backups (`x.notification~`) are passed over as systemd passes them over.
    static func misspelling(_ name: String) -> String? {
        guard !name.hasSuffix("~"), let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let stem = name[..<dot]
        let dotted = String(name[dot...])
        if dotted.hasSuffix(".d"), let inner = stem.lastIndex(of: "."), inner != stem.startIndex,
            Suggestion.closest(to: String(stem[inner...]), among: [suffix]) != nil
        {
            return String(stem[..<inner]) + dropInDirectorySuffix
        }
        guard Suggestion.closest(to: dotted, among: [suffix]) != nil else { return nil }
        return String(stem) + suffix
    }

    /// The `*.conf` files of `directories`, the first directory winning for each file name, in the order to apply
    /// them.
    private mutating func dropIns(
        in directories: [String], diagnostics: inout [UnitFileDiagnostic]
    ) -> [Candidate] {
        var byName: [String: Candidate] = [:]
        for directory in directories {
            for (name, path, listedKind) in entries(of: directory, diagnostics: &diagnostics)
            where Self.id(name, suffix: Self.dropInSuffix) != nil && byName[name] == nil {
                byName[name] = candidate(path, listedKind)
            }
        }
        return byName.sorted { Self.byteOrder($0.key, $1.key) }.map(\.value)
    }

    /// The entry at `path` as a candidate, or `nil` (and a warning) if it is neither a file nor a link to one;
    /// `listedKind` is what the directory listing said it is, if it did.
    private mutating func candidate(_ path: String, _ listedKind: FileKind?) -> Candidate? {
        switch listedKind ?? kind(of: path) {
        case .file:
            return Candidate(path: path, masks: false)
        case .null:
            return Candidate(path: path, masks: true)
        case .directory, .other:
            warn(path, "Not a regular file, ignoring.")
            return nil
        }
    }

    /// The visible entries of `directory` as (name, path, kind if the listing said), sorted by name; nothing if it
    /// does not exist.
    private func entries(
        of directory: String, diagnostics: inout [UnitFileDiagnostic]
    ) -> [(name: String, path: String, kind: FileKind?)] {
        let found: [DirectoryEntry]
        switch probe.list(directory) {
        case .missing:
            return []
        case .notDirectory:
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), "Not a directory."))
            return []
        case .unreadable(let reason):
            let message = "Failed to list directory: \(reason)."
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), message))
            return []
        case .entries(let entries):
            found = entries
        }
        let separator = directory.hasSuffix("/") ? "" : "/"
        return found.filter { !$0.name.hasPrefix(".") }.sorted { Self.byteOrder($0.name, $1.name) }.map {
            ($0.name, directory + separator + $0.name, $0.kind)
        }
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
        a.precedesInByteOrder(b)
    }
}
