import Foundation
import LoopbackTestServer
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// Pages stay inside their window (issue 34, item 3), in the real WebKit against loopback servers: a
/// download is cancelled before a file is written, JavaScript dialogs are answered by the presenter
/// (never drawn by WebKit), a pop-up is kept in the same view, and each is reported through
/// `page(didRefuse:)`; PageSnapshotter makes no connection at all for what the HTML references.
final class WebKitPageWindowTests: WebKitTestCase {
    /// Records every event, refusals included; allows every navigation.
    final class Handler: PageEventHandler {
        private let log = Mutex<[String]>([])
        private let refused = Mutex<[PageRefusal]>([])
        var events: [String] { log.withLock { $0 } }
        var refusals: [PageRefusal] { refused.withLock { $0 } }

        func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
            log.withLock { $0.append("asked \(url.absoluteString)") }
            decisionHandler(.allow)
        }
        func pageDidFinishLoad(_ url: URL) { log.withLock { $0.append("loaded \(url.absoluteString)") } }
        func pageDidFailLoad(_ url: URL, reason: String) {
            log.withLock { $0.append("failed \(url.absoluteString): \(reason)") }
        }
        func pageWasClosedByBuyer() { log.withLock { $0.append("closed") } }
        func page(didRefuse refusal: PageRefusal) {
            refused.withLock { $0.append(refusal) }
            log.withLock { $0.append("refused \(refusal)") }
        }
    }

    /// Shows `start` of a server answering `pages` (path → reply) until `done`; dismisses it.
    func show(
        _ pages: @escaping @Sendable (String) -> LoopbackServer.Reply, until done: (Handler, LoopbackServer) -> Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (Handler, LoopbackServer) {
        let server = try LoopbackServer { request in pages(request.path) }
        let handler = Handler()
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true))
        presenter.present(PageRequest(url: server.url("/start"), purpose: .hostedCheckout), handler: handler) { _ in }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(15)) { done(handler, server) }, "\(handler.events)", file: file,
            line: line)
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) }, file: file, line: line)
        server.stop()
        return (handler, server)
    }

    /// Every regular file under the private HOME / XDG root (GTK.privateRoot) holding `bytes`.
    func files(holding bytes: [UInt8]) -> [String] {
        let root = GTK.privateRoot
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            if let data = FileManager.default.contents(atPath: url.path), data.count < 1 << 20,
                data.range(of: Data(bytes)) != nil
            {
                found.append(url.path)
            }
        }
        return found
    }

    func testADownloadIsCancelledBeforeAFileIsWrittenAndReported() throws {
        let marker = Array("egw-download-marker-\(UUID().uuidString)".utf8)
        let downloads = GTK.privateRoot.appendingPathComponent("home/Downloads")
        let (handler, _) = try show(
            { path in
                switch path {
                case "/start":
                    return .html(
                        200, [],
                        """
                        <!DOCTYPE html><html><head><title>Receipt</title></head><body>
                        <a id="get" href="/receipt.bin?order=7" download="receipt.bin">Receipt</a>
                        <script>window.addEventListener("load", () => setTimeout(() => \
                        document.getElementById("get").click(), 50));</script>
                        </body></html>
                        """)
                default:
                    return .http(
                        200,
                        [
                            ("Content-Type", "application/octet-stream"),
                            ("Content-Disposition", "attachment; filename=receipt.bin"),
                        ], body: marker)
                }
            }, until: { handler, _ in !handler.refusals.isEmpty })
        // The main loop turns a while longer: a download that was not cancelled would land meanwhile.
        _ = GTKMainLoop.run(timeout: .seconds(2)) { false }
        XCTAssertEqual(files(holding: marker), [], "no file holds the download's bytes")
        let inDownloads = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
        XCTAssertEqual(inDownloads, [], "the Downloads folder stays empty")
        let home =
            (try? FileManager.default.contentsOfDirectory(atPath: downloads.deletingLastPathComponent().path)) ?? []
        XCTAssertFalse(home.contains { $0.hasPrefix("receipt") }, "\(home)")
        XCTAssertEqual(
            handler.refusals.map { if case .download(let url) = $0 { url.path } else { "\($0)" } }, ["/receipt.bin"])
        XCTAssertFalse(handler.events.contains { $0.hasPrefix("failed") }, "a refused download fails no page")
    }

    func testAnAttachmentTheMainFrameOpensIsADownloadRefusedNotAFailedPage() throws {
        let marker = Array("egw-attachment-marker-\(UUID().uuidString)".utf8)
        let (handler, _) = try show(
            { path in
                switch path {
                case "/start":
                    return .html(
                        200, [],
                        """
                        <!DOCTYPE html><html><head><title>Receipt</title></head><body>
                        <script>window.addEventListener("load", () => setTimeout(() => \
                        location.href = "/receipt.bin", 50));</script>
                        </body></html>
                        """)
                default:
                    return .http(
                        200,
                        [
                            ("Content-Type", "application/octet-stream"),
                            ("Content-Disposition", "attachment; filename=receipt.bin"),
                        ], body: marker)
                }
            }, until: { handler, _ in !handler.refusals.isEmpty })
        _ = GTKMainLoop.run(timeout: .seconds(2)) { false }
        XCTAssertEqual(files(holding: marker), [], "no file holds the attachment's bytes")
        XCTAssertEqual(
            handler.refusals.map { if case .download(let url) = $0 { url.path } else { "\($0)" } }, ["/receipt.bin"])
        XCTAssertFalse(handler.events.contains { $0.hasPrefix("failed") }, "\(handler.events)")
        XCTAssertFalse(handler.events.contains { $0.hasPrefix("loaded") && $0.hasSuffix("/receipt.bin") }, "not shown")
    }

    func testJavaScriptDialogsAreAnsweredByThePresenterAndReported() throws {
        let (handler, server) = try show(
            { path in
                switch path {
                case "/start":
                    return .html(
                        200, [],
                        """
                        <!DOCTYPE html><html><head><title>Ask</title></head><body>
                        <script>window.addEventListener("load", () => setTimeout(() => {
                          const answers = [alert("Heads up"), confirm("Pay now?"), prompt("Re-enter your card number", "4111")];
                          location.href = "/answers?" + encodeURIComponent(JSON.stringify(answers));
                        }, 50));</script>
                        </body></html>
                        """)
                default:
                    return .html(
                        200, [], "<!DOCTYPE html><html><head><title>Answers</title></head><body>ok</body></html>")
                }
            }, until: { handler, _ in handler.events.contains { $0.hasPrefix("loaded") && $0.contains("/answers") } })
        let answers = try XCTUnwrap(handler.events.first { $0.hasPrefix("asked") && $0.contains("/answers") })
        let query = try XCTUnwrap(URLComponents(string: String(answers.dropFirst("asked ".count)))?.query)
        XCTAssertEqual(query, "[null,false,null]", "alert dismissed, confirm false, prompt null: \(handler.events)")
        XCTAssertEqual(
            handler.refusals,
            [
                .dialog(.alert, messageLength: "Heads up".count), .dialog(.confirm, messageLength: "Pay now?".count),
                .dialog(.prompt, messageLength: "Re-enter your card number".count),
            ])
        XCTAssertFalse(handler.events.joined().contains("card number"), "no page text is reported")
        _ = server
    }

    func checkPopup(_ script: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (handler, server) = try show(
            { path in
                switch path {
                case "/start":
                    return .html(
                        200, [],
                        """
                        <!DOCTYPE html><html><head><title>Start</title></head><body>
                        <a id="out" href="/popup" target="_blank">Open</a>
                        <script>window.addEventListener("load", () => setTimeout(() => { \(script) }, 50));</script>
                        </body></html>
                        """)
                default:
                    return .html(
                        200, [], "<!DOCTYPE html><html><head><title>Popup</title></head><body>ok</body></html>")
                }
            }, until: { handler, _ in handler.events.contains { $0.hasPrefix("loaded") && $0.hasSuffix("/popup") } },
            file: file, line: line)
        XCTAssertEqual(
            handler.refusals, [.newWindow(server.url("/popup"))], "\(handler.events)", file: file, line: line)
    }

    func testAPopupIsKeptInTheSameViewAndReported() throws {
        try checkPopup(#"window.open("/popup", "_blank");"#)
    }

    func testATargetBlankLinkIsKeptInTheSameViewAndReported() throws {
        try checkPopup(#"document.getElementById("out").click();"#)
    }

    func testTheSnapshotterConnectsNowhere() throws {
        let server = try LoopbackServer { _ in .http(200, [("Content-Type", "text/plain")], body: Array("x".utf8)) }
        defer { server.stop() }
        let base = server.baseURL.absoluteString
        let html = """
            <!DOCTYPE html><html><head><title>Referenced</title>
            <link rel="preconnect" href="\(base)/">
            <link rel="stylesheet" href="\(base)/style.css">
            <link rel="prefetch" href="\(base)/next.html">
            <link rel="icon" href="\(base)/favicon.png">
            <style>@font-face { font-family: F; src: url("\(base)/font.woff2"); } body { font-family: F; }
            div { background: url("\(base)/background.png"); }</style>
            <script src="\(base)/script.js"></script>
            </head><body><div>Card 1111</div>
            <img src="\(base)/image.png" alt=""><img src="/relative.png" alt="">
            <iframe src="\(base)/frame.html"></iframe>
            <video poster="\(base)/poster.png" src="\(base)/video.mp4"></video>
            <object data="\(base)/object.svg"></object>
            </body></html>
            """
        let directory = GTK.privateRoot.appendingPathComponent("snapshots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let saved = Mutex<URL??>(nil)
        PageSnapshotter(directory: directory).save(html: html, baseURL: server.url("/page.html"), title: "Referenced") {
            file in saved.withLock { $0 = .some(file) }
        }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(15)) { saved.withLock { $0 != nil } })
        XCTAssertNotNil(saved.withLock { $0 } ?? nil, "the picture was saved")
        // The loop turns a while longer: a load still under way would connect meanwhile.
        _ = GTKMainLoop.run(timeout: .seconds(1)) { false }
        XCTAssertEqual(server.connectionCount, 0, "requests: \(server.requests.map(\.target))")
    }
}
