import { partsOf, type UserMessage } from '../core'
import { isTextFile, textFileText } from './attachment-data'

// Loaded only for a request whose user messages have parts (attachments).

/**
 * A user message with attachments as content parts: images as `image_url` (a URL or data URL), a
 * PDF as a `file` with its bytes, a plain-text file as text. Blobs were read into data URLs before.
 */
export function userContent(message: UserMessage): string | Array<Record<string, unknown>> {
  if (!message.parts) return message.text
  return partsOf(message).map((part) => {
    switch (part.type) {
      case 'image':
        return { type: 'image_url', image_url: { url: part.image } }
      case 'file':
        if (isTextFile(part)) return { type: 'text', text: textFileText(part) }
        return { type: 'file', file: { filename: part.name ?? 'file.pdf', file_data: part.data } }
      default:
        return { type: 'text', text: part.type === 'text' ? part.text : '' }
    }
  })
}
