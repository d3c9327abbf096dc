// The parts a message is made of, in order. Plain data (a Blob is the one exception: it may hold
// an image or file where the browser keeps it, and IndexedDB and postMessage copy it as it is).

export interface TextPart {
  type: 'text'
  text: string
}

/**
 * What the model thought before (or between) its answers. The provider's signature or encrypted
 * item stays opaque in the message's metadata (`anthropicThinking`, `openaiResponsesItems`) and
 * goes back to the provider unchanged; this part is the readable text and its place in the order.
 */
export interface ReasoningPart {
  type: 'reasoning'
  text: string
}

export interface ToolCallPart {
  type: 'tool-call'
  id: string
  name: string
  /** Raw JSON text, as in `ToolCall`. */
  arguments: string
}

export interface ToolResultPart {
  type: 'tool-result'
  id: string
  name: string
  responseData: string
}

/** An image: an `https:` URL, a `data:` URL, or a Blob (a File from an `<input type="file">` is one). */
export interface ImagePart {
  type: 'image'
  image: string | Blob
  /** `image/png`, …; read from the Blob or data URL when absent. */
  mediaType?: string
  /** A file name to show, e.g. the picked file's. */
  name?: string
  /** Bytes, when known; a trace, which leaves the bytes out, says how many there were. */
  size?: number
}

/** A document: PDF and plain text at least. `data` is a `data:` URL, an `https:` URL, or a Blob. */
export interface FilePart {
  type: 'file'
  data: string | Blob
  /** `application/pdf`, `text/plain`, …; read from the Blob or data URL when absent. */
  mediaType?: string
  name?: string
  /** Bytes, when known; a trace, which leaves the bytes out, says how many there were. */
  size?: number
}

export type AttachmentPart = ImagePart | FilePart
export type UserPart = TextPart | AttachmentPart
export type AssistantPart = TextPart | ReasoningPart | ToolCallPart
export type MessagePart = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | ImagePart | FilePart

export function textPart(text: string): TextPart {
  return { type: 'text', text }
}

export function imagePart(image: string | Blob, options: { mediaType?: string; name?: string } = {}): ImagePart {
  return { type: 'image', image, ...withName(image, options) }
}

export function filePart(data: string | Blob, options: { mediaType?: string; name?: string } = {}): FilePart {
  return { type: 'file', data, ...withName(data, options) }
}

function withName(source: string | Blob, options: { mediaType?: string; name?: string }) {
  const name = options.name ?? (isBlob(source) && 'name' in source ? (source as File).name : undefined)
  return { ...(options.mediaType ? { mediaType: options.mediaType } : {}), ...(name ? { name } : {}) }
}

export function isBlob(value: unknown): value is Blob {
  return typeof Blob !== 'undefined' && value instanceof Blob
}

/** The bytes or URL an attachment holds. */
export function sourceOf(part: AttachmentPart): string | Blob {
  return part.type === 'image' ? part.image : part.data
}

/** The media type of an attachment: as given, else the Blob's, else the data URL's; undefined for a bare URL. */
export function mediaTypeOf(part: AttachmentPart): string | undefined {
  if (part.mediaType) return part.mediaType.toLowerCase()
  const source = sourceOf(part)
  if (isBlob(source)) return source.type ? source.type.toLowerCase() : undefined
  const match = /^data:([^;,]+)[;,]/i.exec(source)
  return match ? match[1]!.toLowerCase() : undefined
}

/** The size in bytes of an attachment held in the page (Blob or data URL); undefined for a URL. */
export function byteSizeOf(part: AttachmentPart): number | undefined {
  const source = sourceOf(part)
  if (isBlob(source)) return source.size
  if (!source.startsWith('data:')) return undefined
  const comma = source.indexOf(',')
  if (comma < 0) return 0
  const payload = source.length - comma - 1
  if (!/;base64$/i.test(source.slice(0, comma))) return payload
  const padding = source.endsWith('==') ? 2 : source.endsWith('=') ? 1 : 0
  return Math.floor((payload * 3) / 4) - padding
}

/** Whether an untrusted value is a well-formed part of a user or assistant message. */
export function isPart(value: unknown, role: 'user' | 'assistant'): value is MessagePart {
  if (value === null || typeof value !== 'object') return false
  const part = value as Record<string, unknown>
  const text = (field: unknown) => typeof field === 'string'
  const optionalText = (field: unknown) => field === undefined || text(field)
  const source = (field: unknown) => text(field) || isBlob(field)
  switch (part['type']) {
    case 'text':
      return text(part['text'])
    case 'reasoning':
      return role === 'assistant' && text(part['text'])
    case 'tool-call':
      return role === 'assistant' && text(part['id']) && text(part['name']) && text(part['arguments'])
    case 'image':
      return role === 'user' && source(part['image']) && optionalText(part['mediaType']) && optionalText(part['name'])
    case 'file':
      return role === 'user' && source(part['data']) && optionalText(part['mediaType']) && optionalText(part['name'])
    default:
      return false
  }
}
