import ChimeCore
import Foundation
import FoundationNetworking

/// How one POST of a webhook delivery went, and whether it is worth trying again.
enum WebhookAttempt: Sendable, Equatable {
    /// A 2xx status: delivered.
    case delivered(status: Int)
    /// Any other status. `retryAfter` is the server's `Retry-After` in seconds, when it sent one; `excerpt` the
    /// start of its body on one line, for the operator.
    case answered(status: Int, retryAfter: Duration?, excerpt: String)
    /// No response within the per-attempt timeout (`TimeoutSec=`).
    case timedOut(Duration)
    /// No response: the connection could not be made or broke, or TLS failed. `reason` is the system's wording.
    case failed(reason: String, code: URLError.Code)
    /// The delivery's task was cancelled (the dispatcher's cap or shutdown).
    case cancelled

    /// The longest excerpt of a response body kept for the error, in characters.
    static let excerptLimit = 160

    /// Whether to try again after this: after connection errors, timeouts, 5xx and 429 — the failures that may
    /// pass. Never after 4xx (the request itself is wrong), a 3xx (redirects are not followed: a POST turned into
    /// a GET would lose the body), a certificate that is not trusted or does not match, or a malformed URL: those
    /// recur on every attempt.
    var isRetryable: Bool {
        switch self {
        case .delivered, .cancelled: return false
        case .answered(let status, _, _): return status == 429 || (500...599).contains(status)
        case .timedOut: return true
        case .failed(let reason, let code): return !Self.isPermanent(code, reason: reason)
        }
    }

    /// The `Retry-After` to honour: only a 429 or 503 asks the client to wait.
    var retryAfter: Duration? {
        guard case .answered(let status, let retryAfter, _) = self, status == 429 || status == 503 else { return nil }
        return retryAfter
    }

    /// Transport errors that another attempt cannot cure.
    static let permanentErrors: Set<URLError.Code> = [
        .badURL, .unsupportedURL, .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
        .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
        .clientCertificateRequired, .userCancelledAuthentication, .userAuthenticationRequired,
        .httpTooManyRedirects, .redirectToNonExistentLocation, .cancelled,
    ]

    /// Whether a transport error would recur on every attempt. FoundationNetworking reports libcurl's
    /// certificate failures ("SSL certificate problem: self-signed certificate", "SSL: no alternative certificate
    /// subject name matches …") with no code of their own, so their wording decides.
    static func isPermanent(_ code: URLError.Code, reason: String) -> Bool {
        permanentErrors.contains(code) || (code == .unknown && reason.lowercased().contains("certificate"))
    }

    /// What a finished request amounts to.
    init(response: URLResponse, body: Data) {
        guard let response = response as? HTTPURLResponse else {
            self = .failed(reason: "the answer was not HTTP", code: .badServerResponse)
            return
        }
        let status = response.statusCode
        if (200...299).contains(status) {
            self = .delivered(status: status)
            return
        }
        let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Self.seconds)
        self = .answered(status: status, retryAfter: retryAfter, excerpt: Self.excerpt(of: body))
    }

    /// What a request that failed without a response amounts to.
    init(error: any Error, timeout: Duration) {
        guard let error = error as? URLError else {
            self = .failed(reason: "\(error)", code: .unknown)
            return
        }
        switch error.code {
        case .timedOut: self = .timedOut(timeout)
        case .cancelled: self = .cancelled
        default: self = .failed(reason: Self.reason(error), code: error.code)
        }
    }

    /// One line for the operator, without the URL's path or query and without header values (either may hold
    /// a secret).
    var description: String {
        switch self {
        case .delivered(let status): return "HTTP \(status)"
        case .answered(let status, _, let excerpt):
            let phrase = HTTPURLResponse.localizedString(forStatusCode: status)
            let text = "HTTP \(status) \(phrase)" + (excerpt.isEmpty ? "" : ": \(excerpt)")
            switch status {
            case 300...399: return text + " (redirects are not followed: set URL= to where it leads)"
            case 400...499 where status != 429: return text + " (a client error: not retried)"
            default: return text
            }
        case .timedOut(let timeout):
            return "no response within \(Timespan(timeout).map { "\($0)" } ?? "\(timeout)")"
        case .failed(let reason, let code):
            return Self.isPermanent(code, reason: reason) ? reason + " (not retried)" : reason
        case .cancelled: return "cancelled"
        }
    }

    /// `Retry-After` as delta-seconds; the HTTP-date form is not honoured (the backoff applies).
    static func seconds(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), let seconds = Int64(trimmed), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }

    /// The start of a response body as one line of text: a server's reason for a 4xx is often there.
    static func excerpt(of body: Data) -> String {
        let text = String(decoding: body.prefix(4 * excerptLimit), as: UTF8.self)
        let words = text.split(whereSeparator: {
            $0.isWhitespace || $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true
        })
        let line = words.joined(separator: " ")
        return line.count > excerptLimit ? String(line.prefix(excerptLimit)) + "…" : line
    }

    /// libcurl's message where FoundationNetworking passes it on ("Failed to connect to … port …: Couldn't connect
    /// to server"), otherwise a description of the code.
    static func reason(_ error: URLError) -> String {
        let text = error.localizedDescription
        guard text.hasPrefix("The operation could not be completed") else { return text }
        switch error.code {
        case .cannotConnectToHost: return "cannot connect to the server"
        case .cannotFindHost, .dnsLookupFailed: return "cannot resolve the host name"
        case .networkConnectionLost: return "the connection was closed before a response"
        case .badServerResponse: return "the server's response was malformed"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed: return "the TLS handshake failed"
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return "the server's certificate is not valid now"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return "the server's certificate is not trusted"
        default: return "URL error \(error.code.rawValue)"
        }
    }
}
