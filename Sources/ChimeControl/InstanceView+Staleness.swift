import ChimeCore
import ChimeDaemon
import Foundation

extension InstanceView {
    /// At most this many notification files are looked at; past it, only the directories (which an editor that
    /// saves by renaming, a new file or a removed one changes).
    static let stalenessFileLimit = 10_000

    /// A source of the schedule changed on disk after the running chimed began its last load: a configuration
    /// notification file or its drop-ins, `generators.d/` or a generator, `chimed.conf` or its drop-ins (the
    /// requests `add` keeps are followed by a rebuild of their own). The first such path found, or `nil` (also when
    /// chimed does not run, or does not say when its load began).
    var sourceChangedSinceRebuild: String? {
        guard isRunning, let text = snapshot?["last_load_started"] as? String,
            let started = Timestamp.parseISO8601(text)
        else { return nil }
        let since = started.epochMicroseconds
        var looked = 0
        func changed(_ path: String) -> Bool {
            var status = stat()
            guard stat(path, &status) == 0 else { return false }
            let modified = Int64(status.st_mtim.tv_sec) * 1_000_000 + Int64(status.st_mtim.tv_nsec) / 1_000
            return modified > since
        }
        // The directories themselves are not judged: chimed writes its own files in the runtime directory, which
        // is also searched. A new or replaced file has a time of its own; a removed one goes unnoticed.
        func search(_ directory: String, depth: Int) -> String? {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = directory + "/" + name
                let isSource =
                    depth == 0 || name.hasSuffix(".notification") || name.hasSuffix(".notification.d")
                    || name == "generators.d" || name == "chimed.conf" || name == "chimed.conf.d"
                guard isSource, looked < Self.stalenessFileLimit else { continue }
                looked += 1
                if changed(path) { return path }
                if depth > 0, name.hasSuffix(".d"), let found = search(path, depth: depth - 1) { return found }
            }
            return nil
        }
        for directory in options.configDirectories {
            if let found = search(directory, depth: 1) { return found }
        }
        return nil
    }

    /// Says on standard error, as systemctl does of unit files, that what is listed may not be what the files say
    /// now.
    func warnIfSourcesChanged(_ context: CommandContext) {
        guard let path = sourceChangedSinceRebuild else { return }
        context.errors.line(
            "Warning: \(path) changed on disk since chimed's last rebuild; run 'chimectl reload' to schedule what "
                + "the files say now.")
    }
}
