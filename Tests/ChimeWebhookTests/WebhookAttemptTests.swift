import Foundation
import FoundationNetworking
import Testing

@testable import ChimeWebhook

@Suite struct WebhookAttemptTests {
    @Test(arguments: [
        (301, false), (302, false), (307, false), (308, false), (400, false), (401, false), (404, false),
        (408, false), (422, false), (429, true), (500, true), (502, true), (503, true), (504, true), (599, true),
        (600, false), (199, false),
    ])
    func statusesWorthAnotherAttempt(status: Int, retryable: Bool) {
        #expect(WebhookAttempt.answered(status: status, retryAfter: nil, excerpt: "").isRetryable == retryable)
    }

    @Test func transportErrorsAreRetriedButForCertificatesAndBadURLs() {
        let refused = WebhookAttempt.failed(reason: "Failed to connect", code: .cannotConnectToHost)
        #expect(refused.isRetryable)
        #expect(WebhookAttempt.failed(reason: "Empty reply from server", code: .unknown).isRetryable)
        #expect(WebhookAttempt.timedOut(.seconds(10)).isRetryable)
        let untrusted = WebhookAttempt.failed(
            reason: "SSL certificate problem: self-signed certificate", code: .unknown)
        #expect(!untrusted.isRetryable)
        #expect(untrusted.description == "SSL certificate problem: self-signed certificate (not retried)")
        #expect(!WebhookAttempt.failed(reason: "x", code: .serverCertificateUntrusted).isRetryable)
        #expect(!WebhookAttempt.failed(reason: "x", code: .unsupportedURL).isRetryable)
        #expect(!WebhookAttempt.cancelled.isRetryable)
        #expect(!WebhookAttempt.delivered(status: 204).isRetryable)
    }

    @Test(arguments: [
        ("7", Duration?.some(.seconds(7))), (" 120 ", .seconds(120)), ("0", .zero), ("-1", nil), ("1.5", nil),
        ("Wed, 21 Oct 2026 07:28:00 GMT", nil), ("", nil), ("٣", nil),
    ])
    func retryAfterIsReadInSeconds(value: String, seconds: Duration?) {
        #expect(WebhookAttempt.seconds(value) == seconds)
    }

    @Test func onlyA429OrA503AsksToWait() {
        #expect(WebhookAttempt.answered(status: 429, retryAfter: .seconds(3), excerpt: "").retryAfter == .seconds(3))
        #expect(WebhookAttempt.answered(status: 503, retryAfter: .seconds(3), excerpt: "").retryAfter == .seconds(3))
        #expect(WebhookAttempt.answered(status: 500, retryAfter: .seconds(3), excerpt: "").retryAfter == nil)
    }

    @Test func theExcerptIsOneShortLine() {
        #expect(
            WebhookAttempt.excerpt(of: Data("  invalid_payload\r\n\tmissing\u{0}text  ".utf8))
                == "invalid_payload missing text")
        let long = WebhookAttempt.excerpt(of: Data(String(repeating: "a", count: 1000).utf8))
        #expect(long == String(repeating: "a", count: WebhookAttempt.excerptLimit) + "…")
        #expect(WebhookAttempt.excerpt(of: Data()) == "")
    }
}
