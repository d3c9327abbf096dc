import { isBlob, mediaTypeOf, type AttachmentPart, type Message, type UserPart } from '../core'

/**
 * The message as IndexedDB should keep it: attachments given as `data:` URLs become Blobs, so the
 * bytes are stored once, as bytes (IndexedDB stores Blobs natively), not as base64 text a third
 * larger inside every read of the conversation. Other messages are returned as they are.
 */
export function withBlobAttachments(message: Message): Message {
  if (message.role !== 'user' || !message.parts?.some(isInlineData)) return message
  return { ...message, parts: message.parts.map((part): UserPart => (isInlineData(part) ? asBlobPart(part) : part)) }
}

function isInlineData(part: UserPart): part is AttachmentPart {
  if (part.type === 'text') return false
  const source = part.type === 'image' ? part.image : part.data
  return !isBlob(source) && source.startsWith('data:')
}

function asBlobPart(part: AttachmentPart): AttachmentPart {
  const url = (part.type === 'image' ? part.image : part.data) as string
  const mediaType = mediaTypeOf(part) ?? 'application/octet-stream'
  const blob = new Blob([bytesOf(url)], { type: mediaType })
  return part.type === 'image' ? { ...part, image: blob, mediaType } : { ...part, data: blob, mediaType }
}

function bytesOf(dataUrl: string): Uint8Array<ArrayBuffer> {
  const comma = dataUrl.indexOf(',')
  const payload = dataUrl.slice(comma + 1)
  if (!/;base64$/i.test(dataUrl.slice(0, comma))) return new TextEncoder().encode(decodeURIComponent(payload))
  const binary = atob(payload)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
