import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

/// `chimectl add`, `cancel`, `disable`, `enable` and `fire` against a real `chimed` (stand-in `NOTIFY_SOCKET`,
/// delivering to stdout) on temporary directories.
@Suite(.serialized) struct RuntimeRequestProcessTests {
    let chimed = BinaryLocator.path(of: "chimed")
    let chimectl = BinaryLocator.path(of: "chimectl")

    /// An instance's directories, and the chimed running on them.
    final class Instance {
        let directory: TemporaryDirectory
        let notify: NotifySocket
        var process: RunningProcess?

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-runtime")
            notify = try NotifySocket(directory: directory.path)
            try directory.write("etc/standup.notification", Self.standup)
        }

        static let standup = "[Notification]\nTitle=Stand-up\n[Trigger]\nOnCalendar=Mon..Fri 09:55\n"

        var options: [String] {
            [
                "--config-dir=\(directory.path)/etc", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ]
        }

        /// Starts chimed and waits until it is ready.
        func start(_ chimed: String) throws {
            // What an earlier chimed sent (the READY=1 after each rebuild) is not about this one.
            while notify.receive(timeout: 0) != nil {}
            let process = try RunningProcess(
                chimed, options + ["--deliver=stdout"],
                environment: ["NOTIFY_SOCKET": notify.path, "TZ": "Europe/Berlin"])
            self.process = process
            let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
            #expect(ready.last?.contains("READY=1") == true, "chimed did not start: \(process.standardError)")
        }

        func stop() {
            process?.signal(SIGTERM)
            #expect(process?.wait(timeout: 30) == 0)
        }

        /// The ids chimed delivered to stdout, in order.
        var delivered: [String] {
            (process?.standardOutput ?? "").split(separator: "\n").compactMap { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["id"] as? String
            }
        }

        /// Waits, up to `timeout` seconds, until chimed has delivered `id`.
        func waitForDelivery(of id: String, timeout: Double) -> Bool {
            waitFor({ delivered.contains(id) }, timeout: timeout)
        }
    }

    func chimectl(_ arguments: [String], _ instance: Instance) throws -> ProcessRunner.Output {
        try ProcessRunner.run(chimectl, arguments + instance.options, environment: ["TZ": "Europe/Berlin"])
    }

    /// The ids `chimectl list --json` shows.
    func listed(_ instance: Instance) throws -> [String] {
        let list = try chimectl(["list", "--json"], instance)
        #expect(list.status == 0, "\(list.standardError)")
        return list.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
    }

    @Test func anAddedNotificationIsListedThenDeliveredByTheRunningDaemon() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }

        let add = try chimectl(["add", "--in", "2s", "--title", "A new item is downloaded", "--id", "soon"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        #expect(add.standardOutput.hasPrefix("Added soon: next at "))
        #expect(add.standardOutput.hasSuffix(" (1s left).\n") || add.standardOutput.hasSuffix(" (2s left).\n"))
        #expect(add.standardError.isEmpty)
        #expect(try listed(instance) == ["soon", "standup"])
        #expect(instance.delivered.isEmpty)

        #expect(instance.waitForDelivery(of: "soon", timeout: 5))
        let line = try #require(instance.process?.standardOutput.split(separator: "\n").first)
        #expect(line.hasPrefix(#"{"id":"soon","title":"A new item is downloaded","body":"","info":{},"fire_time":"#))
        // chimed rewrites its snapshot after the delivery, in the background.
        _ = waitFor({ (try? listed(instance)) == ["standup"] }, timeout: 5)
        #expect(try listed(instance) == ["standup"])
    }

    /// `--runtime-dir` without `--state-dir`: the request goes to the state directory of the chimed running from that
    /// runtime directory (it says which in schedule.json); with none running there, nothing is written anywhere.
    @Test func aRuntimeDirectoryAloneNamesItsInstancesStateDirectory() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let runtimeOnly = [
            "--runtime-dir=\(instance.directory.path)/run", "--config-dir=\(instance.directory.path)/etc",
        ]
        let id = "runtime-only-\(getpid())"
        let systemRequest = "/var/lib/chime/added/\(id).notification"
        defer { unlink(systemRequest) }
        let refused = try ProcessRunner.run(
            chimectl, ["add", "--in", "1h", "--title", "T", "--id", id] + runtimeOnly, environment: ["TZ": "UTC"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains("name it with --state-dir (nothing was written)"), "\(refused.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: systemRequest))

        try instance.start(chimed)
        defer { instance.stop() }
        let add = try ProcessRunner.run(
            chimectl, ["add", "--in", "1h", "--title", "T", "--id", id] + runtimeOnly, environment: ["TZ": "UTC"])
        #expect(add.status == 0, "\(add.standardError)")
        #expect(FileManager.default.fileExists(atPath: instance.directory.path + "/state/added/\(id).notification"))
        #expect(!FileManager.default.fileExists(atPath: systemRequest))
        #expect(try listed(instance).contains(id))
    }

    /// A rebuild whose generator runs longer than chimectl used to wait (10 s): `add` waits for it, says what it
    /// waits for, and succeeds once the request is scheduled.
    @Test func addWaitsForARebuildAsLongAsItsGeneratorsMayRun() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let marker = instance.directory.path + "/slow-now"
        try instance.directory.write("etc/chimed.conf", "[Daemon]\nGeneratorTimeoutSec=14s\n")
        // Slow only once chimed has started: its first load would otherwise outlast the wait for READY=1.
        try instance.directory.write(
            "etc/generators.d/slow", "#!/bin/sh\n[ -e \(marker) ] && sleep 11\nexit 0\n", permissions: 0o755)
        try instance.start(chimed)
        defer { instance.stop() }
        try instance.directory.write("slow-now", "")
        let add = try chimectl(["add", "--in", "1h", "--title", "T", "--id", "later"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        #expect(add.standardOutput.hasPrefix("Added later: next at "), "\(add.standardOutput)")
        #expect(
            add.standardError.contains("waiting for chimed to finish the rebuild this change started"),
            "\(add.standardError)")
        #expect(try listed(instance).contains("later"))
    }

    /// A file edited after chimed's last rebuild: `list` and `status` say so, as systemctl does of unit files, until
    /// a reload.
    @Test func listAndStatusSayWhenAFileChangedSinceTheLastRebuild() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }
        let file = instance.directory.path + "/etc/standup.notification"
        #expect(try chimectl(["list"], instance).standardError.isEmpty)
        try instance.directory.write(
            "etc/standup.notification", "[Notification]\nTitle=Stand-up\n[Trigger]\nOnCalendar=Mon..Fri 10:05\n")
        let warning =
            "Warning: \(file) changed on disk since chimed's last rebuild; run 'chimectl reload' to schedule what "
            + "the files say now.\n"
        #expect(try chimectl(["list"], instance).standardError == warning)
        #expect(try chimectl(["status"], instance).standardError == warning)
        #expect(try chimectl(["reload"], instance).status == 0)
        #expect(try chimectl(["list"], instance).standardError.isEmpty)
    }

    @Test func aThreadIsAddedListedAndCarriedByTheDelivery() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }
        for (id, thread) in [("m1", "chat:alice"), ("m2", "chat:alice"), ("b1", "ci")] {
            let add = try chimectl(["add", "--in=1h", "--title=\(id)", "--id=\(id)", "--thread=\(thread)"], instance)
            #expect(add.status == 0, "\(add.standardError)")
        }
        let list = try chimectl(["list", "--thread=chat:alice", "--json"], instance)
        let threads = list.standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map {
                "\($0["id"] ?? "")@\($0["thread"] ?? "")"
            }
        }
        #expect(threads == ["m1@chat:alice", "m2@chat:alice"])
        let table = try chimectl(["list", "--thread=ci"], instance)
        #expect(table.standardOutput.hasSuffix("\n1 scheduled in the thread 'ci'.\n"), "\(table.standardOutput)")
        let bad = try chimectl(["add", "--in=1h", "--title=x", "--thread=a\u{1}b"], instance)
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("Invalid Thread="), "\(bad.standardError)")

        let fire = try chimectl(["add", "--in=1s", "--title=now", "--id=now", "--thread=ci"], instance)
        #expect(fire.status == 0, "\(fire.standardError)")
        #expect(instance.waitForDelivery(of: "now", timeout: 5))
        #expect(instance.process?.standardOutput.contains(#""id":"now""#) == true)
    }

    @Test func chimectlAckStopsTheRepeats() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }
        let add = try chimectl(["add", "--in=1s", "--title=Pills", "--id=pills", "--repeat=1s"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        #expect(waitFor({ instance.delivered.filter { $0 == "pills" }.count >= 2 }, timeout: 10))
        let ack = try chimectl(["ack", "pills"], instance)
        #expect(ack.status == 0, "\(ack.standardError)")
        #expect(ack.standardOutput == "Acknowledged pills: no more repeats.\n")
        // chimectl returns once the rebuild that took the request is done: nothing more comes.
        let count = instance.delivered.count
        usleep(1_500_000)
        #expect(instance.delivered.count == count)
        #expect(instance.process?.standardError.contains("pills: Pills (acknowledged by chimectl ack") == true)

        let again = try chimectl(["ack", "pills", "--json"], instance)
        #expect(again.status == 1)
        #expect(
            again.standardOutput
                == #"{"acknowledged":[],"failed":[{"id":"pills","error":"'pills' is not repeating; there is nothing to acknowledge"}]}"#
                + "\n")
    }

    /// A request with nothing left to fire is removed once delivered: not loaded again, not listed, not cancelled.
    @Test func aFinishedRequestLeavesTheStateDirectory() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        let added = instance.directory.path + "/state/added"
        #expect(try chimectl(["add", "--in", "1s", "--title", "Once", "--id", "once"], instance).status == 0)
        #expect(
            try chimectl(["add", "--every", "1s", "--count", "2", "--title", "Twice", "--id", "twice"], instance).status
                == 0)
        #expect(try chimectl(["add", "--in", "1h", "--title", "Later", "--id", "later"], instance).status == 0)
        #expect(instance.waitForDelivery(of: "once", timeout: 5))
        #expect(waitFor({ instance.delivered.filter { $0 == "twice" }.count == 2 }, timeout: 10))
        // The files go once the deliveries are done; chimed removes them right after.
        func requests() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: added)) ?? []).sorted() }
        _ = waitFor({ requests() == ["later.notification"] }, timeout: 10)
        #expect(requests() == ["later.notification"])
        #expect(instance.delivered.filter { $0 == "once" } == ["once"])
        #expect(instance.delivered.filter { $0 == "twice" } == ["twice", "twice"])
        let cancel = try chimectl(["cancel", "--all"], instance)
        #expect(cancel.standardOutput == "Cancelled later.\n", "\(cancel.standardOutput)")
        // A restart loads nothing of them and delivers nothing again.
        instance.stop()
        try instance.start(chimed)
        #expect(try listed(instance) == ["standup"])
        instance.stop()
    }

    @Test func aCancelledNotificationIsNeverDelivered() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }

        let add = try chimectl(["add", "--in", "2s", "--title", "Never", "--id", "never", "--json"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        #expect(add.standardOutput.contains(#""scheduled":true"#))
        #expect(try listed(instance) == ["never", "standup"])
        let cancel = try chimectl(["cancel", "never"], instance)
        #expect(cancel.status == 0, "\(cancel.standardError)")
        #expect(cancel.standardOutput == "Cancelled never.\n")
        #expect(try listed(instance) == ["standup"])
        // A witness added after it and due after it: once chimed delivered that, the cancelled one's time is past.
        let witness = try chimectl(["add", "--in", "3s", "--title", "Witness", "--id", "witness"], instance)
        #expect(witness.status == 0, "\(witness.standardError)")
        #expect(instance.waitForDelivery(of: "witness", timeout: 10))
        #expect(instance.delivered == ["witness"])
    }

    @Test func anAddedNotificationSurvivesARestart() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        let add = try chimectl(["add", "--on-calendar", "*-12-24 18:00", "--title", "Eve", "--id", "eve"], instance)
        #expect(add.status == 0, "\(add.standardError)")
        instance.stop()

        let down = try chimectl(["add", "--in", "1h", "--title", "While down", "--id", "down"], instance)
        #expect(down.status == 0)
        #expect(down.standardError == "chimectl add: chimed is not running; 'down' will be scheduled when it starts.\n")

        try instance.start(chimed)
        defer { instance.stop() }
        #expect(Set(try listed(instance)) == ["standup", "down", "eve"])
        let snapshot = try String(contentsOfFile: instance.directory.path + "/run/schedule.json", encoding: .utf8)
        #expect(snapshot.contains(#""source":"\#(instance.directory.path)/state/added/eve.notification""#))
    }

    /// `chimectl list` shows when a randomly delayed delivery comes and by how much, the same after a restart for a
    /// fixed delay.
    @Test func listShowsTheRandomizedDelayThatApplies() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        let at = "2099-06-01 09:00:00 UTC"
        let add = try chimectl(
            ["add", "--at", at, "--randomized-delay=30min", "--fixed-random-delay", "--title=Fleet", "--id=fleet"],
            instance)
        #expect(add.status == 0, "\(add.standardError)")
        func listed() throws -> (next: String, delay: Int64) {
            let line = try #require(
                try chimectl(["list", "--json"], instance).standardOutput.split(separator: "\n").first {
                    $0.contains(#""id":"fleet""#)
                })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(
                object["trigger"] as? String == "At=2099-06-01T09:00:00Z RandomizedDelaySec=30min FixedRandomDelay=yes")
            return (object["next"] as? String ?? "", (object["delay_usec"] as? NSNumber)?.int64Value ?? -1)
        }
        let before = try listed()
        #expect((1...1_800_000_000).contains(before.delay))
        let occurrence = try #require(Timestamp.parseISO8601("2099-06-01T09:00:00Z"))
        #expect(
            before.next
                == Timestamp.iso8601(
                    Date(epochMicroseconds: occurrence.epochMicroseconds + before.delay), fraction: .microseconds))
        let table = try chimectl(["list"], instance).standardOutput
        #expect(table.contains("FixedRandomDelay=yes (delayed "), "\(table)")
        instance.stop()
        try instance.start(chimed)
        defer { instance.stop() }
        #expect(try listed() == before)
    }

    @Test func aRequestCannotTakeTheIDOfAGeneratorsNotification() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let generator = try instance.directory.write(
            "etc/generators.d/weekly",
            "#!/bin/sh\necho '{\"Id\":\"weekly\",\"Title\":\"W\",\"OnCalendar\":\"Mon 08:00\"}'\n")
        chmod(generator, 0o755)
        try instance.start(chimed)
        defer { instance.stop() }
        #expect(try listed(instance).contains("weekly"))
        let add = try chimectl(["add", "--id", "weekly", "--title", "T", "--in", "1h"], instance)
        #expect(add.status == 1)
        #expect(
            add.standardError == "chimectl add: 'weekly' is the id of \(generator), which would win over the request; "
                + "choose another --id\n")
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/state/added/weekly.notification"))
    }

    @Test func disableAndEnableAFileDefinedNotification() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }

        let disable = try chimectl(["disable", "standup"], instance)
        #expect(disable.status == 0, "\(disable.standardError)")
        #expect(try listed(instance).isEmpty)
        let enable = try chimectl(["enable", "standup"], instance)
        #expect(enable.status == 0, "\(enable.standardError)")
        #expect(try listed(instance) == ["standup"])
        #expect(
            try String(contentsOfFile: instance.directory.path + "/etc/standup.notification", encoding: .utf8)
                == Instance.standup)
    }

    @Test func fireDeliversNowWithChimedsDefaultBackend() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.start(chimed)
        defer { instance.stop() }

        // chimed runs with --deliver=stdout, which fire takes from its snapshot.
        let fire = try chimectl(["fire", "standup"], instance)
        #expect(fire.status == 0, "\(fire.standardError)")
        let lines = fire.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix(#"{"id":"standup","title":"Stand-up","body":"","info":{},"fire_time":"#) == true)
        #expect(Array(lines.dropFirst()) == ["Fired standup: Stand-up", "  stdout: delivered"])
        // The daemon's schedule and deliveries are untouched.
        #expect(instance.delivered.isEmpty)
        #expect(try listed(instance) == ["standup"])
    }

    @Test func fireDeliversToTheJournal() throws {
        if let reason = PrivateJournal.unavailableReason { try Test.cancel("Skipped: \(reason)") }
        let instance = try Instance()
        defer { instance.directory.remove() }
        let result = try PrivateJournal.run(
            #"exec "$@""#, arguments: [chimectl, "fire", "--deliver=journal", "standup"] + instance.options)
        #expect(result.output.status == 0, "\(result.output.standardError)")
        #expect(result.output.standardOutput == "Fired standup: Stand-up\n  journal: delivered\n")
        let entry = try #require(result.entries.first { $0["CHIME_ID"] == "standup" }, "no entry in the journal")
        #expect(entry["CHIME_TITLE"] == "Stand-up")
        #expect(entry["CHIME_BACKEND"] == "journal")
        #expect(entry["MESSAGE_ID"] == "e73fb9a22fd0422fa10f6ec70955e821")
    }

    @Test func theSystemInstanceRefusesRequestsFromOtherUsers() throws {
        guard geteuid() == 0 else { try Test.cancel("Skipped: needs root to run chimectl as nobody") }
        let instance = try Instance()
        defer { instance.directory.remove() }
        let result = try ProcessRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", chimectl, "add", "--title", "x", "--in", "1h"]
                + instance.options)
        #expect(result.status == 1)
        #expect(
            result.standardError == "chimectl add: cannot write \(instance.directory.path)/state/added (Permission "
                + "denied): the system instance accepts requests only from root; run this as root, or use --user "
                + "for your own instance\n")
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/state"))
    }
}
