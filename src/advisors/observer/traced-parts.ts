import {
  byteSizeOf,
  isBlob,
  mediaTypeOf,
  sourceOf,
  type AssistantPart,
  type AttachmentPart,
  type UserPart,
} from '../../core'

/** Data URLs up to this length go into a trace as they are (thumbnails); larger ones are left out. */
export const TRACED_DATA_URL_LENGTH = 64 * 1024

// One object URL per Blob for the page's lifetime: every round of a run shows the same image.
const objectUrls = new WeakMap<Blob, string>()

/**
 * The parts of a message as a trace keeps them: text through `mask` (the redactor), attachments
 * without their bytes — a link the devtools can show as a thumbnail (an https URL, a small data
 * URL, a blob: URL of the page) and the media type, name and size.
 */
export function tracedParts<P extends UserPart | AssistantPart>(
  parts: readonly P[],
  mask: (text: string) => string,
): P[] {
  return parts.map((part): P => {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        return { ...part, text: mask(part.text) }
      case 'tool-call':
        return { ...part, arguments: mask(part.arguments) }
      case 'image':
        return { ...described(part), type: 'image', image: linkOf(part, mask) } as P
      default:
        return {
          ...described(part),
          type: 'file',
          data: part.type === 'file' && isHttp(part.data) ? mask(part.data as string) : '',
        } as P
    }
  })
}

function described(part: AttachmentPart): { mediaType?: string; name?: string; size?: number } {
  const mediaType = mediaTypeOf(part)
  const size = byteSizeOf(part)
  return {
    ...(mediaType ? { mediaType } : {}),
    ...(part.name ? { name: part.name } : {}),
    ...(size !== undefined ? { size } : {}),
  }
}

function linkOf(part: AttachmentPart, mask: (text: string) => string): string {
  const source = sourceOf(part)
  if (isBlob(source)) {
    if (typeof URL.createObjectURL !== 'function') return ''
    let url = objectUrls.get(source)
    if (!url) objectUrls.set(source, (url = URL.createObjectURL(source)))
    return url
  }
  if (isHttp(source)) return mask(source)
  return source.startsWith('data:image/') && source.length <= TRACED_DATA_URL_LENGTH ? source : ''
}

function isHttp(source: string | Blob): boolean {
  return typeof source === 'string' && /^https?:\/\//i.test(source)
}
