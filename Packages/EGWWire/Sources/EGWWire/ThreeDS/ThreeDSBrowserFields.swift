/// The EMV 3-D Secure 2.2 browser data of an authentication request, as this project's wire spells it
/// (GATEWAY.md "Card sessions", step 2): the `browser` object's members, each with EMV's format and
/// limits. One definition for the SDK (which builds it) and the sandbox (which checks it).
///
/// Every member is optional here because a gateway must accept what an older SDK sends (the first four
/// only); ``problems`` names what is malformed, ``isComplete`` says whether the EMV browser flow's
/// required set is there. EMV's rules, by field:
///
/// | member | EMV field | format |
/// |---|---|---|
/// | `userAgent` | browserUserAgent | 1 to 2048 characters |
/// | `acceptHeader` | browserAcceptHeader | 1 to 2048 characters |
/// | `language` | browserLanguage | IETF BCP 47 tag, 1 to 8 characters |
/// | `timeZoneOffsetMinutes` | browserTZ | minutes, UTC minus local time, -840 to 720 |
/// | `screenWidth`, `screenHeight` | browserScreenWidth/Height | pixels, 1 to 999999 |
/// | `colorDepth` | browserColorDepth | bits per pixel: 1, 4, 8, 15, 16, 24, 32 or 48 |
/// | `javaEnabled` | browserJavaEnabled | boolean |
/// | `javascriptEnabled` | browserJavascriptEnabled | boolean |
/// | `challengeWindowSize` | challengeWindowSize | `"01"` 250×400, `"02"` 390×400, `"03"` 500×600, `"04"` 600×400, `"05"` full screen |
///
/// Complete: user agent, accept header, language, `javascriptEnabled` and `challengeWindowSize`
/// always; with JavaScript enabled also the screen, the colour depth, `javaEnabled` and the time zone
/// (EMV requires those only from a browser that runs script).
///
/// Error texts name the member and the rule, never the value (a user agent or a language is the
/// buyer's device's, and a malformed one may be anything).
public struct ThreeDSBrowserFields: Sendable, Equatable {
    /// The browser's `User-Agent` (EMV browserUserAgent).
    public var userAgent: String?
    /// The browser's `Accept` header for pages (EMV browserAcceptHeader).
    public var acceptHeader: String?
    /// The browser's language, BCP 47 (EMV browserLanguage).
    public var language: String?
    /// UTC minus local time, in minutes (EMV browserTZ; `getTimezoneOffset()`).
    public var timeZoneOffsetMinutes: Int?
    /// The screen's width in pixels (EMV browserScreenWidth).
    public var screenWidth: Int?
    /// The screen's height in pixels (EMV browserScreenHeight).
    public var screenHeight: Int?
    /// Bits per pixel of the screen (EMV browserColorDepth).
    public var colorDepth: Int?
    /// Whether the browser runs Java applets (EMV browserJavaEnabled).
    public var javaEnabled: Bool?
    /// Whether the browser runs JavaScript (EMV browserJavascriptEnabled).
    public var javascriptEnabled: Bool?
    /// The size of the window the challenge will be shown in, `"01"` to `"05"`.
    public var challengeWindowSize: String?

    /// The colour depths EMV defines, in bits per pixel.
    public static let colorDepths: Set<Int> = [1, 4, 8, 15, 16, 24, 32, 48]
    /// EMV's challenge window sizes.
    public static let challengeWindowSizes: [String] = ["01", "02", "03", "04", "05"]
    /// EMV's limit of the user agent and the accept header, in characters.
    public static let headerLimit = 2048
    /// The time-zone offsets the earth has, in minutes (UTC-12:00 is 720, UTC+14:00 is -840).
    public static let timeZoneRange = -840...720
    /// EMV's screen size limit: 1 to 6 digits.
    public static let screenRange = 1...999_999

    /// Fields as given; nil members are left out of ``json``.
    public init(
        userAgent: String? = nil, acceptHeader: String? = nil, language: String? = nil,
        timeZoneOffsetMinutes: Int? = nil, screenWidth: Int? = nil, screenHeight: Int? = nil,
        colorDepth: Int? = nil, javaEnabled: Bool? = nil, javascriptEnabled: Bool? = nil,
        challengeWindowSize: String? = nil
    ) {
        self.userAgent = userAgent
        self.acceptHeader = acceptHeader
        self.language = language
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.colorDepth = colorDepth
        self.javaEnabled = javaEnabled
        self.javascriptEnabled = javascriptEnabled
        self.challengeWindowSize = challengeWindowSize
    }

    /// Reads a `browser` object. A member of the wrong JSON type (a number as a string, a fraction where
    /// an integer goes) is an error; an absent or `null` member is nil; unknown members are ignored.
    /// Formats are not checked here: see ``problems``.
    public init(json: JSONValue) throws(ThreeDSFieldError) {
        guard case .object = json else { throw ThreeDSFieldError("browser", "is not a JSON object") }
        func string(_ name: String) throws(ThreeDSFieldError) -> String? {
            switch json[member: name] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case .object?, .array?, .number?, .bool?: throw ThreeDSFieldError(name, "is not a string")
            }
        }
        func integer(_ name: String) throws(ThreeDSFieldError) -> Int? {
            switch json[member: name] {
            case nil, .null?: return nil
            case .number(let text)?:
                guard let value = Int(text) else { throw ThreeDSFieldError(name, "is not an integer") }
                return value
            case .object?, .array?, .string?, .bool?: throw ThreeDSFieldError(name, "is not a number")
            }
        }
        func flag(_ name: String) throws(ThreeDSFieldError) -> Bool? {
            switch json[member: name] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            case .object?, .array?, .string?, .number?: throw ThreeDSFieldError(name, "is not a boolean")
            }
        }
        self.init(
            userAgent: try string("userAgent"), acceptHeader: try string("acceptHeader"),
            language: try string("language"), timeZoneOffsetMinutes: try integer("timeZoneOffsetMinutes"),
            screenWidth: try integer("screenWidth"), screenHeight: try integer("screenHeight"),
            colorDepth: try integer("colorDepth"), javaEnabled: try flag("javaEnabled"),
            javascriptEnabled: try flag("javascriptEnabled"), challengeWindowSize: try string("challengeWindowSize"))
    }

    /// What is malformed, first problem first; empty when every present member keeps its EMV format.
    public var problems: [ThreeDSFieldError] {
        var found: [ThreeDSFieldError] = []
        for (name, text) in [("userAgent", userAgent), ("acceptHeader", acceptHeader)] {
            guard let text else { continue }
            if text.isEmpty || text.count > Self.headerLimit {
                found.append(ThreeDSFieldError(name, "must have 1 to \(Self.headerLimit) characters"))
            } else if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                found.append(ThreeDSFieldError(name, "must not contain control characters"))
            }
        }
        if let language, !Self.isLanguageTag(language) {
            found.append(ThreeDSFieldError("language", "must be a BCP 47 language tag of 1 to 8 characters"))
        }
        if let timeZoneOffsetMinutes, !Self.timeZoneRange.contains(timeZoneOffsetMinutes) {
            found.append(
                ThreeDSFieldError("timeZoneOffsetMinutes", "must be UTC minus local time in minutes, -840 to 720"))
        }
        for (name, value) in [("screenWidth", screenWidth), ("screenHeight", screenHeight)] {
            if let value, !Self.screenRange.contains(value) {
                found.append(ThreeDSFieldError(name, "must be a size in pixels, 1 to 999999"))
            }
        }
        if let colorDepth, !Self.colorDepths.contains(colorDepth) {
            found.append(ThreeDSFieldError("colorDepth", "must be one of 1, 4, 8, 15, 16, 24, 32, 48 (bits)"))
        }
        if let challengeWindowSize, !Self.challengeWindowSizes.contains(challengeWindowSize) {
            found.append(ThreeDSFieldError("challengeWindowSize", "must be \"01\" to \"05\""))
        }
        return found
    }

    /// Whether EMV's browser-flow set is present (see the type's documentation); says nothing of formats.
    public var isComplete: Bool {
        guard userAgent != nil, acceptHeader != nil, language != nil, let javascriptEnabled,
            challengeWindowSize != nil
        else { return false }
        guard javascriptEnabled else { return true }
        return screenWidth != nil && screenHeight != nil && colorDepth != nil && javaEnabled != nil
            && timeZoneOffsetMinutes != nil
    }

    /// The members present, in the wire's order (the first four as the SDK always sent them).
    public var json: JSONValue {
        JSONObjectBuilder([
            "userAgent": userAgent.map(JSONValue.string), "acceptHeader": acceptHeader.map(JSONValue.string),
            "language": language.map(JSONValue.string),
            "timeZoneOffsetMinutes": timeZoneOffsetMinutes.map(JSONValue.int),
            "screenWidth": screenWidth.map(JSONValue.int), "screenHeight": screenHeight.map(JSONValue.int),
            "colorDepth": colorDepth.map(JSONValue.int), "javaEnabled": javaEnabled.map(JSONValue.bool),
            "javascriptEnabled": javascriptEnabled.map(JSONValue.bool),
            "challengeWindowSize": challengeWindowSize.map(JSONValue.string),
        ]).value
    }

    /// BCP 47 as EMV limits it: at most 8 characters; subtags of ASCII letters and digits joined by
    /// `-`, the first one 2 or 3 letters (a language), none empty.
    public static func isLanguageTag(_ text: String) -> Bool {
        guard (2...8).contains(text.utf8.count) else { return false }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...3).contains(primary.count),
            primary.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            !subtag.isEmpty && subtag.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic
                || ("0"..."9").contains($0) }
        }
    }
}

/// A malformed member of 3-D Secure browser data: which member and which rule, never its value.
public struct ThreeDSFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The member, e.g. `language`.
    public var field: String
    /// The rule it breaks, e.g. `must be a BCP 47 language tag of 1 to 8 characters`.
    public var rule: String

    /// A problem with `field`.
    public init(_ field: String, _ rule: String) {
        self.field = field
        self.rule = rule
    }

    /// `browser.language must be ...`.
    public var description: String { field == "browser" ? "browser \(rule)" : "browser.\(field) \(rule)" }
}

/// The authentication body's top-level `threeDSCompInd` (EMV's 3DS Method completion indicator).
public enum ThreeDSCompInd: String, Sendable, Equatable, CaseIterable {
    /// `Y`: the method ran and its notification arrived within 10 seconds.
    case completed = "Y"
    /// `N`: a method was named but did not complete (timed out, failed to load, could not be run).
    case notCompleted = "N"
    /// `U`: no method was named.
    case unavailable = "U"
}

/// The `threeDSMethod` member of a card session's answer: where the ACS's fingerprinting page is, and
/// the opaque value posted to it as the form field ``formField``. `data` may identify the buyer's
/// device: it is never logged.
public struct ThreeDSMethodField: Sendable, Equatable {
    /// The form field the presenter posts `data` in.
    public static let formField = "threeDSMethodData"
    /// The method URL, as the gateway wrote it (checked by the caller).
    public var url: String
    /// The opaque method data.
    public var data: String

    /// A method at `url` with `data`.
    public init(url: String, data: String) {
        self.url = url
        self.data = data
    }

    /// Reads the member's value: nil when it is not an object with string `url` and `data` (a caller
    /// treats such a method as one that cannot be run, not as a broken answer).
    public init?(json: JSONValue) {
        guard let url = json[member: "url"]?.stringValue, let data = json[member: "data"]?.stringValue else {
            return nil
        }
        self.init(url: url, data: data)
    }

    /// `{"url": ..., "data": ...}`.
    public var json: JSONValue { .members([("url", .string(url)), ("data", .string(data))]) }
}
