/// Hands due occurrences to the backends; the scheduler never waits for it.
public protocol DeliveryDispatching: Sendable {
    /// Starts delivering. `backendFinished` runs with the name of each backend that is done with it (delivered,
    /// failed or timed out) while another is still at work; `finished` runs once every backend is done.
    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void)
}

extension DeliveryDispatching {
    /// Starts delivering; `finished` runs once every backend is done with it.
    public func dispatch(_ delivery: Delivery, finished: @escaping @Sendable () -> Void) {
        dispatch(delivery, backendFinished: { _ in }, finished: finished)
    }
}
