import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// What the commands that change an instance (`add`, `cancel`, `disable`, `enable`, `reload`) share: where its
/// files are, who may change them, and making chimed rebuild.
extension InstanceView {
    /// `STATE_DIR/added/ID.notification`: where `chimectl add` keeps the request `id`.
    func addedPath(_ id: String) -> String {
        options.addedDirectory + "/" + id + ".notification"
    }

    /// The ids of the notifications added at run time, in byte order.
    func addedIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: options.addedDirectory)) ?? []
        return names.filter { $0.hasSuffix(".notification") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".notification".count)) }
            .sorted { $0.precedesInByteOrder($1) }
    }

    /// The notification `id` as the configuration directories define it (drop-ins applied), if they do.
    func configuredFile(_ id: String) -> NotificationFile? {
        NotificationSearch(searching: options.configDirectories, probe: PosixFileKindProbe()).files.first {
            $0.id == id
        }
    }

    /// Where the running chimed's notification `id` comes from, when that is not `other` (a generator's output, a
    /// file); `nil` when chimed does not run or has no such notification scheduled.
    func scheduledSource(of id: String, other: String) -> String? {
        guard isRunning, let scheduled = snapshot?["scheduled"] as? [[String: Any]],
            let source = scheduled.first(where: { $0["id"] as? String == id })?["source"] as? String,
            source != other
        else { return nil }
        return source
    }

    /// Refuses a change to the state when `--runtime-dir` named an instance whose state directory is unknown (no
    /// chimed runs from it): the default state directory is another instance's, the system's most often.
    func requireOwnStateDirectory() throws {
        guard let runtime = runtimeDirectoryWithoutItsState else { return }
        throw CommandFailure(
            "no chimed runs from --runtime-dir=\(runtime) to say which state directory is its own; name it with "
                + "--state-dir (nothing was written)")
    }

    /// Refuses, saying who may, when the caller cannot create or change files in `directory`.
    ///
    /// The directory's permissions are the access rule: the system instance's directories belong to root, a user
    /// instance's to its user. (chimed also reads only files owned by root or by its own user, so a group allowed
    /// to write there would not get its requests read.)
    /// Trying chimectl out must leave no files in the system's directories: a change to the state of the system
    /// instance needs that instance running, or its state directory named with `--state-dir`.
    func requireRunningToChangeSystemState(stateDirectoryGiven: Bool) throws {
        try requireOwnStateDirectory()
        guard !isRunning, options.instance == .system, !stateDirectoryGiven else { return }
        throw CommandFailure(
            "chimed is not running (no live process in \(options.pidPath)); start it ('systemctl start chimed'), "
                + "or name the state directory of the stopped instance with --state-dir")
    }

    func requireWritable(_ directory: String) throws {
        var existing = directory
        while !existing.isEmpty && existing != "/" && !FileManager.default.fileExists(atPath: existing) {
            existing = (existing as NSString).deletingLastPathComponent
        }
        guard access(existing.isEmpty ? "." : existing, W_OK) != 0 else { return }
        let reason = String(cString: strerror(errno))
        switch options.instance {
        case .system:
            throw CommandFailure(
                "cannot write \(directory) (\(reason)): the system instance accepts requests only from root; run "
                    + "this as root, or use --user for your own instance")
        case .user:
            throw CommandFailure(
                "cannot write \(directory) (\(reason)): a user instance accepts requests only from its own user")
        }
    }

    /// Sends SIGHUP to the running chimed and waits until a rebuild that began after the signal has finished;
    /// returns the snapshot chimed wrote after it.
    ///
    /// A rebuild that was already loading when the signal came does not count (it may have read the files before
    /// they changed): chimed runs one more after it, and that is the one waited for. It may run its generators for
    /// as long as `GeneratorTimeoutSec=` and the grace to kill them allow, so the wait is that with a margin
    /// (`limit` instead, when given); past `patience` the caller is told what it waits for, once (`waiting`).
    func rebuild(
        within limit: TimeInterval? = nil, patience: TimeInterval = 2, waiting: (String) -> Void = { _ in }
    ) throws -> [String: Any] {
        let generators = DaemonConfiguration.load(directories: options.configDirectories).generatorTimeout
        let limit =
            limit ?? (generators + CommandRunner.killGrace + Self.rebuildMargin).timeInterval
        var told = false
        guard isRunning, let pid else { throw CommandFailure("chimed is not running") }
        let before = Self.readSnapshot(options.snapshotPath)?["rebuilds"] as? Int ?? 0
        let requested = Date().epochMicroseconds
        guard kill(pid, SIGHUP) == 0 else {
            throw CommandFailure(
                "cannot signal chimed (pid \(pid)): \(String(cString: strerror(errno))); the change takes effect at "
                    + "its next reload ('systemctl reload chimed')")
        }
        let started = Date()
        let deadline = started.addingTimeInterval(limit)
        while Date() < deadline {
            if !told, Date().timeIntervalSince(started) >= patience {
                told = true
                waiting(
                    "waiting for chimed to finish the rebuild this change started (its generators may run for "
                        + "\(Timespan(generators).map { "\($0)" } ?? "\(generators)"); at most \(Int(limit.rounded(.up))) s)"
                )
            }
            if let snapshot = Self.readSnapshot(options.snapshotPath) {
                if let text = snapshot["last_load_started"] as? String, let started = Timestamp.parseISO8601(text) {
                    if started.epochMicroseconds >= requested { return snapshot }
                } else if let rebuilds = snapshot["rebuilds"] as? Int, rebuilds > before {
                    // A chimed that does not say when its loads begin: any later rebuild will have to do.
                    return snapshot
                }
            }
            usleep(20_000)
        }
        throw CommandFailure("chimed did not finish rebuilding within \(Int(limit)) s")
    }

    /// Beyond the generators' time-out and the kill's grace: reading what they printed and arming the schedule.
    static let rebuildMargin: Duration = .seconds(15)

    /// The backends chimed delivers to when a notification names none (its `--deliver`), as the running chimed
    /// says; `journal` when it is not running.
    var defaultBackends: [String] {
        guard isRunning, let names = snapshot?["default_backends"] as? [String], !names.isEmpty else {
            return DaemonConfiguration.load(directories: options.configDirectories)
                .backendsWithoutDeliver(override: options.defaultBackends)
        }
        return names
    }
}
