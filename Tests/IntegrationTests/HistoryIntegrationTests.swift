import ChimeTestSupport
import Foundation
import Testing

/// `chimectl history` on what the real `chimed` logged into a private journal, and on entries of other users.
@Suite struct HistoryIntegrationTests {
    static let chimed = BinaryLocator.path(of: "chimed")
    static let chimectl = BinaryLocator.path(of: "chimectl")
    static let probe = BinaryLocator.path(of: "chime-systemd-probe")
    static let setpriv = "/usr/bin/setpriv"

    /// Every second, delivered to two backends and one that fails; caught up after a stop.
    static let tick = """
        [Notification]
        Title=Tick
        Deliver=journal stdout failing
        [Trigger]
        OnCalendar=*:*:*
        Persistent=yes
        """
    /// Every second, not caught up after a stop.
    static let lapse = """
        [Notification]
        Title=Lapse
        [Trigger]
        OnCalendar=*:*:*
        """
    /// Long past when loaded.
    static let old = """
        [Notification]
        Title=Old
        [Trigger]
        At=2020-01-01 00:00:00 UTC
        """

    /// Runs chimed until it has delivered tick once, stops it for two seconds, and runs it again until it has
    /// caught up; `$1` is chimed, `$2` the test's directory. Deliveries to stdout collect in `$2/stdout`.
    static let twoRuns = #"""
        set -eu
        chimed=$1
        dir=$2
        run() {
            "$chimed" --config-dir="$dir/config" --state-dir="$dir/state" --runtime-dir="$dir/run" \
                >"$dir/out" 2>>"$dir/err" &
            pid=$!
            tries=0
            until grep -q "$1" "$dir/out"; do
                tries=$((tries + 1))
                if [ $tries -gt 200 ]; then echo "no '$1' from chimed" >&2; kill $pid; exit 1; fi
                sleep 0.05
            done
            kill -TERM $pid
            wait $pid
            cat "$dir/out" >>"$dir/stdout"
        }
        run '"id":"tick"'
        sleep 2.2
        run '"missed":'
        """#

    /// The `--json` objects that `chimectl history --directory=DIRECTORY arguments` prints, run as `prefix`
    /// (e.g. setpriv) when given.
    static func history(
        _ directory: String, _ arguments: [String], as prefix: [String] = []
    ) throws -> [[String: Any]] {
        let command = prefix + [chimectl, "history", "--json", "--lines=all", "--directory=\(directory)"] + arguments
        let run = try ProcessRunner.run(command[0], Array(command.dropFirst()), environment: ["TZ": "UTC"])
        #expect(run.status == 0, "\(command.joined(separator: " ")): \(run.standardError)")
        return try run.standardOutput.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func historyShowsWhatChimedLogged() throws {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chime-history-e2e")
        defer { directory.remove() }
        try directory.write("config/chimed.conf", "[Command]\nName=failing\nExec=/bin/false\n")
        try directory.write("config/tick.notification", Self.tick)
        try directory.write("config/lapse.notification", Self.lapse)
        try directory.write("config/old.notification", Self.old)
        let result = try PrivateJournal.run(
            Self.twoRuns, arguments: [Self.chimed, directory.path], keepingJournalIn: directory.path + "/store")
        try #require(result.output.status == 0, "\(result.output.standardError)")
        let journal = PrivateJournal.journalDirectory(in: directory.path + "/store")

        // Every delivery to stdout has its entry, with the same hand-off time, and so has every other backend.
        let stdoutLines = try String(contentsOfFile: directory.path + "/stdout", encoding: .utf8)
        let printed = try stdoutLines.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let tick = try Self.history(journal, ["tick"])
        let toStdout = tick.filter { $0["backend"] as? String == "stdout" }
        #expect(toStdout.map { $0["delivered_at"] as? String } == printed.map { $0["delivered_at"] as? String })
        #expect(toStdout.map { $0["fire_time"] as? String } == printed.map { $0["fire_time"] as? String })
        for backend in ["journal", "failing"] {
            #expect(tick.filter { $0["backend"] as? String == backend }.count == printed.count, "\(backend)")
        }
        #expect(tick.allSatisfy { $0["title"] as? String == "Tick" })
        let failures = tick.filter { $0["event"] as? String == "failed" }
        #expect(
            failures.allSatisfy { ($0["error"] as? String)?.hasPrefix("/bin/false exited with status 1") == true },
            "\(failures.map { $0["error"] ?? "" })")
        #expect(Set(tick.compactMap { $0["event"] as? String }) == ["delivered", "caught-up", "failed"])
        let caughtUp = tick.filter { $0["event"] as? String == "caught-up" }
        #expect(caughtUp.count == 2)
        #expect(caughtUp.allSatisfy { ($0["missed"] as? Int ?? 0) >= 2 && $0["delivered_at"] is String })

        // Lapse is not caught up: --all shows the occurrences it missed, the default does not.
        #expect(try Self.history(journal, ["lapse"]).allSatisfy { $0["event"] as? String == "delivered" })
        let lapse = try Self.history(journal, ["--all", "lapse"])
        let missedEntries = lapse.filter { $0["event"] as? String == "missed" }
        try #require(missedEntries.count == 1, "\(lapse)")
        let missed = missedEntries[0]
        #expect((missed["missed"] as? Int ?? 0) >= 2)
        #expect(missed["backend"] is NSNull && missed["last_fire_time"] is String)

        let old = try Self.history(journal, ["--all", "old"])
        #expect(!old.isEmpty)
        #expect(old.allSatisfy { $0["event"] as? String == "skipped-past" })
        #expect(old.first?["fire_time"] as? String == "2020-01-01T00:00:00.000000Z")
        #expect(try Self.history(journal, ["old"]).isEmpty)

        let table = try ProcessRunner.run(
            Self.chimectl, ["history", "--directory=\(journal)", "lapse", "--all"], environment: ["TZ": "UTC"])
        #expect(table.standardOutput.hasPrefix("TIME "))
        let missedLine = #"^\w{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC  lapse  missed +- +Lapse \(\d+ missed\)$"#
        #expect(
            table.standardOutput.split(separator: "\n").filter {
                $0.range(of: missedLine, options: .regularExpression) != nil
            }
            .count == 1, "\(table.standardOutput)")
    }

    /// Why the uid tests cannot run here: they run programs as nobody with setpriv, and the built binaries must
    /// be executable for nobody.
    static var setprivUnavailableReason: String? {
        if let reason = PrivateJournal.unavailableReason { return reason }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return "needs \(setpriv)" }
        let check = try? ProcessRunner.run(setpriv, asNobody + [chimectl, "--version"])
        guard check?.status == 0 else { return "nobody cannot run \(chimectl)" }
        return nil
    }

    static let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    @Test func eachInstanceSeesItsOwnUsersEntriesAndUnreadableFilesAreExplained() throws {
        if let reason = Self.setprivUnavailableReason { try Test.cancel("Skipped: \(reason)") }
        let directory = try TemporaryDirectory(prefix: "chime-history-uid")
        defer { directory.remove() }
        let result = try PrivateJournal.run(
            #"""
            set -eu
            "$1" dispatch system System 2026-11-30T09:00:00.000000Z 0 journal
            "$2" --reuid=65534 --regid=65534 --clear-groups \
                "$1" dispatch mine Mine 2026-11-30T09:00:00.000000Z 0 journal
            """#, arguments: [Self.probe, Self.setpriv], keepingJournalIn: directory.path + "/store")
        try #require(result.output.status == 0, "\(result.output.standardError)")
        let journal = PrivateJournal.journalDirectory(in: directory.path + "/store")
        let nobody = [Self.setpriv] + Self.asNobody

        // journald's files are for root and the journal's groups alone.
        let denied = try ProcessRunner.run(
            Self.setpriv, Self.asNobody + [Self.chimectl, "history", "--user", "--directory=\(journal)"])
        #expect(denied.status == 1)
        #expect(denied.standardOutput.isEmpty)
        #expect(denied.standardError.hasPrefix("chimectl history: cannot read the journal at \(journal)/"))
        #expect(denied.standardError.contains(": Permission denied; root and the members of the groups"))

        #expect(try Self.history(journal, []).map { $0["id"] as? String } == ["system"])
        #expect(try Self.history(journal, ["--user"]).map { $0["id"] as? String } == ["system"])
        let chmod = try ProcessRunner.run("/bin/chmod", ["-R", "a+rX", directory.path + "/store"])
        try #require(chmod.status == 0)
        #expect(try Self.history(journal, ["--user"], as: nobody).map { $0["id"] as? String } == ["mine"])
        #expect(try Self.history(journal, [], as: nobody).map { $0["id"] as? String } == ["system"])
    }
}
