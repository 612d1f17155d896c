import ChimeCore
import Dispatch
import Glibc

/// A read source on a file descriptor that it owns: started at most once, stopped at most once, and the descriptor
/// closed once the source is cancelled.
final class DescriptorWatch: Sendable {
    private enum Phase {
        case idle, running, stopped
    }

    let descriptor: Int32
    // Dispatch sources are thread-safe, but Linux's Dispatch does not declare them Sendable.
    nonisolated(unsafe) private let source: any DispatchSourceRead
    private let phase = Locked(Phase.idle)

    /// Takes ownership of `descriptor`; `queue` is where the `start` handler runs.
    init(descriptor: Int32, queue: DispatchQueue) {
        self.descriptor = descriptor
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setCancelHandler { close(descriptor) }
    }

    deinit {
        stop()
    }

    /// Whether `start` was called and `stop` was not.
    var isRunning: Bool {
        phase.withLock { $0 == .running }
    }

    /// Calls `onReadable` on the queue whenever the descriptor is readable, until `stop`; only the first call starts.
    func start(onReadable: @escaping @Sendable () -> Void) {
        let starts = phase.withLock { phase in
            guard phase == .idle else { return false }
            phase = .running
            return true
        }
        guard starts else { return }
        source.setEventHandler { [weak self] in
            // A cancelled source can still deliver an event that was already queued.
            guard self?.isRunning == true else { return }
            onReadable()
        }
        source.activate()
    }

    /// Stops the calls and closes the descriptor; a call already running completes.
    func stop() {
        let previous = phase.withLock { phase in
            defer { phase = .stopped }
            return phase
        }
        switch previous {
        case .running:
            source.cancel()
        case .idle:
            // An inactive source never runs its cancel handler, and releasing one is a libdispatch error.
            source.cancel()
            source.activate()
        case .stopped:
            break
        }
    }
}
