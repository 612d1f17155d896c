import ChimeCore
import ChimePlatform
import Foundation

/// What `chimed --check` and `chimectl verify` report beyond the problems of each file, so that the two agree:
/// configuration directories that do not exist or hold nothing, and one-shots whose time is already past.
public enum ScheduleCheck {
    /// A directory that was named on the command line and does not exist is an error (a typo would otherwise
    /// check nothing and pass); one that holds no notification and no generator is a warning.
    /// - Parameter named: whether the directories were given, rather than the instance's default search path, of
    ///   which only some directories usually exist: then only a path without any is worth a warning.
    public static func directoryProblems(_ directories: [String], named: Bool) -> [UnitFileDiagnostic] {
        var problems: [UnitFileDiagnostic] = []
        var usable = 0
        for directory in directories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                if named {
                    problems.append(
                        UnitFileDiagnostic(
                            .error, at: UnitFileLocation(file: directory), "No such configuration directory."))
                }
                continue
            }
            guard isDirectory.boolValue else {
                problems.append(
                    UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), "Not a directory."))
                continue
            }
            // One that cannot be listed is reported by the search, with why; it does not also "hold nothing".
            if whyUnreadable(directory) != nil { continue }
            if holdsSomething(directory) {
                usable += 1
            } else if named {
                problems.append(
                    UnitFileDiagnostic(
                        .warning, at: UnitFileLocation(file: directory),
                        "No notifications (NAME.notification) and no generators (generators.d/) here."))
            }
        }
        if !named && usable == 0 {
            problems.append(
                UnitFileDiagnostic(
                    .warning, at: UnitFileLocation(file: directories.joined(separator: ", ")),
                    "No notifications and no generators in any configuration directory."))
        }
        return problems
    }

    /// Why `directory`, which exists, cannot be listed (`Permission denied`, `Not a directory`); `nil` when it can,
    /// or does not exist. Opening it is the test: listing 10,000 names is left to the search, which does it anyway.
    public static func whyUnreadable(_ directory: String) -> String? {
        guard let stream = opendir(directory) else {
            let failure = Errno.current
            return failure == Errno(ENOENT) ? nil : failure.description
        }
        closedir(stream)
        return nil
    }

    private static func holdsSomething(_ directory: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        if names.contains(where: { $0.hasSuffix(".notification") }) { return true }
        let generators = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/generators.d")) ?? []
        return generators.contains { !$0.hasPrefix(".") }
    }

    /// A one-shot whose time is past when it is first loaded is skipped, never delivered: a warning, since that
    /// is seldom what its author meant.
    public static func pastProblem(
        _ notification: ScheduledNotification, source: String, line: Int?, now: Date, systemZone: ZoneRules
    ) -> UnitFileDiagnostic? {
        let trigger = notification.trigger
        guard notification.isEnabled, trigger.isOneShot, let at = trigger.instants.first, at <= now else { return nil }
        let when = Timestamp.format(at, zone: trigger.timeZone ?? systemZone) ?? "?"
        return UnitFileDiagnostic(
            .warning, at: UnitFileLocation(file: source, line: line),
            "At= is past (\(when), \(Timestamp.relativeDescription(of: at, now: now))): '\(notification.id)' "
                + "will not fire.")
    }
}
