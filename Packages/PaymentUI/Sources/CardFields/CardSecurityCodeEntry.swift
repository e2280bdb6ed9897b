import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import CardValidation
import Foundation

/// The security-code field as a GTK 4 widget: a real `GtkEntry` with visibility off (GTK shows a mask
/// character per digit), input purpose PIN, digits only, at most ``brand``'s length
/// (`CardSecurityCodeEditor`).
///
/// Keep the length in step with the number: `number.onBrandChange = { code.brand = $0 }`.
///
/// The code never leaves the entry except through ``digits`` (into `CardInput`): copy and cut are
/// refused, no PRIMARY selection (GTK's offer of a selection, even of the hidden form, is taken back
/// at once), no undo history; hints `PRIVATE`, `NO_SPELLCHECK`, `NO_EMOJI`. Main thread only (GTK's thread); `@MainActor`.
@MainActor
public final class CardSecurityCodeEntry {
    private let binding: EntryBinding
    private(set) var editor = CardSecurityCodeEditor()
    private var error = ErrorDisplay(field: .securityCode)

    /// Called on the main thread after every edit that changed the code.
    public var onChange: (() -> Void)?

    /// An empty entry for `brand` (default `.unknown`: up to 4 digits). Needs a display; traps without one.
    public init(brand: CardBrand = .unknown) {
        let text = BuyerText.current
        binding = EntryBinding(
            privateText: true, purpose: GTK_INPUT_PURPOSE_PIN, visible: false, widthChars: 5,
            placeholder: text["card.securityCode.placeholder"])
        binding.setAccessibleLabel(text["card.securityCode.label"])
        editor.brand = brand
        binding.edit = { [unowned self] range, replacement, forward in self.edit(range, replacement, forward) }
    }

    /// The entry's widget, for the app to pack into its layout
    /// (`widgetReference.withUnsafePointer { gtk_box_append(box, $0.assumingMemoryBound(to: GtkWidget.self)) }`).
    /// The reference keeps the widget alive as long as the app holds it.
    public var widgetReference: GObjectReference { binding.reference }

    /// The entry's `GtkWidget *`, for the app to pack into its layout. Valid while this object lives.
    @available(*, deprecated, message: "use widgetReference (GLibMainQueue's GObjectReference)")
    public var widget: UnsafeMutableRawPointer { UnsafeMutableRawPointer(binding.widget) }

    /// The code entered (for `CardInput.securityCode`).
    public var digits: String { editor.digits }
    /// The code as the buyer typed it, the same as ``digits`` (seed 001's
    /// `card.securityCode = securityCodeField.text`): the value, not the mask; only the entry's display
    /// is masked (GTK draws one mask character per digit).
    public var text: String { editor.text }
    /// The caret position.
    public var caret: Int { editor.caret }
    /// The most digits the entry accepts now.
    public var maximumLength: Int { editor.maximumLength }

    /// The card's brand, which sets the length (4 for Amex and `.unknown`, else 3). Lowering the limit
    /// drops digits past it.
    public var brand: CardBrand {
        get { editor.brand }
        set {
            let before = editor.digits
            editor.brand = newValue
            binding.show(editor.digits, caret: editor.caret)
            if editor.digits != before { onChange?() }
        }
    }

    /// The error message shown, nil when none.
    public var validationMessage: String? { error.message }

    /// Shows the error of `CardInput.validationError(for: .securityCode)` (see
    /// ``CardNumberEntry/showValidationError(_:)``); nil clears it; false for an error about another field.
    @discardableResult
    public func showValidationError(_ error: NSError?) -> Bool {
        self.error.show(error, on: binding.widget)
    }

    /// Empties the entry and its error state.
    public func clear() {
        editor = CardSecurityCodeEditor(brand: editor.brand)
        binding.show("", caret: 0)
        error.set(nil, on: binding.widget)
        onChange?()
    }

    // The entry's buffer holds the digits (GTK masks them); offsets in it are offsets in `digits`.
    private func edit(_ range: Range<Int>, _ replacement: String, _ forward: Bool) -> (text: String, caret: Int)? {
        let before = editor.digits
        guard editor.apply(range, replacement, forward: forward) != .rejected else { return nil }
        if editor.digits != before {
            if error.message != nil { error.set(nil, on: binding.widget) }
            onChange?()
        }
        return (editor.digits, editor.caret)
    }
}
