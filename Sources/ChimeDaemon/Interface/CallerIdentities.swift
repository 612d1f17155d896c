import ChimeCore
import ChimeSystemd
import Glibc

/// Who each caller of the application interface is: its user and process (from the bus daemon) and the app id it
/// is sandboxed as, if any. Looked up once per connection (a unique name is never reused on a bus), and the calls
/// a caller makes meanwhile wait in order, so that its calls are still handled in the order it made them.
final class CallerIdentities: Sendable {
    struct Caller: Sendable {
        var credentials: BusCredentials
        /// The Flatpak app id the caller runs as; `nil` when it is not sandboxed.
        var sandboxedAppID: String?
    }

    typealias Waiter = @Sendable (Result<Caller, any Error>) -> Void

    private enum Entry {
        case known(Caller)
        case resolving([Waiter])
    }

    /// How many callers are remembered; beyond it the known ones are forgotten (and looked up again if they call).
    static let limit = 4096

    private let entries = Locked<[String: Entry]>([:])
    private let lookUp: @Sendable (String) async throws -> Caller

    /// - Parameter lookUp: finds out who the peer with a unique name is.
    init(lookUp: @escaping @Sendable (String) async throws -> Caller) {
        self.lookUp = lookUp
    }

    /// The bus daemon's credentials of the caller, then, with `readsSandboxes`, its sandbox from its process (the
    /// system instance cannot see other users' processes, and polkit judges its callers).
    convenience init(connection: BusConnection, readsSandboxes: Bool) {
        self.init { busName in
            let credentials = try await connection.credentials(of: busName)
            return Caller(
                credentials: credentials,
                sandboxedAppID: readsSandboxes ? try SandboxIdentity.appID(ofProcess: credentials.pid) : nil)
        }
    }

    /// Calls `body` with the caller `busName`: at once when it is known, else once it is looked up, after the
    /// caller's earlier calls. A failed lookup is told to every call that waited for it and is not remembered.
    /// `body` may run under the lock of the cache: it must only hand the work on.
    func with(_ busName: String, _ body: @escaping Waiter) {
        enum Step {
            case run(Caller)
            case wait
            case start
        }
        let step = entries.withLock { entries -> Step in
            switch entries[busName] {
            case .known(let caller):
                return .run(caller)
            case .resolving(let waiters):
                entries[busName] = .resolving(waiters + [body])
                return .wait
            case nil:
                if entries.count >= Self.limit {
                    entries = entries.filter { if case .resolving = $0.value { true } else { false } }
                }
                entries[busName] = .resolving([body])
                return .start
            }
        }
        switch step {
        case .run(let caller): body(.success(caller))
        case .wait: break
        case .start:
            let lookUp = self.lookUp
            Task {
                let result: Result<Caller, any Error>
                do {
                    result = .success(try await lookUp(busName))
                } catch {
                    result = .failure(error)
                }
                // The waiters run under the lock: a call that comes meanwhile is handed on after them.
                self.entries.withLock { entries in
                    guard case .resolving(let waiters) = entries[busName] else { return }
                    if case .success(let caller) = result {
                        entries[busName] = .known(caller)
                    } else {
                        entries[busName] = nil
                    }
                    for waiter in waiters { waiter(result) }
                }
            }
        }
    }
}
