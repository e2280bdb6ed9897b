/// Where the shell's text goes: the process's stdout and stderr, or a test's buffers.
struct OutputSink: Sendable {
    /// The two streams.
    enum Stream: Sendable {
        /// Results, reports, prompts (fd 1).
        case out
        /// Errors (fd 2).
        case err
    }

    /// Writes `text` as it is (no newline added) to a stream; may be called from any thread.
    var write: @Sendable (_ text: String, _ stream: Stream) -> Void

    /// The process's descriptors 1 and 2, unbuffered.
    static let process = OutputSink { text, stream in
        Platform.write(text, to: stream == .out ? 1 : 2)
    }
}
