import ChimeCore
import Foundation

/// The journal's words for a rebuild: the schedule loaded, a load that failed, a problem of a file.
extension DaemonEvent {
    /// `Started: 5 notification(s) loaded, …` or `Reloaded (SIGHUP): …`.
    static func rebuilt(_ loaded: LoadedSchedule, scheduled: Int, first: Bool, reason: String) -> DaemonEvent {
        DaemonEvent(
            first ? .started : .reloaded,
            "\(first ? "Started" : "Reloaded (\(reason))"): \(loaded.notifications.count) notification(s) "
                + "loaded, \(scheduled) scheduled, \(loaded.filesWithErrors) file(s) with errors.",
            fields: [
                ("CHIME_LOADED", String(loaded.notifications.count)), ("CHIME_SCHEDULED", String(scheduled)),
                ("CHIME_ERRORS", String(loaded.filesWithErrors)),
            ])
    }

    static func loadFailed(_ error: ScheduleLoadError) -> DaemonEvent {
        DaemonEvent(
            .configError, "Loading the schedule failed: \(error.message); keeping the previous schedule.",
            fields: [("CHIME_ERROR", error.message)])
    }

    /// A problem of a notification file, a generator or chimed.conf, with its file, line and the notification's id.
    static func configurationProblem(_ problem: UnitFileDiagnostic) -> DaemonEvent {
        var fields: [(name: String, value: String)] = [("CHIME_FILE", problem.location.file)]
        if let line = problem.location.line { fields.append(("CHIME_LINE", String(line))) }
        if let id = id(ofFile: problem.location.file) { fields.append(("CHIME_ID", id)) }
        return DaemonEvent(
            .configError, problem.description, fields: fields, priority: problem.severity == .error ? .error : .warning)
    }

    private static func id(ofFile path: String) -> String? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard name.hasSuffix(".notification") else { return nil }
        return String(name.dropLast(".notification".count))
    }
}
