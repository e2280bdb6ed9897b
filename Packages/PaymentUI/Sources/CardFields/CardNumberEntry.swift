import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import CardValidation
import Foundation

/// The card-number field as a GTK 4 widget: a real `GtkEntry` that groups digits as the buyer types
/// (4-4-4-4, Amex 4-6-5), limits the length by brand and keeps the caret where a person expects it, all
/// decided by `CardNumberEditor`.
///
/// ```swift
/// let number = CardNumberEntry()
/// number.widgetReference.withUnsafePointer { gtk_box_append(box, $0.assumingMemoryBound(to: GtkWidget.self)) }
/// number.onBrandChange = { brand in securityCode.brand = brand }
/// ```
///
/// - Every edit goes through the editable's `insert-text` and `delete-text` signals: typing, backspace,
///   delete, paste (a spaced or dashed number is accepted), and `gtk_editable_set_text`. Refused input
///   (letters) leaves the field as it was and beeps.
/// - Input purpose digits, hints `PRIVATE` (input methods do not learn it), `NO_SPELLCHECK` and
///   `NO_EMOJI`. The app's theme applies, but for PaymentUI's two contrast rules on its `egwpay` class
///   (error text and focus ring, at `GTK_STYLE_PROVIDER_PRIORITY_APPLICATION - 1`: the app's own CSS
///   wins). The error state uses the theme's `error` style class.
/// - The number never leaves the entry except through ``digits`` (into `CardInput`): copy and cut are
///   refused, the selection is never left as the PRIMARY selection (GTK's offer is taken back in the same
///   turn of the main loop, so X's PRIMARY has no owner; the selection stays), there is no undo history, and
///   nothing is logged.
///
/// Main thread only (GTK's thread); `@MainActor`.
@MainActor
public final class CardNumberEntry {
    private let binding: EntryBinding
    private(set) var editor = CardNumberEditor()
    private var error = ErrorDisplay(field: .cardNumber)

    /// Called on the main thread after every change of ``brand``.
    public var onBrandChange: ((CardBrand) -> Void)?
    /// Called on the main thread after every edit that changed the text.
    public var onChange: (() -> Void)?

    /// An empty entry. Needs a display (GTK is initialised on first use); traps without one.
    public init() {
        binding = EntryBinding(
            privateText: true, purpose: GTK_INPUT_PURPOSE_DIGITS, visible: true, widthChars: 23,
            placeholder: "1234 5678 9012 3456")
        binding.setAccessibleLabel(BuyerText.current["card.number.label"])
        binding.edit = { [unowned self] range, replacement, forward in self.edit(range, replacement, forward) }
    }

    /// The entry's widget, for the app to pack into its layout
    /// (`widgetReference.withUnsafePointer { gtk_box_append(box, $0.assumingMemoryBound(to: GtkWidget.self)) }`).
    /// The reference keeps the widget alive as long as the app holds it.
    public var widgetReference: GObjectReference { binding.reference }

    /// The entry's `GtkWidget *`, for the app to pack into its layout. Valid while this object lives.
    @available(*, deprecated, message: "use widgetReference (GLibMainQueue's GObjectReference)")
    public var widget: UnsafeMutableRawPointer { UnsafeMutableRawPointer(binding.widget) }

    /// The digits entered, without formatting (for `CardInput.cardNumber`).
    public var digits: String { editor.digits }
    /// What the entry shows, e.g. `"4242 4242 42"`.
    public var text: String { editor.text }
    /// The caret position in ``text``.
    public var caret: Int { editor.caret }
    /// The brand of ``digits`` (display and formatting only; never a reason to reject).
    public var brand: CardBrand { editor.brand }
    /// The number's live state (incomplete, valid, invalid) under the brand-agnostic rules.
    public var fieldState: FieldState { editor.state }

    /// The error message shown, nil when none.
    public var validationMessage: String? { error.message }

    /// Shows the error of `CardInput.validationError(for: .cardNumber)`: with a `cardValidationFailed`
    /// error naming the card number, the entry shows the error state (style class `error`,
    /// `GTK_ACCESSIBLE_STATE_INVALID`, the message in the buyer's language as the accessible
    /// description); with nil it clears it. Returns false, changing nothing, for any other error.
    /// Typing clears the error state.
    @discardableResult
    public func showValidationError(_ error: NSError?) -> Bool {
        self.error.show(error, on: binding.widget)
    }

    /// Empties the entry and its error state. Nothing of the old number remains in the entry: it keeps
    /// no undo history.
    public func clear() {
        let brandBefore = editor.brand
        editor = CardNumberEditor()
        binding.show("", caret: 0)
        error.set(nil, on: binding.widget)
        if brandBefore != editor.brand { onBrandChange?(editor.brand) }
        onChange?()
    }

    private func edit(_ range: Range<Int>, _ replacement: String, _ forward: Bool) -> (text: String, caret: Int)? {
        let brandBefore = editor.brand
        let textBefore = editor.text
        guard editor.apply(range, replacement, forward: forward) != .rejected else { return nil }
        let result = (editor.text, editor.caret)
        if editor.text != textBefore {
            if self.error.message != nil { self.error.set(nil, on: binding.widget) }
            notify(brandChanged: editor.brand != brandBefore)
        }
        return result
    }

    private func notify(brandChanged: Bool) {
        if brandChanged { onBrandChange?(editor.brand) }
        onChange?()
    }
}
