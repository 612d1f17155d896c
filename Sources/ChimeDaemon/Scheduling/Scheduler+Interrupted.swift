import ChimeCore
import Foundation

extension Scheduler {
    /// At the first schedule after a start: delivers again what was in flight when the previous run ended.
    func redeliverInterrupted(_ loaded: LoadedSchedule) {
        let interrupted = store.interrupted()
        guard !interrupted.isEmpty else { return }
        let byID = Dictionary(loaded.notifications.map { ($0.notification.id, $0) }) { a, _ in a }
        for interrupted in interrupted {
            guard let entry = byID[interrupted.id], entry.notification.isEnabled else {
                store.recordFinished(interrupted.id, at: interrupted.fireTime, followUp: interrupted.followUp)
                continue
            }
            late.tellRedelivery(of: interrupted)
            var delivery = Delivery(of: entry, fireTime: interrupted.fireTime, missedCount: interrupted.missed)
            delivery.finishedBackends = interrupted.finishedBackends
            switch interrupted.followUp {
            case nil:
                deliver(delivery)
                continue
            case .snooze:
                delivery.isSnoozed = true
            case .repeated(let number):
                delivery.repeatNumber = number
            }
            // As it was handed over: the badge counted the occurrence already.
            delivery.notification.badge = nil
            handOff(delivery)
        }
    }
}
