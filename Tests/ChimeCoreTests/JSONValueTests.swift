import Testing

@testable import ChimeCore

@Suite struct JSONValueTests {
    @Test(arguments: [
        ("", #""""#),
        ("plain", #""plain""#),
        ("Grüße, 東京 🔔", #""Grüße, 東京 🔔""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\dir\"#, #""C:\\dir\\""#),
        ("a\nb\rc\td", #""a\nb\rc\td""#),
        ("\u{0}\u{1}\u{1F}\u{7F}", #""\u0000\u0001\u001f\u007f""#),
        ("é\"é\\é\u{1}é", #""é\"é\\é\u0001é""#),
        ("\"", #""\"""#),
        ("🔔\n", #""🔔\n""#),
    ])
    func quotesStrings(value: String, expected: String) {
        #expect(JSONValue.string(value).serialized == expected)
    }

    @Test func keepsMemberOrderAndQuotesKeys() {
        let value = JSONValue.object([
            ("z", .number(-1)), ("a\"b", .array([.bool(true), .null, .string("x")])), ("m", .object([])),
        ])
        #expect(value.serialized == #"{"z":-1,"a\"b":[true,null,"x"],"m":{}}"#)
    }
}
