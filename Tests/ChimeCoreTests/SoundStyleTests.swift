import ChimeCore
import Testing

/// `Ring=`, `Volume=`, `FadeIn=`: read from a notification file, with errors naming the line.
struct SoundStyleTests {
    static func load(_ lines: String) -> NotificationLoader.Result {
        let text = "[Notification]\nTitle=Tea\nSound=default\n" + lines + "[Trigger]\nAt=2026-10-28 07:00\n"
        return NotificationLoader(systemZone: .utc, zones: .system).load(
            UnitFile(parsing: text, path: "tea.notification"), id: "tea", path: "tea.notification")
    }

    @Test func theKeysReadAsTheyAreMeant() throws {
        let style = try #require(Self.load("Ring=2min 30s\nVolume=40%\nFadeIn=20s\n").notification).soundStyle
        #expect(style == SoundStyle(ring: .span(.seconds(150)), volume: 40, fadeIn: .seconds(20)))
        let alarm = try #require(Self.load("Ring=until-answered\nVolume=100\nFadeIn=yes\n").notification).soundStyle
        #expect(alarm == SoundStyle(ring: .untilAnswered, volume: 100, fadeIn: SoundStyle.gentleFadeIn))
        let spoken = try #require(Self.load("Speak=yes\nLanguage=pt_BR\n").notification).soundStyle
        #expect(spoken == SoundStyle(speaks: true, language: "pt_BR"))
        let plain = try #require(Self.load("").notification)
        #expect(plain.soundStyle == SoundStyle() && !plain.soundStyle.needsChime)
        #expect(SoundStyle.text(of: .span(.seconds(150))) == "2min 30s")
        #expect(SoundStyle.text(of: .untilAnswered) == "until-answered")
    }

    @Test func aRingWithoutASoundIsAWarning() {
        let text = "[Notification]\nTitle=Tea\nRing=30s\n[Trigger]\nAt=2026-10-28 07:00\n"
        let result = NotificationLoader(systemZone: .utc, zones: .system).load(
            UnitFile(parsing: text, path: "tea.notification"), id: "tea", path: "tea.notification")
        #expect(!result.hasErrors)
        #expect(result.diagnostics.map(\.location.line) == [3], "\(result.diagnostics)")
    }

    @Test(arguments: [
        ("Ring=500ms\n", "Invalid Ring= '500ms'"), ("Ring=forever\n", "Invalid Ring= 'forever'"),
        ("Ring=infinity\n", "Invalid Ring= 'infinity'"), ("Volume=101\n", "Invalid Volume= '101'"),
        ("Volume=-5\n", "Invalid Volume= '-5'"), ("Volume=50%%\n", "Invalid Volume= '50%%'"),
        ("Volume=0x10\n", "Invalid Volume= '0x10'"), ("FadeIn=11min\n", "Invalid FadeIn= '11min'"),
        ("Language=../de\n", "Invalid Language= '../de'"), ("Language=d\n", "Invalid Language= 'd'"),
        ("Language=de--DE\n", "Invalid Language= 'de--DE'"), ("Speak=loud\n", "Speak="),
    ])
    func aBadValueIsAnErrorOnItsLine(lines: String, message: String) {
        let result = Self.load(lines)
        #expect(result.hasErrors)
        let diagnostic = result.diagnostics.first { $0.message.contains(message) }
        #expect(diagnostic?.location.line == 4, "\(result.diagnostics)")
    }
}
