import Foundation

/// The first stage of delivery: what chimed.conf's `[Presentation]` does not allow (an alert, a sound, a badge)
/// is taken out before anything else sees the delivery, for every kind of delivery alike (an occurrence, a catch-up,
/// a snooze, a repeat).
///
/// Bound to the scheduler's queue when given one, as the stages after it are.
final class PresentationFilter: DeliveryDispatching, @unchecked Sendable {
    private let target: any DeliveryDispatching
    private let queue: DispatchQueue?
    private var settings = PresentationSettings()

    /// - Parameters:
    ///   - target: the next stage (the focus gate).
    ///   - queue: the queue it is used on; tests that call it directly give none.
    init(target: any DeliveryDispatching, queue: DispatchQueue? = nil) {
        self.target = target
        self.queue = queue
    }

    /// Takes the settings a rebuild read.
    func configure(_ settings: PresentationSettings) {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        self.settings = settings
    }

    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        var delivery = delivery
        settings.strip(&delivery)
        target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
    }
}
