import EGWWire
import Testing

/// The EMV 3DS 2.2 browser fields, checked against the specification's formats (written from EMV's
/// field table, not from the implementation's output).
@Suite struct ThreeDSBrowserFieldsTests {
    static let complete = ThreeDSBrowserFields(
        userAgent: "Mozilla/5.0", acceptHeader: "text/html", language: "en-GB", timeZoneOffsetMinutes: -60,
        screenWidth: 1280, screenHeight: 1024, colorDepth: 24, javaEnabled: false, javascriptEnabled: true,
        challengeWindowSize: "03")

    @Test func aCompleteBrowserHasNoProblems() {
        #expect(Self.complete.problems.isEmpty)
        #expect(Self.complete.isComplete)
    }

    @Test(arguments: [
        ("en", true), ("en-GB", true), ("de-CH-1901", false), ("zh-Hant", true), ("e", false), ("english", false),
        ("en_GB", false), ("en-", false), ("-en", false), ("en--GB", false), ("12-GB", false), ("sr-Latn", true),
        ("en-GB-x", true), ("é", false),
    ])
    func languageIsBCP47OfAtMost8Characters(tag: String, valid: Bool) {
        #expect(ThreeDSBrowserFields.isLanguageTag(tag) == valid, "\(tag)")
    }

    @Test func eachMalformedMemberIsNamed() {
        let cases: [(String, (inout ThreeDSBrowserFields) -> Void)] = [
            ("language", { $0.language = "en-GB-oxendict" }),
            ("colorDepth", { $0.colorDepth = 12 }),
            ("screenWidth", { $0.screenWidth = 0 }),
            ("screenHeight", { $0.screenHeight = 1_000_000 }),
            ("timeZoneOffsetMinutes", { $0.timeZoneOffsetMinutes = 900 }),
            ("challengeWindowSize", { $0.challengeWindowSize = "06" }),
            ("challengeWindowSize", { $0.challengeWindowSize = "1" }),
            ("userAgent", { $0.userAgent = "" }),
            ("acceptHeader", { $0.acceptHeader = String(repeating: "a", count: 2049) }),
            ("userAgent", { $0.userAgent = "a\nb" }),
        ]
        for (field, change) in cases {
            var fields = Self.complete
            change(&fields)
            #expect(fields.problems.map(\.field) == [field])
            #expect(!fields.problems[0].description.contains("oxendict"))
        }
    }

    @Test func withoutJavaScriptTheScreenIsNotRequired() {
        var fields = Self.complete
        fields.javascriptEnabled = false
        fields.screenWidth = nil
        fields.screenHeight = nil
        fields.colorDepth = nil
        fields.javaEnabled = nil
        #expect(fields.isComplete)
        fields.javascriptEnabled = true
        #expect(!fields.isComplete)
    }

    @Test func todaysFourFieldsAreNotComplete() {
        let legacy = ThreeDSBrowserFields(
            userAgent: "EGWPay", acceptHeader: "text/html", language: "en-GB", timeZoneOffsetMinutes: 0)
        #expect(legacy.problems.isEmpty)
        #expect(!legacy.isComplete)
        #expect(
            legacy.json.jsonText
                == #"{"userAgent":"EGWPay","acceptHeader":"text/html","language":"en-GB","timeZoneOffsetMinutes":0}"#)
    }

    @Test func parsingRefusesWrongTypes() throws {
        let good = try StrictJSONParser.parse(Array(Self.complete.json.jsonText.utf8))
        #expect(try ThreeDSBrowserFields(json: good) == Self.complete)
        for bad in [
            #"{"screenWidth":"1280"}"#, #"{"colorDepth":24.5}"#, #"{"javaEnabled":"false"}"#,
            #"{"challengeWindowSize":3}"#, #"[]"#,
        ] {
            let value = try StrictJSONParser.parse(Array(bad.utf8))
            #expect(throws: ThreeDSFieldError.self) { try ThreeDSBrowserFields(json: value) }
        }
    }

    @Test func methodNeedsStringURLAndData() throws {
        let ok = try StrictJSONParser.parse(Array(#"{"url":"https://acs/m","data":"ZGF0YQ"}"#.utf8))
        #expect(ThreeDSMethodField(json: ok) == ThreeDSMethodField(url: "https://acs/m", data: "ZGF0YQ"))
        let bad = try StrictJSONParser.parse(Array(#"{"url":1,"data":"x"}"#.utf8))
        #expect(ThreeDSMethodField(json: bad) == nil)
        #expect(ThreeDSCompInd.allCases.map(\.rawValue) == ["Y", "N", "U"])
    }
}
