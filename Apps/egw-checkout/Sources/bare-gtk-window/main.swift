import CCheckoutGtk
import Foundation

// The baseline egw-checkout's start-up is measured against: an empty GTK 4 window, quit after its first
// frame, in the same way (`--exit-when-shown`).
let started = Date()
guard ckt_init() != 0 else {
    FileHandle.standardError.write(Data("bare-gtk-window: no display\n".utf8))
    exit(1)
}
let window = gtk_window_new()!
gtk_window_set_title(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), "bare")
ckt_on_first_frame(
    window,
    { context in
        let started = Date(timeIntervalSince1970: Double(UInt(bitPattern: context)) / 1000)
        print(String(format: "bare-gtk-window: first frame after %.0f ms", Date().timeIntervalSince(started) * 1000))
        ckt_quit()
    }, UnsafeMutableRawPointer(bitPattern: UInt(started.timeIntervalSince1970 * 1000)))
ckt_present(window)
ckt_run()
