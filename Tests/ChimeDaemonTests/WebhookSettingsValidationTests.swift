import ChimeDaemon
import Testing

@Suite struct WebhookSettingsValidationTests {
    static func settings(url: String?, headers: [(String, String)] = []) -> WebhookSettings {
        var settings = WebhookSettings()
        settings.url = url
        settings.headers = headers.map { WebhookSettings.Header(name: $0.0, value: $0.1) }
        return settings
    }

    @Test(
        arguments: [
            ("https://hooks.example.com/T000/B000/XXXX", nil),
            ("http://127.0.0.1:8080/hook", nil),
            ("HTTPS://[::1]:8443/", nil),
            ("ftp://example.com/upload", "URL= must start with http:// or https://, not ftp://"),
            ("file:///tmp/hook", "URL= must start with http:// or https://, not file://"),
            ("hooks.example.com/hook", "URL= is not a valid URL"),
            ("http://", "URL= names no host"),
            ("http:///path", "URL= names no host"),
            ("http://exa mple.com/", "URL= is not a valid URL"),
        ] as [(String, String?)])
    func urlMustBeHTTPOrHTTPSWithAHost(url: String, problem: String?) {
        #expect(Self.settings(url: url).validate() == problem)
    }

    @Test func aMissingURLIsNotAnErrorOfTheFile() {
        #expect(Self.settings(url: nil).validate() == nil)
    }

    @Test(
        arguments: [
            ("Authorization", "Bearer abc", nil),
            ("X-Api-Key", "", nil),
            ("User-Agent", "my-bot/2", nil),
            ("Bad Name", "s3cr3t", "Header= name 'Bad Name' is not a valid HTTP header name"),
            ("X:Y", "s3cr3t", "Header= name 'X:Y' is not a valid HTTP header name"),
            ("", "s3cr3t", "Header= name '' is not a valid HTTP header name"),
            ("Content-Length", "5", "Header= may not set Content-Length: chimed sets it for each request"),
            ("host", "example.com", "Header= may not set host: chimed sets it for each request"),
            ("X-Token", "abc\r\nX-Evil: 1", "Header= X-Token has a line break in its value"),
        ] as [(String, String, String?)])
    func headerNamesAreTokensAndValuesOneLine(name: String, value: String, problem: String?) {
        let problemText = Self.settings(url: "https://example.com/", headers: [(name, value)]).validate()
        #expect(problemText == problem)
        // The value may be a secret: no message quotes it.
        if !value.isEmpty { #expect(problemText?.contains(value) != true) }
    }

    @Test func timesAndCountsMustBeUsable() {
        var settings = Self.settings(url: "https://example.com/")
        settings.timeout = .zero
        #expect(settings.validate() == "TimeoutSec= must be more than 0")
        settings.timeout = .seconds(1)
        settings.retries = -1
        #expect(settings.validate() == "Retries= must not be negative")
        settings.retries = 0
        settings.retryDelay = .seconds(-1)
        #expect(settings.validate() == "RetrySec= and RetryMaxSec= must not be negative")
        settings.retryDelay = .zero
        #expect(settings.validate() == nil)
    }

    @Test(arguments: [
        ("https://user:pw@hooks.example.com/T0/B0?x=1", "https://hooks.example.com"),
        ("HTTP://127.0.0.1:8080/hook", "http://127.0.0.1:8080"),
        ("http://[::1]:8443/", "http://[::1]:8443"),
    ])
    func originKeepsSchemeHostAndPortOnly(url: String, origin: String) {
        #expect(Self.settings(url: url).origin == origin)
    }
}
