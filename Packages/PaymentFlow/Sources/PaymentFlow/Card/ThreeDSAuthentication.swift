internal import EGWWire
import Foundation

/// What the authentication body says of 3-D Secure's browser flow (GATEWAY.md step 2): the method's
/// completion (`threeDSCompInd`) and the `browser` object. Kept with the step, so a resend with the same
/// `Idempotency-Key` carries the same body.
struct ThreeDSAuthentication: Equatable, Sendable, CustomStringConvertible {
    var compInd: ThreeDSCompInd
    var browser: ThreeDSBrowserFields

    /// No method, and a presenter that did not say what it is: `U` and the four fields the SDK always sent.
    static let unavailable = ThreeDSAuthentication(compInd: .unavailable, browser: unknownBrowser)

    /// What the SDK sends when the presenter does not report its browser: the SDK's user agent, an HTML
    /// accept header, `en-GB` and UTC, exactly as before the browser flow (no screen, no script flags,
    /// no window size: a value the SDK does not know is left out, not guessed).
    static let unknownBrowser = ThreeDSBrowserFields(
        userAgent: GatewayAPI.userAgent, acceptHeader: GatewayAPI.pageAcceptHeader, language: "en-GB",
        timeZoneOffsetMinutes: 0)

    /// The wire form of a presenter's report, or the first problem EMV's formats find in it.
    static func browser(_ report: ThreeDSBrowserData?) -> Result<ThreeDSBrowserFields, FlowError> {
        guard let report else { return .success(unknownBrowser) }
        let fields = ThreeDSBrowserFields(
            userAgent: report.userAgent, acceptHeader: report.acceptHeader, language: report.language,
            timeZoneOffsetMinutes: report.timeZoneOffsetMinutes, screenWidth: report.screenWidth,
            screenHeight: report.screenHeight, colorDepth: report.colorDepth, javaEnabled: report.javaEnabled,
            javascriptEnabled: report.javascriptEnabled, challengeWindowSize: report.challengeWindowSize.rawValue)
        if let problem = fields.problems.first {
            return .failure(
                FlowError(
                    .invalidRequest, "the presenter's 3-D Secure browser data is malformed: \(problem)",
                    source: "presenter"))
        }
        guard fields.isComplete else {
            return .failure(
                FlowError(
                    .invalidRequest,
                    "the presenter's 3-D Secure browser data is incomplete: with JavaScript enabled EMV requires "
                        + "screenWidth, screenHeight, colorDepth and javaEnabled", source: "presenter"))
        }
        return .success(fields)
    }

    var description: String { "threeDSCompInd \(compInd.rawValue)" }
}

/// A 3DS Method a card session names (`threeDSMethod`), as the SDK can use it.
struct ThreeDSMethodPlan: Equatable, Sendable {
    /// The method URL; `nil` when the gateway's is not an http(s) URL the environment allows (the
    /// method cannot run: `N`, never a failed payment).
    var url: URL?
    /// Opaque; never logged.
    var data: String
}
