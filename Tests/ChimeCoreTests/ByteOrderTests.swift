import Foundation
import Testing

@testable import ChimeCore

/// `String.precedesInByteOrder`: the order systemd sorts names in, by UTF-8 bytes, whatever the locale or
/// Unicode's own ordering says.
@Suite struct ByteOrderTests {
    static let names = [
        "", "a", "A", "Z", "_", "-", "00-early", "10-late", "9", "ab", "abc", "abd", "a\u{0}b",
        "exam.notification", "exam.notification.d", "examen", "the-weekly-review-of-every-project-we-run",
        "the-weekly-review-of-every-project-we-ran", "é", "e\u{301}", "z", "ÿ", "日本", "日", "🔔", "\u{7F}",
    ]

    @Test func agreesWithTheBytesForEveryPair() {
        // Small strings (15 bytes or fewer) are stored inline and long ones on the heap; both kinds are here, and
        // bridged ones through NSString as well.
        let bridged = Self.names.map { String(NSString(string: $0)) }
        for a in Self.names + bridged {
            for b in Self.names + bridged {
                #expect(
                    a.precedesInByteOrder(b) == Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)),
                    "\(a.debugDescription) and \(b.debugDescription)")
            }
        }
    }

    @Test func differsFromStringsOwnOrderWhereUnicodeOrdersByMoreThanBytes() {
        // "é" precomposed (C3 A9) comes after "e" + combining acute (65 CC 81) in bytes, though the two are equal
        // as Strings.
        #expect("e\u{301}".precedesInByteOrder("é"))
        #expect(!"é".precedesInByteOrder("e\u{301}"))
        #expect("e\u{301}" == "é")
    }
}
