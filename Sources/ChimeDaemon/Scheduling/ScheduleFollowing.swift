import Foundation

/// Who follows the changes of the schedule that come from within the scheduler (`Scheduler.followed(by:)`):
/// `ScheduleReporter`, which keeps the status line and `schedule.json` current.
public protocol ScheduleFollowing: AnyObject, Sendable {
    /// After a fire has been handled (deliveries made, timer re-armed), on the scheduler's queue.
    func scheduleFired()
    /// On the dispatcher's side, when every backend is done with a delivery of a request: one that has nothing
    /// left to fire is finished only then (`Status.finishedPinnedSources`).
    func requestDeliveryFinished()
}
