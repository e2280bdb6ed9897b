import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import Foundation
import PaymentAuthorization

/// The widget tree of one shown sheet, and how a ``WalletSheet`` is drawn on it. Thin: every decision is
/// the sheet controller's; this only binds its renderings to GTK and the buyer's clicks to actions.
@MainActor
final class SheetWidgets {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    let window: Widget
    private weak var owner: PaymentSheetWindow?
    private let text = BuyerText.current
    private let items: Widget
    private let total: Widget
    private let methodsTitle: Widget
    private let methods: Widget
    private let contactsTitle: Widget
    private let contacts: Widget
    private let cards: Widget
    private let couponRow: Widget
    private let coupon: Widget
    private let applyCoupon: Widget
    private let spinner: Widget
    private let status: Widget
    private let pay: Widget
    private let cancel: Widget
    private var errorLabels: [SheetField: Widget] = [:]
    private var methodChecks: [(id: String, widget: Widget)] = []
    private var contactChecks: [Widget] = []
    private var cardChecks: [Widget] = []
    private var shownLists: (methods: String, contacts: [Contact], cards: [String]) = ("", [], [])
    private var handlers: [Handler] = []
    private var closing = false

    init(parent: Widget?, owner: PaymentSheetWindow) {
        self.owner = owner
        window = egwui_window_new(text["sheet.title"], parent, 1)
        egwui_accessible_set_label(window, text["sheet.title"])
        let content = egwui_box_new(1, 10)
        egwui_widget_set_margins(content, 16)
        egwui_window_set_child(window, content)

        items = egwui_box_new(1, 4)
        total = egwui_label_new("", 0)
        egwui_widget_set_name(total, "total")
        methodsTitle = egwui_label_new(text["sheet.shipping"], 0)
        methods = egwui_box_new(1, 2)
        contactsTitle = egwui_label_new(text["sheet.contact"], 0)
        contacts = egwui_box_new(1, 2)
        let cardsTitle = egwui_label_new(text["sheet.card"], 0)
        cards = egwui_box_new(1, 2)
        couponRow = egwui_box_new(0, 6)
        coupon = egwui_entry_new()
        applyCoupon = egwui_button_new(text["sheet.coupon.apply"])
        spinner = egwui_spinner_new()
        status = egwui_label_new("", 1)
        pay = egwui_button_new("")
        cancel = egwui_button_new(text["sheet.cancel"])

        for widget in [
            items, total, methodsTitle, methods, contactsTitle, contacts, errorLabel(.contact, "error-contact"),
        ] {
            egwui_box_append(content, widget)
        }
        egwui_box_append(content, cardsTitle)
        egwui_box_append(content, cards)
        egwui_box_append(content, errorLabel(.card, "error-card"))

        egwui_widget_set_name(coupon, "coupon")
        egwui_entry_configure(coupon, GTK_INPUT_PURPOSE_FREE_FORM, 1, 12, text["sheet.coupon"])
        egwui_accessible_set_label(coupon, text["sheet.coupon"])
        egwui_widget_set_hexpand(coupon)
        egwui_widget_set_name(applyCoupon, "apply-coupon")
        egwui_accessible_set_label(applyCoupon, text["sheet.coupon.apply"] + " " + text["sheet.coupon"])
        egwui_box_append(couponRow, coupon)
        egwui_box_append(couponRow, applyCoupon)
        egwui_box_append(content, couponRow)
        egwui_box_append(content, errorLabel(.coupon, "error-coupon"))
        egwui_box_append(content, errorLabel(.general, "error-general"))

        let statusRow = egwui_box_new(0, 6)
        egwui_box_append(statusRow, spinner)
        egwui_widget_set_name(status, "status")
        egwui_box_append(statusRow, status)
        egwui_box_append(content, statusRow)

        let buttons = egwui_box_new(0, 6)
        egwui_widget_set_halign_end(buttons)
        egwui_widget_set_name(cancel, "cancel")
        egwui_accessible_set_label(cancel, text["sheet.cancel"])
        egwui_widget_set_name(pay, "pay")
        egwui_widget_add_class(pay, "suggested-action")
        egwui_box_append(buttons, cancel)
        egwui_box_append(buttons, pay)
        egwui_box_append(content, buttons)

        connect(pay, egwui_connect_clicked) { $0.perform(.authorize) }
        connect(cancel, egwui_connect_clicked) { $0.perform(.cancel) }
        let applyTheCode: @MainActor (PaymentSheetWindow) -> Void = { [coupon] owner in
            owner.perform(.enterCouponCode(String(cString: egwui_editable_text(coupon))))
        }
        connect(applyCoupon, egwui_connect_clicked, applyTheCode)
        connect(coupon, egwui_connect_activate, applyTheCode)
        let cancelHandler = Handler { [weak self] _ in
            guard let self, !self.closing, let owner = self.owner else { return }
            owner.perform(.cancel)
        }
        handlers.append(cancelHandler)
        egwui_window_on_close(window, Handler.callback, Unmanaged.passUnretained(cancelHandler).toOpaque())
    }

    func close() {
        closing = true
        egwui_window_destroy(window)
    }

    private func errorLabel(_ placement: SheetField, _ name: String) -> Widget {
        let label: Widget = egwui_label_new("", 1)
        egwui_widget_set_name(label, name)
        egwui_widget_add_class(label, "error")
        egwui_widget_add_class(label, EGWUI_CONTRAST_CLASS)  // readable in a dark theme too (egwui_init's rule)
        egwui_widget_set_visible(label, 0)
        errorLabels[placement] = label
        return label
    }

    func setError(_ message: String, in placement: SheetField) {
        guard let label = errorLabels[placement] else { return }
        let old = String(cString: egwui_label_text(label))
        egwui_label_set_text(label, old.isEmpty ? message : old + "\n" + message)
        egwui_widget_set_visible(label, 1)
    }

    private func connect(
        _ widget: Widget, _ how: (Widget?, egwui_widget_fn?, UnsafeMutableRawPointer?) -> gulong,
        _ body: @escaping @MainActor (PaymentSheetWindow) -> Void
    ) {
        let handler = Handler { [weak self] _ in
            guard let self, !self.closing, let owner = self.owner else { return }
            body(owner)
        }
        handlers.append(handler)
        _ = how(widget, Handler.callback, Unmanaged.passUnretained(handler).toOpaque())
    }

    private func radio(
        _ label: String, name: String, group: Widget?, in box: Widget, action: SheetBuyerAction
    ) -> Widget {
        let check: Widget = egwui_check_new(label, group)
        egwui_widget_set_name(check, name)
        egwui_accessible_set_label(check, label)
        egwui_box_append(box, check)
        let handler = Handler { [weak self] widget in
            guard let self, !self.closing, let owner = self.owner else { return }
            owner.selected(widget, action)
        }
        handlers.append(handler)
        _ = egwui_connect_toggled(check, Handler.callback, Unmanaged.passUnretained(handler).toOpaque())
        return check
    }

    // MARK: - Rendering

    func render(_ sheet: WalletSheet) {
        // Prices as the buyer's language writes them (CLDR: `€16.24`, `16,24 €`), like the rest of the sheet.
        let digits = CurrencyExponent.of(sheet.currencyCode) ?? 2
        let money = { [text] (amount: Decimal) in
            text.money(amount, currencyCode: sheet.currencyCode, fractionDigits: digits)
        }
        egwui_box_clear(items)
        for item in sheet.summaryItems.dropLast() {
            let row = egwui_box_new(0, 12)
            let name = egwui_label_new(item.label, 0)
            egwui_widget_set_hexpand(name)
            egwui_box_append(row, name)
            egwui_box_append(
                row, egwui_label_new(item.type == .pending ? text["sheet.pending"] : money(item.amount), 0))
            egwui_box_append(items, row)
        }
        let merchant = sheet.summaryItems.last?.label ?? ""
        egwui_label_set_text(total, text.format("sheet.total.of", merchant) + ": " + money(sheet.total))
        let payLabel = text.format("sheet.pay", money(sheet.total))
        egwui_button_set_label(pay, payLabel)
        egwui_accessible_set_label(pay, payLabel)

        renderLists(sheet, money: money)
        for check in methodChecks {
            egwui_check_set_active(check.widget, check.id == sheet.selectedShippingMethod ? 1 : 0)
        }
        for (index, check) in contactChecks.enumerated() {
            egwui_check_set_active(check, index == sheet.selectedContact ? 1 : 0)
        }
        for (index, check) in cardChecks.enumerated() {
            egwui_check_set_active(check, index == sheet.selectedCard ? 1 : 0)
            egwui_widget_set_sensitive(check, sheet.cards[index].accepted ? 1 : 0)
        }
        egwui_widget_set_visible(couponRow, sheet.supportsCouponCode ? 1 : 0)
        egwui_widget_set_visible(methodsTitle, sheet.shippingMethods.isEmpty ? 0 : 1)
        egwui_widget_set_visible(contactsTitle, sheet.contacts.isEmpty ? 0 : 1)

        for label in errorLabels.values {
            egwui_label_set_text(label, "")
            egwui_widget_set_visible(label, 0)
        }
        for error in sheet.errors {
            setError(SheetText.words(for: error, text: text), in: error.field)
        }
        renderState(sheet.state)
    }

    private func renderLists(_ sheet: WalletSheet, money: (Decimal) -> String) {
        let methodList = sheet.shippingMethods.map { "\($0.identifier)|\($0.label)|\($0.amount)" }.joined(
            separator: ";")
        if methodList != shownLists.methods {
            egwui_box_clear(methods)
            methodChecks = []
            for method in sheet.shippingMethods {
                let detail = method.detail.map { " (\($0))" } ?? ""
                let check = radio(
                    "\(method.label)\(detail): \(money(method.amount))", name: "method-\(method.identifier)",
                    group: methodChecks.first?.widget, in: methods, action: .selectShippingMethod(method.identifier))
                methodChecks.append((method.identifier, check))
            }
            shownLists.methods = methodList
        }
        if sheet.contacts != shownLists.contacts {
            egwui_box_clear(contacts)
            contactChecks = []
            for (index, contact) in sheet.contacts.enumerated() {
                // The buyer reads `Riga, LV`: the sheet's contacts are redacted to city and country.
                let shown = "\(contact.city ?? "-"), \(contact.countryCode ?? "-")"
                contactChecks.append(
                    radio(
                        shown, name: "contact-\(index)", group: contactChecks.first, in: contacts,
                        action: .selectContact(index)))
            }
            shownLists.contacts = sheet.contacts
        }
        let cardList = sheet.cards.map(\.displayName)
        if cardList != shownLists.cards {
            egwui_box_clear(cards)
            cardChecks = []
            for (index, card) in sheet.cards.enumerated() {
                let label = card.accepted ? card.displayName : text.format("sheet.card.notAccepted", card.displayName)
                cardChecks.append(
                    radio(label, name: "card-\(index)", group: cardChecks.first, in: cards, action: .selectCard(index)))
            }
            shownLists.cards = cardList
        }
    }

    private func renderState(_ state: WalletSheet.State) {
        let (controls, canCancel, spinning, message): (Bool, Bool, Bool, String) =
            switch state {
            case .ready: (true, true, false, "")
            case .busy: (false, true, true, text["sheet.busy"])
            case .processing: (false, true, true, text["sheet.processing"])
            case .showingStatus(let status): (false, false, false, statusText(status))
            case .finished: (false, false, false, String(cString: egwui_label_text(status)))
            }
        // GTK drops the focus of a widget made insensitive: a keyboard or screen-reader buyer who changed
        // the shipping method would be left nowhere. The focused control gets it back once ready.
        let focus = GObjectReference(retaining: UnsafeMutableRawPointer(window))
        if !controls { focus.keepFocus() }
        for widget in [methods, contacts, cards, couponRow, pay] {
            egwui_widget_set_sensitive(widget, controls ? 1 : 0)
        }
        if controls { focus.restoreFocus() }
        egwui_widget_set_sensitive(cancel, canCancel ? 1 : 0)
        egwui_spinner_set(spinner, spinning ? 1 : 0)
        egwui_label_set_text(status, message)
        // Hidden while idle or empty: a screen reader reads an unnamed spinner or an empty label by its
        // class name ("GtkSpinner", "GtkLabel"). Spinning, the spinner is named by the status it shows.
        egwui_widget_set_visible(spinner, spinning ? 1 : 0)
        if spinning { egwui_accessible_set_label(spinner, message) }
        egwui_widget_set_visible(status, message.isEmpty ? 0 : 1)
    }

    func showStatus(_ status: PaymentAuthorizationStatus) {
        renderState(.showingStatus(status))
    }

    /// The words of a shown status. A payment in doubt has its own (being confirmed, do not pay again),
    /// never the failure's; the seed's 2–4 never reach the sheet as a final status (they fold into a
    /// failure with errors), and would read as a failure.
    private func statusText(_ status: PaymentAuthorizationStatus) -> String {
        switch status {
        case .success: text["sheet.status.success"]
        case .unresolved: text["sheet.status.unresolved"] + "\n" + text["sheet.status.unresolved.detail"]
        case .failure, .invalidBillingPostalAddress, .invalidShippingPostalAddress, .invalidShippingContact:
            text["sheet.status.failure"]
        }
    }
}

/// A Swift closure behind a C callback; kept alive by the ``SheetWidgets`` that connected it.
@MainActor
final class Handler {
    let run: @MainActor (UnsafeMutablePointer<GtkWidget>) -> Void

    init(_ run: @escaping @MainActor (UnsafeMutablePointer<GtkWidget>) -> Void) {
        self.run = run
    }

    static let callback: egwui_widget_fn = { context, widget in
        guard let context, let widget else { return }
        let handler = Unmanaged<Handler>.fromOpaque(context).takeUnretainedValue()
        let address = UInt(bitPattern: widget)  // a pointer is not Sendable; GTK calls on its own thread
        MainActor.assumeIsolated {
            guard let widget = UnsafeMutablePointer<GtkWidget>(bitPattern: address) else { return }
            handler.run(widget)
        }
    }
}
