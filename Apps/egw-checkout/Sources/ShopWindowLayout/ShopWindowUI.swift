import BuyerText

/// The shop's window as a GtkBuilder description: the app's own layout, into which the SDK's three card
/// entries are packed (`card-number-slot`, `card-details-slot`). Widget names are what tests click. Its
/// words come from BuyerText's `shop.*` keys in the buyer's language. Its own target so that
/// `bare-gtk-window --shop` (measure.sh's baseline) draws the same widgets.
public enum ShopWindowUI {
    /// The description with `text`'s words, for a cart of `items` items.
    public static func xml(_ text: BuyerText, items: Int) -> String {
        let words = [
            "shop.name", "shop.cart", "shop.card", "shop.cardholderName", "shop.pay.card", "shop.pay.wallet",
            "shop.pay.hosted",
        ]
        var xml = template
        for key in words {
            let word =
                key == "shop.cart"
                ? text.format(key, text.plural("shop.cart.items", count: items)) : text[key]
            xml = xml.replacingOccurrences(of: "{\(key)}", with: escaped(word))
        }
        return xml
    }

    private static func escaped(_ word: String) -> String {
        word.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static let template = """
        <?xml version="1.0" encoding="UTF-8"?>
        <interface>
          <object class="GtkWindow" id="window">
            <property name="title">{shop.name}</property>
            <property name="default-width">440</property>
            <child>
              <object class="GtkBox">
                <property name="orientation">vertical</property>
                <property name="spacing">10</property>
                <property name="margin-top">16</property>
                <property name="margin-bottom">16</property>
                <property name="margin-start">16</property>
                <property name="margin-end">16</property>
                <child><object class="GtkLabel"><property name="label">{shop.cart}</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkBox" id="cart">
                  <property name="orientation">vertical</property><property name="spacing">4</property></object></child>
                <child><object class="GtkLabel" id="cart-total"><property name="name">cart-total</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkLabel"><property name="label">{shop.card}</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkEntry" id="cardholder-name"><property name="name">cardholder-name</property>
                  <property name="placeholder-text">{shop.cardholderName}</property>
                  <accessibility><property name="label">{shop.cardholderName}</property></accessibility>
                  <style><class name="egwpay"/></style>
                </object></child>
                <child><object class="GtkBox" id="card-number-slot">
                  <property name="orientation">vertical</property></object></child>
                <child><object class="GtkBox" id="card-details-slot">
                  <property name="spacing">6</property></object></child>
                <child><object class="GtkLabel" id="card-errors"><property name="name">card-errors</property>
                  <property name="xalign">0</property><property name="wrap">1</property>
                  <property name="visible">0</property></object></child>
                <child><object class="GtkBox">
                  <property name="spacing">6</property>
                  <child><object class="GtkButton" id="pay-card"><property name="name">pay-card</property>
                    <property name="label">{shop.pay.card}</property>
                    <style><class name="egwpay"/></style></object></child>
                  <child><object class="GtkButton" id="pay-wallet"><property name="name">pay-wallet</property>
                    <property name="label">{shop.pay.wallet}</property>
                    <style><class name="egwpay"/></style></object></child>
                  <child><object class="GtkButton" id="hosted"><property name="name">hosted</property>
                    <property name="label">{shop.pay.hosted}</property>
                    <style><class name="egwpay"/></style></object></child>
                </object></child>
                <child><object class="GtkLabel" id="result"><property name="name">result</property>
                  <property name="xalign">0</property><property name="wrap">1</property>
                  <property name="selectable">0</property><property name="visible">0</property></object></child>
              </object>
            </child>
          </object>
        </interface>
        """
}
