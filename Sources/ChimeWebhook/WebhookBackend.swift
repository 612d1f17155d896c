import ChimeCore
import ChimeDaemon
import Foundation
import FoundationNetworking

/// `webhook`: an HTTP(S) POST of each delivery, as JSON, to the `URL=` of a `[Webhook]` section of chimed.conf.
///
/// The body is the object the `stdout` backend prints (`Delivery.json(deliveredAt:backend:)`), with `backend` set
/// to this backend's name; `Content-Type: application/json`, `User-Agent: chime/VERSION`, then each `Header=`.
/// A 2xx status is success. Connection errors, timeouts (`TimeoutSec=`, per attempt), 5xx and 429 are tried
/// again up to `Retries=` times, after the waits of `WebhookRetryPolicy`; anything else fails at once.
/// Redirects are not followed. Every attempt and wait is awaited, never blocking a thread, so a webhook that is
/// retrying delays no other delivery and not the timer.
public final class WebhookBackend: DeliveryBackend {
    public let name: String
    private let settings: WebhookSettings
    private let policy: WebhookRetryPolicy
    private let session: URLSession
    /// A fraction in 0..<1 for each wait's jitter.
    private let random: @Sendable () -> Double
    /// Waits between attempts.
    private let sleep: @Sendable (Duration) async throws -> Void

    /// A backend for one `[Webhook]` section. It needs nothing from `context`: it neither reads the clock nor
    /// hears back from the user.
    public convenience init(settings: WebhookSettings, context: BackendContext) {
        self.init(
            settings: settings, random: { Double.random(in: 0..<1) }, sleep: { try await Task.sleep(for: $0) })
    }

    /// - Parameters:
    ///   - random: the source of each wait's jitter, a fraction in 0..<1.
    ///   - sleep: how to wait between attempts; tests record the waits instead.
    init(
        settings: WebhookSettings, random: @escaping @Sendable () -> Double,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        name = settings.name
        self.settings = settings
        policy = WebhookRetryPolicy(
            retries: settings.retries, delay: settings.retryDelay, maxDelay: settings.retryMaxDelay)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = Self.connectionLimit
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
        self.random = random
        self.sleep = sleep
    }

    /// The most connections to the server at once. FoundationNetworking's default of 6 would leave the seventh of
    /// a burst of deliveries (a generator's notifications all due at 07:00) waiting for a free connection while
    /// its `TimeoutSec=` runs; beyond this limit they still do.
    static let connectionLimit = 16

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The dispatcher's cap for one delivery: every attempt at its full timeout and every wait at its longest, and
    /// a few seconds for the rest.
    public var timeout: Duration? {
        settings.timeout * (max(settings.retries, 0) + 1) + policy.longestTotalWait + .seconds(5)
    }

    /// Where deliveries go and how persistently: `POST https://hooks.example.com (timeout 10s, 3 retries, …)`;
    /// `nil` while there is no `URL=`: the built-in `webhook` always exists, and a start-up line about it in every
    /// log would only be noise (a delivery to it fails saying what to set).
    public func describe() async -> String? {
        guard let origin = settings.origin else { return nil }
        if let problem = settings.validate() { return "\(origin): every delivery fails: \(problem)" }
        let timeout = Timespan(settings.timeout).map { "\($0)" } ?? "\(settings.timeout)"
        let delay = Timespan(settings.retryDelay).map { "\($0)" } ?? "\(settings.retryDelay)"
        let maxDelay = Timespan(settings.retryMaxDelay).map { "\($0)" } ?? "\(settings.retryMaxDelay)"
        let headers = settings.headers.isEmpty ? "" : ", headers " + settings.headers.map(\.name).joined(separator: " ")
        return "POST \(origin) (timeout \(timeout), \(settings.retries) retries after \(delay) doubling to \(maxDelay)"
            + headers + ")"
    }

    public func deliver(_ delivery: Delivery, deliveredAt: Date) async throws {
        let request = try makeRequest(
            body: Data(delivery.json(deliveredAt: deliveredAt, backend: name).serialized.utf8))
        var attempts = 0
        while true {
            attempts += 1
            let outcome = await send(request)
            if case .delivered = outcome { return }
            try Task.checkCancellation()
            guard outcome.isRetryable, attempts <= settings.retries else {
                throw WebhookDeliveryError(
                    reason: .gaveUp(attempts: attempts, last: outcome.description), origin: settings.origin)
            }
            try await sleep(policy.wait(beforeRetry: attempts, fraction: random(), retryAfter: outcome.retryAfter))
        }
    }

    /// The POST every attempt of a delivery sends.
    private func makeRequest(body: Data) throws -> URLRequest {
        guard let text = settings.url else {
            throw WebhookDeliveryError(reason: .notConfigured, origin: nil)
        }
        if let problem = settings.validate() {
            throw WebhookDeliveryError(reason: .invalidSettings(problem), origin: settings.origin)
        }
        guard let url = URL(string: text) else {
            throw WebhookDeliveryError(reason: .invalidSettings("URL= is not a valid URL"), origin: nil)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        // URLSession's own timeout is only a backstop behind the race in `send`: it limits the time between two
        // packets, and FoundationNetworking hands it to libcurl in whole seconds, so that below one second it
        // would fail every request at once.
        request.timeoutInterval = (Self.seconds(settings.timeout) + 1).rounded(.up)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("chime/\(Chimed.version)", forHTTPHeaderField: "User-Agent")
        for header in settings.headers {
            request.setValue(header.value, forHTTPHeaderField: header.name)
        }
        return request
    }

    /// One attempt, given up after `TimeoutSec=` whether or not the server is still sending.
    ///
    /// URLSession's own timeout only limits the time between two packets, so a server that trickles its answer
    /// would hold an attempt for ever: the race with a sleep bounds the whole exchange.
    private func send(_ request: URLRequest) async -> WebhookAttempt {
        let session = self.session
        let timeout = settings.timeout
        return await withTaskGroup(of: WebhookAttempt?.self) { group in
            group.addTask {
                do {
                    let (body, response) = try await session.data(for: request)
                    return WebhookAttempt(response: response, body: body)
                } catch {
                    return Task.isCancelled ? nil : WebhookAttempt(error: error, timeout: timeout)
                }
            }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return .timedOut(timeout)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .cancelled
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        duration.timeInterval
    }
}

/// Declines every redirect, so that the 3xx itself is the answer: following one would turn the POST into a GET
/// (301, 302, 303) and send the headers to wherever it points.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
