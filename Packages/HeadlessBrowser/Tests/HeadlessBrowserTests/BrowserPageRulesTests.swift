import Foundation
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The rules the browser reads unmarked pages by (`PageRules`), on
/// hand-written pages, without a network. Expected values are read off each
/// page by hand, from the rule list in `LoadedPage.init(url:status:html:)`.
@Suite struct BrowserPageRulesTests {
    static let url = URL(string: "https://acs.example/challenge")!

    static func read(_ html: String) -> LoadedPage {
        LoadedPage(url: url, status: 200, html: html)
    }

    /// One page and what the browser must make of it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var html: String
        var kind: PageKind
        var autoSubmit: Int?
        var needsJavaScript: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "one text entry and a submit is a challenge",
            html: "<form method=post><input type=hidden name=MD value=1><input name=answer><button>OK</button></form>",
            kind: .challenge, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "one entry and no button still submits on Enter",
            html: "<script>track()</script><form><input type=tel name=sms></form>",
            kind: .challenge, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "two entries, one asks for a one-time code",
            html: """
                <form><input name=email type=text><input name=x placeholder="Enter OTP"><input type=submit></form>
                """,
            kind: .challenge, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "a card form with a security code and Pay is a checkout, not a challenge",
            html: """
                <form method=post><label>Card number <input name=pan></label>
                <label>Security code <input name=cvc></label><button>Pay 12.50 EUR</button></form>
                """,
            kind: .hostedCheckout, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "two payment choices by label",
            html: "<form method=post><button name=a value=1>Back to shop</button><button>Decline</button></form>",
            kind: .hostedCheckout, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "a lone Cancel is not a checkout",
            html: "<form method=post><input type=hidden name=t value=1><button>Cancel</button></form>",
            kind: .other, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "hidden-only form with a noscript button submits itself",
            html: "<form method=post><input type=hidden name=a value=1><noscript><button>Go</button></noscript></form>",
            kind: .other, autoSubmit: 0, needsJavaScript: false),
        Case(
            name: "hidden-only form with a visible button waits for the buyer",
            html: "<form method=post><input type=hidden name=a value=1><button>Continue</button></form>",
            kind: .other, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "hidden-only form next to a script button waits (and needs JavaScript)",
            html: """
                <form method=post><input type=hidden name=a value=1></form><button type=button onclick="go()">Pay</button>
                """,
            kind: .needsJavaScript, autoSubmit: nil, needsJavaScript: true),
        Case(
            name: "a visible Continue does not stop a cres hand-back",
            html: "<form method=post><input type=hidden name=CRes value=x><button>Continue</button></form>",
            kind: .challengeComplete, autoSubmit: 0, needsJavaScript: false),
        Case(
            name: "3-D Secure 1 PaRes hand-back among two forms",
            html: """
                <form><input name=q><button>Search</button></form>
                <form method=post action=/term><input type=hidden name=PaRes value=x><input type=hidden name=MD value=y>
                <input type=submit value=Submit></form>
                """,
            kind: .challengeComplete, autoSubmit: 1, needsJavaScript: false),
        Case(
            name: "inline script submits the form it names by name",
            html: """
                <form name=a><input type=hidden name=x value=1></form><form name=b method=post>
                <input type=hidden name=y value=2><button>Go</button></form>
                <script>window.onload = function () { document.forms["b"].submit(); };</script>
                """,
            kind: .other, autoSubmit: 1, needsJavaScript: false),
        Case(
            name: "inline script submit() on a form the buyer must fill is a click handler, not an auto-submit",
            html: """
                <form id=f method=post><input name=otp><button type=button id=b>Verify</button></form>
                <script>document.getElementById('b').onclick = function () { document.getElementById('f').submit(); };</script>
                """,
            kind: .challenge, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "onload submitting forms[1]",
            html: """
                <body onload="document.forms[1].submit()"><form><input name=q></form>
                <form method=post><input type=hidden name=z value=1></form></body>
                """,
            kind: .other, autoSubmit: 1, needsJavaScript: false),
        Case(
            name: "an SPA shell needs JavaScript",
            html: "<html><head><script src=/app.js></script></head><body><div id=app></div></body></html>",
            kind: .needsJavaScript, autoSubmit: nil, needsJavaScript: true),
        Case(
            name: "a javascript: link and no form needs JavaScript",
            html: "<p><a href=\"javascript:void(0)\">Continue</a></p>",
            kind: .needsJavaScript, autoSubmit: nil, needsJavaScript: true),
        Case(
            name: "a JSON data block is not script",
            html: "<script type=\"application/ld+json\">{\"@type\":\"Thing\"}</script><p>Thank you</p>",
            kind: .other, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "a plain page without forms or script",
            html: "<html><title>Thanks</title><p>You can close this window.</p></html>",
            kind: .other, autoSubmit: nil, needsJavaScript: false),
        Case(
            name: "a marker wins over the heuristics, the JavaScript flag stays",
            html: "<meta name=egw-page content=hosted-checkout><script>boot()</script><div id=root></div>",
            kind: .hostedCheckout, autoSubmit: nil, needsJavaScript: true),
    ]

    @Test(arguments: cases)
    func unmarkedPagesAreReadByTheRules(page: Case) {
        let read = Self.read(page.html)
        #expect(read.kind == page.kind)
        #expect(read.autoSubmitFormIndex == page.autoSubmit)
        #expect(read.needsJavaScript == page.needsJavaScript)
    }

    @Test(arguments: [
        // (page, the entry the code goes into)
        ("<form><input name=user><input type=password name=pw></form>", "pw"),
        ("<form><input name=a><input name=b></form>", "a"),
        ("<form><input name=q></form><form><input name=a><input name=smsCode></form>", "smsCode"),
        ("<form><input name=a><input name=b></form><form><input type=number name=c></form>", "c"),
        ("<form><input name=a aria-label='Your PIN'><input name=b></form>", "a"),
        ("<form><input name=x autocomplete=one-time-code><input name=y></form>", "x"),
        ("<form><input type=hidden name=code><input type=email name=e><input name=visible></form>", "visible"),
        ("<form><label>Passcode <input name=p2></label><label for=n>Name</label><input id=n name=n1></form>", "p2"),
    ])
    func theCodeFieldIsChosenByWhatDescribesIt(html: String, expected: String) throws {
        let entry = try #require(PageRules.codeEntry(in: Self.read(html).forms))
        #expect(entry.name == expected)
    }

    @Test func noTextEntryMeansNoCodeField() {
        let forms = Self.read("<form><input type=hidden name=code><input type=checkbox name=c><select name=s>").forms
        #expect(PageRules.codeEntry(in: forms) == nil)
    }

    @Test func labelsAndDescriptionsAreParsed() throws {
        let html = """
            <form><label for=otp>  One-time
              code </label><label>Name <input name=n id=n title=ignored></label>
            <input id=otp name=otp placeholder="6 digits" autocomplete="One-Time-Code" aria-label="ignored">
            <label>Country <select name=c><option>LV</option></select></label>
            <input type=hidden name=h value=1><input type=submit value=" Go  on ">
            <noscript><button>Fallback</button></noscript></form>
            """
        let form = try #require(Self.read(html).forms.first)
        #expect(
            form.inputs == [
                HTMLForm.Input(name: "n", id: "n", label: "Name"),
                HTMLForm.Input(
                    name: "otp", id: "otp", label: "One-time code", placeholder: "6 digits",
                    autocomplete: "one-time-code"),
                HTMLForm.Input(name: "c", type: "select", label: "Country"),
            ])
        #expect(form.buttons.map(\.label) == ["Go on", "Fallback"])
        #expect(form.buttons.map(\.isInNoscript) == [false, true])
    }

    @Test(arguments: [
        ("Pay", HostedChoice.pay), ("  PAY NOW » ", .pay), ("Pay €12.50", .pay), ("Authorise", .pay),
        ("Confirm", .pay), ("Decline", .decline), ("Cancel payment", .cancel), ("← Back to shop", .abandon),
        ("Abandon", .abandon), ("Leave pending", .pending), ("Later", .pending),
    ])
    func buttonLabelsMeanTheirChoice(label: String, choice: HostedChoice) {
        let button = HTMLForm.Button(name: "x", value: "opaque-1", label: label)
        let matching = HostedChoice.allCases.filter { PageRules.matches(button, $0) }
        #expect(matching == [choice])
    }

    @Test(arguments: ["Pay later", "Payment details", "Cancel order and pay", "Back"])
    func otherLabelsMeanNoChoice(label: String) {
        let button = HTMLForm.Button(name: nil, value: "", label: label)
        #expect(HostedChoice.allCases.allSatisfy { !PageRules.matches(button, $0) })
    }

    @Test func theSandboxsButtonNamedChoiceWinsOverALabel() throws {
        let html = """
            <form method=post><button name=other value=x>Pay</button><button name=choice value=pay>Go</button></form>
            """
        let (_, button, overrides) = try #require(PageRules.hostedSubmission(.pay, in: Self.read(html).forms))
        #expect(button?.name == "choice")
        #expect(overrides.isEmpty)
    }

    @Test func theForwardButtonSkipsButtonsThatBackOut() {
        let url = Self.url
        let buttons: [HTMLForm.Button] = [
            .init(name: "r", value: "1", label: "Resend code"), .init(name: "c", value: "cancel", label: "Stop"),
            .init(name: nil, value: "", label: "Verify"),
        ]
        #expect(PageRules.forwardButton(of: HTMLForm(action: url, buttons: buttons))?.label == "Verify")
        let allBack = HTMLForm(action: url, buttons: [.init(name: nil, value: "", label: "Cancel")])
        #expect(PageRules.forwardButton(of: allBack) == nil)
    }

    @Test func wordsSplitCaseAndPunctuation() {
        #expect(PageRules.words("smsCode one-time_code OTP2fa") == ["sms", "code", "one", "time", "code", "otp2fa"])
        #expect(PageRules.normalized("  «Pay\n now»!  ") == "pay now")
    }

    @Test func descriptionsNeverShowACodeOrTheHTML() {
        let secret = "731902"
        #expect(BuyerAction.challenge(code: secret).description == "challenge(code: ••••)")
        #expect(String(reflecting: BuyerAction.challenge(code: secret)) == "challenge(code: ••••)")
        #expect(
            BuyerAction.submit(formIndex: 0, fields: ["pin": secret, "a": "b"]).description
                == "submit(formIndex: 0, fields: [a: ••••, pin: ••••])")
        #expect(BuyerAction.press(label: "Pay now").description == "press(label: \"Pay now\")")
        let page = LoadedPage(url: Self.url, status: 200, html: "<title>T</title><p>\(secret)</p>")
        let event = BrowserEvent.loaded(page)
        #expect(!"\(event)".contains(secret))
        #expect("\(event)" == "loaded other “T” (200) https://acs.example/challenge")
        #expect(
            "\(BrowserEvent.buyerAction(.challenge(code: secret).redacted, url: Self.url))"
                == "buyer challenge(code: ••••) on https://acs.example/challenge")
    }
}
