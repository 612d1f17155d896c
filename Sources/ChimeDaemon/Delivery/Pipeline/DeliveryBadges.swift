import Foundation

/// The stage after the focus gate: a delivery that is shown changes the badge of whoever it belongs to (an
/// application's request that application's, anything else the instance's), and carries the number. Only what
/// goes out is counted: what quiet hours hold is counted when it is released, what they drop never.
///
/// The numbers changed are written once, after the work at hand (a fire, a release), not once per delivery.
/// Bound to the scheduler's queue when given one.
final class DeliveryBadges: DeliveryDispatching, @unchecked Sendable {
    private let target: any DeliveryDispatching
    private let instance: InstanceBadge
    private let applications: ApplicationBadges
    private let queue: DispatchQueue?
    /// Runs work after what runs now on the queue (the daemon's `queue.async`); tests run it at once.
    private let later: (@escaping @Sendable () -> Void) -> Void
    private var saving = false

    /// - Parameters:
    ///   - target: the next stage (the application signals).
    ///   - queue: the queue it is used on; tests that call it directly give none.
    init(
        target: any DeliveryDispatching, instance: InstanceBadge, applications: ApplicationBadges,
        queue: DispatchQueue? = nil, later: @escaping (@escaping @Sendable () -> Void) -> Void = { $0() }
    ) {
        self.target = target
        self.instance = instance
        self.applications = applications
        self.queue = queue
        self.later = later
    }

    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        var delivery = delivery
        var changed = apply(to: &delivery)
        // A summary of quiet hours counts what each delivery it stands for would have.
        for index in delivery.summarizes.indices {
            changed = apply(to: &delivery.summarizes[index]) || changed
            if delivery.summarizes[index].appID == nil, let count = delivery.summarizes[index].badge {
                delivery.badge = count
            }
        }
        if changed && !saving {
            saving = true
            later { [weak self] in self?.save() }
        }
        target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
    }

    /// Applies `delivery`'s `Badge=`; whether it had one.
    private func apply(to delivery: inout Delivery) -> Bool {
        guard delivery.notification.badge != nil else { return false }
        if let appID = delivery.appID {
            applications.apply(to: &delivery, of: appID)
        } else {
            instance.apply(to: &delivery)
        }
        return true
    }

    private func save() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        saving = false
        instance.saveIfChanged()
        applications.saveIfChanged()
    }
}
