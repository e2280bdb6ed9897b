internal import CWebKitShim
import Foundation

/// Saves pages that another browser loaded (the headless one) as WebKit renders them: the HTML as
/// served, JavaScript off (as that browser saw it), in a window of its own that closes once the
/// PNG is written. Files are named and numbered as ``WebKitPagePresenter/Options/screenshotsDirectory``
/// says (`NN-<title>.png`, after the highest number already there; no digit from the title).
///
/// Nothing but the page's own HTML is loaded, and nothing is fetched from the network: a
/// Content-Security-Policy put first in the document (after a leading doctype) blocks every image,
/// style sheet, font, script, frame, media and object URL before a request is made (inline styles and
/// `data:` images still render); every navigation after the document's own is refused; the session
/// is ephemeral and its only proxy is a loopback port that is bound and never listened on, so a load
/// nothing else stopped (a preconnect) is refused by the kernel instead of reaching a server. Downloads
/// and JavaScript dialogs are refused as on presented pages (JavaScript is off anyway).
///
/// Threading: `save` may be called from any thread; the work runs on the GTK thread (GTK must be
/// started, ``GTKMainLoop/start()``, and its loop turning), and `completion` is called there with
/// the file written, or `nil` when GTK is not started or the page could not be rendered.
public final class PageSnapshotter: Sendable {
    private let directory: URL
    private let size: (width: Int, height: Int)

    /// Saves into `directory` (which must exist) pictures of `size` pixels. Default 720 × 640.
    public init(directory: URL, size: (width: Int, height: Int) = (720, 640)) {
        self.directory = directory
        self.size = size
    }

    /// Renders `html` as served at `baseURL` and saves it; see the type's documentation.
    public func save(html: String, baseURL: URL, title: String, completion: @escaping @Sendable (URL?) -> Void) {
        guard GTKMainLoop.isStarted else {
            completion(nil)
            return
        }
        let directory = self.directory
        let size = self.size
        onGTKThread {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let file = directory.appendingPathComponent(
                ScreenshotName.file(number: ScreenshotName.highestNumber(in: names) + 1, title: title))
            let shot = Snapshot(file: file, completion: completion)
            shot.start(html: html, baseURL: baseURL, size: size)
        }
    }
}

/// One picture being taken; keeps itself alive until it is done (the GTK thread, the main actor).
@MainActor
private final class Snapshot {
    let file: URL
    let completion: @Sendable (URL?) -> Void
    var session: UnsafeMutableRawPointer?
    var view: UnsafeMutableRawPointer?
    var window: UnsafeMutableRawPointer?
    var baseLoaded = false
    let proxy = RefusingPort()
    var keepAlive: Snapshot?

    init(file: URL, completion: @escaping @Sendable (URL?) -> Void) {
        self.file = file
        self.completion = completion
    }

    nonisolated private static func from(_ context: UnsafeMutableRawPointer) -> Snapshot {
        Unmanaged<Snapshot>.fromOpaque(context).takeUnretainedValue()
    }

    func start(html: String, baseURL: URL, size: (width: Int, height: Int)) {
        keepAlive = self
        var callbacks = egwwk_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            policy: { context, decision, type, _, _, _ in
                guard let context, let decision else { return }
                MainActor.assumeIsolated { Snapshot.from(context).policy(decision, type: type) }
            },
            load: { context, event, _ in
                guard let context, event == .finished else { return }
                MainActor.assumeIsolated { Snapshot.from(context).loaded() }
            },
            fail: { context, kind, _, _, _ in
                guard let context, kind != .interrupted else { return }
                MainActor.assumeIsolated { Snapshot.from(context).finish(saved: false) }
            },
            event: { _, _ in },
            message: { _, _ in }, request: { _, _, _ in }, terminated: { _, _ in })
        let session = egwwk_session_new_ephemeral()
        if let port = proxy.port { egwwk_session_set_proxy(session, "http://127.0.0.1:\(port)", nil, nil, nil) }
        self.session = session
        let view = egwwk_view_new(session, &callbacks, nil, nil, nil)
        egwwk_view_guard(view, session, nil, nil)
        egwwk_view_set_javascript(view, false)
        let window = egwwk_window_new(nil, Int32(size.width), Int32(size.height))
        egwwk_window_set_child(window, view)
        egwwk_window_present(window)
        self.view = view
        self.window = window
        egwwk_view_load_html(view, SealedSnapshot.document(html), baseURL.absoluteString)
    }

    /// Only the document itself loads: its own navigation once, nothing after.
    private func policy(_ decision: UnsafeMutableRawPointer, type: egwwk_policy_kind) {
        switch type {
        case .navigation where !baseLoaded:
            baseLoaded = true
            egwwk_decision_use(decision)
        case .response:
            egwwk_decision_use(decision)
        case .navigation, .newWindow:
            egwwk_decision_ignore(decision)
        }
    }

    private func loaded() {
        guard let view else { return }
        // Each callback holds the snapshot until it runs (a late one finds it finished, not freed).
        let box = Unmanaged.passRetained(self)
        let waiting = egwwk_after_next_paint(
            view,
            { data in
                guard let data else { return }
                MainActor.assumeIsolated { Unmanaged<Snapshot>.fromOpaque(data).takeRetainedValue().painted() }
            }, box.toOpaque())
        if !waiting {
            box.release()
            finish(saved: false)
        }
    }

    private func painted() {
        guard let view else { return }
        egwwk_view_snapshot_png(
            view, file.path,
            { data, saved in
                guard let data else { return }
                MainActor.assumeIsolated {
                    Unmanaged<Snapshot>.fromOpaque(data).takeRetainedValue().finish(saved: saved)
                }
            }, Unmanaged.passRetained(self).toOpaque())
    }

    private func finish(saved: Bool) {
        guard keepAlive != nil else { return }
        if let view {
            egwwk_view_disconnect(view, window)
            egwwk_view_stop(view)
        }
        if let window { egwwk_window_destroy(window) }
        if let view { egwwk_object_unref(view) }
        if let session { egwwk_object_unref(session) }
        (view, window, session) = (nil, nil, nil)
        proxy.close()
        completion(saved ? file : nil)
        keepAlive = nil
    }
}
