import { mediaTypeOf, sourceOf, type AttachmentPart } from '../core'

// What the request mappings need to read attachments: their media types and the bytes of data URLs.

/** Plain text files are read and sent as text by every adapter. */
export const TEXT_FILE_TYPES = ['text/plain', 'text/markdown', 'text/csv']

const EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
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
  const name = part.name ?? (typeof source === 'string' ? source.split(/[?#]/)[0] : '')
  const extension = /\.([a-z0-9]+)$/i.exec(name ?? '')?.[1]?.toLowerCase()
  return extension ? EXTENSIONS[extension] : undefined
}

/** The base64 payload of a data URL (what Anthropic's `source.data` wants). */
export function base64Of(dataUrl: string): string {
  const comma = dataUrl.indexOf(',')
  const payload = dataUrl.slice(comma + 1)
  if (/;base64$/i.test(dataUrl.slice(0, comma))) return payload
  return base64OfBytes(new TextEncoder().encode(decodeURIComponent(payload)))
}

/** The text of a plain-text file given as a data URL (after `inlineAttachments`). */
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
