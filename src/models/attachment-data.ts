import { mediaTypeOf, partsOf, sourceOf, type AttachmentPart, type UserMessage } from '../core'

// What the request mappings need to read attachments: their media types, data URLs checked and read.

/** Plain text files are read and sent as text by every adapter. */
export const TEXT_FILE_TYPES = ['text/plain', 'text/markdown', 'text/csv']

const EXTENSIONS: Record<string, string> = {
  jpg: 'image/jpeg',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
}

/** The media type of an attachment, from the part, its bytes, or (a URL) its file extension. */
export function attachmentType(part: AttachmentPart): string | undefined {
  const known = mediaTypeOf(part)
  if (known) return known === 'image/jpg' ? 'image/jpeg' : known
  const source = sourceOf(part)
  const name = part.name ?? (typeof source === 'string' ? source.split(/[?#]/)[0]! : '')
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]!.toLowerCase()
  if (!extension) return undefined
  return (
    EXTENSIONS[extension] ?? (/^(png|jpeg|webp|gif|bmp|tiff|heic)$/.test(extension) ? `image/${extension}` : undefined)
  )
}

// The first bytes of each type a provider takes, for a Blob that does not say its type.
const SIGNATURES: Array<[RegExp, string]> = [
  [/^\x89PNG/, 'image/png'],
  [/^\xff\xd8\xff/, 'image/jpeg'],
  [/^GIF8/, 'image/gif'],
  [/^RIFF....WEBP/s, 'image/webp'],
  [/^%PDF-/, 'application/pdf'],
]

/** The media type its first bytes say, when they are of a type a provider takes. */
export function sniffedType(bytes: Uint8Array): string | undefined {
  const head = String.fromCharCode(...bytes.subarray(0, 12))
  return SIGNATURES.find(([signature]) => signature.test(head))?.[1]
}

/**
 * Whether a `data:` URL is malformed: it needs a comma before the data, and base64 that decodes;
 * only a plain-text file (`text`) may be percent-encoded instead.
 */
export function isMalformedDataUrl(url: string, text: boolean): boolean {
  const comma = url.indexOf(',')
  const payload = url.slice(comma + 1)
  return (
    comma < 0 ||
    !(/;base64$/i.test(url.slice(0, comma))
      ? payload.length % 4 === 0 && /^[a-z\d+/]*={0,2}$/i.test(payload)
      : text && percentDecodes(payload))
  )
}

function percentDecodes(payload: string): boolean {
  try {
    // Compared, not called for nothing: a minifier drops a call to a pure global whose result is unused.
    return decodeURIComponent(payload).length >= 0
  } catch {
    return false
  }
}

/** The base64 payload of a data URL (what Anthropic's `source.data` wants). */
export function base64Of(dataUrl: string): string {
  const comma = dataUrl.indexOf(',')
  const payload = dataUrl.slice(comma + 1)
  if (/;base64$/i.test(dataUrl.slice(0, comma))) return payload
  return base64OfBytes(new TextEncoder().encode(decodeURIComponent(payload)))
}

/** The text of a plain-text file given as a data URL (after `withAttachments` checked it). */
export function textOfDataUrl(dataUrl: string): string {
  const comma = dataUrl.indexOf(',')
  const payload = dataUrl.slice(comma + 1)
  if (!/;base64$/i.test(dataUrl.slice(0, comma))) return decodeURIComponent(payload)
  const binary = atob(payload)
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0))
  return new TextDecoder().decode(bytes)
}

/** A plain-text file as the text a model reads: its name, then its content. */
export function textFileText(part: AttachmentPart): string {
  const source = sourceOf(part) as string
  return `${part.name ?? 'file'}:\n${textOfDataUrl(source)}`
}

/** A user message as text, for engines that take text only: its text parts and plain-text files, in order. */
export function textOfUserMessage(message: UserMessage): string {
  if (!message.parts) return message.text
  const texts: string[] = []
  for (const part of partsOf(message)) {
    if (part.type === 'text' && part.text) texts.push(part.text)
    else if (part.type === 'file' && isTextFile(part)) texts.push(textFileText(part))
  }
  return texts.join('\n\n')
}

export function isTextFile(part: AttachmentPart): boolean {
  const type = attachmentType(part)
  return part.type === 'file' && type !== undefined && TEXT_FILE_TYPES.includes(type)
}

export function base64OfBytes(bytes: Uint8Array): string {
  let binary = ''
  // String.fromCharCode takes a bounded number of arguments: convert in slices.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}
