/**
 * Finish reasons that end an answer before the model finished it: a token limit (`length`, and the
 * raw `model_length`, `model_context_window_exceeded`), a content filter, an `incomplete` Responses
 * answer, or the provider's own failure (`error`, DeepSeek's `insufficient_system_resource`).
 */
const STOPPED_SHORT =
  /^(length|content_filter|incomplete|error|model_length|model_context_window_exceeded)$|^insufficient/

/** Whether an answer with this finish reason was cut short: a tool call in it may be unfinished. */
export const stoppedShort = (finishReason: string | undefined): boolean => STOPPED_SHORT.test(String(finishReason))
