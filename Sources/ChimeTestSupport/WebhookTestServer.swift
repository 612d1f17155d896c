import Foundation

/// A local HTTP server for webhook tests (`Tests/Fixtures/webhook-server.py`, run by /usr/bin/python3): it
/// answers each request from a script — a status, a `Retry-After`, a redirect, silence until the client hangs up,
/// or a closed connection — and records every request it receives.
public final class WebhookTestServer: Sendable {
    /// One scripted answer; once the script is used up, the last answer is repeated.
    public enum Answer: Sendable {
        case status(Int, body: String = "", retryAfter: String? = nil, location: String? = nil)
        /// Reads the request, then answers nothing until the client closes the connection.
        case hang
        /// Reads the request, then closes the connection without an answer.
        case close
        /// Answers 200 with a body of 1000 bytes, sent one at a time `interval` seconds apart.
        case trickle(interval: Double)

        var json: Any {
            switch self {
            case .status(let status, let body, let retryAfter, let location):
                var object: [String: Any] = ["status": status, "body": body]
                if let retryAfter { object["retry_after"] = retryAfter }
                if let location { object["location"] = location }
                return object
            case .hang: return ["hang": true]
            case .close: return ["close": true]
            case .trickle(let interval): return ["trickle": interval]
            }
        }
    }

    /// A request as the server received it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// In the order received, names as sent.
        public var headers: [(name: String, value: String)]
        public var body: String
        public var receivedAt: Date

        /// The value of the header `name`, compared without regard to case.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let python = "/usr/bin/python3"
    public static var script: String {
        BinaryLocator.packageRoot.appendingPathComponent("Tests/Fixtures/webhook-server.py").path
    }

    /// Whether the server can run here; a test that needs it skips with this as the reason when not.
    public static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: python) ? nil : "\(python) is not installed"
    }

    public static let openssl = "/usr/bin/openssl"

    /// Whether an HTTPS server can run here (its certificate is made with openssl).
    public static var tlsUnavailableReason: String? {
        unavailableReason
            ?? (FileManager.default.isExecutableFile(atPath: openssl) ? nil : "\(openssl) is not installed")
    }

    private let directory: TemporaryDirectory
    private let process: RunningProcess
    private let scheme: String
    public let port: Int

    /// Starts a server that answers requests with `answers`, in order; with `tls`, over HTTPS with a fresh
    /// self-signed certificate for 127.0.0.1, which no client trusts.
    public init(answers: [Answer], tls: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: "webhook-server")
        let script = try JSONSerialization.data(withJSONObject: answers.map(\.json))
        let scriptPath = directory.path + "/script.json"
        try script.write(to: URL(fileURLWithPath: scriptPath))
        var arguments = [Self.script, scriptPath, directory.path + "/requests.jsonl"]
        if tls {
            let (certificate, key) = (directory.path + "/certificate.pem", directory.path + "/key.pem")
            let made = try ProcessRunner.run(
                Self.openssl,
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1", "-days", "2", "-keyout", key, "-out", certificate,
                ])
            guard made.status == 0 else {
                throw Failure(description: "openssl could not make a certificate: \(made.standardError)")
            }
            arguments += [certificate, key]
        }
        scheme = tls ? "https" : "http"
        process = try RunningProcess(Self.python, arguments)
        let deadline = Date().addingTimeInterval(20)
        while !process.standardOutput.hasSuffix("\n") && process.isRunning && Date() < deadline { usleep(5_000) }
        guard let port = Int(process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "webhook-server did not start: \(process.standardError)")
        }
        self.port = port
    }

    deinit {
        process.signal(SIGKILL)
        process.wait(timeout: 5)
        directory.remove()
    }

    /// `http://127.0.0.1:PORT` (or `https://`) followed by `path`.
    public func url(_ path: String = "/hook") -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }

    /// The requests received so far, in order.
    public var requests: [Request] {
        guard let text = try? String(contentsOfFile: directory.path + "/requests.jsonl", encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let method = object["method"] as? String, let path = object["path"] as? String,
                let headers = object["headers"] as? [[String]], let body = object["body"] as? String,
                let receivedAt = object["received_at"] as? Double
            else { return nil }
            return Request(
                method: method, path: path, headers: headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil },
                body: body, receivedAt: Date(timeIntervalSince1970: receivedAt))
        }
    }

    /// Waits up to `timeout` seconds until `count` requests have arrived; returns them all.
    public func waitForRequests(_ count: Int, timeout: Double) -> [Request] {
        let deadline = Date().addingTimeInterval(timeout)
        var received = requests
        while received.count < count && Date() < deadline {
            usleep(10_000)
            received = requests
        }
        return received
    }
}

/// A TCP port on 127.0.0.1 that refuses connections: bound, so that nothing else takes it while the test runs,
/// but not listening, so the kernel answers each connection attempt with a reset.
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(fd)
    }

    public func url(_ path: String = "/hook") -> String {
        "http://127.0.0.1:\(port)\(path)"
    }
}
