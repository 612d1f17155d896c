import ChimeCore
import FuzzSupport

// Time spans (Every=, SnoozeSec=, the *Sec= settings of chimed.conf, and inside timestamps: `+5min`, `@1.5h`): any
// text gets a span or an error pointing inside it, and a span reads back the same from its description.
Fuzzer.run { input in
    let text = Fuzzer.text(input)
    do throws(TimeParseError) {
        let span = try Timespan.parse(text)
        do throws(TimeParseError) {
            let again = try Timespan.parse(span.description)
            Fuzzer.expect(
                again == span, "\(text.debugDescription) is \(span.description), which reads back as \(again)")
        } catch {
            // As systemd, which refuses a count of years from 584542 on ("584542y 2w" is out of range), even in what
            // it writes itself for a span that large.
            Fuzzer.expect(
                error.reason == .overflow && span.microseconds >= 584_542 * 31_557_600_000_000,
                "\(text.debugDescription) is \(span.description), which reads back as an error: \(error)")
        }
    } catch {
        Fuzzer.expect((1...text.count + 1).contains(error.column), "\(text.debugDescription): \(error)")
    }
}
