import Foundation

/// The size of the window a 3-D Secure challenge is shown in, as EMV names it (`challengeWindowSize`).
///
/// A presenter reports the one it will really open (``ThreeDSBrowserData/challengeWindowSize``) and then
/// opens the challenge at that size, so the issuer's page is laid out for the window the buyer sees.
public enum ChallengeWindowSize: String, Sendable, Equatable, CaseIterable {
    /// `01`: 250 × 400 pixels.
    case size250x400 = "01"
    /// `02`: 390 × 400 pixels.
    case size390x400 = "02"
    /// `03`: 500 × 600 pixels.
    case size500x600 = "03"
    /// `04`: 600 × 400 pixels.
    case size600x400 = "04"
    /// `05`: the full screen (or the whole window the page is given).
    case fullScreen = "05"

    /// Width and height in pixels; `nil` for ``fullScreen``.
    public var size: (width: Int, height: Int)? {
        switch self {
        case .size250x400: (250, 400)
        case .size390x400: (390, 400)
        case .size500x600: (500, 600)
        case .size600x400: (600, 400)
        case .fullScreen: nil
        }
    }

    /// The largest fixed size that fits in `width` × `height` pixels (by area; `01` when none fits).
    public static func fitting(width: Int, height: Int) -> ChallengeWindowSize {
        let fits = allCases.filter { candidate in
            guard let size = candidate.size else { return false }
            return size.width <= width && size.height <= height
        }
        return fits.max { ($0.size!.width * $0.size!.height) < ($1.size!.width * $1.size!.height) } ?? .size250x400
    }
}

/// What the browser that will show a 3-D Secure challenge is, as EMV 3-D Secure 2.2 asks for it: the
/// presenter's answer to `PaymentPresenter.reportBrowserData`, sent in the
/// authentication's `browser` object (GATEWAY.md "Card sessions", step 2).
///
/// Report only what is true of the presenter's own browser: issuers score these values, and a guess
/// makes them challenge more buyers or refuse the request. The SDK checks the values against EMV's
/// formats before it sends them; a malformed report ends the payment `.failed` with `invalidRequest`
/// naming the field, before the authentication is sent (no money can have moved). The screen, the
/// colour depth and `javaEnabled` are required when `javascriptEnabled` is true (as EMV requires them),
/// and may be `nil` for a browser that runs no script.
public struct ThreeDSBrowserData: Sendable, Equatable {
    /// The browser's `User-Agent`, 1 to 2048 characters.
    public var userAgent: String
    /// The `Accept` header the browser sends for pages, 1 to 2048 characters.
    public var acceptHeader: String
    /// The browser's language as a BCP 47 tag of at most 8 characters (`navigator.language`), e.g. `en-GB`.
    public var language: String
    /// UTC minus local time, in minutes (`new Date().getTimezoneOffset()`: `-60` in Paris in winter).
    public var timeZoneOffsetMinutes: Int
    /// Whether the browser runs JavaScript.
    public var javascriptEnabled: Bool
    /// Whether the browser runs Java applets (`navigator.javaEnabled()`); required with JavaScript.
    public var javaEnabled: Bool?
    /// The width of the screen the browser is on, in pixels (`screen.width`); required with JavaScript.
    public var screenWidth: Int?
    /// The height of that screen, in pixels (`screen.height`); required with JavaScript.
    public var screenHeight: Int?
    /// Bits per pixel of that screen (`screen.colorDepth`: 1, 4, 8, 15, 16, 24, 32 or 48); required with
    /// JavaScript.
    public var colorDepth: Int?
    /// The window the presenter will open a challenge in.
    public var challengeWindowSize: ChallengeWindowSize

    /// A report; see each property for its format.
    public init(
        userAgent: String, acceptHeader: String, language: String, timeZoneOffsetMinutes: Int,
        javascriptEnabled: Bool, javaEnabled: Bool? = nil, screenWidth: Int? = nil, screenHeight: Int? = nil,
        colorDepth: Int? = nil, challengeWindowSize: ChallengeWindowSize
    ) {
        self.userAgent = userAgent
        self.acceptHeader = acceptHeader
        self.language = language
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
        self.javascriptEnabled = javascriptEnabled
        self.javaEnabled = javaEnabled
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.colorDepth = colorDepth
        self.challengeWindowSize = challengeWindowSize
    }

    /// This process's time zone as EMV counts it: UTC minus local time, in minutes, now.
    public static func localTimeZoneOffsetMinutes(at date: Date = Date()) -> Int {
        -TimeZone.current.secondsFromGMT(for: date) / 60
    }
}

/// The 3DS Method to load in an invisible page before the authentication: an HTML form POST of
/// `formFields` (one field, `threeDSMethodData`) to `url`, the issuer's fingerprinting page. The page
/// ends itself by a form POST to the SDK's method notification URL
/// (`{checkoutBaseURL}/checkout/3ds/method-notification/{sessionId}`), which the SDK recognises among
/// the navigations the presenter reports. The field's value is opaque and may identify the buyer's
/// device: a presenter never logs or shows it.
public struct ThreeDSMethodRequest: Sendable {
    /// The method URL (the first load, a POST).
    public var url: URL
    /// The form fields of that POST, in order.
    public var formFields: [(name: String, value: String)]

    /// A method request.
    public init(url: URL, formFields: [(name: String, value: String)]) {
        self.url = url
        self.formFields = formFields
    }
}
