/// The shop's window as a GtkBuilder description: the app's own layout, into which the SDK's three card
/// entries are packed (`card-number-slot`, `card-details-slot`). Widget names are what tests click.
/// Its own target so that `bare-gtk-window --shop` (measure.sh's baseline) draws the same widgets.
public enum ShopWindowUI {
    /// The GtkBuilder description; the top-level window's id is `window`.
    public static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <interface>
          <object class="GtkWindow" id="window">
            <property name="title">EGW shop</property>
            <property name="default-width">440</property>
            <child>
              <object class="GtkBox">
                <property name="orientation">vertical</property>
                <property name="spacing">10</property>
                <property name="margin-top">16</property>
                <property name="margin-bottom">16</property>
                <property name="margin-start">16</property>
                <property name="margin-end">16</property>
                <child><object class="GtkLabel"><property name="label">Your cart</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkBox" id="cart">
                  <property name="orientation">vertical</property><property name="spacing">4</property></object></child>
                <child><object class="GtkLabel" id="cart-total"><property name="name">cart-total</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkLabel"><property name="label">Card</property>
                  <property name="xalign">0</property></object></child>
                <child><object class="GtkEntry" id="cardholder-name"><property name="name">cardholder-name</property>
                  <property name="placeholder-text">Name on card</property>
                  <accessibility><property name="label">Name on card</property></accessibility>
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
                    <property name="label">Pay by card</property></object></child>
                  <child><object class="GtkButton" id="pay-wallet"><property name="name">pay-wallet</property>
                    <property name="label">Pay with wallet</property></object></child>
                  <child><object class="GtkButton" id="hosted"><property name="name">hosted</property>
                    <property name="label">Hosted checkout</property></object></child>
                </object></child>
                <child><object class="GtkLabel" id="result"><property name="name">result</property>
                  <property name="xalign">0</property><property name="wrap">1</property>
                  <property name="selectable">0</property></object></child>
              </object>
            </child>
          </object>
        </interface>
        """
}
