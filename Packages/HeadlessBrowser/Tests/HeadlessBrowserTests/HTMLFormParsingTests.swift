import EGWWire
import Foundation
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The tolerant form parser on hand-written pages. Expected values are read
/// off the HTML by hand (and, for URL resolution, RFC 3986 section 5.4).
@Suite struct HTMLFormParsingTests {
    static let pageURL = URL(string: "https://acs.example/a/b/page?q=1#top")!

    /// HTML's tokenizer reads character references code point by code point, so a combining mark
    /// right after the `&` or the `;` (one `Character` with it in Swift) neither hides the reference
    /// nor is lost: `&lt;` + U+0301 is "<" + U+0301, `&amp;` + U+0599 is "&" + U+0599.
    @Test func referencesNextToCombiningMarksAreDecoded() {
        #expect(HTMLEntities.decode("a&lt;\u{301}b").unicodeScalars.map(\.value) == [0x61, 0x3C, 0x301, 0x62])
        #expect(HTMLEntities.decode("&#60;\u{599}>").unicodeScalars.map(\.value) == [0x3C, 0x599, 0x3E])
        #expect(HTMLEntities.decode("&\u{301}amp;") == "&\u{301}amp;")  // an & with a mark starts nothing
        #expect(HTMLEntities.decode("x&amp;y&bogus;&#0;") == "x&y&bogus;&#0;")
        let tokens = HTMLScanner.tokens(of: "<input name=\"n\" value=\"&lt;\u{301}\">")
        #expect(
            tokens == [.startTag(name: "input", attributes: ["name": "n", "value": "<\u{301}"], selfClosing: false)])
    }

    @Test func sandboxStyleHostedPage() throws {
        // Shaped like GatewaySandbox's hosted page: radio method picker, five named buttons.
        let html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="egw-page" content="hosted-checkout">
            <meta name="egw-payment-id" content="pay_1">
            <title>Sandbox
              checkout</title>
            </head>
            <body>
            <form method="post" action="http://127.0.0.1:8080/gateway-checkout/checkout/pay/pay_1" id="checkout-form">
            <fieldset id="method-picker"><legend>Choose a method</legend>
            <label><input type="radio" name="method" value="card" checked> Card</label>
            <label><input type="radio" name="method" value="bank"> Bank link</label>
            </fieldset>
            <button type="submit" name="choice" value="pay">Pay</button>
            <button type="submit" name="choice" value="decline">Decline (the bank refuses)</button>
            </form>
            </body>
            </html>
            """
        let page = LoadedPage(
            url: URL(string: "http://127.0.0.1:8080/gateway-checkout/checkout/pay/pay_1")!, status: 200, html: html)
        #expect(page.kind == .hostedCheckout)
        #expect(page.title == "Sandbox checkout")
        #expect(page.meta["egw-payment-id"] == "pay_1")
        #expect(page.autoSubmitFormIndex == nil)
        let form = try #require(page.forms.first)
        #expect(page.forms.count == 1)
        #expect(form.id == "checkout-form")
        #expect(form.method == "POST")
        #expect(form.action.absoluteString == "http://127.0.0.1:8080/gateway-checkout/checkout/pay/pay_1")
        #expect(form.fields == [HTMLForm.Field(name: "method", value: "card", type: "radio")])
        #expect(form.buttons.map(\.value) == ["pay", "decline"])
        #expect(form.buttons.map(\.name) == ["choice", "choice"])
        #expect(form.buttons.map(\.label) == ["Pay", "Decline (the bank refuses)"])
    }

    @Test(arguments: [
        // RFC 3986 5.4.1 style resolution against https://acs.example/a/b/page?q=1
        ("../submit?x=1", "https://acs.example/a/submit?x=1"),
        ("/root", "https://acs.example/root"),
        ("next", "https://acs.example/a/b/next"),
        ("?only=query", "https://acs.example/a/b/page?only=query"),
        ("https://other.example/x#frag", "https://other.example/x"),
        ("", "https://acs.example/a/b/page?q=1"),
    ])
    func actionsResolveAgainstThePage(action: String, expected: String) throws {
        let html = "<form action=\"\(action)\"><input name=a value=b></form>"
        let form = try #require(LoadedPage(url: Self.pageURL, status: 200, html: html).forms.first)
        #expect(form.action.absoluteString == expected)
        #expect(form.method == "GET")
    }

    @Test func missingActionMeansThePageWithoutFragment() throws {
        let form = try #require(
            LoadedPage(url: Self.pageURL, status: 200, html: "<form method=POST></form>").forms.first)
        #expect(form.action.absoluteString == "https://acs.example/a/b/page?q=1")
        #expect(form.method == "POST")
    }

    @Test func tolerantOfSloppyMarkup() throws {
        let html = """
            <HTML><BODY>
            <!-- <form action="/commented-out"><input name="ghost" value="1"></form> -->
            <script>var s = "<form action='/in-script'>"; if (a < b) {}</script>
            <FORM METHOD=PoSt ACTION=/go name='f1'>
              <INPUT TYPE=hidden NAME=tx VALUE=abc123>
              <input type='text' name='who' value='Tom &amp; Jerry'>
              <input name=plain value=x/>
              <input type="checkbox" name="remember" checked>
              <input type="checkbox" name="newsletter" value="yes">
              <input type="text" name="off" value="1" disabled>
              <input type="file" name="upload">
              <input type="button" name="js" value="Click">
              <input name="entity" value="&#39;q&#x27; &lt;tag&gt; &unknown; &#0;">
              <select name="country"><option value="lv">Latvia<option value="ee" selected>Estonia</select>
              <select name="lang"><option>English</option><option>Latviešu</option></select>
              <textarea name="note">
            line one &amp; two</textarea>
              <button type="button" name="ignored">No</button>
              <button name="go" value="1">Go <b>now</b></button>
              <input type="submit" value="Send">
              <form action="/nested-is-ignored"><input name="inner" value="kept-in-outer"></form>
              <input name="after-close" value="outside any form">
            """
        let page = LoadedPage(url: URL(string: "http://shop.example/start")!, status: 200, html: html)
        #expect(page.forms.count == 1)
        let form = try #require(page.forms.first)
        #expect(form.name == "f1")
        #expect(form.method == "POST")
        #expect(form.action.absoluteString == "http://shop.example/go")
        let pairs = form.fields.map { "\($0.name)=\($0.value)" }
        #expect(
            pairs == [
                "tx=abc123", "who=Tom & Jerry", "plain=x/", "remember=on", "entity='q' <tag> &unknown; &#0;",
                "country=ee", "lang=English", "note=line one & two", "inner=kept-in-outer",
            ])
        #expect(
            form.buttons == [
                .init(name: "go", value: "1", label: "Go now"), .init(name: nil, value: "Send", label: "Send"),
            ])
    }

    @Test func severalFormsKeepDocumentOrder() {
        let html = "<form id=a action=/1></form><p>between</p><form id=b action=/2 method=post></form>"
        let forms = LoadedPage(url: URL(string: "http://h.example/")!, status: 200, html: html).forms
        #expect(forms.map(\.id) == ["a", "b"])
        #expect(forms.map(\.method) == ["GET", "POST"])
    }

    @Test func autoSubmitPagesAreRecognised() {
        let url = URL(string: "http://acs.example/complete")!
        let cres = LoadedPage(url: url, status: 200, html: TestPages.complete(notification: "/n", cres: "x"))
        #expect(cres.kind == .challengeComplete)
        #expect(cres.autoSubmitFormIndex == 0)

        let onloadFirst =
            "<body onload=\"document.forms[0].submit()\"><form action=/a></form><form action=/b></form></body>"
        #expect(LoadedPage(url: url, status: 200, html: onloadFirst).autoSubmitFormIndex == 0)

        let onloadByID =
            "<body onload=\"document.getElementById('second').submit();\"><form id=first></form><form id=second></form>"
        #expect(LoadedPage(url: url, status: 200, html: onloadByID).autoSubmitFormIndex == 1)

        let cresSecond = "<form id=x></form><form id=\"cres-form\" method=post></form>"
        #expect(LoadedPage(url: url, status: 200, html: cresSecond).autoSubmitFormIndex == 1)

        let onloadOther = "<body onload=\"init()\"><form></form></body>"
        #expect(LoadedPage(url: url, status: 200, html: onloadOther).autoSubmitFormIndex == nil)

        let onloadNoForm = "<body onload=\"document.forms[0].submit()\"></body>"
        #expect(LoadedPage(url: url, status: 200, html: onloadNoForm).autoSubmitFormIndex == nil)
    }

    @Test func unknownMarkersKeepTheirText() {
        let url = URL(string: "http://h.example/")!
        let error = LoadedPage(url: url, status: 200, html: "<meta name=\"EGW-Page\" content=\"Error\">")
        #expect(error.kind.marker == "error")
        #expect(error.kind != .other)
        #expect(LoadedPage(url: url, status: 200, html: "<p>no marker</p>").kind == .other)
        #expect(
            LoadedPage(url: url, status: 200, html: "<meta name=egw-page content=acs-challenge>").kind == .challenge)
    }

    @Test func unterminatedMarkupDoesNotCrash() {
        let url = URL(string: "http://h.example/")!
        for html in [
            "<", "<form", "<form action=\"/x", "<!-- never closed", "<script>no end", "<input name=a value='b",
            "&#xZZ;&#99999999;", "<1a>", "</>",
        ] {
            _ = LoadedPage(url: url, status: 200, html: html)
        }
        let unclosed = LoadedPage(url: url, status: 200, html: "<form action=/x><input name=a value=1")
        #expect(unclosed.forms.count == 1)
    }

    @Test func formEncodingFollowsTheURLStandard() {
        // WHATWG application/x-www-form-urlencoded: keep alphanumerics and *-._,
        // space as '+', UTF-8 bytes percent-encoded in upper-case hex
        // ('é' is C3 A9 in UTF-8; '~' is 0x7E).
        #expect(FormEncoding.escape("a b&c=d/é") == "a+b%26c%3Dd%2F%C3%A9")
        #expect(FormEncoding.escape("*-._~+") == "*-._%7E%2B")
        #expect(FormEncoding.encode([("creq", "eyJ0=="), ("x", "")]) == "creq=eyJ0%3D%3D&x=")
    }

    @Test func entriesApplyButtonAndOverrides() {
        let form = HTMLForm(
            action: URL(string: "http://h.example/")!,
            fields: [.init(name: "a", value: "1"), .init(name: "code", value: ""), .init(name: "a", value: "2")],
            buttons: [.init(name: "choice", value: "pay", label: "Pay"), .init(name: nil, value: "Go", label: "Go")])
        let pressed = form.entries(pressing: form.buttons[0])
        #expect(pressed.map { "\($0.name)=\($0.value)" } == ["a=1", "code=", "a=2", "choice=pay"])
        let overridden = form.entries(
            pressing: form.buttons[0], overrides: ["a": "9", "code": "1234", "choice": "cancel", "new": "n"])
        #expect(overridden.map { "\($0.name)=\($0.value)" } == ["a=9", "code=1234", "choice=cancel", "new=n"])
        #expect(form.entries(pressing: form.buttons[1]).count == 3)
        #expect(form.entries(pressing: nil).count == 3)
    }
}
