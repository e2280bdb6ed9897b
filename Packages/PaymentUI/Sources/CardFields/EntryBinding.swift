import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import CardValidation
import Foundation
internal import GLibMainQueue
internal import PaymentUIDisplay

/// One `GtkEntry` whose every edit (typing, deleting, pasting, `gtk_editable_set_text`) is handed to
/// `edit` before GTK applies it; what `edit` answers is what the entry shows. Owns a reference to the
/// widget and drops it when it goes away. Main thread only.
@MainActor
final class EntryBinding {
    /// Replaces a range of the shown text (`forward`: a deletion starting at the caret, the Delete key);
    /// answers the new text and caret, or nil to refuse the edit.
    typealias Edit = (_ range: Range<Int>, _ replacement: String, _ forward: Bool) -> (text: String, caret: Int)?

    let widget: UnsafeMutablePointer<GtkWidget>
    /// The widget as the entries hand it to the app: a reference of its own, so the app may keep the
    /// widget beyond the entry.
    private(set) lazy var reference = GObjectReference(retaining: UnsafeMutableRawPointer(widget))
    private var filter: OpaquePointer?
    var edit: Edit?

    init(privateText: Bool, purpose: GtkInputPurpose, visible: Bool, widthChars: Int32, placeholder: String?) {
        precondition(
            PaymentUIDisplay.start(),
            "PaymentUI needs a display and the GTK thread: GTK could not be started here")
        widget = egwui_entry_new()
        egwui_object_ref_sink(widget)
        egwui_entry_configure(widget, purpose, visible ? 1 : 0, widthChars, placeholder)
        filter = egwui_filter_attach(
            widget,
            { context, start, end, text, caret in
                guard let context, let text else { return -1 }
                let binding = Unmanaged<EntryBinding>.fromOpaque(context).takeUnretainedValue()
                let replacement = String(cString: text)
                let forward = replacement.isEmpty && start == caret && end > start
                return MainActor.assumeIsolated { binding.apply(Int(start)..<Int(end), replacement, forward) }
            }, Unmanaged.passUnretained(self).toOpaque(), privateText ? 1 : 0)
    }

    isolated deinit {
        if let filter { egwui_filter_detach(filter) }
        egwui_object_unref(widget)
    }

    private func apply(_ range: Range<Int>, _ replacement: String, _ forward: Bool) -> Int32 {
        guard let result = edit?(range, replacement, forward) else { return -1 }
        show(result.text, caret: result.caret)
        return Int32(result.caret)
    }

    /// Shows `text` with the caret at `caret`, without going through `edit`.
    func show(_ text: String, caret: Int) {
        guard let filter else { return }
        egwui_filter_show(filter, text, Int32(caret))
    }

    /// The entry's accessible name (what a screen reader reads for it).
    func setAccessibleLabel(_ label: String) {
        egwui_accessible_set_label(widget, label)
    }
}

/// The error state the three entries share: GTK's `error` style class (styled by the app's theme),
/// `GTK_ACCESSIBLE_STATE_INVALID` and the message as the accessible description.
@MainActor
struct ErrorDisplay {
    let field: CardField
    private(set) var message: String?

    init(field: CardField) {
        self.field = field
    }

    /// Shows `error` when it is a `cardValidationFailed` error whose issue (`NSError.cardValidationIssue`)
    /// names this field (true), clears the state when it is nil (true), and leaves it as it was for any
    /// other error (false).
    mutating func show(_ error: NSError?, on widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
        guard let error else {
            set(nil, on: widget)
            return true
        }
        guard let issue = error.cardValidationIssue, issue.field == field else { return false }
        set(FieldText.message(field: field, reason: issue.reason), on: widget)
        return true
    }

    mutating func set(_ newMessage: String?, on widget: UnsafeMutablePointer<GtkWidget>) {
        message = newMessage
        if let newMessage {
            egwui_widget_add_class(widget, "error")
            egwui_accessible_set_invalid(widget, 1, newMessage)
        } else {
            egwui_widget_remove_class(widget, "error")
            egwui_accessible_set_invalid(widget, 0, nil)
        }
    }
}

/// The entries' buyer-facing text, from the locale's table.
enum FieldText {
    static func message(field: CardField, reason: CardValidationIssue.Reason) -> String {
        let text = BuyerText.current
        let key = "card.error.\(field).\(reason.rawValue)"
        let found = text[key]
        return found == key ? text["card.error.other"] : found
    }
}

extension CardTextEditor {
    /// One edit as GTK reports it: the Delete key (a one-character deletion starting at the caret) is the
    /// editor's forward delete, which skips a group space to the next digit; anything else replaces the
    /// range (a backspace over a space deletes the digit before it).
    mutating func apply(_ range: Range<Int>, _ replacement: String, forward: Bool) -> EditOutcome {
        if forward && range.count == 1 {
            moveCaret(to: range.lowerBound)
            return deleteForward()
        }
        return replace(range, with: replacement)
    }
}
