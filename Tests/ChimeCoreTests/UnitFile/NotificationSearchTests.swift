import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// A tree of configuration directories and what the search should make of it.
struct SearchScenario: Sendable, CustomTestStringConvertible {
    var name: String
    /// Paths relative to the root: file contents, `<dir>` for an empty directory, or `-> TARGET` for a symlink
    /// (`{root}` in TARGET is the root).
    var tree: [(String, String)]
    var directories = ["etc", "run", "lib"]
    /// As rendered by `render(_:root:)`.
    var expected: [String]

    var testDescription: String { name }

    /// Builds the tree, searches it and renders the result with paths relative to the root.
    func run() throws -> [String] {
        let root = try TemporaryDirectory(prefix: "chime-search")
        defer { root.remove() }
        let fileManager = FileManager.default
        for (path, contents) in tree {
            let full = root.path + "/" + path
            if contents == "<dir>" {
                try fileManager.createDirectory(atPath: full, withIntermediateDirectories: true)
            } else if contents.hasPrefix("-> ") {
                let target = contents.dropFirst(3).replacingOccurrences(of: "{root}", with: root.path)
                try fileManager.createDirectory(
                    atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try fileManager.createSymbolicLink(atPath: full, withDestinationPath: target)
            } else {
                try root.write(path, contents)
            }
        }
        let search = NotificationSearch(
            searching: directories.map { root.path + "/" + $0 }, probe: PosixFileKindProbe())
        return render(search).map { $0.replacingOccurrences(of: root.path + "/", with: "") }
    }

    /// The same tree in a `MemoryFileSystem`, searched and rendered the same way.
    func runInMemory() -> [String] {
        let root = "/memory"
        var nodes: [String: MemoryFileSystem.Node] = [:]
        for (path, contents) in tree {
            let full = root + "/" + path
            if contents == "<dir>" {
                nodes[full] = .directory
            } else if contents.hasPrefix("-> ") {
                nodes[full] = .link(contents.dropFirst(3).replacingOccurrences(of: "{root}", with: root))
            } else {
                nodes[full] = .file(contents)
            }
        }
        let search = NotificationSearch(
            searching: directories.map { root + "/" + $0 }, probe: MemoryFileSystem(nodes))
        return render(search).map { $0.replacingOccurrences(of: root + "/", with: "") }
    }

    private func render(_ search: NotificationSearch) -> [String] {
        var lines: [String] = []
        for file in search.files {
            let dropIns = file.dropInPaths.isEmpty ? "" : " + " + file.dropInPaths.joined(separator: ", ")
            lines.append("\(file.id): \(file.path)\(dropIns)")
            switch file.content {
            case .masked:
                lines.append("  masked")
            case .loaded(let unitFile):
                for section in unitFile.sections {
                    lines += section.entries.map { "  [\(section.name)] \($0.key)=\($0.value) \($0.location)" }
                }
                lines += unitFile.diagnostics.map { "  ! \($0.severity) \($0)" }
            }
        }
        return lines + search.diagnostics.map { "! \($0.severity) \($0)" }
    }
}

@Suite struct NotificationSearchTests {
    static let scenarios: [SearchScenario] = [
        SearchScenario(
            name: "the first directory wins for the same file name",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\n"), ("etc/a.notification", "[N]\nT=etc\n"),
                ("lib/b.notification", "[N]\nT=b\n"),
            ],
            expected: [
                "a: etc/a.notification", "  [N] T=etc etc/a.notification:2:1",
                "b: lib/b.notification", "  [N] T=b lib/b.notification:2:1",
            ]),
        SearchScenario(
            name: "drop-ins come from all directories, in file-name order, the first directory winning",
            tree: [
                ("lib/a.notification", "[N]\nT=main\nA=1\n"),
                ("etc/a.notification.d/20-b.conf", "[N]\nT=etc\n"),
                ("lib/a.notification.d/20-b.conf", "[N]\nT=lib\n"),
                ("lib/a.notification.d/10-a.conf", "[N]\nA=\nA=2\n"),
                ("run/a.notification.d/30-c.conf", "\n[N]\nA=3\n"),
            ],
            expected: [
                "a: lib/a.notification + lib/a.notification.d/10-a.conf, etc/a.notification.d/20-b.conf, "
                    + "run/a.notification.d/30-c.conf",
                "  [N] T=main lib/a.notification:2:1", "  [N] A=1 lib/a.notification:3:1",
                "  [N] A= lib/a.notification.d/10-a.conf:2:1", "  [N] A=2 lib/a.notification.d/10-a.conf:3:1",
                "  [N] T=etc etc/a.notification.d/20-b.conf:2:1", "  [N] A=3 run/a.notification.d/30-c.conf:3:1",
            ]),
        SearchScenario(
            name: "a symlink to /dev/null masks the notification and its drop-ins",
            tree: [
                ("etc/a.notification", "-> /dev/null"), ("lib/a.notification", "[N]\nT=lib\n"),
                ("lib/a.notification.d/10.conf", "[N]\nT=x\n"), ("run/a.notification.d/20.conf", "-> /nonexistent"),
            ],
            expected: ["a: etc/a.notification", "  masked"]),
        SearchScenario(
            name: "a chain of symlinks to /dev/null masks",
            tree: [
                ("etc/a.notification", "-> null"), ("etc/null", "-> {root}/etc/null2"), ("etc/null2", "-> /dev/null"),
                ("lib/a.notification", "[N]\nT=lib\n"),
            ],
            expected: ["a: etc/a.notification", "  masked"]),
        SearchScenario(
            name: "an empty file masks",
            tree: [("run/a.notification", ""), ("lib/a.notification", "[N]\nT=lib\n")],
            expected: ["a: run/a.notification", "  masked"]),
        SearchScenario(
            name: "a file of blank lines is not empty and does not mask",
            tree: [("run/a.notification", "\n"), ("lib/a.notification", "[N]\nT=lib\n")],
            expected: ["a: run/a.notification"]),
        SearchScenario(
            name: "a drop-in linked to /dev/null hides that drop-in in later directories",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\n"), ("etc/a.notification.d/10.conf", "-> /dev/null"),
                ("lib/a.notification.d/10.conf", "[N]\nT=hidden\n"), ("lib/a.notification.d/20.conf", "[N]\nB=2\n"),
            ],
            expected: [
                "a: lib/a.notification + lib/a.notification.d/20.conf", "  [N] T=lib lib/a.notification:2:1",
                "  [N] B=2 lib/a.notification.d/20.conf:2:1",
            ]),
        SearchScenario(
            name: "an empty drop-in hides that drop-in in later directories",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\n"), ("run/a.notification.d/10.conf", ""),
                ("lib/a.notification.d/10.conf", "[N]\nT=hidden\n"),
            ],
            expected: ["a: lib/a.notification", "  [N] T=lib lib/a.notification:2:1"]),
        SearchScenario(
            name: "other files and hidden files are ignored",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\n"), ("lib/.b.notification", "[N]\nT=hidden\n"),
                ("lib/.notification", "[N]\nT=hidden\n"), ("lib/c.notification~", "x"), ("lib/README", "x"),
                ("lib/chimed.conf", "x"), ("lib/generators.d/g", "x"), ("lib/a.notification.d/10.conf.disabled", "x"),
                ("lib/a.notification.d/.20.conf", "[N]\nT=hidden\n"), ("lib/a.notification.d/README", "x"),
                ("lib/a.notification.d/30.conf~", "x"), ("lib/.d.notification.d/10.conf", "x"),
            ],
            expected: ["a: lib/a.notification", "  [N] T=lib lib/a.notification:2:1"]),
        SearchScenario(
            name: "a symlinked file is read under the link's name",
            tree: [("lib/a.notification", "-> {root}/elsewhere/x.txt"), ("elsewhere/x.txt", "[N]\nT=linked\n")],
            expected: ["a: lib/a.notification", "  [N] T=linked lib/a.notification:2:1"]),
        SearchScenario(
            name: "an unreadable file is reported",
            tree: [("lib/a.notification", "-> /nonexistent")],
            expected: [
                "a: lib/a.notification",
                "  ! error lib/a.notification: Failed to read file: No such file or directory.",
            ]),
        SearchScenario(
            name: "an unreadable drop-in is reported and the others are applied",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\n"), ("lib/a.notification.d/10.conf", "-> /nonexistent"),
                ("etc/a.notification.d/20.conf", "[N]\nB=2\n"),
            ],
            expected: [
                "a: lib/a.notification + etc/a.notification.d/20.conf", "  [N] T=lib lib/a.notification:2:1",
                "  [N] B=2 etc/a.notification.d/20.conf:2:1",
                "  ! error lib/a.notification.d/10.conf: Failed to read file: No such file or directory.",
            ]),
        SearchScenario(
            name: "problems in a drop-in carry the drop-in's path, and a drop-in starts outside any section",
            tree: [
                ("lib/a.notification", "[N]\nT=lib\nbad\n"), ("etc/a.notification.d/10.conf", "T=x\n[N]\nB=2\n"),
            ],
            expected: [
                "a: lib/a.notification + etc/a.notification.d/10.conf", "  [N] T=lib lib/a.notification:2:1",
                "  [N] B=2 etc/a.notification.d/10.conf:3:1", "  ! error lib/a.notification:3:1: Missing '='.",
                "  ! error etc/a.notification.d/10.conf:1:1: Assignment outside of section.",
            ]),
        SearchScenario(
            name: "drop-ins without a notification are reported",
            tree: [
                ("lib/b.notification.d/10.conf", "[N]\nT=x\n"), ("etc/b.notification.d", "<dir>"),
                ("lib/a.notification", "[N]\nT=lib\n"),
            ],
            expected: [
                "a: lib/a.notification", "  [N] T=lib lib/a.notification:2:1",
                "! warning etc/b.notification.d: Drop-in directory for a notification that does not exist, ignoring.",
                "! warning lib/b.notification.d: Drop-in directory for a notification that does not exist, ignoring.",
            ]),
        SearchScenario(
            name: "entries of the wrong type are reported and skipped",
            tree: [
                ("etc/a.notification", "<dir>"), ("lib/a.notification", "[N]\nT=lib\n"),
                ("etc/a.notification.d", "x"), ("lib/a.notification.d/10.conf", "<dir>"),
                ("lib/a.notification.d/20.conf", "[N]\nB=2\n"),
            ],
            expected: [
                "a: lib/a.notification + lib/a.notification.d/20.conf", "  [N] T=lib lib/a.notification:2:1",
                "  [N] B=2 lib/a.notification.d/20.conf:2:1",
                "! warning etc/a.notification: Not a regular file, ignoring.",
                "! warning etc/a.notification.d: Not a directory, ignoring.",
                "! warning lib/a.notification.d/10.conf: Not a regular file, ignoring.",
            ]),
        SearchScenario(
            name: "notifications are sorted by the bytes of their ids",
            tree: [
                ("lib/é.notification", "[N]\n"), ("run/b.notification", "[N]\n"), ("lib/a-b.notification", "[N]\n"),
                ("etc/C.notification", "[N]\n"), ("lib/a.notification", "[N]\n"),
            ],
            expected: [
                "C: etc/C.notification", "a: lib/a.notification", "a-b: lib/a-b.notification",
                "b: run/b.notification", "é: lib/é.notification",
            ]),
        SearchScenario(
            name: "missing directories are skipped, and a trailing slash is fine",
            tree: [("lib/a.notification", "[N]\nT=lib\n")],
            directories: ["missing", "lib/"],
            expected: ["a: lib/a.notification", "  [N] T=lib lib/a.notification:2:1"]),
        SearchScenario(
            name: "a configuration directory that is a file is reported",
            tree: [("etc", "[N]\n"), ("lib/a.notification", "[N]\nT=lib\n")],
            expected: [
                "a: lib/a.notification", "  [N] T=lib lib/a.notification:2:1", "! error etc: Not a directory.",
            ]),
        SearchScenario(
            name: "a name that misspells the extension is reported with the name meant",
            tree: [
                ("etc/a.notificaton", "[N]\n"), ("etc/b.Notification", "[N]\n"), ("etc/c.notifications", "[N]\n"),
                ("etc/d.notifcation.d", "<dir>"), ("etc/e.notification~", "[N]\n"), ("etc/f.conf", "[N]\n"),
                ("etc/g.notification.bak", "[N]\n"), ("etc/README", "x"),
            ],
            expected: [
                "! warning etc/a.notificaton: Ignoring: only names ending in '.notification' are read here. Did you "
                    + "mean 'a.notification'?",
                "! warning etc/b.Notification: Ignoring: only names ending in '.notification' are read here. Did you "
                    + "mean 'b.notification'?",
                "! warning etc/c.notifications: Ignoring: only names ending in '.notification' are read here. Did you "
                    + "mean 'c.notification'?",
                "! warning etc/d.notifcation.d: Ignoring: only names ending in '.notification.d' are read here. Did "
                    + "you mean 'd.notification.d'?",
            ]),
        SearchScenario(name: "no directories", tree: [], directories: [], expected: []),
    ]

    @Test(arguments: scenarios)
    func searches(scenario: SearchScenario) throws {
        let found = try scenario.run()
        #expect(found == scenario.expected)
        // The search asks only its probe: an in-memory file system gives the same answer.
        #expect(scenario.runInMemory() == scenario.expected)
    }

    @Test func mergedLookupsSeeDropInsAfterTheMainFile() throws {
        let root = try TemporaryDirectory(prefix: "chime-search")
        defer { root.remove() }
        try root.write("lib/a.notification", "[Notification]\nTitle=main\nAction=open:Open\nAction=snooze:Snooze\n")
        try root.write("etc/a.notification.d/10-title.conf", "[Notification]\nTitle=override\n")
        try root.write("lib/a.notification.d/20-actions.conf", "[Notification]\nAction=\nAction=dismiss:Dismiss\n")
        let search = NotificationSearch(
            searching: [root.path + "/etc", root.path + "/lib"], probe: PosixFileKindProbe())
        let file = try #require(search.files.first)
        guard case .loaded(let unitFile) = file.content else {
            Issue.record("not loaded: \(file.content)")
            return
        }
        let title = try #require(unitFile.lastValue(for: "Title", in: "Notification"))
        #expect(title.value == "override")
        #expect(title.location.description == root.path + "/etc/a.notification.d/10-title.conf:2:1")
        let actions = unitFile.values(for: "Action", in: "Notification")
        #expect(actions.map(\.value) == ["dismiss:Dismiss"])
        #expect(actions.map(\.location.description) == [root.path + "/lib/a.notification.d/20-actions.conf:3:1"])
        #expect(!unitFile.hasErrors && search.diagnostics.isEmpty)
    }

    /// What `NotificationSearch.map` offers its `reusing` closure: a notification's files read whole, before they
    /// are parsed, with a fingerprint that follows their bytes and their drop-ins.
    @Test func filesAreOfferedForReuseBeforeTheyAreParsed() {
        var nodes: [String: MemoryFileSystem.Node] = [
            "/etc/a.notification": .file("[Notification]\nTitle=A\n"),
            "/etc/a.notification.d/10-body.conf": .file("[Notification]\nBody=b\n"),
            "/etc/a.notification.d/20-empty.conf": .file(""),
            "/etc/b.notification": .file("[Notification]\nTitle=B\n"),
            "/etc/masked.notification": .link("/dev/null"),
        ]
        /// Each offer (id, paths, fingerprint) and the ids parsed; `taken` are given an earlier result.
        func search(taking taken: Set<String>) -> (offers: [String: ([String], Int)], parsed: [String], ids: [String]) {
            let offers = Locked<[String: ([String], Int)]>([:])
            let parsed = Locked<[String]>([])
            let (results, diagnostics) = NotificationSearch.map(
                searching: ["/etc"], probe: MemoryFileSystem(nodes),
                reusing: { bytes in
                    offers.withLock { $0[bytes.id] = (bytes.paths, bytes.fingerprint) }
                    return taken.contains(bytes.id) ? "earlier " + bytes.id : nil
                }
            ) { file, fingerprint in
                parsed.withLock { $0.append(file.id) }
                if case .loaded = file.content { #expect(fingerprint != 0) } else { #expect(fingerprint == 0) }
                return file.id
            }
            #expect(diagnostics.isEmpty)
            return (offers.withLock { $0 }, parsed.withLock { $0 }.sorted(), results)
        }
        let first = search(taking: [])
        // A masked notification has nothing to offer; the empty drop-in is not applied.
        #expect(first.offers.keys.sorted() == ["a", "b"])
        #expect(first.offers["a"]?.0 == ["/etc/a.notification", "/etc/a.notification.d/10-body.conf"])
        #expect(first.parsed == ["a", "b", "masked"])
        #expect(first.offers["a"]?.1 != first.offers["b"]?.1)

        let taken = search(taking: ["a"])
        #expect(taken.ids == ["earlier a", "b", "masked"])
        #expect(taken.parsed == ["b", "masked"])
        #expect(taken.offers["a"]?.1 == first.offers["a"]?.1)

        // A drop-in that changed, or one more, changes the fingerprint; the main file alone does not decide it.
        nodes["/etc/a.notification.d/10-body.conf"] = .file("[Notification]\nBody=c\n")
        let edited = search(taking: [])
        #expect(edited.offers["a"]?.1 != first.offers["a"]?.1)
        nodes["/etc/a.notification.d/10-body.conf"] = .file("[Notification]\nBody=b\n")
        #expect(search(taking: []).offers["a"]?.1 == first.offers["a"]?.1)
        nodes["/etc/a.notification.d/30-more.conf"] = .file("[Notification]\nIcon=x\n")
        #expect(search(taking: []).offers["a"]?.1 != first.offers["a"]?.1)
    }

    /// A notification with a file that could not be read is parsed, so that the problem is told; it is not
    /// offered.
    @Test func filesWithAProblemAreNotOffered() {
        let nodes: [String: MemoryFileSystem.Node] = [
            "/etc/a.notification": .file("[Notification]\nTitle=A\n"),
            "/etc/a.notification.d/10-dangling.conf": .link("/nowhere"),
        ]
        let offered = Locked(0)
        let (results, _) = NotificationSearch.map(
            searching: ["/etc"], probe: MemoryFileSystem(nodes),
            reusing: { _ -> UnitFile? in
                offered.withLock { $0 += 1 }
                return nil
            }
        ) { file, fingerprint in
            #expect(fingerprint == 0)
            guard case .loaded(let unitFile) = file.content else { return UnitFile(diagnostics: []) }
            return unitFile
        }
        #expect(offered.withLock { $0 } == 0)
        #expect(results.first?.diagnostics.map(\.message) == ["Failed to read file: No such file or directory."])
    }
}
