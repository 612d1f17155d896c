import ChimeCore
import ChimeDaemon
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeWebhook

/// The webhook backend against a real HTTP server on 127.0.0.1 that answers from a script. The waits between
/// attempts go to a recorder (with a fixed jitter), so the backoff is checked exactly and without sleeping; only
/// the per-attempt timeouts and one test of the real waits take real time.
@Suite(.serialized, .disabled(if: WebhookTestServer.unavailableReason != nil, "needs /usr/bin/python3"))
struct WebhookBackendTests {
    /// Records the waits asked for and returns at once; hands out the jitter fractions in turn.
    final class Waits: Sendable {
        private let recorded = Locked<[Duration]>([])
        private let fractions: [Double]
        private let next = Locked(0)

        init(fractions: [Double] = [0.5]) {
            self.fractions = fractions
        }

        var durations: [Duration] { recorded.withLock { $0 } }

        func sleep(_ duration: Duration) async throws {
            recorded.withLock { $0.append(duration) }
        }

        func fraction() -> Double {
            next.withLock { index in
                defer { index += 1 }
                return fractions[min(index, fractions.count - 1)]
            }
        }
    }

    static func settings(
        _ url: String?, retries: Int = 3, timeout: Duration = .seconds(10), delay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60), headers: [WebhookSettings.Header] = []
    ) -> WebhookSettings {
        var settings = WebhookSettings()
        settings.url = url
        settings.retries = retries
        settings.timeout = timeout
        settings.retryDelay = delay
        settings.retryMaxDelay = maxDelay
        settings.headers = headers
        return settings
    }

    static func backend(_ settings: WebhookSettings, waits: Waits) -> WebhookBackend {
        WebhookBackend(settings: settings, random: { waits.fraction() }, sleep: { try await waits.sleep($0) })
    }

    static let fireTime = Date(timeIntervalSince1970: 1_796_108_400)  // 2026-12-01 07:00:00 UTC
    static let handOff = Date(timeIntervalSince1970: 1_796_108_400.000_250)

    static var delivery: Delivery {
        var notification = ScheduledNotification(id: "exam", title: "Exam: \"Linear\" Algebra", trigger: Trigger())
        notification.body = "Starts at 09:00\nroom 4B"
        notification.info = [("kind", "exam"), ("room", "4B")]
        var delivery = Delivery(notification: notification, fireTime: fireTime, missedCount: 2)
        delivery.badge = 3
        return delivery
    }

    @Test func postsTheDeliveryAsJSONWithItsHeaders() async throws {
        let server = try WebhookTestServer(answers: [.status(204)])
        let waits = Waits()
        let settings = Self.settings(
            server.url("/hooks/chime?channel=exams"),
            headers: [.init(name: "Authorization", value: "Bearer s3cret"), .init(name: "X-Chime-Host", value: "a b")])
        try await Self.backend(settings, waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        let requests = server.requests
        try #require(requests.count == 1)
        let request = requests[0]
        #expect(request.method == "POST")
        #expect(request.path == "/hooks/chime?channel=exams")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("User-Agent") == "chime/\(Chimed.version)")
        #expect(request.header("Authorization") == "Bearer s3cret")
        #expect(request.header("X-Chime-Host") == "a b")
        #expect(
            request.body
                == #"{"id":"exam","title":"Exam: \"Linear\" Algebra","body":"Starts at 09:00\nroom 4B","#
                + #""info":{"kind":"exam","room":"4B"},"fire_time":"2026-12-01T07:00:00.000000Z","#
                + #""delivered_at":"2026-12-01T07:00:00.000250Z","backend":"webhook","missed":2,"badge":3}"#)
        // The same object as the stdout line, but for the backend's name.
        let line = StandardOutputBackend.line(for: Self.delivery, deliveredAt: Self.handOff)
        #expect(request.body == line.replacingOccurrences(of: #""backend":"stdout""#, with: #""backend":"webhook""#))
        #expect(waits.durations.isEmpty)
    }

    @Test func theBodyNamesTheBackendAsConfigured() async throws {
        let server = try WebhookTestServer(answers: [.status(200)])
        var settings = Self.settings(server.url())
        settings.name = "team-chat"
        let backend = Self.backend(settings, waits: Waits())
        #expect(backend.name == "team-chat")
        try await backend.deliver(Self.delivery, deliveredAt: Self.handOff)
        #expect(server.requests.first?.body.contains(#""backend":"team-chat""#) == true)
    }

    @Test func serverErrorsAreRetriedAfterTheExactBackoff() async throws {
        let server = try WebhookTestServer(answers: [.status(503), .status(500), .status(502), .status(200)])
        let waits = Waits(fractions: [0, 0.5, 0.25])
        let settings = Self.settings(server.url(), retries: 3, delay: .seconds(1), maxDelay: .seconds(3))
        try await Self.backend(settings, waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        #expect(server.requests.count == 4)
        // Ceilings 1 s, 2 s, 3 s (capped); each wait is half its ceiling plus the fraction of the other half.
        #expect(waits.durations == [.milliseconds(500), .milliseconds(1500), .milliseconds(1875)])
        #expect(Set(server.requests.map(\.body)).count == 1)
    }

    @Test func givesUpAfterTheRetriesNamingTheLastStatus() async throws {
        let server = try WebhookTestServer(answers: [.status(500), .status(503, body: "down for\nmaintenance")])
        let waits = Waits(fractions: [0])
        let settings = Self.settings(server.url(), retries: 2, delay: .seconds(2), maxDelay: .seconds(60))
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(settings, waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        #expect(
            error?.description
                == "gave up after 3 attempts to http://127.0.0.1:\(server.port): "
                + "HTTP 503 Service Unavailable: down for maintenance")
        #expect(server.requests.count == 3)
        #expect(waits.durations == [.seconds(1), .seconds(2)])
    }

    @Test(arguments: [
        (400, "Bad Request"), (401, "Unauthorized"), (403, "Forbidden"), (404, "Not Found"), (408, "Request Timeout"),
        (413, "Payload Too Large"),
    ])
    func clientErrorsAreNotRetried(status: Int, phrase: String) async throws {
        let server = try WebhookTestServer(answers: [.status(status, body: "no such hook"), .status(200)])
        let waits = Waits()
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(Self.settings(server.url()), waits: waits)
                .deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        #expect(
            error?.description
                == "gave up after 1 attempt to http://127.0.0.1:\(server.port): "
                + "HTTP \(status) \(phrase): no such hook (a client error: not retried)")
        #expect(server.requests.count == 1)
        #expect(waits.durations.isEmpty)
    }

    @Test func tooManyRequestsIsRetriedAfterItsRetryAfter() async throws {
        let server = try WebhookTestServer(answers: [
            .status(429, retryAfter: "7"), .status(503, retryAfter: "600"), .status(429), .status(200),
        ])
        let waits = Waits(fractions: [0])
        let settings = Self.settings(server.url(), retries: 3, delay: .seconds(1), maxDelay: .seconds(30))
        try await Self.backend(settings, waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        #expect(server.requests.count == 4)
        // 7 s as asked; 600 s capped at RetryMaxSec=; no Retry-After: the backoff (ceiling 4 s, fraction 0).
        #expect(waits.durations == [.seconds(7), .seconds(30), .seconds(2)])
    }

    @Test func redirectsAreNeitherFollowedNorRetried() async throws {
        let server = try WebhookTestServer(answers: [.status(308, location: "/elsewhere"), .status(200)])
        let waits = Waits()
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(Self.settings(server.url()), waits: waits)
                .deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        #expect(
            error?.description
                == "gave up after 1 attempt to http://127.0.0.1:\(server.port): "
                + "HTTP 308 Permanent Redirect (redirects are not followed: set URL= to where it leads)")
        #expect(server.requests.map(\.path) == ["/hook"])
    }

    @Test func aRefusedConnectionIsRetried() async throws {
        let port = try RefusingPort()
        let waits = Waits(fractions: [0])
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(Self.settings(port.url(), retries: 2), waits: waits)
                .deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        let text = try #require(error?.description)
        #expect(text.hasPrefix("gave up after 3 attempts to http://127.0.0.1:\(port.port): "), "\(text)")
        #expect(text.contains("onnect"), "\(text)")
        #expect(waits.durations == [.milliseconds(500), .seconds(1)])
    }

    @Test func aConnectionClosedWithoutAnAnswerIsRetried() async throws {
        let server = try WebhookTestServer(answers: [.close, .status(200)])
        let waits = Waits()
        try await Self.backend(Self.settings(server.url()), waits: waits)
            .deliver(Self.delivery, deliveredAt: Self.handOff)
        #expect(server.requests.count == 2)
        #expect(waits.durations.count == 1)
    }

    @Test func aServerThatNeverAnswersHitsThePerAttemptTimeout() async throws {
        let server = try WebhookTestServer(answers: [.hang, .hang, .status(200)])
        let waits = Waits()
        let settings = Self.settings(server.url(), retries: 1, timeout: .milliseconds(700))
        let started = ContinuousClock.now
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(settings, waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        let elapsed = ContinuousClock.now - started
        print("two attempts with TimeoutSec=700ms against a silent server took \(elapsed)")
        #expect(
            error?.description
                == "gave up after 2 attempts to http://127.0.0.1:\(server.port): no response within 700ms")
        #expect(server.requests.count == 2)
        #expect(elapsed >= .milliseconds(1400))
        #expect(elapsed < .seconds(10))
    }

    @Test func aServerThatTricklesItsAnswerHitsThePerAttemptTimeoutToo() async throws {
        // A byte every 200 ms: never idle for long, but the whole answer would take 200 s.
        let server = try WebhookTestServer(answers: [.trickle(interval: 0.2)])
        let settings = Self.settings(server.url(), retries: 0, timeout: .seconds(1))
        let started = ContinuousClock.now
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(settings, waits: Waits()).deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        let elapsed = ContinuousClock.now - started
        #expect(
            error?.description == "gave up after 1 attempt to http://127.0.0.1:\(server.port): no response within 1s")
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(6))
    }

    @Test func theRealWaitsPassBetweenAttempts() async throws {
        let server = try WebhookTestServer(answers: [.status(503), .status(503), .status(200)])
        let settings = Self.settings(server.url(), retries: 2, delay: .milliseconds(400), maxDelay: .seconds(2))
        let backend = WebhookBackend(settings: settings, random: { 0.5 }, sleep: { try await Task.sleep(for: $0) })
        try await backend.deliver(Self.delivery, deliveredAt: Self.handOff)
        let times = server.requests.map(\.receivedAt)
        try #require(times.count == 3)
        // Ceilings 400 ms and 800 ms: waits of 300 ms and 600 ms.
        let gaps = [times[1].timeIntervalSince(times[0]), times[2].timeIntervalSince(times[1])]
        print("gaps between attempts: \(gaps.map { String(format: "%.3f s", $0) }) (waits 0.300 s, 0.600 s)")
        #expect(gaps[0] >= 0.29 && gaps[0] < 3)
        #expect(gaps[1] >= 0.59 && gaps[1] < 3)
    }

    @Test func cancellingADeliveryEndsItAtOnce() async throws {
        let server = try WebhookTestServer(answers: [.hang])
        let backend = Self.backend(Self.settings(server.url(), timeout: .seconds(60)), waits: Waits())
        let delivery = Task { try await backend.deliver(Self.delivery, deliveredAt: Self.handOff) }
        #expect(server.waitForRequests(1, timeout: 20).count == 1)
        let started = ContinuousClock.now
        delivery.cancel()
        await #expect(throws: CancellationError.self) { try await delivery.value }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func withoutAURLEveryDeliveryFailsSayingWhatToSet() async throws {
        let waits = Waits()
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(Self.settings(nil), waits: waits).deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        #expect(error?.description == "not configured: set URL= in [Webhook] of chimed.conf")
        #expect(waits.durations.isEmpty)
    }

    @Test func errorsShowNeitherHeaderValuesNorTheURLsPathOrQuery() async throws {
        let server = try WebhookTestServer(answers: [.status(403, body: "denied")])
        let settings = Self.settings(
            "http://user:pa55@127.0.0.1:\(server.port)/T0KEN/hook?key=zz9",
            headers: [.init(name: "Authorization", value: "Bearer s3cret")])
        let backend = Self.backend(settings, waits: Waits())
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await backend.deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        let texts = [error?.description ?? "", await backend.describe() ?? ""]
        for text in texts {
            for secret in ["s3cret", "T0KEN", "zz9", "pa55", "user"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
        #expect(server.requests.first?.header("Authorization") == "Bearer s3cret")
    }

    @Test func theDispatchersCapCoversEveryAttemptAndWait() {
        let backend = Self.backend(
            Self.settings("http://127.0.0.1/", retries: 3, timeout: .seconds(10), maxDelay: .seconds(60)),
            waits: Waits())
        // 4 attempts of 10 s, 3 waits of at most 60 s, 5 s to spare.
        #expect(backend.timeout == .seconds(225))
        let once = Self.backend(Self.settings("http://127.0.0.1/", retries: 0, timeout: .seconds(2)), waits: Waits())
        #expect(once.timeout == .seconds(7))
    }

    @Test func describeNamesTheServerAndTheRetriesOnceConfigured() async {
        let settings = Self.settings(
            "https://hooks.example.com:8443/secret-path", retries: 3, timeout: .milliseconds(2500),
            delay: .seconds(1), maxDelay: .seconds(90), headers: [.init(name: "Authorization", value: "x")])
        #expect(
            await Self.backend(settings, waits: Waits()).describe()
                == "POST https://hooks.example.com:8443 (timeout 2.500000s, 3 retries after 1s doubling to 1min 30s, "
                + "headers Authorization)")
        #expect(await Self.backend(Self.settings(nil), waits: Waits()).describe() == nil)
        let reserved = Self.settings("http://127.0.0.1:9/", headers: [.init(name: "Host", value: "example.com")])
        #expect(
            await Self.backend(reserved, waits: Waits()).describe()
                == "http://127.0.0.1:9: every delivery fails: Header= may not set Host: chimed sets it for each request"
        )
    }
}

extension WebhookBackendTests {
    /// Twelve: more than FoundationNetworking's default of six connections per host, fewer than the backend's limit.
    @Test func manyDeliveriesWaitTogetherNotInTurn() async throws {
        let server = try WebhookTestServer(answers: [.hang])
        let backend = Self.backend(
            Self.settings(server.url(), retries: 0, timeout: .seconds(3)), waits: Waits())
        let started = ContinuousClock.now
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        try await backend.deliver(Self.delivery, deliveredAt: Self.handOff)
                        return false
                    } catch { return true }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let elapsed = ContinuousClock.now - started
        print(
            "12 deliveries to a silent server with TimeoutSec=3s took \(elapsed); server saw \(server.requests.count)"
        )
        #expect(failures == 12)
        #expect(server.requests.count == 12)
        // In turn they would take 36 s.
        #expect(elapsed >= .seconds(3) && elapsed < .seconds(9))
    }

    @Test(.disabled(if: WebhookTestServer.tlsUnavailableReason != nil, "needs /usr/bin/openssl"))
    func anUntrustedCertificateIsNotRetried() async throws {
        let server = try WebhookTestServer(answers: [.status(200)], tls: true)
        let waits = Waits()
        let error = await #expect(throws: WebhookDeliveryError.self) {
            try await Self.backend(Self.settings(server.url()), waits: waits)
                .deliver(Self.delivery, deliveredAt: Self.handOff)
        }
        let text = try #require(error?.description)
        #expect(text.hasPrefix("gave up after 1 attempt to https://127.0.0.1:\(server.port): "), "\(text)")
        #expect(text.contains("certificate"), "\(text)")
        #expect(text.hasSuffix(" (not retried)"), "\(text)")
        #expect(waits.durations.isEmpty)
        #expect(server.requests.isEmpty)
    }
}
