import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import CardValidation
import Foundation

/// The expiry field as a GTK 4 widget: a real `GtkEntry` that formats `MM/YY` as the buyer types and
/// offers ``month`` and ``year`` for `CardInput`, as `CardExpiryEditor` decides (a
/// first digit above 1 becomes `0N`, impossible months are refused, a pasted `12/2030` becomes `12/30`).
///
/// Every edit goes through the editable's `insert-text` and `delete-text` signals. Input purpose digits,
/// hints `PRIVATE`, `NO_SPELLCHECK` and `NO_EMOJI`; the app's theme (and PaymentUI's two contrast rules, see ``CardNumberEntry``); no undo history. Main thread only (GTK's thread); `@MainActor`.
@MainActor
public final class CardExpiryEntry {
    private let binding: EntryBinding
    private var editor = CardExpiryEditor()
    private var error = ErrorDisplay(field: .expiry)

    /// Called on the main thread after every edit that changed the text.
    public var onChange: (() -> Void)?

    /// An empty entry. Needs a display (GTK is initialised on first use); traps without one.
    public init() {
        let text = BuyerText.current
        binding = EntryBinding(
            privateText: false, purpose: GTK_INPUT_PURPOSE_DIGITS, visible: true, widthChars: 6,
            placeholder: text["card.expiry.placeholder"])
        binding.setAccessibleLabel(text["card.expiry.label"])
        binding.edit = { [unowned self] range, replacement, forward in self.edit(range, replacement, forward) }
    }

    /// The entry's widget, for the app to pack into its layout
    /// (`widgetReference.withUnsafePointer { gtk_box_append(box, $0.assumingMemoryBound(to: GtkWidget.self)) }`).
    /// The reference keeps the widget alive as long as the app holds it.
    public var widgetReference: GObjectReference { binding.reference }

    /// The entry's `GtkWidget *`, for the app to pack into its layout. Valid while this object lives.
    @available(*, deprecated, message: "use widgetReference (GLibMainQueue's GObjectReference)")
    public var widget: UnsafeMutableRawPointer { UnsafeMutableRawPointer(binding.widget) }

    /// What the entry shows, e.g. `"12/3"`.
    public var text: String { editor.text }
    /// The caret position in ``text``.
    public var caret: Int { editor.caret }
    /// The month, two digits (`CardInput.expiryMonth`): `""` until two digits have been entered.
    public var month: String { editor.month }
    /// The year (`CardInput.expiryYear`): `""` until more than two digits have been entered.
    public var year: String { editor.year }

    /// The error message shown, nil when none.
    public var validationMessage: String? { error.message }

    /// Shows the error of `CardInput.validationError(for: .expiry)` (see
    /// ``CardNumberEntry/showValidationError(_:)``); nil clears it; false for an error about another field.
    @discardableResult
    public func showValidationError(_ error: NSError?) -> Bool {
        self.error.show(error, on: binding.widget)
    }

    /// Empties the entry and its error state.
    public func clear() {
        editor = CardExpiryEditor()
        binding.show("", caret: 0)
        error.set(nil, on: binding.widget)
        onChange?()
    }

    private func edit(_ range: Range<Int>, _ replacement: String, _ forward: Bool) -> (text: String, caret: Int)? {
        let before = editor.text
        guard editor.apply(range, replacement, forward: forward) != .rejected else { return nil }
        if editor.text != before {
            if error.message != nil { error.set(nil, on: binding.widget) }
            onChange?()
        }
        return (editor.text, editor.caret)
    }
}
