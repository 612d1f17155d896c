import ChimeCore
import ChimeDaemon
import ChimePlatform
import ChimeTestSupport
import Dispatch
import Foundation
import Glibc
import Testing

/// `TimeZoneChangeMonitor` on a temporary directory's `localtime`, changed the ways the system's is.
@Suite struct TimeZoneChangeMonitorTests {
    static let coalescing = Duration.milliseconds(50)
    /// Long enough after a burst for a second, wrong call to have come.
    static let quiet = Duration.milliseconds(400)

    /// A way of changing `localtime`, made with system calls from the test so that the steps of one change follow
    /// each other within microseconds, as they do in `ln -sf` or `timedatectl`.
    struct Change: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Prepares the directory (where `localtime` is a symlink to Europe/Berlin) before the monitor starts.
        var setUp: @Sendable (Directory) throws -> Void = { _ in }
        var apply: @Sendable (Directory) throws -> Void
    }

    /// The temporary directory with the calls that change it; each throws on failure.
    struct Directory: Sendable {
        let temporary: TemporaryDirectory

        func path(_ name: String) -> String { temporary.url.appendingPathComponent(name).path }

        func symlink(_ target: String, _ name: String) throws {
            try check(Glibc.symlink(target, path(name)), "symlink")
        }

        func rename(_ from: String, _ to: String) throws {
            try check(Glibc.rename(path(from), path(to)), "rename")
        }

        func remove(_ name: String) throws {
            try check(unlink(path(name)), "unlink")
        }

        /// Sets the times of `name` itself, not of a symlink's target (`touch -h`).
        func touch(_ name: String) throws {
            try check(utimensat(AT_FDCWD, path(name), nil, AT_SYMLINK_NOFOLLOW), "utimensat")
        }

        /// Replaces the contents of `name` in place (open with O_TRUNC, write, close).
        func write(_ name: String, contentsOf source: String) throws {
            try Data(contentsOf: URL(fileURLWithPath: source)).write(to: URL(fileURLWithPath: path(name)))
        }

        private func check(_ result: Int32, _ call: String) throws {
            if result != 0 { throw SystemCallError(call: call, errno: .current) }
        }
    }

    static let tokyo = "/usr/share/zoneinfo/Asia/Tokyo"

    static let changes = [
        Change(testDescription: "symlink renamed over it (ln -sf, timedatectl set-timezone)") { directory in
            try directory.symlink(tokyo, ".#localtime")
            try directory.rename(".#localtime", "localtime")
        },
        Change(testDescription: "deleted and created again") { directory in
            try directory.remove("localtime")
            try directory.symlink(tokyo, "localtime")
        },
        Change(
            testDescription: "regular file written in place",
            setUp: { directory in
                try directory.remove("localtime")
                try directory.write("localtime", contentsOf: "/usr/share/zoneinfo/UTC")
            },
            apply: { directory in try directory.write("localtime", contentsOf: tokyo) }),
        Change(testDescription: "attributes changed") { directory in try directory.touch("localtime") },
        Change(testDescription: "deleted") { directory in try directory.remove("localtime") },
        Change(testDescription: "moved away") { directory in try directory.rename("localtime", "localtime.old") },
    ]

    func makeDirectory() throws -> Directory {
        let directory = Directory(temporary: try TemporaryDirectory(prefix: "chime-tz"))
        try directory.symlink("/usr/share/zoneinfo/Europe/Berlin", "localtime")
        return directory
    }

    func monitor(_ directory: Directory, counter: CallCounter) throws -> TimeZoneChangeMonitor {
        try TimeZoneChangeMonitor(
            path: directory.path("localtime"), queue: DispatchQueue(label: "tz-test"), coalescing: Self.coalescing
        ) { counter.record() }
    }

    @Test(arguments: changes)
    func changeIsReportedOnce(change: Change) throws {
        let directory = try makeDirectory()
        defer { directory.temporary.remove() }
        try change.setUp(directory)
        let counter = CallCounter()
        let monitor = try monitor(directory, counter: counter)
        monitor.start()
        defer { monitor.stop() }
        try change.apply(directory)
        #expect(counter.waitForCall(timeout: .seconds(2)))
        #expect(!counter.waitForCall(timeout: Self.quiet))
        #expect(counter.count == 1)
    }

    @Test func otherFilesAreIgnored() throws {
        let directory = try makeDirectory()
        defer { directory.temporary.remove() }
        let counter = CallCounter()
        let monitor = try monitor(directory, counter: counter)
        monitor.start()
        defer { monitor.stop() }
        try directory.write("adjtime", contentsOf: "/usr/share/zoneinfo/UTC")
        try directory.touch("adjtime")
        try directory.symlink(Self.tokyo, "localtime.new")
        try directory.rename("localtime.new", "localtimes")
        try directory.remove("localtimes")
        try directory.symlink("localtime", "link")
        try directory.touch("link")
        #expect(!counter.waitForCall(timeout: Self.quiet))
        // The monitor was watching all along: a change of the file itself after those is one call.
        try directory.touch("localtime")
        #expect(counter.waitForCall(timeout: .seconds(2)))
        #expect(counter.count == 1)
    }

    @Test func changeBeforeStartIsReportedOnStart() throws {
        let directory = try makeDirectory()
        defer { directory.temporary.remove() }
        let counter = CallCounter()
        let monitor = try monitor(directory, counter: counter)
        defer { monitor.stop() }
        try directory.touch("localtime")
        monitor.start()
        #expect(counter.waitForCall(timeout: .seconds(2)))
    }

    @Test func noCallAfterStop() throws {
        let directory = try makeDirectory()
        defer { directory.temporary.remove() }
        let counter = CallCounter()
        let monitor = try monitor(directory, counter: counter)
        monitor.start()
        monitor.stop()
        try directory.touch("localtime")
        #expect(!counter.waitForCall(timeout: Self.quiet))
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: SystemCallError(call: "inotify_add_watch", errno: Errno(ENOENT))) {
            try TimeZoneChangeMonitor(path: "/nonexistent-chime/localtime", queue: .main) {}
        }
    }
}
