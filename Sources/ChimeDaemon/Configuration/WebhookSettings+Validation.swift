import Foundation

extension WebhookSettings {
    /// Headers that chimed sets itself and a `Header=` may not replace: the body's length and the server's name
    /// come from the request, and a second value would make a malformed request.
    public static let reservedHeaders: Set<String> = ["content-length", "host", "transfer-encoding", "connection"]

    /// What is wrong with these settings, for the configuration parser to report; `nil` when they are usable.
    /// Here rather than beside the webhook backend so that the parser can call it: it needs only Foundation, the
    /// backend FoundationNetworking.
    ///
    /// A missing `URL=` is not an error here: the section may be kept for later, and each delivery to it fails
    /// saying so. Messages never quote a header's value or the URL beyond its scheme, either may be a secret.
    public func validate() -> String? {
        if let url {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
                return "URL= is not a valid URL"
            }
            guard scheme == "http" || scheme == "https" else {
                return "URL= must start with http:// or https://, not \(scheme)://"
            }
            guard components.host?.isEmpty == false else { return "URL= names no host" }
        }
        for header in headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(Self.isTokenCharacter) else {
                return "Header= name '\(header.name)' is not a valid HTTP header name"
            }
            guard !Self.reservedHeaders.contains(header.name.lowercased()) else {
                return "Header= may not set \(header.name): chimed sets it for each request"
            }
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                return "Header= \(header.name) has a line break in its value"
            }
        }
        guard timeout > .zero else { return "TimeoutSec= must be more than 0" }
        guard retries >= 0 else { return "Retries= must not be negative" }
        guard retryDelay >= .zero, retryMaxDelay >= .zero else {
            return "RetrySec= and RetryMaxSec= must not be negative"
        }
        return nil
    }

    /// `scheme://host[:port]` of `url`: what messages may show of it.
    public var origin: String? {
        guard let url, let components = URLComponents(string: url), let scheme = components.scheme,
            let host = components.host
        else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme.lowercased())://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// RFC 9110's `tchar`: what a header name is made of.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
