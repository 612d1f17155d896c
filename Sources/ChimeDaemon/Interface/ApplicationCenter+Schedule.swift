import ChimeCore
import Foundation

/// The rebuild as `ApplicationCenter` sees it: whether a load runs, the settings a request is read with, and a
/// rebuild that reads the requests when one cannot be placed in the installed schedule. `ScheduleRebuilder` in
/// chimed. Used on the scheduler's queue.
protocol RequestRebuilding: AnyObject, Sendable {
    var isLoading: Bool { get }
    var configuration: DaemonConfiguration { get }
    var wakeSystemRefusal: String? { get }
    var defaultBackends: [String] { get }
    /// `completion` runs once a rebuild that started after this call is installed.
    func rebuild(reason: String, then completion: @escaping () -> Void)
}

/// `schedule.json` as `ApplicationCenter` sees it: each runs `written` once the snapshot holds a change of the
/// requests (`chimectl list` then shows it). `ScheduleReporter` in chimed. Used on the scheduler's queue.
protocol RequestReporting: AnyObject, Sendable {
    func requestsChanged(then written: @escaping @Sendable () -> Void)
    func requestPlaced(due: Date, then placed: @escaping @Sendable () -> Void)
}

extension ScheduleRebuilder: RequestRebuilding {
    func rebuild(reason: String, then completion: @escaping () -> Void) {
        rebuild(reason: reason, timeChanged: false, then: completion)
    }
}

extension ScheduleReporter: RequestReporting {}
