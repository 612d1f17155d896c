import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed` binary with a stand-in `NOTIFY_SOCKET`: readiness, SIGHUP storms, a broken file on reload,
/// SIGTERM.
@Suite(.serialized) struct ChimedProcessTests {
    let chimed = BinaryLocator.path(of: "chimed")

    struct Instance {
        let directory: TemporaryDirectory
        let notify: NotifySocket
        let process: RunningProcess

        var config: String { directory.path + "/config" }

        /// The fire times (ISO strings) delivered to stdout so far, in order of delivery.
        func fireTimes(of id: String) -> [String] {
            process.standardOutput.split(separator: "\n").compactMap { line in
                guard let data = line.data(using: .utf8),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    object["id"] as? String == id
                else { return nil }
                return object["fire_time"] as? String
            }
        }
    }

    /// Starts chimed on a fresh configuration holding `files`, delivering to stdout.
    func start(_ files: [String: String]) throws -> Instance {
        let directory = try TemporaryDirectory(prefix: "chimed-test")
        for (name, text) in files {
            try directory.write("config/\(name)", text, permissions: name.hasPrefix("generators.d/") ? 0o755 : 0o644)
        }
        let notify = try NotifySocket(directory: directory.path)
        let process = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state", "--deliver=stdout",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "Europe/Berlin"])
        return Instance(directory: directory, notify: notify, process: process)
    }

    static let everySecond = """
        [Notification]
        Title=Tick
        [Trigger]
        OnCalendar=*:*:*
        """

    @Test func readinessAndStatus() throws {
        let instance = try start(["tick.notification": Self.everySecond])
        defer { instance.directory.remove() }
        let messages = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        let ready = try #require(messages.last)
        #expect(ready.contains("READY=1"))
        #expect(ready.contains("STATUS=1 scheduled; next: tick at "))
        // The snapshot follows READY=1 within moments (chimectl waits for it the same way).
        let path = instance.directory.path + "/run/schedule.json"
        _ = waitFor({ FileManager.default.fileExists(atPath: path) }, timeout: 2)
        let snapshot = try String(contentsOfFile: path, encoding: .utf8)
        #expect(snapshot.contains(#""id":"tick""#))
        let pid = try String(contentsOfFile: instance.directory.path + "/run/chimed.pid", encoding: .utf8)
        #expect(pid == "\(instance.process.pid)\n")
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
    }

    @Test func sighupStormCoalescesWithoutLossOrDuplicates() throws {
        // A generator that takes 200 ms makes every rebuild take at least that long.
        let rebuildAtLeast = 0.2
        let instance = try start([
            "tick.notification": Self.everySecond,
            "generators.d/slow": "#!/bin/sh\nsleep \(rebuildAtLeast)\n",
        ])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(instance.process.waitForOutput(timeout: .seconds(5)) { $0.contains(#""id":"tick""#) } != nil)
        // 100 SIGHUPs, 9 ms apart.
        let stormStart = ContinuousClock.now
        for _ in 0..<100 {
            instance.process.signal(SIGHUP)
            usleep(9_000)
        }
        let storm = (ContinuousClock.now - stormStart).timeInterval
        // Signals that arrive while a rebuild loads collapse into one more: rebuilds follow each other for as
        // long as the storm lasts, and one more ends it.
        let mostRebuilds = Int(storm / rebuildAtLeast) + 2
        var messages: [String] = []
        _ = waitFor(
            {
                messages += instance.notify.receive(until: { _ in false }, timeout: 0.1)
                return messages.last?.contains("READY=1") == true
                    && instance.process.standardError.contains("Reloaded (coalesced requests)")
            }, timeout: 10)
        // One more second of ticks after the storm.
        Thread.sleep(forTimeInterval: 1.2)
        #expect(instance.process.isRunning)
        messages += instance.notify.receive(until: { _ in false }, timeout: 0.1)
        let reloads = messages.filter { $0.contains("RELOADING=1") }
        #expect(reloads.count >= 2 && reloads.count <= mostRebuilds, "\(reloads.count) rebuilds in \(storm) s")
        #expect(reloads.allSatisfy { $0.contains("MONOTONIC_USEC=") })
        #expect(messages.filter { $0.contains("READY=1") }.count == reloads.count)
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
        let rebuilt = instance.process.standardError.split(separator: "\n").filter { $0.contains("Reloaded (") }
        #expect(rebuilt.count == reloads.count, "\(rebuilt)")
        #expect(rebuilt.last?.contains("Reloaded (coalesced requests)") == true, "\(rebuilt)")
        // Every second from the first delivery to the last, each exactly once.
        let times = instance.fireTimes(of: "tick")
        #expect(times.count >= 3)
        #expect(Set(times).count == times.count, "duplicates: \(times)")
        // Backends run concurrently, so lines of deliveries made close together may come out of order.
        let seconds = times.compactMap { TestDate.microseconds(iso: $0).map { $0 / 1_000_000 } }.sorted()
        #expect(seconds == Array((seconds.first ?? 0)...(seconds.last ?? 0)), "gaps: \(times)")
    }

    @Test func brokenFileOnReloadIsReportedAndSkipped() throws {
        let instance = try start(["tick.notification": Self.everySecond])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        try instance.directory.write(
            "config/broken.notification", "[Notification]\nTitle=x\nUrgency=loud\n[Trigger]\nEvery=1h\n")
        instance.process.signal(SIGHUP)
        let messages = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(messages.contains { $0.contains("RELOADING=1") })
        let ready = try #require(messages.last)
        #expect(ready.contains("STATUS=1 scheduled; next: tick at "))
        #expect(ready.contains("last error: \(instance.config)/broken.notification:3:9: Invalid Urgency="))
        #expect(
            waitFor(
                { instance.process.standardError.contains("broken.notification:3:9: Invalid Urgency= 'loud'") },
                timeout: 5))
        // The rest of the schedule goes on.
        #expect(waitFor({ !instance.fireTimes(of: "tick").isEmpty }, timeout: 5))
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
    }

    @Test func filesWithErrorsAreCountedOnceEach() throws {
        // Three files with four errors each: twelve errors, three files.
        let bad = "[Notification]\nUrgency=loud\nBadge=many\n[Trigger]\nEvery=soon\n"
        let instance = try start([
            "tick.notification": Self.everySecond, "a.notification": bad, "b.notification": bad,
            "c.notification": bad,
        ])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
        let errors = instance.process.standardError.split(separator: "\n")
        #expect(errors.filter { $0.contains(".notification:") }.count == 12, "\(errors)")
        #expect(
            errors.contains("chimed: Started: 1 notification(s) loaded, 1 scheduled, 3 file(s) with errors."),
            "\(errors)")
    }

    /// The desktop and the launcher are not mentioned at start and reload when no notification delivers there.
    @Test func nothingIsSaidOfADesktopNobodyUses() throws {
        let instance = try start(["tick.notification": Self.everySecond])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        instance.process.signal(SIGHUP)
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
        let errors = instance.process.standardError
        #expect(errors.components(separatedBy: "chimed: Presentation: alert, sound, badge allowed.\n").count == 3)
        #expect(!errors.contains("desktop") && !errors.contains("launcher") && !errors.contains("bus"), "\(errors)")
    }

    /// `list --all` adds what has nothing to fire; `status` and `reload` show every problem of the last rebuild.
    @Test func listAllAndStatusShowWhatTheRebuildFound() throws {
        let instance = try start([
            "tick.notification": Self.everySecond,
            "off.notification": "[Notification]\nTitle=Off\nEnabled=no\n[Trigger]\nOnCalendar=daily\n",
            "old.notification": "[Notification]\nTitle=Old\n[Trigger]\nAt=2020-01-01 00:00\n",
            "bad.notification": "[Notification]\nTitel=x\nUrgency=loud\n[Trigger]\nOnCalendar=daily\n",
        ])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        let chimectl = BinaryLocator.path(of: "chimectl")
        let options = ["--runtime-dir=\(instance.directory.path)/run"]
        let list = try ProcessRunner.run(chimectl, ["list"] + options)
        #expect(!list.standardOutput.contains("off") && !list.standardOutput.contains("old"))
        let all = try ProcessRunner.run(chimectl, ["list", "--all"] + options)
        let rows = all.standardOutput.split(separator: "\n").map { $0.split(separator: " ").first ?? "" }
        #expect(rows == ["ID", "tick", "off", "old", "1"], "\(all.standardOutput)")
        #expect(all.standardOutput.contains("off   disabled (Enabled=no)"))
        #expect(all.standardOutput.contains("old   never (nothing left to fire)"))
        #expect(all.standardOutput.hasSuffix("\n1 scheduled. 2 with nothing to fire.\n"))

        let bad = "\(instance.config)/bad.notification"
        let problems = [
            "\(bad):1:1: Missing Title= in [Notification].",
            "\(bad):2:1: Unknown key 'Titel' in section [Notification], ignoring. Did you mean 'Title'?",
            "\(bad):3:9: Invalid Urgency= 'loud': expected low, normal or critical.",
        ]
        let status = try ProcessRunner.run(chimectl, ["status"] + options)
        #expect(status.standardOutput.contains("    Problems: \(problems[0])\n"), "\(status.standardOutput)")
        #expect(status.standardOutput.hasSuffix("              \(problems[1])\n              \(problems[2])\n"))
        let reload = try ProcessRunner.run(chimectl, ["reload", "--json"] + options)
        let object = try JSONSerialization.jsonObject(with: Data(reload.standardOutput.utf8)) as? [String: Any]
        #expect(object?["problems"] as? [String] == problems, "\(reload.standardOutput)")
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
    }

    @Test func aLoadThatFailsAsAWholeKeepsThePreviousSchedule() throws {
        let instance = try start(["tick.notification": Self.everySecond])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        // The configuration directory becomes unreadable as a directory: nothing can be loaded.
        let moved = instance.directory.path + "/config-moved"
        try FileManager.default.moveItem(atPath: instance.config, toPath: moved)
        try "not a directory".write(toFile: instance.config, atomically: true, encoding: .utf8)
        instance.process.signal(SIGHUP)
        let messages = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        let ready = try #require(messages.last)
        #expect(ready.contains("STATUS=1 scheduled; next: tick at "))
        #expect(ready.contains("last error: Cannot read configuration directory \(instance.config)"))
        let before = instance.fireTimes(of: "tick").count
        #expect(waitFor({ instance.fireTimes(of: "tick").count >= before + 2 }, timeout: 5))
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
    }

    @Test func badgeCountsDeliveriesAndChimectlSetsAndClearsIt() throws {
        let instance = try start([
            "tick.notification": "[Notification]\nTitle=Tick\nBadge=+1\n[Trigger]\nOnCalendar=*:*:*\n"
        ])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(waitFor({ instance.fireTimes(of: "tick").count >= 2 }, timeout: 5))
        let chimectl = BinaryLocator.path(of: "chimectl")
        let instanceOptions = [
            "--runtime-dir=\(instance.directory.path)/run", "--state-dir=\(instance.directory.path)/state",
        ]
        // Each delivery carries the number after its own +1, and the badge chimectl reads comes to the number of
        // deliveries (chimed saves it just after handing a delivery off).
        var counted: (badge: Int?, deliveries: Int) = (nil, 0)
        #expect(
            waitFor(
                {
                    let deliveries = instance.fireTimes(of: "tick").count
                    let run = try? ProcessRunner.run(chimectl, ["badge", "--json"] + instanceOptions)
                    let object = run.flatMap {
                        try? JSONSerialization.jsonObject(with: Data($0.standardOutput.utf8)) as? [String: Any]
                    }
                    counted = (object?["badge"] as? Int, deliveries)
                    return counted.badge == deliveries && deliveries == instance.fireTimes(of: "tick").count
                }, timeout: 5), "badge \(String(describing: counted.badge)) after \(counted.deliveries) deliveries")
        let lines = instance.process.standardOutput.split(separator: "\n")
        #expect(lines.count >= 2)
        #expect(lines.enumerated().allSatisfy { $0.element.contains(#""badge":\#($0.offset + 1)"#) })
        let cleared = try ProcessRunner.run(chimectl, ["badge", "clear"] + instanceOptions)
        #expect(cleared.status == 0, "\(cleared.standardError)")
        #expect(cleared.standardOutput == "0\n")
        let set = try ProcessRunner.run(chimectl, ["badge", "set", "40"] + instanceOptions)
        #expect(set.standardOutput == "40\n")
        let status = instance.notify.receive(until: { $0.contains("badge: 4") }, timeout: 5)
        #expect(status.last?.contains("; badge: 4") == true)
        #expect(try ProcessRunner.run(chimectl, ["badge", "set", "many"] + instanceOptions).status == 64)
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
    }

    /// `badge set` takes what `Badge=` takes; a relative change applies to the number chimed has.
    @Test func badgeSetTakesWhatBadgeTakes() throws {
        let instance = try start(["hourly.notification": "[Notification]\nTitle=Hourly\n[Trigger]\nOnCalendar=hourly\n"]
        )
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        let chimectl = BinaryLocator.path(of: "chimectl")
        let options = ["--runtime-dir=\(instance.directory.path)/run", "--state-dir=\(instance.directory.path)/state"]
        for (change, expected) in [("3", "3"), ("+2", "5"), ("-3", "2"), ("-10", "0"), ("+1", "1")] {
            let run = try ProcessRunner.run(chimectl, ["badge", "set", change] + options)
            #expect(run.status == 0, "\(change): \(run.standardError)")
            #expect(run.standardOutput == expected + "\n", "\(change)")
            // Each change is a rebuild; its messages are read, so that the service manager's socket never fills.
            #expect(
                instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 5).last?.contains("READY=1") == true
            )
        }
        #expect(try ProcessRunner.run(chimectl, ["badge"] + options).standardOutput == "1\n")
        instance.process.signal(SIGTERM)
        #expect(instance.process.wait(timeout: 10) == 0)
        // A stopped instance's badge changes in its state directory, when that is named.
        let stopped = try ProcessRunner.run(chimectl, ["badge", "set", "+4"] + options)
        #expect(stopped.standardOutput == "5\n", "\(stopped.standardError)")
        #expect(try String(contentsOfFile: instance.directory.path + "/state/badge", encoding: .utf8) == "5\n")
    }

    /// Trying chimectl out as root leaves nothing in the system instance's state directory while it is stopped.
    @Test func changesToAStoppedSystemInstanceNeedItsStateDirectoryNamed() throws {
        let directory = try TemporaryDirectory(prefix: "chimectl-stopped")
        defer { directory.remove() }
        let chimectl = BinaryLocator.path(of: "chimectl")
        let runtime = "--runtime-dir=\(directory.path)/run"
        // Only the runtime directory named, and no chimed there to say which state directory is its own.
        let message =
            "no chimed runs from --runtime-dir=\(directory.path)/run to say which state directory is its own; name it "
            + "with --state-dir (nothing was written)\n"
        let badge = try ProcessRunner.run(chimectl, ["badge", "set", "3", runtime])
        #expect(badge.status == 1)
        #expect(badge.standardError == "chimectl badge: " + message)
        let add = try ProcessRunner.run(chimectl, ["add", "--title=T", "--in=1h", "--id=try", runtime])
        #expect(add.status == 1)
        #expect(add.standardError == "chimectl add: " + message)
        #expect(!FileManager.default.fileExists(atPath: "/var/lib/chime/added/try.notification"))
    }

    @Test func sigtermStopsCleanly() throws {
        let instance = try start(["tick.notification": Self.everySecond])
        defer { instance.directory.remove() }
        _ = instance.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        instance.process.signal(SIGTERM)
        let messages = instance.notify.receive(until: { $0.contains("STOPPING=1") }, timeout: 10)
        #expect(messages.last?.contains("STOPPING=1") == true)
        #expect(instance.process.wait(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/run/chimed.pid"))
    }

    @Test func aRestartAfterAGapCatchesUpOnlyPersistentNotifications() throws {
        let due = Int(Date().addingTimeInterval(2).timeIntervalSince1970.rounded(.up))
        let stamp = "@\(due)"
        let files = [
            "kept.notification": "[Notification]\nTitle=Kept\n[Trigger]\nAt=\(stamp)\nPersistent=yes\n",
            "lost.notification": "[Notification]\nTitle=Lost\n[Trigger]\nAt=\(stamp)\n",
        ]
        let first = try start(files)
        defer { first.directory.remove() }
        _ = first.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        first.process.signal(SIGTERM)
        #expect(first.process.wait(timeout: 10) == 0)
        // Down while the one-shot falls due.
        Thread.sleep(until: Date(timeIntervalSince1970: Double(due) + 0.3))
        let second = try RunningProcess(
            chimed,
            [
                "--config-dir=\(first.config)", "--runtime-dir=\(first.directory.path)/run",
                "--state-dir=\(first.directory.path)/state", "--deliver=stdout",
            ],
            environment: ["NOTIFY_SOCKET": first.notify.path])
        _ = first.notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        #expect(
            waitFor(
                {
                    second.standardError.contains("lost: missed 1 occurrence(s)")
                        && second.standardOutput.contains(#""id":"kept""#)
                }, timeout: 5))
        second.signal(SIGTERM)
        #expect(second.wait(timeout: 10) == 0)
        let lines = second.standardOutput.split(separator: "\n")
        #expect(lines.count == 1, "\(second.standardOutput)")
        #expect(lines.first?.contains(#""id":"kept""#) == true)
        #expect(lines.first?.contains(#""missed":1"#) == true)
        #expect(second.standardError.contains("lost: missed 1 occurrence(s); Persistent=no"))
        #expect(first.process.standardOutput.isEmpty)
    }

    @Test func checkReportsErrorsAndExitsNonZero() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-check")
        defer { directory.remove() }
        try directory.write("good.notification", Self.everySecond)
        try directory.write("bad.notification", "[Notification]\nTitle=x\n[Trigger]\nCount=0\nEvery=1h\n")
        let result = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(directory.path)"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("bad.notification:4:7: Count= must be a positive whole number"))
        #expect(result.standardOutput.contains("1 notification(s) loaded, 1 scheduled, 1 error(s)"))
        try directory.write("bad.notification", "[Notification]\nTitle=x\n[Trigger]\nCount=2\nEvery=1h\n")
        #expect(try ProcessRunner.run(chimed, ["--check", "--config-dir=\(directory.path)"]).status == 0)
        #expect(try ProcessRunner.run(chimed, ["--bogus"]).status == 64)
    }
}
