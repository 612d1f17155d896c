import Foundation

/// The last stage before the dispatcher: an application's request that goes out is signalled to the application
/// (`Delivered`), after the focus gate decided, so that an application hears of what was presented: a held
/// request when it is released, a dropped one never. Bound to the scheduler's queue when given one.
final class DeliveredSignals: DeliveryDispatching, Sendable {
    private let target: any DeliveryDispatching
    private let signals: ApplicationSignals
    private let queue: DispatchQueue?

    /// - Parameters:
    ///   - target: the dispatcher.
    ///   - queue: the queue it is used on; tests that call it directly give none.
    init(target: any DeliveryDispatching, signals: ApplicationSignals, queue: DispatchQueue? = nil) {
        self.target = target
        self.signals = signals
        self.queue = queue
    }

    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        signal(delivery)
        for summarized in delivery.summarizes { signal(summarized) }
        target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
    }

    private func signal(_ shown: Delivery) {
        if case .application(let appID, let id) = shown.origin {
            signals.delivered(appID: appID, id: id, fireTime: shown.fireTime)
        }
    }
}
