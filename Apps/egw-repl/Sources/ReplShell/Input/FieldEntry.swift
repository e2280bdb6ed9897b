import CardValidation

/// A one-field line editor for the terminal, driven by a CardValidation editing
/// model: every keystroke is an edit of the model, and the line is redrawn from
/// what `display` makes of the model (grouped digits, or a security code's `displayText`, dots). The
/// terminal's own echo is off, so what is typed is never shown as typed.
@MainActor
enum FieldEntry {
    /// Edits `editor` until Enter (true) or Esc / Ctrl-D / Ctrl-C (false).
    static func run<Editor: CardTextEditor>(
        prompt: String, interrupts: Interrupts, editor: inout Editor, display: (Editor) -> String
    ) -> Bool {
        let interruptsAtStart = interrupts.received
        return Platform.withCharacterMode(fd: 0) {
            func redraw() {
                let shown = display(editor)
                var line = "\r\u{1B}[K" + prompt + shown
                // Put the cursor at the model's caret.
                let back = shown.count - editor.caret
                if back > 0 {
                    line += "\u{1B}[\(back)D"
                }
                Platform.write(line, to: 1)
            }
            redraw()
            var escape: [UInt8] = []
            while true {
                if interrupts.received != interruptsAtStart {
                    Platform.write("\r\n", to: 1)
                    return false
                }
                guard Platform.waitReadable(0, milliseconds: 100) else {
                    continue
                }
                guard let byte = Platform.readByte(0) else {
                    Platform.write("\r\n", to: 1)
                    return false
                }
                if !escape.isEmpty {
                    escape.append(byte)
                    if escape.count == 2 && byte != UInt8(ascii: "[") {
                        escape.removeAll()
                        Platform.write("\r\n", to: 1)
                        return false  // a lone Esc followed by a key: cancel
                    }
                    if escape.count >= 3 {
                        switch byte {
                        case UInt8(ascii: "C"): editor.moveCaret(to: editor.caret + 1)
                        case UInt8(ascii: "D"): editor.moveCaret(to: editor.caret - 1)
                        case UInt8(ascii: "H"): editor.moveCaret(to: 0)
                        case UInt8(ascii: "F"): editor.moveCaret(to: editor.text.count)
                        case UInt8(ascii: "3"): _ = editor.deleteForward()
                        default: break
                        }
                        if (0x40...0x7E).contains(byte) || byte == UInt8(ascii: "3") {
                            escape.removeAll()
                        }
                        redraw()
                    }
                    continue
                }
                switch byte {
                case 0x0D, 0x0A:  // Enter
                    Platform.write("\r\n", to: 1)
                    return true
                case 0x04:  // Ctrl-D
                    Platform.write("\r\n", to: 1)
                    return false
                case 0x1B:
                    escape = [byte]
                case 0x7F, 0x08:
                    _ = editor.deleteBackward()
                case 0x15:  // Ctrl-U
                    _ = editor.replace(0..<editor.text.count, with: "")
                case 0x01:  // Ctrl-A
                    editor.moveCaret(to: 0)
                case 0x05:  // Ctrl-E
                    editor.moveCaret(to: editor.text.count)
                default:
                    if byte >= 0x20 && byte < 0x7F {
                        if editor.insert(String(UnicodeScalar(byte))) == .rejected {
                            Platform.write("\u{07}", to: 1)
                        }
                    }
                }
                redraw()
            }
        }
    }

    /// Replaces the line just entered (one line up) with `text`.
    static func redrawFinal(_ text: String) {
        Platform.write("\u{1B}[1A\r\u{1B}[K" + text + "\r\n", to: 1)
    }
}
