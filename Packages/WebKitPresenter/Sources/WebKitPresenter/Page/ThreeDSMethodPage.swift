internal import CWebKitShim
import Foundation
@_spi(GTK) internal import GLibMainQueue
import PaymentFlow

// The 3-D Secure browser flow (issue 31): the invisible 3DS Method page, the browser data the
// presenter reports, and the challenge window opened at the size it reported.

extension WebKitPagePresenter {
    /// Reports this presenter's browser as EMV 3-D Secure asks for it, read from what it really is:
    /// the user agent of the settings its web views get (`webkit_settings_get_user_agent`), whether they
    /// run JavaScript, their language (`navigator.language`: the presenter makes it WebKit's own derivation
    /// from the process's locale, `en-US` for a `C` locale, and the only one they prefer),
    /// the geometry of the monitor the page will open on (the parent window's, else the display's
    /// first), the colour depth WebKitGTK 6 gives pages (24), this process's time-zone offset, the
    /// `Accept` header WebKit sends for pages, `javaEnabled` false (WebKit runs no Java), and the
    /// ``challengeWindowSize`` it will open a challenge at.
    ///
    /// `completion` runs once, on the GTK thread; `nil` when GTK was not started, there is no monitor,
    /// or the locale's language is no BCP 47 tag of 2 to 8 characters (the SDK then sends its four fields).
    public func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void) {
        guard GTKMainLoop.isStarted else {
            completion(nil)
            return
        }
        onGTKThread { [self] in completion(browserData()) }
    }

    /// Loads `method` in a web view that is in no window (never mapped, never focusable, never shown),
    /// with its own ephemeral network session and the same trust and TLS relay as a challenge: an
    /// auto-posted form of `method.formFields` to `method.url`. Its navigations and loads go to
    /// `handler` as for a shown page, so the SDK sees the POST to the method notification URL. No
    /// buyer is asked about it and no screenshot is taken; the form's value is never logged (only
    /// URLs without their query reach ``Event``s).
    ///
    /// `completion(true)` on the GTK thread once loading started; `false` when GTK was not started
    /// or a method or a page is already loaded. Removed by ``endThreeDSMethod(completion:)``, and with
    /// the presenter.
    public func loadThreeDSMethod(
        _ method: ThreeDSMethodRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void
    ) {
        guard GTKMainLoop.isStarted else {
            completion(false)
            return
        }
        onGTKThread { [self] in
            guard pages.methodPage == nil, !isPresenting else {
                completion(false)
                return
            }
            let page = WebPage(
                request: PageRequest(url: method.url, formFields: method.formFields, purpose: .challenge),
                handler: handler, presenter: self, invisible: true)
            pages.methodPage = page
            page.show(in: pageHost, size: (0, 0))
            completion(true)
            page.start()
        }
    }

    /// Stops and removes the method page and drops its session; `completion` on the GTK thread once it
    /// is gone (at once when there is none). Nothing more is reported for it.
    public func endThreeDSMethod(completion: @escaping @Sendable () -> Void) {
        guard GTKMainLoop.isStarted else {
            completion()
            return
        }
        onGTKThread { [self] in
            pages.methodPage?.tearDown()
            pages.methodPage = nil
            completion()
        }
    }

    /// The window a challenge opens in: the largest EMV size that fits ``Options/windowSize`` in a
    /// window of its own; the whole container (`05`) inside the app's widget.
    public var challengeWindowSize: ChallengeWindowSize {
        switch pageHost.storage {
        case .window:
            let size = pageOptions.windowSize
            return .fitting(width: size.width, height: size.height)
        case .container:
            return .fullScreen
        }
    }

    /// The size a page's window opens at: a challenge at ``challengeWindowSize``, any other page at
    /// ``Options/windowSize``.
    func windowSize(for page: PageRequest) -> (width: Int, height: Int) {
        guard page.purpose == .challenge, let size = challengeWindowSize.size else { return pageOptions.windowSize }
        return size
    }

    private func browserData() -> ThreeDSBrowserData? {
        guard let settings = egwwk_page_settings_new() else { return nil }
        defer { egwwk_object_unref(settings) }
        let near: UnsafeMutableRawPointer? =
            switch pageHost.storage {
            case .window(let parent): parent?.pointer
            case .container(let container): container.pointer
            }
        var facts = egwwk_browser_facts()
        guard egwwk_browser_facts_get(settings, near, &facts), facts.screen_width > 0, facts.screen_height > 0,
            let userAgent = egwwk_settings_user_agent(settings).map({ String(cString: $0) }),
            let language = egwwk_page_language().flatMap({ BrowserLanguage.emv(String(cString: $0)) })
        else { return nil }
        return ThreeDSBrowserData(
            userAgent: userAgent, acceptHeader: BrowserLanguage.webKitAcceptHeader, language: language,
            timeZoneOffsetMinutes: ThreeDSBrowserData.localTimeZoneOffsetMinutes(),
            javascriptEnabled: facts.javascript_enabled, javaEnabled: false,
            screenWidth: Int(facts.screen_width), screenHeight: Int(facts.screen_height),
            colorDepth: BrowserLanguage.webKitColorDepth, challengeWindowSize: challengeWindowSize)
    }
}

/// What WebKitGTK tells pages about itself where no API says it.
enum BrowserLanguage {
    /// The `Accept` header WebKit sends for a main-frame page.
    static let webKitAcceptHeader = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    /// `screen.colorDepth` in WebKitGTK 6 (GTK 4 has no visual depth to ask: WebKit answers 24).
    static let webKitColorDepth = 24

    /// `tag` when it is a BCP 47 tag as EMV takes it: 2 to 8 characters, a letter first, then ASCII
    /// letters, digits and `-`; else `nil`.
    static func emv(_ tag: String) -> String? {
        guard (2...8).contains(tag.count), tag.first?.isLetter == true,
            tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        return tag
    }
}
